"""The metrics endpoint's start-up step against a real socket: a malformed or taken address is one
clear exit naming the flag."""

from __future__ import annotations

import argparse
import socket

import pytest

from riverboat.services.common import tracing
from riverboat.services.common.metrics import add_metrics_arguments, start_metrics


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_metrics_arguments(parser)
    tracing.add_tracing_arguments(parser)
    return parser.parse_args(argv)


def test_a_malformed_or_taken_address_is_one_line_naming_the_flag() -> None:
    with pytest.raises(SystemExit) as caught:
        start_metrics(_parse("--metrics-address", "nowhere"), "riverboat-table")
    assert str(caught.value).startswith("riverboat-table: --metrics-address nowhere: ")
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(SystemExit) as caught:
            start_metrics(_parse("--metrics-address", f"127.0.0.1:{port}"), "riverboat-table")
    assert f"--metrics-address 127.0.0.1:{port}: " in str(caught.value)
