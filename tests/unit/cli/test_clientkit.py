"""Amounts typed by people, errors as sentences, tokens read."""

from __future__ import annotations

import argparse

import grpc
import pytest

from riverboat.auth import TokenIssuer
from riverboat.cli.clientkit import (
    AmountError,
    add_address_flags,
    error_sentence,
    parse_amount,
    sentence,
    token_info,
)


@pytest.mark.parametrize(
    ("text", "cents"),
    [
        ("12", 1200),
        ("12.5", 1250),
        ("12.50", 1250),
        ("$12.50", 1250),
        (" 0.05 ", 5),
        ("1,000", 100_000),
        ("1250c", 1250),
        ("0c", 0),
        ("40", 4000),
    ],
)
def test_amounts_are_dollars_or_cents_with_a_c(text: str, cents: int) -> None:
    assert parse_amount(text) == cents


@pytest.mark.parametrize("text", ["", "abc", "12.505", "-5", "$", "12.5c", "1e3", "$12c"])
def test_what_is_not_an_amount_says_the_rule(text: str) -> None:
    with pytest.raises(AmountError, match=r"dollars .* or cents with a trailing c"):
        parse_amount(text)


def test_sentence() -> None:
    assert sentence("the table is full") == "The table is full."
    assert sentence("Done!") == "Done!"
    assert sentence("") == ""
    assert sentence("small_bet must be positive") == "small_bet must be positive."  # a name


class _Refusal(grpc.RpcError):
    def __init__(self, code: grpc.StatusCode, details: str) -> None:
        self._code, self._details = code, details

    def code(self) -> grpc.StatusCode:
        return self._code

    def details(self) -> str:
        return self._details


@pytest.mark.parametrize(
    ("code", "details", "expected"),
    [
        (
            grpc.StatusCode.UNAVAILABLE,
            "failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:50051: "
            "Failed to connect to remote host: Connection refused",
            "Cannot reach the lobby at 127.0.0.1:50051; is `make run` going?",
        ),
        (
            grpc.StatusCode.UNAVAILABLE,
            "a service the lobby needs did not answer (UNAVAILABLE)",
            "A service the lobby needs did not answer (UNAVAILABLE).",
        ),
        (
            grpc.StatusCode.FAILED_PRECONDITION,
            "it is seat 2's turn, not seat 1's",
            "It is seat 2's turn, not seat 1's.",
        ),
        (
            grpc.StatusCode.DEADLINE_EXCEEDED,
            "Deadline Exceeded",
            "The lobby at 127.0.0.1:50051 did not answer in time; try again.",
        ),
        (
            grpc.StatusCode.UNIMPLEMENTED,
            "Method not found!",
            "The server at 127.0.0.1:50051 is not the lobby (it does not know this call).",
        ),
        (
            grpc.StatusCode.INTERNAL,
            "internal error (incident 1f2e)",
            "The lobby failed: internal error (incident 1f2e).",
        ),
        (grpc.StatusCode.UNAUTHENTICATED, "", "The lobby refused (UNAUTHENTICATED)."),
    ],
)
def test_server_errors_read_as_sentences(
    code: grpc.StatusCode, details: str, expected: str
) -> None:
    assert error_sentence(_Refusal(code, details), "lobby", "127.0.0.1:50051") == expected


def test_token_info_reads_without_the_key() -> None:
    token = TokenIssuer(b"k" * 32).issue("ann", "player", ttl=60, now=1_000)
    info = token_info(token)
    assert (info.subject, info.role, info.expires) == ("ann", "player", 1_060)
    with pytest.raises(ValueError, match="not a Riverboat token"):
        token_info("garbage")


def test_addresses_come_from_a_flag_else_the_services_variable_else_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def parse(*argv: str) -> argparse.Namespace:
        parser = argparse.ArgumentParser()
        add_address_flags(parser, table=True)
        return parser.parse_args(argv)

    for name in ("LOBBY", "TABLE", "SETTLEMENT"):
        monkeypatch.delenv(f"RIVERBOAT_{name}_ADDRESS", raising=False)
    plain = parse()
    assert (plain.lobby, plain.table, plain.settlement) == (
        "127.0.0.1:50051",
        "127.0.0.1:50052",
        "127.0.0.1:50054",
    )
    monkeypatch.setenv("RIVERBOAT_LOBBY_ADDRESS", "10.0.0.5:7001")
    monkeypatch.setenv("RIVERBOAT_SETTLEMENT_ADDRESS", "10.0.0.5:7004")
    from_env = parse()
    assert (from_env.lobby, from_env.table, from_env.settlement) == (
        "10.0.0.5:7001",
        "127.0.0.1:50052",
        "10.0.0.5:7004",
    )
    assert parse("--lobby", "127.0.0.1:9").lobby == "127.0.0.1:9"
