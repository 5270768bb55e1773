"""Table options: one typed, validated configuration object per table.

Every option has a default taken from the "Pacific" seven-card stud hi/lo template of
the house rules (docs/engine.md; they follow Pacific Poker's rules where those speak). All money
is in integer minor units (cents).

>>> opts = pacific_options()
>>> opts.small_bet, opts.big_bet, opts.bring_in, opts.ante
(100, 200, 50, 0)
>>> pacific_options(small_bet=500, big_bet=1000).ante   # half the lower limit, whole dollars
200
>>> TableOptions.from_dict({"small_bet": 500, "big_bet": 1000}).bring_in
250
>>> dc = dealers_choice_options()   # Buderick's table: the dealer antes $1, $2 bets, $5 last
>>> dc.ante, dc.ante_mode, dc.small_bet, dc.big_bet, dc.final_bet_rule, dc.uncap_heads_up
(100, 'dealer', 200, 500, True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from decimal import Decimal, InvalidOperation
from typing import Any, Final, Literal

from riverboat.engine.errors import InvalidOptions
from riverboat.engine.money import amount_problem

OddChipOrder = Literal["card_by_suit", "seat"]
AllInReopen = Literal["faced", "last_full"]
AnteMode = Literal["per_player", "dealer"]

#: Rake caps by number of players dealt in, as ``(minimum players, cap)`` pairs (house rules:
#: $1 for 2-3 players, $2 for 4-5, $3 for 6 or more).
PACIFIC_RAKE_CAPS: Final[tuple[tuple[int, int], ...]] = ((2, 100), (4, 200), (6, 300))


_DEFAULT_SMALL_BET: Final = 100
#: Raises allowed per round: any real cap is single-digit; the bound keeps it an int32.
MAX_RAISES: Final = 100


def pacific_ante(small_bet: int) -> int:
    """Pacific's ante: half the lower limit, rounded down to whole dollars (100 cents)."""
    return (small_bet // 2) // 100 * 100


@dataclass(frozen=True, slots=True)
class TableOptions:
    """The rules a table plays by. Construct with :func:`pacific_options` or :meth:`from_dict`.

    Attributes are documented in ``docs/engine.md`` with their defaults and sources.
    """

    small_bet: int = _DEFAULT_SMALL_BET
    big_bet: int = 200
    ante: int = 0
    ante_mode: AnteMode = "per_player"
    bring_in: int = 50
    max_raises: int = 3
    uncap_heads_up: bool = True
    open_pair_double_bet: bool = True
    low_qualifier: int | None = 8
    rake_basis_points: int = 500
    rake_caps: tuple[tuple[int, int], ...] = field(default=PACIFIC_RAKE_CAPS)
    no_rake_on_third_street: bool = True
    odd_chip_order: OddChipOrder = "card_by_suit"
    min_players: int = 2
    max_players: int = 8
    #: Seven-card stud on a dealer's choice table: the small bet on every street but the last
    #: (7th), the big bet on 7th only (Buderick's "Final Bet Rule"). Off: Pacific's limits
    #: (small on 3rd and 4th, big from 5th). The other dealer's choice games always bet this way.
    final_bet_rule: bool = False
    #: Stud at a dealer's choice table (Buderick's general rules, house rules 2026-12-01): no
    #: bring-in; the dealer's ante is the only forced bet and the high door card opens 3rd
    #: street (ties: first clockwise from the dealer), with a free check. Off: Pacific's bring-in.
    no_bring_in: bool = False
    #: Who may raise after short all-ins. ``faced`` (house rules 2026-12-01): a player who has
    #: acted may raise again when the bets since their own action raise what they face by half
    #: a bet or more (several short all-ins together). ``last_full``: the rule of tables
    #: recorded before: any raise of half a bet over the last full bet reopened for everyone.
    all_in_reopen: AllInReopen = "faced"
    #: Spread-limit betting (spec A-2, "unless otherwise declared"): a bet or raise may be any
    #: whole number of dollars from $1 up to the round's fixed size (whole cents when that is
    #: not whole dollars), and a raise at least the previous bet or raise of the round. The
    #: cap is unchanged. Off (the house rules): fixed limits.
    spread_limit: bool = False

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise InvalidOptions("; ".join(problems))

    def problems(self) -> list[str]:
        """Every inconsistency in these options (empty when valid)."""
        out: list[str] = []
        for name in ("small_bet", "big_bet", "bring_in"):
            problem = amount_problem(getattr(self, name), name)
            if problem:
                out.append(problem)
        problem = amount_problem(self.ante, "ante", minimum=0)
        if problem:
            out.append(problem)
        if not out:
            if self.big_bet < self.small_bet:
                out.append("big_bet must be at least small_bet")
            if self.bring_in > self.small_bet:
                out.append("bring_in may not exceed small_bet")
        if self.ante_mode not in ("per_player", "dealer"):
            out.append(f"ante_mode must be 'per_player' or 'dealer', got {self.ante_mode!r}")
        if not _is_int(self.max_raises) or not 0 <= self.max_raises <= MAX_RAISES:
            out.append(f"max_raises must be 0..{MAX_RAISES}, got {self.max_raises!r}")
        if self.low_qualifier is not None and (
            not _is_int(self.low_qualifier) or not 5 <= self.low_qualifier <= 13
        ):
            out.append(f"low_qualifier must be null or a rank 5..13, got {self.low_qualifier!r}")
        if not _is_int(self.rake_basis_points) or not 0 <= self.rake_basis_points <= 10_000:
            out.append("rake percent must be between 0 and 100")
        previous = 0
        for entry in self.rake_caps:
            if (
                len(entry) != 2
                or not all(_is_int(x) for x in entry)
                or entry[0] <= previous
                or entry[0] > 8
                or amount_problem(entry[1], "cap", minimum=0)
            ):
                out.append(f"rake_caps must be increasing (players, cap) pairs, got {entry!r}")
                break
            previous = entry[0]
        if not isinstance(self.final_bet_rule, bool):
            out.append(f"final_bet_rule must be true or false, got {self.final_bet_rule!r}")
        if not isinstance(self.spread_limit, bool):
            out.append(f"spread_limit must be true or false, got {self.spread_limit!r}")
        if not isinstance(self.no_bring_in, bool):
            out.append(f"no_bring_in must be true or false, got {self.no_bring_in!r}")
        if self.all_in_reopen not in ("faced", "last_full"):
            out.append(f"all_in_reopen must be 'faced' or 'last_full', not {self.all_in_reopen!r}")
        if self.odd_chip_order not in ("card_by_suit", "seat"):
            out.append(
                f"odd_chip_order must be 'card_by_suit' or 'seat', not {self.odd_chip_order!r}"
            )
        if not (
            _is_int(self.min_players)
            and _is_int(self.max_players)
            and 2 <= self.min_players <= self.max_players <= 8
        ):
            out.append("players must satisfy 2 <= min_players <= max_players <= 8")
        return out

    def rake_cap(self, players_dealt: int) -> int | None:
        """The rake cap for a hand dealt to ``players_dealt`` players; None means uncapped."""
        cap: int | None = None
        for minimum, amount in self.rake_caps:
            if players_dealt >= minimum:
                cap = amount
        return cap

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form; :meth:`from_dict` reads it back to an equal object."""
        # Field by field: dataclasses.asdict deep-copies and is slow on the per-hand path.
        out = {name: getattr(self, name) for name in _OPTION_FIELDS}
        out["rake_caps"] = [list(pair) for pair in self.rake_caps]
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> TableOptions:
        """Options from a mapping of overrides; missing keys take the Pacific defaults.

        Besides the attribute names it accepts the scenario spellings ``rake_percent``
        (a number such as ``5`` or ``"2.5"``) and ``rake_cap`` (one cap for every player
        count, or null for none). Unknown keys are an error, not silently ignored.
        """
        data = dict(data or {})
        known = set(cls.__dataclass_fields__) | {"rake_percent", "rake_cap"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise InvalidOptions(f"unknown rule option(s): {', '.join(unknown)}")
        if "rake_percent" in data:
            if "rake_basis_points" in data:
                raise InvalidOptions("give rake_percent or rake_basis_points, not both")
            data["rake_basis_points"] = _percent_to_basis_points(data.pop("rake_percent"))
        if "rake_cap" in data:
            if "rake_caps" in data:
                raise InvalidOptions("give rake_cap or rake_caps, not both")
            cap = data.pop("rake_cap")
            if cap is None:
                data["rake_caps"] = ()
            elif _is_int(cap) and cap >= 0:
                data["rake_caps"] = ((1, cap),)
            else:
                raise InvalidOptions(
                    f"rake_cap must be a whole number of cents or null, got {cap!r}"
                )
        if "rake_caps" in data:
            try:
                data["rake_caps"] = tuple(tuple(pair) for pair in data["rake_caps"])
            except TypeError:
                raise InvalidOptions("rake_caps must be a list of [players, cap] pairs") from None
        small = data.get("small_bet", _DEFAULT_SMALL_BET)
        # Derived from a valid small bet only: a refused small_bet is the one problem to
        # report, not the bring-in and ante nobody typed that follow from it.
        if amount_problem(small, "small_bet") is None:
            data.setdefault("bring_in", small // 2)
            data.setdefault("ante", pacific_ante(small))
        try:
            return cls(**data)
        except TypeError as exc:  # a wrongly typed value caught by the constructor
            raise InvalidOptions(str(exc)) from None

    def with_changes(self, **changes: Any) -> TableOptions:
        """A copy with some options changed (validated again)."""
        return replace(self, **changes)


_OPTION_FIELDS: Final = tuple(f.name for f in fields(TableOptions))


def pacific_options(**overrides: Any) -> TableOptions:
    """The "Pacific" seven-card stud hi/lo template, with optional overrides."""
    return TableOptions.from_dict(overrides)


#: The house rules' "Dealer's choice" template (Buderick's table, docs/games.md), as overrides.
DEALERS_CHOICE_TEMPLATE: Final[dict[str, Any]] = {
    "small_bet": 200,
    "big_bet": 500,
    "ante": 100,
    "ante_mode": "dealer",
    "bring_in": 100,
    "max_raises": 3,
    "uncap_heads_up": False,
    "open_pair_double_bet": False,
    "final_bet_rule": True,
    "no_bring_in": True,
}


def dealers_choice_options(**overrides: Any) -> TableOptions:
    """The "Dealer's choice" template: the dealer alone antes $1, fixed $2 bets and raises with
    $5 in the last round (Final Bet Rule), a bet plus three raises even heads-up, stud dealt
    without a bring-in (the high hand showing bets first); the Pacific rake schedule.
    ``overrides`` change any option."""
    return TableOptions.from_dict({**DEALERS_CHOICE_TEMPLATE, **overrides})


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _percent_to_basis_points(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise InvalidOptions(f"rake_percent must be a number, got {value!r}")
    try:
        bp = Decimal(str(value)) * 100
    except InvalidOperation:
        raise InvalidOptions(f"rake_percent must be a number, got {value!r}") from None
    if bp != bp.to_integral_value():
        raise InvalidOptions("rake_percent supports at most two decimal places")
    return int(bp)
