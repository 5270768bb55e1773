"""Decoding the hand's hot events without the codec's per-event metadata.

``riverboat.eventcodec.event_from_pb`` also builds each event's :class:`EventMeta` (a timestamp
conversion, about half its cost), which the audit does not need: it reads the one field it uses
(the actor) from the envelope. For the ten event kinds that make up almost all of a hand, this
module builds the same event objects directly, and ``HandStarted`` too (its table options are
validated once per table instead of once per hand); everything else goes through the codec. A
test checks both paths give equal events.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from riverboat.engine import events as ev
from riverboat.engine.cards import parse_card
from riverboat.eventcodec import event_from_pb, options_from_pb
from riverboat.table.events import AnyEvent
from riverboat.v1 import events_pb2 as pb

__all__ = ["decode_event"]

_CARDS: Final[dict[str, int]] = {"": -1} | {
    r + s: parse_card(r + s) for r in "23456789TJQKA" for s in "cdhs"
}


def _card(text: str) -> int:
    card = _CARDS.get(text)
    return parse_card(text) if card is None else card  # parse_card raises the codec's error


def _pairs(items: Any) -> tuple[tuple[int, int], ...]:
    return tuple((i.seat, i.amount) for i in items)


def _shown(m: Any) -> ev.HandShown:
    return ev.HandShown(
        m.seat,
        tuple(_card(c) for c in m.cards),
        m.high,
        m.low if m.HasField("low") else None,
        m.high_text,
        m.low_text or None,
    )


#: A table's options, decoded and validated once (every hand of a table carries the same).
_OPTIONS: dict[bytes, dict[str, Any]] = {}


def _started(m: Any) -> ev.HandStarted:
    key = m.options.SerializeToString(deterministic=True)
    options = _OPTIONS.get(key)
    if options is None:
        options = options_from_pb(m.options).to_dict()
        if len(_OPTIONS) < 1024:
            _OPTIONS[key] = options
    return ev.HandStarted(
        hand_id=m.hand_id,
        variant=m.variant,
        button=m.button,
        seats=tuple(ev.SeatEntry(s.seat, s.player, s.stack) for s in m.seats),
        deck_size=m.deck_size,
        options=dict(options),  # a copy: the cached one must never change
    )


_FAST: Final[dict[str, Callable[[Any], AnyEvent]]] = {
    "hand_started": _started,
    "ante_posted": lambda m: ev.AntePosted(m.seat, m.amount),
    "card_dealt": lambda m: ev.CardDealt(m.seat, _card(m.card), m.face_up),
    "community_card_dealt": lambda m: ev.CommunityCardDealt(_card(m.card)),
    "betting_round_started": lambda m: ev.BettingRoundStarted(
        m.street, m.bet_size, m.first_to_act or None, m.forced_bring_in
    ),
    "action_taken": lambda m: ev.ActionTaken(m.seat, m.action, m.amount, m.to, m.all_in),
    "uncalled_bet_returned": lambda m: ev.UncalledBetReturned(m.seat, m.amount),
    "hand_shown": _shown,
    "rake_taken": lambda m: ev.RakeTaken(m.amount, tuple(m.from_pots)),
    "pot_awarded": lambda m: ev.PotAwarded(
        m.pot,
        m.amount,
        tuple(m.eligible),
        tuple(m.high_winners),
        tuple(m.low_winners),
        _pairs(m.shares),
    ),
    "hand_ended": lambda m: ev.HandEnded(_pairs(m.stacks)),
}


def decode_event(env: pb.EventEnvelope) -> AnyEvent:
    """The event in ``env`` (the codec's result, without its metadata)."""
    kind = env.WhichOneof("payload")
    fast = _FAST.get(kind) if kind else None
    if fast is None:
        return event_from_pb(env)[0]
    return fast(getattr(env, kind))
