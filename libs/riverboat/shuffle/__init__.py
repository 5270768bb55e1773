"""Committed, verifiable deck shuffling for the dealer (scheme RBS1). Pure: no I/O.

Per hand the dealer draws a 256-bit seed (:func:`new_seed`), publishes
:func:`commitment` before the deal, deals from :func:`derive_deck`, and keeps the seed sealed
(:mod:`riverboat.shuffle.sealing`). An auditor given the seed checks the hand with
:func:`verify`. The exact byte-level specification is ``docs/shuffle.md``; known-answer vectors
are in :mod:`riverboat.shuffle.vectors`, and :mod:`riverboat.shuffle.quality` holds the
card-by-position chi-square check.
"""

from riverboat.shuffle import crv1
from riverboat.shuffle.scheme import (
    COMMITMENT_SIZE,
    SCHEME,
    SEED_SIZE,
    ShuffleError,
    ShuffleInputError,
    ShuffleVerificationError,
    VerificationFailure,
    commitment,
    derive_deck,
    derive_reshuffle,
    new_seed,
    verify,
)

SCHEMES = ("RBS1", "CRV1")
"""The shuffle schemes a dealer can commit under (docs/shuffle.md parts I and II)."""


def commitment_for(scheme: str, hand_id: str, seed: bytes) -> bytes:
    """The seed commitment ``C`` of ``scheme`` (RBS1 or CRV1)."""
    if scheme == "CRV1":
        return crv1.commitment(hand_id, seed)
    if scheme != SCHEME:
        raise ShuffleInputError(f"unknown shuffle scheme {scheme!r}")
    return commitment(hand_id, seed)


__all__ = [
    "COMMITMENT_SIZE",
    "SCHEME",
    "SCHEMES",
    "SEED_SIZE",
    "ShuffleError",
    "ShuffleInputError",
    "ShuffleVerificationError",
    "VerificationFailure",
    "commitment",
    "commitment_for",
    "crv1",
    "derive_deck",
    "derive_reshuffle",
    "new_seed",
    "verify",
]
