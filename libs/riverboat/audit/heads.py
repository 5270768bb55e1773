"""Published chain heads: each table's hash-chain head, signed and sent out at an interval, so
that a log rewritten later no longer matches what was published (docs/audit.md).

A publication is one JSON line::

    {"type": "riverboat.chain-heads/1", "published_at": "2026-12-02T01:40:00Z",
     "heads": {"t1": {"version": 42, "head": "<64 hex>"}, ...},
     "key": "<ed25519 public key, 64 hex>", "signature": "<128 hex>"}

The signature is Ed25519 over the canonical JSON of the other fields but ``key`` and
``signature`` (keys sorted, no spaces, ASCII). The operator's publisher signs; a timestamping
service the operator does not control keeps the lines (in tests, a local file). The audit
checks every line's signature against the key it is given (never the line's own ``key``
alone) and that each table's log has, at that version, exactly that head.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from riverboat.audit.archive import StoredMessage
from riverboat.audit.report import Check, Violation
from riverboat.audit.tablelog import decode_log

__all__ = [
    "HEADS_TYPE",
    "HeadsError",
    "Publication",
    "check_heads",
    "heads_of",
    "public_key_hex",
    "read_publications",
    "sign_publication",
]

HEADS_TYPE = "riverboat.chain-heads/1"


class HeadsError(ValueError):
    """A publication file or key that cannot be read."""


@dataclass(frozen=True, slots=True)
class Publication:
    """One signed line: when, and each table's (version, head)."""

    line: int
    published_at: str
    heads: Mapping[str, tuple[int, str]]
    signed: bytes
    signature: bytes


def _canonical(published_at: str, heads: Mapping[str, tuple[int, str]]) -> bytes:
    body = {
        "type": HEADS_TYPE,
        "published_at": published_at,
        "heads": {t: {"version": v, "head": h} for t, (v, h) in sorted(heads.items())},
    }
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def public_key_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """The raw 32-byte public key as hex."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(Encoding.Raw, PublicFormat.Raw).hex()


def sign_publication(
    key: Ed25519PrivateKey, published_at: str, heads: Mapping[str, tuple[int, str]]
) -> str:
    """One publication line (no newline)."""
    signed = _canonical(published_at, heads)
    line = json.loads(signed)
    line["key"] = public_key_hex(key)
    line["signature"] = key.sign(signed).hex()
    return json.dumps(line, sort_keys=True, separators=(",", ":"))


def read_publications(path: Path) -> list[Publication]:
    """Every publication in ``path``. Raises :class:`HeadsError` naming a malformed line."""
    out = []
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise HeadsError(f"cannot read {path}: {exc.strerror}") from None
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
            if obj.get("type") != HEADS_TYPE:
                raise ValueError(f"type is not {HEADS_TYPE}")
            heads = {str(t): (int(e["version"]), str(e["head"])) for t, e in obj["heads"].items()}
            published_at = str(obj["published_at"])
            signature = bytes.fromhex(obj["signature"])
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise HeadsError(
                f"{path} line {number} is not a chain-heads publication: {exc}"
            ) from None
        out.append(
            Publication(number, published_at, heads, _canonical(published_at, heads), signature)
        )
    return out


def heads_of(tables: Mapping[str, list[StoredMessage]]) -> dict[str, tuple[int, str]]:
    """Each table's last version and the hash of its last event (what a publisher signs)."""
    out = {}
    for table_id, messages in tables.items():
        log, _ = decode_log(table_id, messages[-1:])
        if log and log[-1].events:
            out[table_id] = (log[-1].version, log[-1].events[-1].hash.hex())
    return out


def check_heads(
    tables: Mapping[str, list[StoredMessage]],
    publications: list[Publication],
    key: Ed25519PublicKey,
) -> list[Violation]:
    """Violations: a publication not signed by ``key``, or a table whose log does not hold,
    at a published version, the published head (rewritten, truncated, or missing)."""
    out = []
    for pub in publications:
        try:
            key.verify(pub.signature, pub.signed)
        except InvalidSignature:
            out.append(
                Violation(
                    Check.PUBLISHED_HEAD,
                    f"publication on line {pub.line} ({pub.published_at}) is not signed by the "
                    "publisher's key",
                )
            )
            continue
        for table_id, (version, head) in sorted(pub.heads.items()):
            messages = tables.get(table_id, [])
            log, _ = decode_log(table_id, messages)
            at = next((m for m in log if m.version == version), None)
            if at is None or not at.events:
                last = log[-1].version if log else 0
                out.append(
                    Violation(
                        Check.PUBLISHED_HEAD,
                        f"the head of version {version} was published at {pub.published_at}, "
                        f"but the log ends at version {last}",
                        table_id,
                    )
                )
            elif at.events[-1].hash.hex() != head:
                out.append(
                    Violation(
                        Check.PUBLISHED_HEAD,
                        f"at version {version} the log's chain head is "
                        f"{at.events[-1].hash.hex()[:16]}..., but {head[:16]}... was published "
                        f"at {pub.published_at}: the log was rewritten after publication",
                        table_id,
                        at=at.events[-1].ref,
                    )
                )
    return out
