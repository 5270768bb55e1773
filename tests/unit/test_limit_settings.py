"""Limit settings: ``--rate-limit`` flags over ``RIVERBOAT_RATE_LIMITS`` over the defaults."""

from __future__ import annotations

import pytest

from riverboat.ratelimit import Rate
from riverboat.services.common.limits import (
    DEFAULT_MAX_STREAMS,
    DEFAULT_RATES,
    RateLimits,
    peer_address,
)
from riverboat.services.lobby.__main__ import parse as parse_lobby
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.table.__main__ import parse as parse_table
from riverboat.services.table.config import TableConfig


def test_defaults_cover_every_limited_method_and_scope() -> None:
    limits = RateLimits()
    assert set(limits.rates) == {
        f"{m}.{s}" for m in ("Register", "Login", "Act", "Watch") for s in ("account", "peer")
    }
    assert all(limits.rates[key] is not None for key in DEFAULT_RATES)
    assert limits.rate("Login", "account") == Rate(30, 60.0)
    assert limits.max_streams == DEFAULT_MAX_STREAMS == 32


def test_flags_over_environment_over_defaults() -> None:
    env = {"RIVERBOAT_RATE_LIMITS": "Login.peer=10/min, Act.account=off"}
    limits = RateLimits.from_settings(env, ["Login.peer=3/s", "Watch.peer=7/h"], max_streams=4)
    assert limits.rate("Login", "peer") == Rate(3, 1.0)  # the flag wins
    assert limits.rate("Act", "account") is None  # the environment turned it off
    assert limits.rate("Watch", "peer") == Rate(7, 3600.0)
    assert limits.rate("Register", "peer") == Rate(120, 60.0)  # untouched: the default
    assert limits.max_streams == 4


@pytest.mark.parametrize(
    "spec", ["Login=5/s", "Login.ip=5/s", ".peer=5/s", "Login.peer", "Login.peer=fast"]
)
def test_a_malformed_limit_is_refused_by_name(spec: str) -> None:
    with pytest.raises(ValueError, match="rate limit"):
        RateLimits.parse([spec])


def test_the_services_take_their_limits_from_flags_and_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RIVERBOAT_RATE_LIMITS", "Act.peer=9/s")
    monkeypatch.setenv("RIVERBOAT_MAX_WATCH_STREAMS", "5")
    monkeypatch.setenv("RIVERBOAT_HASH_QUEUE", "3")
    args = parse_table(["--rate-limit", "Act.account=4/s"])
    table = TableConfig.from_namespace(args)
    assert table.rate_limits.rate("Act", "peer") == Rate(9, 1.0)
    assert table.rate_limits.rate("Act", "account") == Rate(4, 1.0)
    assert table.rate_limits.max_streams == 5
    assert (
        TableConfig.from_namespace(
            parse_table(["--max-watch-streams", "7"])
        ).rate_limits.max_streams
        == 7
    )
    args = parse_lobby(["--rate-limit", "Login.account=1/min", "--hash-workers", "1"])
    lobby = LobbyConfig.from_namespace(args)
    assert lobby.rate_limits.rate("Login", "account") == Rate(1, 60.0)
    assert (lobby.hash_workers, lobby.hash_queue, lobby.hash_per_peer) == (1, 3, 4)
    with pytest.raises(ValueError, match="hash-workers"):
        LobbyConfig(hash_workers=0)


@pytest.mark.parametrize(
    ("peer", "address"),
    [
        ("ipv4:127.0.0.2:51234", "ipv4:127.0.0.2"),
        ("ipv6:[::1]:443", "ipv6:[::1]"),
        ("unix:/tmp/s", "unix:/tmp/s"),
        ("", ""),
    ],
)
def test_a_peer_is_its_address_without_the_port(peer: str, address: str) -> None:
    assert peer_address(peer) == address
