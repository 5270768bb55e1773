"""Listening addresses: ``host:port`` parsing shared by configuration and the gRPC server."""

from __future__ import annotations

__all__ = ["split_address"]


def split_address(address: str) -> tuple[str, int]:
    """Split ``host:port`` (``[v6]:port`` for IPv6) and check the port is a number 0..65535.

    Raises:
        ValueError: the address has no host, or the port is not a number in range.
    """
    host, sep, port_text = address.rpartition(":")
    if not sep or not host or not port_text.isdigit() or not 0 <= int(port_text) <= 65535:
        raise ValueError(f"address must be host:port with a port in 0..65535, got {address!r}")
    return host, int(port_text)
