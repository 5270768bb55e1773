"""Statistical check of shuffle output: card-by-position chi-square.

Over ``n`` decks, ``O[p][c]`` counts how often card ``c`` sat at position ``p``. A uniform shuffle
puts each card at each position with probability 1/52, so ``E = n / 52`` for every cell.

Two statistics come out of one table:

* **Whole table.** ``X = sum over all 2704 cells of (O - E)^2 / E``. Every row and column of the
  table sums to ``n`` exactly (each deck is a permutation), leaving ``51 * 51 = 2601`` free
  directions; on each of them a uniformly random permutation matrix has variance ``52/51`` times
  that of an independent multinomial cell. So ``X * 51/52`` is asymptotically chi-square with
  2601 degrees of freedom (``E[X] = 2652``, not 2601). This is the test :attr:`p_value` reports.
* **Per position.** Row ``p`` alone is an exact multinomial (n draws, 52 equal cells), so
  ``sum over c of (O[p][c] - E)^2 / E`` is asymptotically chi-square with 51 degrees of freedom.
  The rows are not independent of each other, hence the Bonferroni bound in
  :attr:`CardPositionChiSquare.bonferroni_p`.

p-values use the regularised upper incomplete gamma function (series / continued fraction,
standard library only); :func:`wilson_hilferty_z` gives a normal deviate that stays finite when
the p-value underflows to 0.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final

from riverboat.engine.cards import DECK_SIZE

TABLE_DF: Final = (DECK_SIZE - 1) * (DECK_SIZE - 1)
POSITION_DF: Final = DECK_SIZE - 1
PERMUTATION_SCALE: Final = (DECK_SIZE - 1) / DECK_SIZE
"""Factor taking the whole-table statistic to chi-square(2601); see the module docstring."""
MIN_DECKS: Final = 5 * DECK_SIZE
"""Fewest decks accepted: keeps every expected cell count at 5 or more."""

_EPS: Final = 1e-15
_TINY: Final = 1e-300
_MAX_ITERATIONS: Final = 100_000


def chi2_sf(x: float, df: int) -> float:
    """P(chi-square with ``df`` degrees of freedom >= ``x``): the upper-tail p-value."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    if x <= 0.0:
        return 1.0
    return _upper_gamma_q(df / 2.0, x / 2.0)


def _upper_gamma_q(a: float, x: float) -> float:
    """Regularised upper incomplete gamma Q(a, x) = Gamma(a, x) / Gamma(a), for a, x > 0."""
    # x^a e^-x / Gamma(a), in logs so large a does not overflow.
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1.0:
        # Series for the lower function P converges fast here, and Q = 1 - P is not tiny.
        term = total = 1.0 / a
        denominator = a
        for _ in range(_MAX_ITERATIONS):
            denominator += 1.0
            term *= x / denominator
            total += term
            if abs(term) < abs(total) * _EPS:
                return max(0.0, 1.0 - total * math.exp(log_front))
        raise ArithmeticError(f"incomplete gamma series did not converge (a={a}, x={x})")
    # Continued fraction for Q (modified Lentz), which keeps tiny tail values accurate.
    b = x + 1.0 - a
    c = 1.0 / _TINY
    d = 1.0 / b
    h = d
    for i in range(1, _MAX_ITERATIONS):
        an = -i * (i - a)
        b += 2.0
        d = an * d + b
        d = _TINY if abs(d) < _TINY else d
        c = b + an / c
        c = _TINY if abs(c) < _TINY else c
        d = 1.0 / d
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < _EPS:
            return min(1.0, h * math.exp(log_front))
    raise ArithmeticError(f"incomplete gamma fraction did not converge (a={a}, x={x})")


def wilson_hilferty_z(x: float, df: int) -> float:
    """Normal deviate of a chi-square value: ``((x/df)^(1/3) - (1 - 2/(9 df))) / sqrt(2/(9 df))``.

    Roughly "how many standard deviations too large"; useful when :func:`chi2_sf` is 0.0.
    """
    if df < 1:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    v = 2.0 / (9.0 * df)
    return (math.cbrt(max(x, 0.0) / df) - (1.0 - v)) / math.sqrt(v)


def card_position_counts(decks: Iterable[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    """The 52x52 table ``counts[position][card]`` over ``decks`` (each a permutation of 0..51)."""
    flat = [0] * (DECK_SIZE * DECK_SIZE)
    offsets = range(0, DECK_SIZE * DECK_SIZE, DECK_SIZE)
    full = frozenset(range(DECK_SIZE))
    for number, deck in enumerate(decks):
        if len(deck) != DECK_SIZE or not full.issuperset(deck) or len(set(deck)) != DECK_SIZE:
            raise ValueError(f"deck #{number} is not a permutation of the {DECK_SIZE} cards")
        for offset, card in zip(offsets, deck, strict=True):
            flat[offset + card] += 1
    return tuple(tuple(flat[o : o + DECK_SIZE]) for o in offsets)


@dataclass(frozen=True, slots=True)
class CardPositionChiSquare:
    """Result of :func:`card_position_test`."""

    n_decks: int
    statistic: float
    """Sum over all 2704 cells of (O - E)^2 / E, with E = n_decks / 52."""
    scaled_statistic: float
    """``statistic * 51/52``: chi-square with :data:`TABLE_DF` df under a uniform shuffle."""
    df: int
    p_value: float
    """Upper-tail p-value of :attr:`scaled_statistic`."""
    z_score: float
    """Wilson-Hilferty normal deviate of :attr:`scaled_statistic` (0 is typical)."""
    position_statistics: tuple[float, ...]
    """Per-position chi-square (df = 51), index 0 = top of the deck."""
    position_p_values: tuple[float, ...]

    @property
    def worst_position(self) -> int:
        """The position whose per-position p-value is smallest."""
        return min(range(DECK_SIZE), key=self.position_p_values.__getitem__)

    @property
    def bonferroni_p(self) -> float:
        """``min(1, 52 * smallest per-position p-value)``: a conservative family-wise p-value."""
        return min(1.0, DECK_SIZE * min(self.position_p_values))

    def passes(self, alpha: float = 0.01) -> bool:
        """True when neither the whole-table nor the Bonferroni per-position test rejects."""
        return self.p_value >= alpha and self.bonferroni_p >= alpha

    def summary(self) -> str:
        """One line for logs and test failures."""
        return (
            f"n={self.n_decks} X={self.statistic:.1f} X*51/52={self.scaled_statistic:.1f} "
            f"(df={self.df}, p={self.p_value:.3g}, z={self.z_score:+.2f}); worst position "
            f"{self.worst_position} chi2={self.position_statistics[self.worst_position]:.1f} "
            f"(df={POSITION_DF}, Bonferroni p={self.bonferroni_p:.3g})"
        )


def card_position_test(decks: Iterable[Sequence[int]]) -> CardPositionChiSquare:
    """Chi-square test of card-by-position uniformity over ``decks``."""
    return chi_square_from_counts(card_position_counts(decks))


def chi_square_from_counts(counts: Sequence[Sequence[int]]) -> CardPositionChiSquare:
    """:func:`card_position_test` on an already built ``counts[position][card]`` table."""
    if len(counts) != DECK_SIZE or any(len(row) != DECK_SIZE for row in counts):
        raise ValueError(f"counts must be a {DECK_SIZE}x{DECK_SIZE} table")
    n = sum(counts[0])
    if n < MIN_DECKS:
        raise ValueError(f"need at least {MIN_DECKS} decks for the chi-square test, got {n}")
    if any(sum(row) != n for row in counts):
        raise ValueError("every position must have been counted once per deck")
    expected = n / DECK_SIZE
    rows = tuple(sum((o - expected) ** 2 for o in row) / expected for row in counts)
    statistic = math.fsum(rows)
    scaled = statistic * PERMUTATION_SCALE
    return CardPositionChiSquare(
        n_decks=n,
        statistic=statistic,
        scaled_statistic=scaled,
        df=TABLE_DF,
        p_value=chi2_sf(scaled, TABLE_DF),
        z_score=wilson_hilferty_z(scaled, TABLE_DF),
        position_statistics=rows,
        position_p_values=tuple(chi2_sf(s, POSITION_DF) for s in rows),
    )
