"""Committed, verifiable deck shuffling for the dealer (scheme RBS1). Pure: no I/O.

Per hand the dealer draws a 256-bit seed (:func:`new_seed`), publishes
:func:`commitment` before the deal, deals from :func:`derive_deck`, and keeps the seed sealed
(:mod:`riverboat.shuffle.sealing`). An auditor given the seed checks the hand with
:func:`verify`. The exact byte-level specification is ``docs/shuffle.md``; known-answer vectors
are in :mod:`riverboat.shuffle.vectors`, and :mod:`riverboat.shuffle.quality` holds the
card-by-position chi-square check.
"""

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

__all__ = [
    "COMMITMENT_SIZE",
    "SCHEME",
    "SEED_SIZE",
    "ShuffleError",
    "ShuffleInputError",
    "ShuffleVerificationError",
    "VerificationFailure",
    "commitment",
    "derive_deck",
    "derive_reshuffle",
    "new_seed",
    "verify",
]
