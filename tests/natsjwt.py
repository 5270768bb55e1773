"""NATS keys and JWTs for tests: nkeys (the ``nkeys`` package) and a small JWT encoder of our
own, enough to run a nats-server in operator/JWT mode (an operator, a system account, an
account with JetStream, a user and its ``.creds`` file).

The encoding is the one NATS documents for its JWTs: a header ``{"typ": "JWT", "alg":
"ed25519-nkey"}``, the claims, and the issuer's Ed25519 signature of ``header.claims``, each
part base64url without padding; ``jti`` is a digest of the claims (base32).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import time
from dataclasses import dataclass
from typing import Any

import nkeys

__all__ = ["Key", "account_jwt", "creds_text", "new_key", "operator_jwt", "user_jwt"]


@dataclass(frozen=True)
class Key:
    """An nkey: its seed (secret) and public key, as text."""

    seed: str
    public: str

    def sign(self, data: bytes) -> bytes:
        pair = nkeys.from_seed(self.seed.encode())
        try:
            return bytes(pair.sign(data))
        finally:
            pair.wipe()


def new_key(prefix: int) -> Key:
    """A fresh nkey of the kind ``prefix`` names (``nkeys.PREFIX_BYTE_USER``, ...)."""
    seed = nkeys.encode_seed(os.urandom(32), prefix)
    pair = nkeys.from_seed(seed)
    public = pair.public_key.decode()
    pair.wipe()
    return Key(seed.decode(), public)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _jwt(issuer: Key, subject: str, name: str, nats: dict[str, Any]) -> str:
    claims: dict[str, Any] = {
        "jti": "",
        "iat": int(time.time()),
        "iss": issuer.public,
        "name": name,
        "sub": subject,
        "nats": {**nats, "version": 2},
    }
    digest = hashlib.sha256(json.dumps(claims, sort_keys=True).encode()).digest()
    claims["jti"] = base64.b32encode(digest).decode().rstrip("=")
    header = _b64(json.dumps({"typ": "JWT", "alg": "ed25519-nkey"}).encode())
    body = _b64(json.dumps(claims).encode())
    signature = _b64(issuer.sign(f"{header}.{body}".encode()))
    return f"{header}.{body}.{signature}"


def operator_jwt(operator: Key, name: str = "riverboat-test") -> str:
    """The operator's self-signed JWT."""
    return _jwt(operator, operator.public, name, {"type": "operator"})


def account_jwt(operator: Key, account: Key, name: str, *, jetstream: bool = True) -> str:
    """An account signed by ``operator``; with JetStream (no limits) when ``jetstream``."""
    limits: dict[str, Any] = {
        "subs": -1, "data": -1, "payload": -1, "imports": -1, "exports": -1,
        "wildcards": True, "conn": -1, "leaf": -1,
    }  # fmt: skip
    if jetstream:
        limits.update(mem_storage=-1, disk_storage=-1, streams=-1, consumer=-1)
    return _jwt(
        operator,
        account.public,
        name,
        {"type": "account", "limits": limits, "default_permissions": {"pub": {}, "sub": {}}},
    )


def user_jwt(account: Key, user: Key, name: str) -> str:
    """A user of ``account`` with no limits of its own."""
    return _jwt(
        account,
        user.public,
        name,
        {"type": "user", "pub": {}, "sub": {}, "subs": -1, "data": -1, "payload": -1},
    )


def creds_text(jwt: str, user: Key) -> str:
    """A ``.creds`` file: the user's JWT and seed, in the layout NATS tools write."""
    return (
        "-----BEGIN NATS USER JWT-----\n"
        f"{jwt}\n"
        "------END NATS USER JWT------\n\n"
        "************************* IMPORTANT *************************\n"
        "NKEY Seed printed below can be used to sign and prove identity.\n"
        "NKEYs are sensitive and should be treated as secrets.\n\n"
        "-----BEGIN USER NKEY SEED-----\n"
        f"{user.seed}\n"
        "------END USER NKEY SEED------\n\n"
        "*************************************************************\n"
    )
