"""Riverboat's rules engine: pure, deterministic, event-sourced.

No I/O, no clock, no randomness: the deck comes from the dealer, commands are validated into
events by ``decide`` and the state is the fold of its events by ``apply``.
"""
