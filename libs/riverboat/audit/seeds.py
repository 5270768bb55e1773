"""The dealer's revealed seeds, as published to the audit stream.

One JSON record per hand on ``<prefix>.<table_id>.<hand_id>`` (``docs/dealer-service.md``)::

    {"type": "riverboat.audit.SeedRevealed/1", "scheme": "RBS1", "table_id": "t1",
     "hand_id": "t1-7", "seed": "<64 hex>", "commitment": "<64 hex>", "revealed_at": "..."}

Parsed here independently of the dealer's code, as an auditor's own tool would.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from riverboat.audit.archive import StoredMessage
from riverboat.audit.report import Check, Violation

__all__ = ["REVEAL_RECORD_TYPE", "Reveal", "parse_reveals"]

REVEAL_RECORD_TYPE = "riverboat.audit.SeedRevealed/1"


@dataclass(frozen=True, slots=True)
class Reveal:
    """One hand's revealed seed and where it was stored."""

    table_id: str
    hand_id: str
    scheme: str
    seed: bytes = field(repr=False)
    commitment: bytes
    revealed_at: str
    stream_sequence: int
    stored_at: str


def _text(obj: dict[str, object], key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise ValueError(f"field {key!r} missing or not a string")
    return value


def parse_reveals(
    messages: list[StoredMessage], prefix: str
) -> tuple[dict[tuple[str, str], Reveal], list[Violation]]:
    """Reveals by ``(table_id, hand_id)``, and what is wrong with any record."""
    reveals: dict[tuple[str, str], Reveal] = {}
    problems: list[Violation] = []
    for m in messages:
        tokens = m.subject.removeprefix(prefix + ".").split(".")
        if not m.subject.startswith(prefix + ".") or len(tokens) != 2:
            problems.append(
                Violation(
                    Check.SEED_RECORD,
                    f"seed record at stream seq {m.sequence} on unexpected subject {m.subject!r}",
                )
            )
            continue
        table_id, hand_id = tokens
        try:
            obj = json.loads(m.data)
            if not isinstance(obj, dict) or obj.get("type") != REVEAL_RECORD_TYPE:
                raise ValueError(f"not a {REVEAL_RECORD_TYPE} record")
            reveal = Reveal(
                table_id=_text(obj, "table_id"),
                hand_id=_text(obj, "hand_id"),
                scheme=_text(obj, "scheme"),
                seed=bytes.fromhex(_text(obj, "seed")),
                commitment=bytes.fromhex(_text(obj, "commitment")),
                revealed_at=_text(obj, "revealed_at"),
                stream_sequence=m.sequence,
                stored_at=m.time,
            )
        except (ValueError, UnicodeDecodeError) as exc:
            problems.append(
                Violation(
                    Check.SEED_RECORD,
                    f"malformed seed record at stream seq {m.sequence}: {exc}",
                    table_id=table_id,
                    hand_id=hand_id,
                )
            )
            continue
        if (reveal.table_id, reveal.hand_id) != (table_id, hand_id):
            problems.append(
                Violation(
                    Check.SEED_RECORD,
                    f"seed record at stream seq {m.sequence} names hand {reveal.hand_id!r} of "
                    f"table {reveal.table_id!r} but is stored under {m.subject!r}",
                    table_id=table_id,
                    hand_id=hand_id,
                )
            )
            continue
        if (table_id, hand_id) in reveals:
            problems.append(
                Violation(
                    Check.SEED_RECORD,
                    f"a second seed record for the hand at stream seq {m.sequence}",
                    table_id=table_id,
                    hand_id=hand_id,
                )
            )
            continue
        reveals[(table_id, hand_id)] = reveal
    return reveals, problems
