"""Start Riverboat's services as child processes and wait until they report SERVING.

Used by ``riverboat up`` and by the end-to-end and crash tests, so both exercise the same
processes an operator runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from riverboat import natsserver


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now, and that no outgoing
    connection takes while a service restarted on it is down (see natsserver.free_port)."""
    return natsserver.free_port("127.0.0.1")


def wait_serving(
    address: str,
    timeout: float = 30.0,
    service: str = "",
    process: subprocess.Popen[bytes] | None = None,
) -> None:
    """Block until the gRPC health service at ``address`` says SERVING (or ``process`` dies)."""
    deadline = time.monotonic() + timeout
    last = "no answer"
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while time.monotonic() < deadline:
            if process is not None and process.poll() is not None:
                raise TimeoutError(f"the process exited with status {process.returncode}")
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
                last = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
            except grpc.RpcError as exc:
                last = exc.code().name
            time.sleep(0.1)
    raise TimeoutError(f"{address} not SERVING after {timeout:.0f}s (last: {last})")


class ServiceProcess:
    """One service as a child process (``python -m riverboat.services.<name> ...``)."""

    def __init__(
        self,
        name: str,
        address: str,
        args: Sequence[str],
        *,
        log_path: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.name = name
        self.address = address
        self.args = list(args)
        self.log_path = log_path
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    def _module(self) -> str:
        """The module run as ``python -m``: the service's."""
        return f"riverboat.services.{self.name}"

    def _spawn(self) -> None:
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        command = [sys.executable, "-m", self._module(), *self.args]
        # Its own process group: a Ctrl-C at the terminal reaches the launcher only, which stops
        # the services in order (and a closed stdout pipe cannot take them down half-way).
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            env={**os.environ, **(self.env or {})},
            process_group=0,
        )
        if self.log_path:
            out.close()  # type: ignore[union-attr]

    def start(self, timeout: float = 30.0) -> None:
        """Start and wait for SERVING; on failure, the error includes the log's tail."""
        self._spawn()
        assert self.process is not None
        try:
            wait_serving(self.address, timeout, process=self.process)
        except TimeoutError as exc:
            code = self.process.poll()
            tail = self.log_tail()
            self.kill()
            raise RuntimeError(f"{self.name} did not start (exit {code}): {exc}\n{tail}") from None

    def log_tail(self, lines: int = 20) -> str:
        """The last lines of the service's log file, if it has one."""
        if not self.log_path or not self.log_path.exists():
            return ""
        return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])

    def kill(self) -> None:
        """SIGKILL to the service's process group: a crash, for the crash tests."""
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(10)

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM and wait (graceful shutdown), then SIGKILL if it does not exit."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    @property
    def running(self) -> bool:
        """Whether the process is alive."""
        return self.process is not None and self.process.poll() is None


class ToolProcess(ServiceProcess):
    """A ``riverboat`` command as a child process (``python -m riverboat.cli ARGS``) that serves
    nothing, such as the chain-heads publisher of ``riverboat up``: started, not waited for;
    stopped like a service."""

    def _module(self) -> str:
        return "riverboat.cli"

    def start(self, timeout: float = 30.0) -> None:
        """Start; fail if it exits at once (bad arguments), with its log's tail."""
        self._spawn()
        assert self.process is not None
        try:
            code = self.process.wait(min(timeout, 1.0))
        except subprocess.TimeoutExpired:
            return
        raise RuntimeError(f"{self.name} exited at once (status {code})\n{self.log_tail()}")
