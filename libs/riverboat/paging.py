"""Page sizes and page tokens for every list RPC, the AIP-158 way.

One idiom for all ``List*`` RPCs (``ListTables``, ``ListLedgerEntries``, ``ListHands``):

* ``page_size`` 0 means the RPC's default; over its maximum it is reduced to the maximum, not
  refused; below 0 it is refused (``field page_size``).
* ``page_token`` is opaque: URL-safe base64 of a small JSON body (format version, a digest of
  the query, the cursor) followed by a checksum. A token is tied to its query: the RPC's name
  and every request field except ``page_size`` and ``page_token`` (and, where the answer
  depends on who asks, the caller). A token given with another query, or altered in any way,
  is refused with :class:`PageTokenError`.
* ``next_page_token`` is ``""`` on the last page.

The checksum is not a secret: it catches tokens that were corrupted, hand-edited or meant for
another query, not a forger. No secret is needed because a token grants nothing: the cursor
only says where the next page starts, and each page is checked against the caller's rights
like the first one.

This module is pure (no gRPC); servicers turn :class:`PageTokenError` into
``INVALID_ARGUMENT`` with its :attr:`~PageTokenError.reason` (``services/common/errors.py``
does it for any handler that lets one escape).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeAlias

__all__ = [
    "MAX_TOKEN_LENGTH",
    "REASON_BAD_PAGE_SIZE",
    "REASON_BAD_PAGE_TOKEN",
    "REASON_PAGE_TOKEN_QUERY",
    "Cursor",
    "PageRequest",
    "PageTokenError",
    "next_page_token",
    "page_request",
    "page_size",
]

Cursor: TypeAlias = int | str
"""Where a page starts: an offset or key, as the RPC chooses (JSON-encodable)."""

Query: TypeAlias = Mapping[str, str | int | bool | list[str] | None]

MAX_TOKEN_LENGTH = 512
"""Longest page token read (tokens made here are far shorter)."""

REASON_BAD_PAGE_SIZE = "BAD_PAGE_SIZE"
REASON_BAD_PAGE_TOKEN = "BAD_PAGE_TOKEN"
REASON_PAGE_TOKEN_QUERY = "PAGE_TOKEN_QUERY_MISMATCH"

_FORMAT = 1
_CHECK = 8  # bytes of checksum after the body
_QUERY_DIGEST = 12  # hex digits of the query's digest in the body


class PageTokenError(ValueError):
    """A ``page_size`` or ``page_token`` that cannot be used: ``INVALID_ARGUMENT``.

    Attributes:
        message: a sentence for the caller.
        field: the request field at fault (``page_size`` or ``page_token``).
        reason: ``BAD_PAGE_SIZE``, ``BAD_PAGE_TOKEN`` (not a token of this service, or
            altered) or ``PAGE_TOKEN_QUERY_MISMATCH`` (a token of another query).
    """

    def __init__(self, message: str, *, field: str, reason: str) -> None:
        super().__init__(message)
        self.message = message
        self.field = field
        self.reason = reason


@dataclass(frozen=True, slots=True)
class PageRequest:
    """A list request's page: how many items, and where to start (None: the beginning)."""

    size: int
    cursor: Cursor | None
    digest: str

    def next_token(self, cursor: Cursor | None) -> str:
        """The ``next_page_token`` for a next page starting at ``cursor`` (None: no more)."""
        return "" if cursor is None else _encode(self.digest, cursor)


def page_size(requested: int, *, default: int, maximum: int) -> int:
    """AIP-158's page size: 0 is ``default``, over ``maximum`` is ``maximum``.

    Raises:
        PageTokenError: ``requested`` is negative (reason ``BAD_PAGE_SIZE``).
    """
    if requested < 0:
        raise PageTokenError(
            f"page_size must not be negative (0 means {default}; at most {maximum} are sent)",
            field="page_size",
            reason=REASON_BAD_PAGE_SIZE,
        )
    if requested == 0:
        return default
    return min(requested, maximum)


def page_request(
    method: str,
    query: Query,
    *,
    page_size_requested: int,
    page_token: str,
    default: int,
    maximum: int,
) -> PageRequest:
    """Read a list request's ``page_size`` and ``page_token``.

    Args:
        method: the RPC (``"ListTables"``): a token of one RPC never fits another.
        query: every field that selects the items (filters; the caller when the answer
            depends on who asks). Not ``page_size`` or ``page_token``.
        page_size_requested, page_token: the request's fields.
        default, maximum: the RPC's page sizes.

    Raises:
        PageTokenError: a negative size, a token not made here or altered, or a token of
            another query.
    """
    size = page_size(page_size_requested, default=default, maximum=maximum)
    digest = query_digest(method, query)
    if not page_token:
        return PageRequest(size, None, digest)
    token_digest, cursor = _decode(page_token)
    if token_digest != digest:
        raise PageTokenError(
            "page_token belongs to another query: repeat the first request's filters, or "
            "start again without a page_token",
            field="page_token",
            reason=REASON_PAGE_TOKEN_QUERY,
        )
    return PageRequest(size, cursor, digest)


def next_page_token(method: str, query: Query, cursor: Cursor | None) -> str:
    """The token for the page starting at ``cursor`` of this query (``""`` for None)."""
    return PageRequest(0, None, query_digest(method, query)).next_token(cursor)


def query_digest(method: str, query: Query) -> str:
    """A short digest of the RPC and its query (key order does not matter)."""
    canonical = json.dumps([method, dict(query)], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()[:_QUERY_DIGEST]


def _checksum(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=_CHECK, person=b"rb-page-token").digest()


def _encode(digest: str, cursor: Cursor) -> str:
    body = json.dumps({"v": _FORMAT, "q": digest, "c": cursor}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(body + _checksum(body)).decode().rstrip("=")


def _bad_token() -> PageTokenError:
    return PageTokenError(
        "page_token is not one this service gave out (or it was changed); use the "
        "next_page_token of the previous page as it came",
        field="page_token",
        reason=REASON_BAD_PAGE_TOKEN,
    )


def _decode(token: str) -> tuple[str, Cursor]:
    if len(token) > MAX_TOKEN_LENGTH or not token.isascii():
        raise _bad_token()
    try:
        raw = base64.urlsafe_b64decode(token + "=" * (-len(token) % 4))
    except (ValueError, binascii.Error):
        raise _bad_token() from None
    # Base64 tolerates stray bits in its last character: only the one spelling made here.
    if base64.urlsafe_b64encode(raw).decode().rstrip("=") != token or len(raw) <= _CHECK:
        raise _bad_token()
    body, check = raw[:-_CHECK], raw[-_CHECK:]
    if _checksum(body) != check:
        raise _bad_token()
    try:
        fields = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        raise _bad_token() from None
    if not isinstance(fields, dict) or fields.get("v") != _FORMAT:
        raise _bad_token()
    digest, cursor = fields.get("q"), fields.get("c")
    if not isinstance(digest, str) or isinstance(cursor, bool):
        raise _bad_token()
    if not isinstance(cursor, int | str):
        raise _bad_token()
    return digest, cursor
