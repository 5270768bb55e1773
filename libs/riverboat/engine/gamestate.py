"""The dealer's choice hand's names, for importers outside the engine.

:class:`GameHandState`, its phases and its handlers live in :mod:`riverboat.engine.state`
with the rest of the fold (one module, so the fold has no import cycle); this module only
re-exports them.
"""

from __future__ import annotations

from riverboat.engine.state import (
    BET,
    GAME_HANDLERS,
    HIDDEN,
    RESHUFFLE,
    GameHandState,
    initial_game_state,
)

__all__ = ["BET", "GAME_HANDLERS", "HIDDEN", "RESHUFFLE", "GameHandState", "initial_game_state"]
