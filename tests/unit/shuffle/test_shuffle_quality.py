"""Card-by-position chi-square: RBS1 passes, deliberately broken shuffles fail.

Every deck comes from fixed seeds, so these tests are deterministic: the statistics below are
the same on every run and cannot flake.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Callable, Iterator

import pytest

from riverboat.shuffle import derive_deck
from riverboat.shuffle.quality import (
    MIN_DECKS,
    POSITION_DF,
    TABLE_DF,
    CardPositionChiSquare,
    card_position_counts,
    card_position_test,
    chi2_sf,
    chi_square_from_counts,
    wilson_hilferty_z,
)
from riverboat.shuffle.scheme import draw, word_stream

N_DECKS = 20_000


def _inputs(n: int) -> Iterator[tuple[str, bytes]]:
    for i in range(n):
        yield f"quality-{i}", hashlib.sha256(b"RBS1 quality test" + i.to_bytes(4, "big")).digest()


@pytest.fixture(scope="module")
def good_decks() -> list[tuple[int, ...]]:
    return [derive_deck(hand_id, seed) for hand_id, seed in _inputs(N_DECKS)]


# --- Deliberately broken shuffles, fed the same RBS1 word streams as the real one. ---


def naive_swap_any(words: Iterator[int]) -> tuple[int, ...]:
    """Swap every position with a uniform position anywhere: 52^52 paths onto 52! orders."""
    deck = list(range(52))
    for i in range(52):
        j = draw(52, words)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def off_by_one(words: Iterator[int]) -> tuple[int, ...]:
    """Fisher-Yates that never lets a card stay put (j in 0..i-1): only cyclic orders."""
    deck = list(range(52))
    for i in range(51, 0, -1):
        j = draw(i, words)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


def byte_modulo(words: Iterator[int]) -> tuple[int, ...]:
    """Fisher-Yates whose draw is ``byte % m``: small residues come up too often."""
    deck = list(range(52))
    octets = (word >> shift & 0xFF for word in words for shift in range(56, -8, -8))
    for i in range(51, 0, -1):
        j = next(octets) % (i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return tuple(deck)


# --- The statistics ---


def test_rbs1_passes(good_decks: list[tuple[int, ...]]) -> None:
    result = card_position_test(good_decks)
    print(result.summary())
    assert result.n_decks == N_DECKS
    assert result.df == TABLE_DF == 2601
    assert result.passes(alpha=0.01), result.summary()
    assert abs(result.z_score) < 3, result.summary()


@pytest.mark.parametrize("broken", [naive_swap_any, off_by_one, byte_modulo])
def test_biased_shuffles_fail(broken: Callable[[Iterator[int]], tuple[int, ...]]) -> None:
    result = card_position_test(broken(word_stream(h, s)) for h, s in _inputs(N_DECKS))
    print(broken.__name__, result.summary())
    assert result.p_value < 1e-6, result.summary()
    assert result.bonferroni_p < 1e-6, result.summary()
    assert not result.passes()


def test_permutation_scaling(good_decks: list[tuple[int, ...]]) -> None:
    # The raw statistic of a uniform shuffle averages 52*51 = 2652, not 2601: the documented
    # 51/52 factor is what makes it chi-square(2601). 50 batches of 400 decks pin the mean to
    # about +-10, far enough from 2601 to tell.
    raw = [card_position_test(good_decks[k : k + 400]).statistic for k in range(0, N_DECKS, 400)]
    mean = statistics.fmean(raw)
    print(f"mean raw statistic over {len(raw)} batches: {mean:.1f}")
    assert abs(mean - 2652) < 35, mean
    assert mean - 2601 > 15, mean


def test_counts_table(good_decks: list[tuple[int, ...]]) -> None:
    counts = card_position_counts(good_decks[:1000])
    assert len(counts) == 52 and all(len(row) == 52 for row in counts)
    assert all(sum(row) == 1000 for row in counts)
    assert all(sum(col) == 1000 for col in zip(*counts, strict=True))
    assert counts[0][good_decks[0][0]] >= 1


def test_perfectly_flat_table_scores_zero() -> None:
    result = chi_square_from_counts([[10] * 52 for _ in range(52)])
    assert result.statistic == 0.0
    assert result.p_value == 1.0
    assert result.passes()


def test_rejects_non_permutations_and_small_samples() -> None:
    with pytest.raises(ValueError, match="not a permutation"):
        card_position_counts([(*range(51), 0)])
    with pytest.raises(ValueError, match="not a permutation"):
        card_position_counts([tuple(range(51))])
    with pytest.raises(ValueError, match="at least"):
        card_position_test([tuple(range(52))] * (MIN_DECKS - 1))
    with pytest.raises(ValueError, match="52x52"):
        chi_square_from_counts([[10] * 52])


# --- The chi-square tail function against closed forms ---


def _sf_even(x: float, df: int) -> float:
    # For even df: exp(-x/2) * sum_{k < df/2} (x/2)^k / k!
    half = x / 2
    return math.exp(-half) * math.fsum(half**k / math.factorial(k) for k in range(df // 2))


@pytest.mark.parametrize("x", [0.01, 0.5, 1.0, 3.84, 10.0, 40.0, 120.0])
def test_chi2_sf_closed_forms(x: float) -> None:
    assert chi2_sf(x, 1) == pytest.approx(math.erfc(math.sqrt(x / 2)), rel=1e-9, abs=1e-300)
    assert chi2_sf(x, 2) == pytest.approx(math.exp(-x / 2), rel=1e-9)
    df3 = math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2)
    assert chi2_sf(x, 3) == pytest.approx(df3, rel=1e-9, abs=1e-300)
    for df in (4, 10, 50, 52):
        assert chi2_sf(x, df) == pytest.approx(_sf_even(x, df), rel=1e-8, abs=1e-300)


@pytest.mark.parametrize("df", [50, 52, 100])
@pytest.mark.parametrize("sds", [-3, -1, 0, 1, 3, 6])
def test_chi2_sf_near_the_mean(df: int, sds: int) -> None:
    x = df + sds * math.sqrt(2 * df)
    assert chi2_sf(x, df) == pytest.approx(_sf_even(x, df), rel=1e-8)


def test_chi2_sf_edges() -> None:
    assert chi2_sf(0.0, 51) == 1.0
    assert chi2_sf(-1.0, 51) == 1.0
    assert chi2_sf(1e6, TABLE_DF) == 0.0
    assert 0.45 < chi2_sf(TABLE_DF, TABLE_DF) < 0.5  # median sits just below the mean
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


@pytest.mark.parametrize("sds", [-2, 0, 2, 4])
def test_wilson_hilferty_agrees_at_large_df(sds: int) -> None:
    x = TABLE_DF + sds * math.sqrt(2 * TABLE_DF)
    approx = 0.5 * math.erfc(wilson_hilferty_z(x, TABLE_DF) / math.sqrt(2))
    assert approx == pytest.approx(chi2_sf(x, TABLE_DF), rel=1e-2)


def _sf_odd(x: float, df: int) -> float:
    # Start from df = 1 (erfc) and step up: Q(a + 1, y) = Q(a, y) + y^a e^-y / Gamma(a + 1).
    y = x / 2
    total = math.erfc(math.sqrt(y))
    for two_a in range(1, df - 1, 2):
        a = two_a / 2
        total += math.exp(a * math.log(y) - y - math.lgamma(a + 1))
    return total


@pytest.mark.parametrize("df", [7, 51, 151])
@pytest.mark.parametrize("sds", [-1, 0, 1, 3, 8])
def test_chi2_sf_odd_df(df: int, sds: int) -> None:
    x = df + sds * math.sqrt(2 * df)
    assert chi2_sf(x, df) == pytest.approx(_sf_odd(x, df), rel=1e-8)


def test_position_p_values_use_51_df(good_decks: list[tuple[int, ...]]) -> None:
    result: CardPositionChiSquare = card_position_test(good_decks[:2000])
    assert len(result.position_p_values) == 52
    for stat, p in zip(result.position_statistics, result.position_p_values, strict=True):
        assert p == chi2_sf(stat, POSITION_DF)
    assert result.bonferroni_p == min(1.0, 52 * min(result.position_p_values))
    assert result.position_p_values[result.worst_position] == min(result.position_p_values)
