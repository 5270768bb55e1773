"""What ``riverboat play`` and ``riverboat admin`` share: money amounts typed by people, server
errors as plain sentences, where the room's services are, and who a token speaks for.

The rule for amounts, everywhere a person types one: **dollars** (``12``, ``12.5``, ``12.50``,
``$12.50``), or **cents** with a trailing ``c`` (``1250c``). Both mean 1,250 cents.
"""

from __future__ import annotations

import argparse
import os
import re
from dataclasses import dataclass

import grpc
import jwt

from riverboat.handtext import money

__all__ = [
    "AMOUNT_RULE",
    "DEFAULT_LOBBY",
    "DEFAULT_SETTLEMENT",
    "DEFAULT_TABLE",
    "TOKEN_FILE_PATTERN",
    "AmountError",
    "TokenInfo",
    "add_address_flags",
    "error_sentence",
    "money",
    "parse_amount",
    "sentence",
    "service_address",
    "token_info",
]

DEFAULT_LOBBY = "127.0.0.1:50051"
DEFAULT_TABLE = "127.0.0.1:50052"
DEFAULT_SETTLEMENT = "127.0.0.1:50054"
#: Where ``riverboat admin login --save`` writes a token, one file per lobby address: two rooms
#: on one machine (or their two operators) never read or overwrite each other's token.
TOKEN_FILE_PATTERN = "var/admin@{lobby}.token"

AMOUNT_RULE = "amounts are dollars (12, 12.50, $12.50) or cents with a trailing c (1250c)"

_DOLLARS = re.compile(r"\$?(\d{1,9})(?:\.(\d{1,2}))?")
_CENTS = re.compile(r"(\d{1,11})c")


class AmountError(ValueError):
    """Text that is not an amount of money; the message says what is."""


def parse_amount(text: str) -> int:
    """Cents from what a person typed (see the module's rule).

    >>> parse_amount("12.5"), parse_amount("$12.50"), parse_amount("1250c"), parse_amount("3")
    (1250, 1250, 1250, 300)
    """
    cleaned = text.strip().replace(",", "")
    if match := _CENTS.fullmatch(cleaned):
        return int(match.group(1))
    if match := _DOLLARS.fullmatch(cleaned):
        dollars, cents = match.group(1), (match.group(2) or "0").ljust(2, "0")
        return int(dollars) * 100 + int(cents)
    raise AmountError(f"{text.strip() or 'nothing'!r} is not an amount: {AMOUNT_RULE}")


def sentence(text: str) -> str:
    """``"the table is full"`` -> ``"The table is full."``"""
    text = text.strip()
    if not text:
        return text
    first = text.split(maxsplit=1)[0]
    if first.isalpha() and first.islower():  # not "small_bet" or "pacific-t1": names stay
        text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


_UNREACHABLE = ("failed to connect", "connection refused", "dns resolution failed", "connect fail")


def error_sentence(exc: grpc.RpcError, service: str, address: str) -> str:
    """A server's refusal as one sentence a person can act on (never a traceback).

    ``service`` names who was called ("lobby", "table service", "settlement service").
    """
    code = exc.code() if hasattr(exc, "code") else None
    details = (exc.details() if hasattr(exc, "details") else "") or ""
    if code == grpc.StatusCode.UNAVAILABLE and (
        not details or any(marker in details.lower() for marker in _UNREACHABLE)
    ):
        return f"Cannot reach the {service} at {address}; is `make run` going?"
    if code == grpc.StatusCode.DEADLINE_EXCEEDED:
        return f"The {service} at {address} did not answer in time; try again."
    if code == grpc.StatusCode.UNIMPLEMENTED:
        return f"The server at {address} is not the {service} (it does not know this call)."
    if code == grpc.StatusCode.INTERNAL:
        # The services send an incident id, never the exception; pass it on for the operator.
        return sentence(f"the {service} failed: {details or 'internal error'}")
    if code == grpc.StatusCode.CANCELLED:
        return "The call was cancelled."
    return sentence(details or f"the {service} refused ({code.name if code else 'unknown'})")


@dataclass(frozen=True, slots=True)
class TokenInfo:
    """What a bearer token says about its holder (read, not verified: the servers verify)."""

    subject: str
    role: str
    expires: int


def token_info(token: str) -> TokenInfo:
    """The subject, role and expiry a token claims; ``ValueError`` if it is not a token."""
    try:
        claims = jwt.decode(token, options={"verify_signature": False})
    except jwt.InvalidTokenError:
        raise ValueError("that is not a Riverboat token") from None
    return TokenInfo(str(claims.get("sub", "")), str(claims.get("role", "")), int(claims["exp"]))


def service_address(service: str, default: str) -> str:
    """Where a client finds ``service``: ``$RIVERBOAT_<SERVICE>_ADDRESS`` (the variable the
    services themselves read, riverboat.services.common.config), else ``default``."""
    return os.environ.get(f"RIVERBOAT_{service.upper()}_ADDRESS") or default


def add_address_flags(parser: argparse.ArgumentParser, *, table: bool = False) -> None:
    """``--lobby``, ``--settlement`` (and ``--table``): a flag, else the variable, else the
    room's default (:func:`service_address`)."""
    parser.add_argument(
        "--lobby",
        default=service_address("lobby", DEFAULT_LOBBY),
        help=f"lobby ($RIVERBOAT_LOBBY_ADDRESS, else {DEFAULT_LOBBY})",
    )
    if table:
        parser.add_argument(
            "--table",
            default=service_address("table", DEFAULT_TABLE),
            help=f"table service ($RIVERBOAT_TABLE_ADDRESS, else {DEFAULT_TABLE})",
        )
    parser.add_argument(
        "--settlement",
        default=service_address("settlement", DEFAULT_SETTLEMENT),
        help=f"settlement service ($RIVERBOAT_SETTLEMENT_ADDRESS, else {DEFAULT_SETTLEMENT})",
    )
