"""Dealer settings and the sealing key: flags, environment, key files, the development key."""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import stat
from pathlib import Path

import pytest

from riverboat.cli.app import build_parser as riverboat_parser
from riverboat.cli.dealer_cmd import cmd_serve
from riverboat.natsserver import DEFAULT_PORT
from riverboat.services.dealer.config import (
    DEFAULT_ADDRESS,
    DEFAULT_NATS_URL,
    ENV_ADDRESS,
    ENV_KEY,
    ENV_KEY_FILE,
    ENV_NATS_URL,
    ConfigError,
    DealerConfig,
)
from riverboat.services.dealer.keys import key_id, load_seal_key
from riverboat.services.dealer.server import build_parser, main

HEX_KEY = bytes(range(32)).hex()


def parse(*argv: str, env: dict[str, str] | None = None) -> DealerConfig:
    return DealerConfig.from_namespace(build_parser().parse_args(list(argv)), env or {})


def test_defaults() -> None:
    config = parse()
    assert config.address == DEFAULT_ADDRESS == "127.0.0.1:50053"
    assert config.nats_url == DEFAULT_NATS_URL == f"nats://127.0.0.1:{DEFAULT_PORT}"
    assert DEFAULT_PORT != 4222  # the machine's own NATS is never Riverboat's
    assert (config.seeds_stream, config.audit_stream, config.tables_stream) == (
        "RB_DEALER",
        "RB_AUDIT",
        "RB_TABLES",
    )


def test_flags_override_the_environment() -> None:
    env = {ENV_ADDRESS: "127.0.0.1:6000", ENV_NATS_URL: "nats://127.0.0.1:4999"}
    assert parse(env=env).address == "127.0.0.1:6000"
    assert parse(env=env).nats_url == "nats://127.0.0.1:4999"
    config = parse("--address", "0.0.0.0:7000", "--nats", "nats://n:1", env=env)
    assert (config.address, config.nats_url) == ("0.0.0.0:7000", "nats://n:1")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--address", "nope"], "--address"),
        (["--address", "host:70000"], "--address"),
        (["--seeds-stream", "bad.name"], "--seeds-stream"),
        (["--audit-prefix", "a..b"], "--audit-prefix"),
        (["--audit-prefix", "rb.tables"], "must differ"),
        (["--grace", "0"], "--grace"),
    ],
)
def test_bad_settings_are_named(argv: list[str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        parse(*argv)


def test_main_exits_2_on_bad_settings(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--address", "nope"]) == 2
    assert "--address" in capsys.readouterr().err


def test_a_malformed_key_exits_2_without_echoing_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV_KEY, "zz-not-a-key-zz")
    monkeypatch.delenv(ENV_KEY_FILE, raising=False)
    assert main(["--log-format", "json"]) == 2
    err = capsys.readouterr().err
    assert ENV_KEY in err and "not-a-key" not in err


def test_key_file_then_environment_then_development_key(tmp_path: Path) -> None:
    key_file = tmp_path / "dealer.key"
    key_file.write_text(HEX_KEY + "\n")
    key_file.chmod(0o600)
    other = base64.b64encode(bytes(range(100, 132))).decode()

    from_file = load_seal_key(
        DealerConfig(seal_key_file=key_file, seal_key_text=other, dev_key_file=tmp_path / "d")
    )
    assert from_file.key == bytes.fromhex(HEX_KEY) and not from_file.development
    assert "file" in from_file.source

    from_env = load_seal_key(DealerConfig(seal_key_text=other, dev_key_file=tmp_path / "d"))
    assert from_env.key == bytes(range(100, 132)) and ENV_KEY in from_env.source
    assert other not in repr(from_env) and other not in repr(DealerConfig(seal_key_text=other))
    assert from_env.key_id == key_id(bytes(range(100, 132))) != from_file.key_id


def test_development_key_is_private_and_reused(tmp_path: Path, captured_logs: io.StringIO) -> None:
    dev_key_file = tmp_path / "var" / "dealer.key"
    config = DealerConfig(dev_key_file=dev_key_file)
    first = load_seal_key(config)
    assert first.development
    assert stat.S_IMODE(dev_key_file.stat().st_mode) == 0o600
    assert load_seal_key(config).key == first.key  # a restart opens the same seeds
    warnings = [json.loads(line) for line in captured_logs.getvalue().splitlines()]
    assert [line["created"] for line in warnings if line["level"] == "warning"] == [True, False]
    assert first.key.hex() not in captured_logs.getvalue()


def test_shared_key_file_is_warned_about(tmp_path: Path, captured_logs: io.StringIO) -> None:
    key_file = tmp_path / "dealer.key"
    key_file.write_text(HEX_KEY)
    key_file.chmod(0o644)
    load_seal_key(DealerConfig(seal_key_file=key_file))
    assert "chmod 600" in captured_logs.getvalue()
    assert HEX_KEY not in captured_logs.getvalue()


@pytest.mark.parametrize("content", ["", "abc", "g" * 64, HEX_KEY[:-2]])
def test_bad_key_files_are_config_errors(tmp_path: Path, content: str) -> None:
    key_file = tmp_path / "dealer.key"
    key_file.write_text(content)
    with pytest.raises(ConfigError, match=str(key_file)) as info:
        load_seal_key(DealerConfig(seal_key_file=key_file))
    assert not content or content not in str(info.value)


def test_missing_key_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_seal_key(DealerConfig(seal_key_file=tmp_path / "absent.key"))


def test_riverboat_dealer_serve_command() -> None:
    args = riverboat_parser().parse_args(
        ["dealer", "serve", "--address", "127.0.0.1:0", "--seal-key-file", os.devnull]
    )
    assert isinstance(args, argparse.Namespace)
    assert args.handler is cmd_serve
    config = DealerConfig.from_namespace(args, {})
    assert config.address == "127.0.0.1:0" and config.seal_key_file == Path(os.devnull)
