"""Planted bugs for the crash battery's own test (never on a normal path).

A service process started with this directory on ``PYTHONPATH`` and ``RB_PLANT=<name>`` runs
with one recovery bug, so the test can show that the battery's oracles catch it:

- ``void-on-resume`` (table): a restarted table voids the hand in progress instead of
  resuming it;
- ``other-deck-on-resume`` (dealer): asked again for a hand's deck (a restarted table asks),
  the dealer serves another deck than the committed one;
- ``double-rake`` (settlement): the ledger books every rake twice;
- ``history-leak`` (table): ``GetHandHistory`` shows a player every hole card.
"""

from __future__ import annotations

import os
from dataclasses import replace
from typing import Any

_PLANT = os.environ.get("RB_PLANT", "")

if _PLANT == "void-on-resume":
    from riverboat.services.table import runner as _runner

    async def _resume(self: Any) -> None:
        hand = self.state.hand
        if hand is not None and not hand.finished:
            await self._void("planted bug: voided instead of resumed")
        self.after_change()

    _runner.TableRunner.resume = _resume  # type: ignore[method-assign]

elif _PLANT == "other-deck-on-resume":
    from riverboat.services.dealer import service as _service

    _derive = _service.derive_deck  # type: ignore[attr-defined]
    _served: set[str] = set()

    def _derive_deck(hand_id: str, seed: bytes) -> tuple[int, ...]:
        deck = _derive(hand_id, seed)
        if hand_id in _served:
            return deck[::-1]
        _served.add(hand_id)
        return deck

    _service.derive_deck = _derive_deck  # type: ignore[attr-defined]

elif _PLANT == "double-rake":
    from riverboat.engine import events as _ev
    from riverboat.ledger import store as _store

    _project = _store.project_table_event  # type: ignore[attr-defined]

    def _project_table_event(ctx: Any, event: Any, meta: Any) -> Any:
        if isinstance(event, _ev.RakeTaken):
            event = replace(event, amount=2 * event.amount)
        return _project(ctx, event, meta)

    _store.project_table_event = _project_table_event  # type: ignore[attr-defined]

elif _PLANT == "history-leak":
    # GetHandHistory shows a player the hand as the auditor sees it (every hole card).
    from riverboat.history import AUDITOR as _AUDITOR
    from riverboat.services.table import histories as _histories

    _visible = _histories.visible_events  # type: ignore[attr-defined]

    def _leaky(hand: Any, perspective: Any) -> Any:
        return _visible(hand, _AUDITOR)

    _histories.visible_events = _leaky  # type: ignore[attr-defined]
