"""Riverboat's rules engine: pure, deterministic, event-sourced.

No I/O, no clock, no randomness: the deck comes from the dealer, commands are validated into
events by ``decide`` and the state is the fold of its events by ``apply``. It plays Pacific's
seven-card stud hi/lo and every dealer's choice game of Buderick's rule book
(:mod:`riverboat.engine.games`, docs/games.md), one hand at a time or a table across hands
(:mod:`riverboat.engine.session`).
"""
