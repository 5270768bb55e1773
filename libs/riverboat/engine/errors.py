"""Typed errors of the rules engine.

Every rejected command raises an :class:`EngineError` subclass whose ``rule`` names the rule
it breaks (a stable, machine-readable code) and whose message is a plain sentence safe to show
the player who sent it. A rejected command never changes the state.
"""

from __future__ import annotations


class EngineError(Exception):
    """Base class of the engine's errors."""

    rule: str = "engine_error"

    def __init__(self, message: str, *, rule: str | None = None) -> None:
        super().__init__(message)
        if rule is not None:
            self.rule = rule

    @property
    def message(self) -> str:
        """The human sentence."""
        return str(self.args[0])


class InvalidOptions(EngineError):
    """Table options that are malformed or inconsistent."""

    rule = "invalid_options"


class InvalidCommand(EngineError):
    """A malformed command: unknown seat, bad card, wrong shape."""

    rule = "invalid_command"


class IllegalAction(EngineError):
    """A well-formed command the rules forbid now (out of turn, over the cap, wrong street)."""

    rule = "illegal_action"
