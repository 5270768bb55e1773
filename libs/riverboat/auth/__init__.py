"""Accounts' secrets: password hashing (Argon2id) and signed bearer tokens (JWT, HS256).

Every service verifies tokens with the same key (``RIVERBOAT_TOKEN_KEY`` or a key file); only
the lobby issues them to people. Roles: ``player``, ``operator``, ``auditor``, and ``service``
for calls between Riverboat's own services.
"""

from riverboat.auth.passwords import PasswordError, hash_password, verify_password
from riverboat.auth.tokens import (
    ROLES,
    Identity,
    TokenError,
    TokenIssuer,
    TokenKeyError,
    load_token_key,
)

__all__ = [
    "ROLES",
    "Identity",
    "PasswordError",
    "TokenError",
    "TokenIssuer",
    "TokenKeyError",
    "hash_password",
    "load_token_key",
    "verify_password",
]
