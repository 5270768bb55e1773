"""A table's settings <-> protobuf: its options, dealer's choice rules and time bank.

The API's requests carry them (the table service's ``OpenTable``, the lobby's ``CreateTable``)
and so does the log (``TableCreated``, ``HandStarted``): one mapping for both. Options are
JSON objects where the protos hold them as text (``*_json``).
"""

from __future__ import annotations

import json
from typing import Any

from riverboat.engine.options import TableOptions
from riverboat.engine.session import DealersChoiceRules
from riverboat.table.events import TimeBankPolicy
from riverboat.v1 import events_pb2 as pb

__all__ = [
    "CodecError",
    "json_object",
    "json_text",
    "options_from_pb",
    "options_to_pb",
    "rules_from_pb",
    "rules_to_pb",
    "time_bank_from_pb",
    "time_bank_to_pb",
]


class CodecError(ValueError):
    """A stored message (or a request's settings) does not decode to what it should hold."""


def json_text(value: dict[str, Any]) -> str:
    """A JSON object as the protos hold it: compact, keys sorted (the same bytes each time)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def json_object(text: str) -> dict[str, Any]:
    """The JSON object ``text`` holds (``{}`` for none); :class:`CodecError` otherwise."""
    try:
        value = json.loads(text) if text else {}
    except ValueError as exc:
        raise CodecError(f"bad options: {exc}") from None
    if not isinstance(value, dict):
        raise CodecError("options must be a JSON object")
    return value


def options_to_pb(options: TableOptions) -> pb.TableOptions:
    """Table options as protobuf."""
    return pb.TableOptions(
        small_bet=options.small_bet,
        big_bet=options.big_bet,
        ante=options.ante,
        ante_mode=options.ante_mode,
        bring_in=options.bring_in,
        max_raises=options.max_raises,
        uncap_heads_up=options.uncap_heads_up,
        open_pair_double_bet=options.open_pair_double_bet,
        low_qualifier=options.low_qualifier or 0,
        rake_basis_points=options.rake_basis_points,
        rake_caps=[pb.RakeCap(min_players=a, cap=b) for a, b in options.rake_caps],
        no_rake_on_third_street=options.no_rake_on_third_street,
        odd_chip_order=options.odd_chip_order,
        min_players=options.min_players,
        max_players=options.max_players,
        final_bet_rule=options.final_bet_rule,
        no_bring_in=options.no_bring_in,
        all_in_reopen=options.all_in_reopen,
        spread_limit=options.spread_limit,
    )


def options_from_pb(msg: pb.TableOptions, *, new_table: bool = False) -> TableOptions:
    """Table options from protobuf (validated). An unset ``all_in_reopen`` is the rule of the
    records made before it existed, unless this is a ``new_table``'s request."""
    return TableOptions.from_dict(
        {
            "small_bet": msg.small_bet,
            "big_bet": msg.big_bet,
            "ante": msg.ante,
            "ante_mode": msg.ante_mode,
            "bring_in": msg.bring_in,
            "max_raises": msg.max_raises,
            "uncap_heads_up": msg.uncap_heads_up,
            "open_pair_double_bet": msg.open_pair_double_bet,
            "low_qualifier": msg.low_qualifier or None,
            "rake_basis_points": msg.rake_basis_points,
            "rake_caps": [(c.min_players, c.cap) for c in msg.rake_caps],
            "no_rake_on_third_street": msg.no_rake_on_third_street,
            "odd_chip_order": msg.odd_chip_order,
            "min_players": msg.min_players,
            "max_players": msg.max_players,
            "final_bet_rule": msg.final_bet_rule,
            "no_bring_in": msg.no_bring_in,
            # Unset on tables and hands recorded before the rule existed: their rule.
            "all_in_reopen": msg.all_in_reopen or ("faced" if new_table else "last_full"),
            "spread_limit": msg.spread_limit,
        }
    )


def rules_to_pb(rules: DealersChoiceRules) -> pb.DealersChoiceRules:
    """A dealer's choice table's rules as protobuf."""
    data = rules.to_dict()
    return pb.DealersChoiceRules(
        games=data["games"],
        default_game=data["default_game"],
        game_defaults_json=json_text(data["game_defaults"]),
        edition=rules.edition,
        min_small_bet=rules.min_small_bet,
        max_small_bet=rules.max_small_bet,
        min_big_bet=rules.min_big_bet,
        max_big_bet=rules.max_big_bet,
    )


def rules_from_pb(msg: pb.DealersChoiceRules, *, edition: int = 1) -> DealersChoiceRules:
    """A dealer's choice table's rules from protobuf (validated; unset fields: defaults). An
    unset ``edition`` is ``edition``: 1 for a stored table (recorded before editions existed),
    today's for a new table's request."""
    data: dict[str, Any] = {"game_defaults": json_object(msg.game_defaults_json)}
    if msg.games:
        data["games"] = list(msg.games)
    if msg.default_game:
        data["default_game"] = msg.default_game
    data["edition"] = msg.edition or edition
    for name in ("min_small_bet", "max_small_bet", "min_big_bet", "max_big_bet"):
        data[name] = getattr(msg, name)
    return DealersChoiceRules.from_dict(data)


def time_bank_to_pb(policy: TimeBankPolicy) -> pb.TimeBankPolicy:
    """A table's time bank policy as its protobuf message."""
    return pb.TimeBankPolicy(
        seconds=policy.seconds,
        topup_seconds=policy.topup_seconds,
        topup_hands=policy.topup_hands,
        protect_hands=policy.protect_hands,
    )


def time_bank_from_pb(msg: pb.TimeBankPolicy) -> TimeBankPolicy:
    """The time bank policy a protobuf message holds."""
    return TimeBankPolicy(msg.seconds, msg.topup_seconds, msg.topup_hands, msg.protect_hands)
