"""The dealer as a real process: ``python -m riverboat.services.dealer``, kill -9, restart."""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import grpc.aio
import pytest

from riverboat.engine.cards import card_str
from riverboat.services.dealer.config import DealerConfig
from riverboat.shuffle import commitment, derive_deck
from tests.integration.dealer._kit import (
    CARD_TOKEN,
    DealerClient,
    TableLog,
    committed,
    ended,
    started,
    unique,
)

pytestmark = pytest.mark.timeout(60)


class DealerProcess:
    """One ``python -m riverboat.services.dealer`` child with JSON logs in a file."""

    def __init__(self, config: DealerConfig, workdir: Path, log_path: Path) -> None:
        self.log_path = log_path
        env = {k: v for k, v in os.environ.items() if not k.startswith("RIVERBOAT_")}
        env["RIVERBOAT_TOKEN_KEY"] = os.environ["RIVERBOAT_TOKEN_KEY"]  # the tests' token key
        args = [
            sys.executable,
            "-m",
            "riverboat.services.dealer",
            "--address",
            "127.0.0.1:0",
            "--nats",
            config.nats_url,
            "--log-format",
            "json",
            "--log-level",
            "debug",
            "--grace",
            "1",
            # The embedded room's development key, as `riverboat up` passes it: without a key
            # (or this flag) the dealer would not start at all.
            "--dev-key-file",
            "var/dealer.key",
            # These tests check RBS1's deck (the deck in order); CRV1: test_dealer_crv1.py.
            "--scheme",
            config.scheme,
        ]
        for flag in ("tables", "seeds", "audit"):
            args += [f"--{flag}-stream", getattr(config, f"{flag}_stream")]
            args += [f"--{flag}-prefix", getattr(config, f"{flag}_prefix")]
        with log_path.open("wb") as log:
            self.process = subprocess.Popen(
                args, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=log, stderr=log
            )
        self.address = self._wait_ready()

    def lines(self) -> list[dict[str, object]]:
        """The JSON log lines so far (every line must be JSON)."""
        text = self.log_path.read_text(encoding="utf-8")
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def _wait_ready(self, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in self.lines() if self.log_path.exists() else []:
                if line.get("event") == "dealer ready":
                    return str(line["address"])
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.process.kill()
        raise AssertionError(f"dealer did not start:\n{self.log_path.read_text()[-3000:]}")


async def test_kill_9_and_restart_serve_the_same_deck(
    config: DealerConfig, table_log: TableLog, tmp_path: Path
) -> None:
    table, hand = unique("t"), unique("h")
    first = DealerProcess(config, tmp_path, tmp_path / "first.log")
    try:
        # No key configured but --dev-key-file: the key is made there, private to its owner.
        key_file = tmp_path / "var" / "dealer.key"
        assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
        warnings = [line for line in first.lines() if line["level"] == "warning"]
        assert any("DEVELOPMENT" in str(line["event"]) for line in warnings)

        async with grpc.aio.insecure_channel(first.address) as channel:
            client = DealerClient(channel, table_log=table_log)
            commit = await client.commit(table, hand)
            logged = await table_log.append(table, committed(commit, hand))
            before = await client.deck(table, hand, logged.stream_sequence)
    finally:
        first.process.kill()  # SIGKILL: no shutdown code runs
        first.process.wait(10)
    assert first.process.returncode == -signal.SIGKILL

    second = DealerProcess(config, tmp_path, tmp_path / "second.log")
    try:
        async with grpc.aio.insecure_channel(second.address) as channel:
            client = DealerClient(channel, table_log=table_log)
            assert await client.deck(table, hand, logged.stream_sequence) == before
            assert await client.commit(table, hand) == commit
            await table_log.append(table, started(hand), ended())
            revealed = await client.reveal(table, hand)
        assert commitment(hand, revealed.seed) == commit.commitment
        assert [card_str(card) for card in derive_deck(hand, revealed.seed)] == before

        # SIGTERM: a graceful stop with exit status 0.
        second.process.send_signal(signal.SIGTERM)
        assert second.process.wait(15) == 0
    finally:
        if second.process.poll() is None:
            second.process.kill()
            second.process.wait(10)

    for run in (first, second):
        lines = run.lines()
        text = run.log_path.read_text(encoding="utf-8")
        assert revealed.seed.hex() not in text
        assert not CARD_TOKEN.search(text)
        rpc_lines = [line for line in lines if "rpc" in line]
        assert rpc_lines and all(line["table_id"] == table for line in rpc_lines)
    assert any(
        line["event"] == "stopped" and line.get("service") == "dealer" for line in second.lines()
    )
