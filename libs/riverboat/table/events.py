"""Table-level events (the hand's own events come from ``riverboat.engine.events``)."""

from __future__ import annotations

from dataclasses import dataclass

from riverboat.engine.events import Event as HandEvent
from riverboat.engine.options import TableOptions
from riverboat.engine.session import DealersChoiceRules


@dataclass(frozen=True, slots=True)
class TableCreated:
    """A table was opened. ``rules``: a dealer's choice table's games (variant
    ``"dealers_choice"``), else None."""

    table_id: str
    name: str
    variant: str
    options: TableOptions
    action_seconds: int
    rules: DealersChoiceRules | None = None


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    """A player sat down with chips."""

    seat: int
    player: str
    stack: int
    buy_in_reference: str = ""


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """A player in a hand asked to leave; they leave when the hand ends."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """A player left with their chips."""

    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class HandCommitted:
    """The dealer's commitment to the next hand's deck, before any card is dealt."""

    hand_id: str
    scheme: str
    commitment: bytes
    deck_size: int
    button: int


@dataclass(frozen=True, slots=True)
class HandVoided:
    """A hand that could not resume: every contribution refunded, no rake."""

    hand_id: str
    reason: str
    refunds: tuple[tuple[int, int], ...]


TableEvent = TableCreated | PlayerSeated | LeaveRequested | PlayerLeft | HandCommitted | HandVoided
AnyEvent = TableEvent | HandEvent
