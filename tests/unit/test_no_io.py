"""The unit tier's guard (tests/unit/conftest.py) fails a test that reaches for the network or
starts a process, and lets pure tests (event loops included) pass.

The planted tests run in-process under pytester with the guard as their conftest, so this file
itself does no I/O.
"""

from __future__ import annotations

import pytest

PLANTED = """
import asyncio
import socket
import subprocess
import sys

import grpc.aio


def test_connects_a_socket():
    socket.create_connection(("127.0.0.1", 9), timeout=1)


def test_binds_a_socket():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))


def test_starts_a_process():
    subprocess.run([sys.executable, "-c", "pass"], check=True)


def test_starts_an_asyncio_process():
    async def main():
        await asyncio.create_subprocess_exec(sys.executable, "-c", "pass")

    asyncio.run(main())


def test_starts_a_grpc_server():
    async def main():
        grpc.aio.server()

    asyncio.run(main())


def test_pure_code_and_an_event_loop_pass():
    async def main():
        await asyncio.sleep(0)
        return sum(range(10))

    assert asyncio.run(main()) == 45
"""


def test_the_guard_fails_planted_io_and_passes_pure_code(pytester: pytest.Pytester) -> None:
    pytester.makeconftest("from tests.unit.conftest import no_io  # noqa: F401\n")
    pytester.makepyfile(test_planted=PLANTED)
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    result = pytester.runpytest_inprocess("-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=5, passed=1)
    refused = [
        line for line in result.outlines if line.startswith("E ") and "UnitIOError: unit" in line
    ]
    called = {line.split("called ")[1].split(":")[0] for line in refused}
    assert called == {
        "socket.connect",
        "socket.bind",
        "subprocess.Popen",
        "grpc.aio.server",
    }, result.outlines
