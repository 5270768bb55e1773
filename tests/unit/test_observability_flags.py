"""The metrics and tracing start-up steps: off by default, and a bad setting is one clear exit."""

from __future__ import annotations

import argparse

import pytest

from riverboat.services.common import tracing
from riverboat.services.common.metrics import (
    add_metrics_arguments,
    metrics_address,
    start_metrics,
)


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_metrics_arguments(parser)
    tracing.add_tracing_arguments(parser)
    return parser.parse_args(argv)


def test_off_unless_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RIVERBOAT_METRICS_ADDRESS", raising=False)
    monkeypatch.delenv("RIVERBOAT_OTEL_EXPORTER", raising=False)
    args = _parse()
    assert start_metrics(args, "prog") is None
    tracing.start_tracing(args, "table", "prog")
    assert not tracing.enabled()
    assert tracing.server_interceptors() == [] and tracing.client_interceptors() == []


def test_the_flag_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RIVERBOAT_METRICS_ADDRESS", "127.0.0.1:9999")
    assert metrics_address(_parse()) == "127.0.0.1:9999"
    assert metrics_address(_parse("--metrics-address", "")) == ""


def test_an_unknown_exporter_is_refused() -> None:
    with pytest.raises(SystemExit) as caught:
        tracing.start_tracing(_parse("--otel", "jaeger"), "table", "riverboat-table")
    assert str(caught.value).startswith("riverboat-table: --otel jaeger: ")
    assert not tracing.enabled()
