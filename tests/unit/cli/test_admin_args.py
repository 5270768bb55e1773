"""``riverboat admin``: option overrides, request ids, and the command tree."""

from __future__ import annotations

import pytest

from riverboat.cli.admin_cmd import Refused, default_request_id, parse_override
from riverboat.cli.app import build_parser


@pytest.mark.parametrize(
    ("text", "pair"),
    [
        ("small_bet=500", ("small_bet", 500)),
        ("uncap_heads_up=False", ("uncap_heads_up", False)),
        ("ante_mode=dealer", ("ante_mode", "dealer")),
        ("rake_basis_points = 500", ("rake_basis_points", 500)),
        ("x=1.5", ("x", 1.5)),
    ],
)
def test_overrides(text: str, pair: tuple[str, object]) -> None:
    assert parse_override(text) == pair


@pytest.mark.parametrize("text", ["small_bet", "=5", ""])
def test_bad_overrides(text: str) -> None:
    with pytest.raises(Refused, match="KEY=VALUE"):
        parse_override(text)


def test_request_id_from_the_name() -> None:
    assert default_request_id("Pacific $5/$10") == "pacific-5-10"
    assert default_request_id("Dealer's choice") == "dealer-s-choice"
    assert default_request_id("$$$") == "table"
    assert len(default_request_id("x" * 200)) == 48


def test_the_command_tree() -> None:
    parser = build_parser()
    args = parser.parse_args(["admin", "deposit", "ann", "50", "--ref", "pay-1"])
    assert (args.player, args.amount, args.ref) == ("ann", "50", "pay-1")
    assert args.settlement == "127.0.0.1:50054" and args.lobby == "127.0.0.1:50051"
    args = parser.parse_args(
        ["admin", "create-table", "--name", "T", "--set", "small_bet=500", "--set", "ante=25"]
    )
    assert args.template == "pacific" and args.overrides == ["small_bet=500", "ante=25"]
    args = parser.parse_args(["admin", "rake-report", "--from", "2025-01-01", "--table", "t1"])
    assert (args.from_day, args.to_day, args.table_id) == ("2025-01-01", None, "t1")
    args = parser.parse_args(["play", "--user", "ann", "--table", "h:1"])
    assert (args.user, args.table, args.lobby) == ("ann", "h:1", "127.0.0.1:50051")
    with pytest.raises(SystemExit):
        parser.parse_args(["admin", "deposit", "ann", "50"])  # --ref is required
