"""riverboat.natsserver without running a server: binary lookup, versions, configuration."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest

from riverboat import natsserver
from riverboat.natsserver import (
    DEFAULT_PORT,
    NatsServer,
    NatsServerError,
    NatsServerNotFoundError,
    find_nats_server,
    server_version,
)


def fake_binary(directory: Path, version: str = "2.15.0", name: str = "nats-server") -> Path:
    """An executable that answers ``--version`` like nats-server."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(f'#!/bin/sh\necho "nats-server: v{version}"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.fixture
def no_default_binaries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Hide the venv's binary, the package's record and PATH, so each source can be tested."""
    monkeypatch.delenv(natsserver.BINARY_ENV_VAR, raising=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "empty-venv" / "bin" / "python"))
    monkeypatch.setattr(natsserver, "_binary_from_distribution", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))


def test_default_port_is_not_the_shared_4222() -> None:
    assert DEFAULT_PORT == NatsServer.DEFAULT_PORT == 4333
    assert NatsServer("/tmp/unused").port == 4333


def test_env_var_wins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    binary = fake_binary(tmp_path / "custom")
    monkeypatch.setenv(natsserver.BINARY_ENV_VAR, str(binary))

    assert find_nats_server() == binary


def test_env_var_pointing_nowhere_is_an_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv(natsserver.BINARY_ENV_VAR, str(tmp_path / "missing"))

    with pytest.raises(NatsServerNotFoundError, match="NATS_SERVER_BIN"):
        find_nats_server()


def test_binary_next_to_the_interpreter(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(natsserver.BINARY_ENV_VAR, raising=False)

    found = find_nats_server()

    # The test venv has nats-server-bin installed beside its python.
    assert found == Path(sys.executable).parent / "nats-server"
    assert server_version(found) >= natsserver.MIN_SERVER_VERSION


def test_package_record_is_used_when_not_beside_the_interpreter(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv(natsserver.BINARY_ENV_VAR, raising=False)
    real_bin_dir = Path(sys.executable).parent
    monkeypatch.setattr(sys, "executable", str(tmp_path / "elsewhere" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty-path"))

    assert find_nats_server() == (real_bin_dir / "nats-server").resolve()


def test_path_is_the_last_resort(
    no_default_binaries: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    binary = fake_binary(tmp_path / "on-path")
    monkeypatch.setenv("PATH", str(binary.parent))

    assert find_nats_server() == binary


def test_nothing_found_lists_what_was_tried(no_default_binaries: None) -> None:
    with pytest.raises(NatsServerNotFoundError) as caught:
        find_nats_server()

    message = str(caught.value)
    assert "NATS_SERVER_BIN" in message and "PATH" in message and "nats-server-bin" in message
    assert isinstance(caught.value, FileNotFoundError)


def test_server_version_parses_output(tmp_path: Path) -> None:
    assert server_version(fake_binary(tmp_path, "2.11.4")) == (2, 11, 4)


def test_too_old_server_is_refused(tmp_path: Path) -> None:
    server = NatsServer(tmp_path / "store", port=0, binary=fake_binary(tmp_path / "bin", "2.9.10"))

    with pytest.raises(NatsServerError, match=r"v2\.9\.10.*>= v2\.11\.0"):
        server.start()
    assert not server.is_running


def test_config_sets_durable_jetstream(tmp_path: Path) -> None:
    server = NatsServer(tmp_path / "store dir", host="127.0.0.1", port=4333)

    text = server.config_text(tmp_path / "ports")

    assert "sync_interval: always" in text
    assert f'store_dir: "{tmp_path / "store dir"}"' in text
    assert "port: 4333" in text and 'host: "127.0.0.1"' in text
    assert "port: -1" in NatsServer(tmp_path, port=0).config_text(tmp_path / "ports")


def test_url_needs_a_real_port(tmp_path: Path) -> None:
    assert NatsServer(tmp_path, port=4444).url == "nats://127.0.0.1:4444"
    with pytest.raises(NatsServerError):
        _ = NatsServer(tmp_path, port=0).url
    with pytest.raises(ValueError):
        NatsServer(tmp_path, port=70000)
