"""Game options: each dealer's choice game's named options, their defaults and their sources.

Every ambiguity of ``spec.md`` section 5 that belongs to a game is one option here, with
the house rules' default (docs/games.md lists them all). A game's options are resolved in
three layers: the defaults below, the table's overrides, then the dealer's choice for the deal.

>>> spec = OptionSpec("draws", 1, (1, 2), "A-21", "one draw of up to 5, or two draws (3, then 2)")
>>> opts = resolve_options("draw", (spec,), {"draws": 2})
>>> opts["draws"], opts.number("draws")
(2, 2)
>>> resolve_options("draw", (spec,), {"draws": 3})
Traceback (most recent call last):
...
riverboat.engine.errors.InvalidOptions: draw: draws must be one of 1, 2; got 3

Rule-book editions keep recorded tables playing as they were recorded. Edition 1 is the rule
book before issue #14 (2026-12-01); edition 2 (:data:`RULE_BOOK`) is today's. An option names
the edition it appeared in (``since``) and any earlier default (``earlier``); options resolved
for an older edition leave out the newer options and take the older defaults, and every game
resolved for edition 2 or later records ``rule_book`` so its hands know which rules they follow.

>>> pig = OptionSpec("pig_failure", "losers_never_share", ("reassign", "losers_never_share"),
...                  "A-9", "", earlier=((1, "reassign"),))
>>> dict(resolve_options("x", (pig, RULE_BOOK_SPEC)))
{'pig_failure': 'losers_never_share', 'rule_book': 2}
>>> dict(resolve_options("x", (pig, RULE_BOOK_SPEC), edition=1))
{'pig_failure': 'reassign'}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from riverboat.engine.cards import RANK_CHARS as RANKS
from riverboat.engine.errors import InvalidOptions
from riverboat.engine.money import amount_problem

#: Today's rule-book edition (see the module docstring); 1 is the rule book before 2026-12-01.
RULE_BOOK: Final = 2
#: Every rule-book edition a table may record.
EDITIONS: Final = (1, 2)


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One named game option.

    ``allowed`` lists the legal values (a tuple), or is ``"cents"`` for a non-negative whole
    number of cents, or ``"rank"`` for a rank character or null. ``source`` names the
    ambiguity of spec.md section 5 (``"A-9"``) or the rule book the default comes from.
    """

    name: str
    default: Any
    allowed: tuple[Any, ...] | str
    source: str
    doc: str
    #: The rule-book edition the option appeared in (older editions do not have it).
    since: int = 1
    #: ``(edition, default)`` pairs: up to that edition the default was that value.
    earlier: tuple[tuple[int, Any], ...] = ()

    def default_for(self, edition: int) -> Any:
        """The default in rule-book ``edition``."""
        for last, value in self.earlier:
            if edition <= last:
                return value
        return self.default

    def check(self, value: Any) -> str | None:
        """Why ``value`` is not allowed, or None."""
        if self.allowed == "cents":
            return amount_problem(value, self.name, minimum=0)
        if self.allowed == "rank":
            if value is None or (isinstance(value, str) and len(value) == 1 and value in RANKS):
                return None
            return f"{self.name} must be a rank (2..9, T, J, Q, K, A) or null, got {value!r}"
        assert isinstance(self.allowed, tuple)
        # Booleans and ints are different values here (True is not 1).
        if not any(value == a and type(value) is type(a) for a in self.allowed):
            allowed = ", ".join(_show(a) for a in self.allowed)
            return f"{self.name} must be one of {allowed}; got {_show(value)}"
        return None


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class GameOptions(Mapping[str, Any]):
    """A game's resolved options: an immutable mapping with typed accessors."""

    __slots__ = ("_items",)

    def __init__(self, items: Mapping[str, Any] | None = None) -> None:
        self._items: dict[str, Any] = dict(items or {})

    def __getitem__(self, key: str) -> Any:
        return self._items[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, GameOptions):
            return self._items == other._items
        if isinstance(other, Mapping):
            return self._items == dict(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(sorted((k, repr(v)) for k, v in self._items.items())))

    def __repr__(self) -> str:
        return f"GameOptions({self._items!r})"

    def flag(self, name: str) -> bool:
        """A true/false option."""
        return bool(self._items[name])

    def number(self, name: str) -> int:
        """A whole-number option."""
        value = self._items[name]
        assert isinstance(value, int)
        return value

    def text(self, name: str) -> str:
        """A named-value option."""
        value = self._items[name]
        assert isinstance(value, str)
        return value

    def maybe_text(self, name: str) -> str | None:
        """A named-value option that may be null."""
        value = self._items.get(name)
        assert value is None or isinstance(value, str)
        return value

    def to_dict(self) -> dict[str, Any]:
        """A plain dict copy (the form stored in ``GameOptionsSet``)."""
        return dict(self._items)


NO_OPTIONS = GameOptions()


#: Recorded in every game's options from edition 2 on: the rule book the hand follows.
RULE_BOOK_SPEC: Final = OptionSpec(
    "rule_book",
    RULE_BOOK,
    (RULE_BOOK,),
    "issue #14",
    "The rule-book edition the deal follows (set by the table, not chosen): options recorded "
    "without it are edition 1's.",
    since=2,
)


def rule_book(options: Mapping[str, Any]) -> int:
    """The rule-book edition of a hand's resolved (recorded) ``options``."""
    value = options.get("rule_book", 1)
    assert isinstance(value, int)
    return value


def edition_of(specs: tuple[OptionSpec, ...], chosen: Mapping[str, Any] | None) -> int:
    """The edition of options handed to a new hand: a full edition-1 set without ``rule_book``
    is a recorded edition-1 choice (a table created before edition 2); anything else is
    today's rule book."""
    if not chosen or "rule_book" in chosen:
        return RULE_BOOK
    old = {spec.name for spec in specs if spec.since <= 1}
    return 1 if old <= set(chosen) else RULE_BOOK


def resolve_options(
    game: str,
    specs: tuple[OptionSpec, ...],
    *layers: Mapping[str, Any] | None,
    edition: int = RULE_BOOK,
) -> GameOptions:
    """``specs``' defaults (those of rule-book ``edition``) overridden by each of ``layers`` in
    turn, validated.

    Unknown keys (options newer than ``edition`` included) and disallowed values raise
    :class:`InvalidOptions` naming the game.
    """
    specs = tuple(spec for spec in specs if spec.since <= edition)
    by_name = {spec.name: spec for spec in specs}
    values = {spec.name: spec.default_for(edition) for spec in specs}
    for layer in layers:
        if not layer:
            continue
        if not isinstance(layer, Mapping):
            raise InvalidOptions(f"{game}: options must be an object")
        unknown = sorted(set(layer) - set(by_name))
        if unknown:
            raise InvalidOptions(f"{game}: unknown option(s): {', '.join(unknown)}")
        values.update(layer)
    problems = [p for name, v in values.items() if (p := by_name[name].check(v))]
    if problems:
        raise InvalidOptions(f"{game}: " + "; ".join(problems))
    return GameOptions(values)
