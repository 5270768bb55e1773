"""Password hashing with Argon2id (memory-hard), via argon2-cffi."""

from __future__ import annotations

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

# argon2-cffi's defaults follow RFC 9106's second recommended option (64 MiB, 3 passes).
_HASHER = PasswordHasher()

MIN_LENGTH = 8
MAX_LENGTH = 256


class PasswordError(ValueError):
    """A password that does not meet the rules."""


def check_rules(password: str) -> None:
    """Raise :class:`PasswordError` for a password too short or too long."""
    if not MIN_LENGTH <= len(password) <= MAX_LENGTH:
        raise PasswordError(f"a password is {MIN_LENGTH} to {MAX_LENGTH} characters")


def hash_password(password: str) -> str:
    """The Argon2id hash (with its salt and parameters) to store."""
    check_rules(password)
    return _HASHER.hash(password)


def verify_password(stored: str, password: str) -> bool:
    """Whether ``password`` matches ``stored``; never raises for a wrong password."""
    try:
        return _HASHER.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False
