"""Signed bearer tokens: HS256 JWTs with subject, role and expiry (PyJWT)."""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

import jwt

ROLES = frozenset({"player", "operator", "auditor", "service"})
ISSUER = "riverboat"
ALGORITHM = "HS256"
DEFAULT_TTL = 12 * 3600
ENV_KEY = "RIVERBOAT_TOKEN_KEY"
ENV_KEY_FILE = "RIVERBOAT_TOKEN_KEY_FILE"
DEFAULT_KEY_FILE = Path("var/token.key")


class TokenError(Exception):
    """A token that is missing, malformed, forged or expired (the message says which)."""


@dataclass(frozen=True, slots=True)
class Identity:
    """Who a verified token speaks for."""

    subject: str
    role: str
    #: When the token stops being valid (Unix seconds); 0 when unknown.
    expires_at: int = 0

    @property
    def caller(self) -> str:
        """``role:subject``: who asked, as logs record the actor and request ids are scoped
        (riverboat.idempotency)."""
        return f"{self.role}:{self.subject}"

    @property
    def is_operator(self) -> bool:
        """Operators (and Riverboat's own services) may run the room."""
        return self.role in ("operator", "service")


class TokenIssuer:
    """Issues and verifies tokens with one secret key (at least 32 bytes)."""

    def __init__(self, key: bytes, *, ttl: int = DEFAULT_TTL) -> None:
        if len(key) < 32:
            raise ValueError("the token key must be at least 32 bytes")
        self._key = key
        self.ttl = ttl

    def __repr__(self) -> str:  # the key never appears in logs or tracebacks
        return f"TokenIssuer(ttl={self.ttl})"

    def issue(
        self, subject: str, role: str, *, ttl: int | None = None, now: float | None = None
    ) -> str:
        """A token for ``subject`` with ``role``, valid for ``ttl`` seconds."""
        if role not in ROLES:
            raise ValueError(f"unknown role {role!r}")
        issued = int(now if now is not None else time.time())
        claims = {
            "iss": ISSUER,
            "sub": subject,
            "role": role,
            "iat": issued,
            "exp": issued + (self.ttl if ttl is None else ttl),
        }
        return jwt.encode(claims, self._key, algorithm=ALGORITHM)

    def verify(self, token: str) -> Identity:
        """The identity a token carries; :class:`TokenError` if it is not valid now."""
        try:
            claims = jwt.decode(
                token,
                self._key,
                algorithms=[ALGORITHM],
                issuer=ISSUER,
                options={"require": ["exp", "iat", "sub", "iss"]},
            )
        except jwt.ExpiredSignatureError:
            raise TokenError("the token has expired; log in again") from None
        except jwt.InvalidTokenError:
            raise TokenError("the token is not valid") from None
        role = claims.get("role")
        subject = claims.get("sub")
        if role not in ROLES or not isinstance(subject, str) or not subject:
            raise TokenError("the token is not valid")
        return Identity(subject, role, int(claims["exp"]))


class TokenKeyError(ValueError):
    """No token key is configured, or the configured one is malformed (never shows the key)."""


def load_token_key(path: Path | None = None, *, create: bool = False) -> bytes:
    """The shared token key: ``RIVERBOAT_TOKEN_KEY`` (hex), else the file named by
    ``RIVERBOAT_TOKEN_KEY_FILE``, else ``path`` (default ``var/token.key``).

    A service never makes up a key of its own: two replicas with keys of their own would refuse
    each other's tokens. Only the embedded room (``riverboat up``) passes ``create=True``, which
    writes a new key to the file (mode 0600) when it does not exist yet.

    Raises:
        TokenKeyError: no key is configured (and ``create`` is false), or it is malformed.
    """
    text = os.environ.get(ENV_KEY)
    if text:
        return _decode(text, ENV_KEY)
    file = Path(os.environ.get(ENV_KEY_FILE) or path or DEFAULT_KEY_FILE)
    if file.exists():
        return _decode(_read(file), f"token key file {file}")
    if not create:
        raise TokenKeyError(
            f"no token key: set {ENV_KEY} (64 hex digits) or {ENV_KEY_FILE} ({file} does not exist)"
        )
    file.parent.mkdir(parents=True, exist_ok=True)
    key = secrets.token_bytes(32)
    try:
        fd = os.open(file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another service created it a moment ago
        time.sleep(0.1)
        return _decode(_read(file), f"token key file {file}")
    with os.fdopen(fd, "w") as handle:
        handle.write(key.hex() + "\n")
    return key


def _read(file: Path) -> str:
    try:
        return file.read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not ASCII text"
        raise TokenKeyError(f"cannot read the token key file {file}: {reason}") from None


def _decode(text: str, where: str) -> bytes:
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        raise TokenKeyError(f"{where}: the token key is not hex digits") from None
    if len(key) < 32:
        raise TokenKeyError(f"{where}: the token key must be at least 32 bytes (64 hex digits)")
    return key
