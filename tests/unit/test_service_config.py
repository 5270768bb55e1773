"""The one configuration idiom: flags over RIVERBOAT_* over defaults, the same in all four."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

from riverboat.services.common.config import ConfigError, ServiceConfig, stream_replicas
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.server import build_parser as dealer_parser
from riverboat.services.lobby.__main__ import parse as lobby_parse
from riverboat.services.lobby.config import LobbyConfig
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import build_parser as settlement_parser
from riverboat.services.table.__main__ import parse as table_parse
from riverboat.services.table.config import TableConfig

Build = Callable[[list[str], Mapping[str, str]], ServiceConfig]


def _dealer(argv: list[str], env: Mapping[str, str]) -> ServiceConfig:
    return DealerConfig.from_namespace(dealer_parser().parse_args(argv), env)


def _settlement(argv: list[str], env: Mapping[str, str]) -> ServiceConfig:
    return SettlementConfig.from_namespace(settlement_parser().parse_args(argv), env)


def _table(argv: list[str], env: Mapping[str, str]) -> ServiceConfig:
    return TableConfig.from_namespace(table_parse(argv), env)


def _lobby(argv: list[str], env: Mapping[str, str]) -> ServiceConfig:
    return LobbyConfig.from_namespace(lobby_parse(argv), env)


SERVICES: dict[str, tuple[Build, str]] = {
    "dealer": (_dealer, "127.0.0.1:50053"),
    "settlement": (_settlement, "127.0.0.1:50054"),
    "table": (_table, "127.0.0.1:50052"),
    "lobby": (_lobby, "127.0.0.1:50051"),
}

every_service = pytest.mark.parametrize("name", sorted(SERVICES))


def _address(config: ServiceConfig) -> str:
    return str(getattr(config, "address"))  # noqa: B009 (each subclass has its own default)


@every_service
def test_defaults(name: str) -> None:
    build, address = SERVICES[name]
    config = build([], {})
    assert _address(config) == address
    assert config.nats.urls == ("nats://127.0.0.1:4333",)
    assert (config.replicas, config.nats_timeout, config.connect_timeout) == (None, 5.0, 30.0)
    assert (config.grace, config.log_format, config.log_level) == (5.0, "auto", "info")
    assert not config.nats_tls.enabled
    assert "tls" not in config.nats.connect_options()


@every_service
def test_the_environment_over_the_defaults(name: str) -> None:
    build, _ = SERVICES[name]
    env = {
        f"RIVERBOAT_{name.upper()}_ADDRESS": "127.0.0.1:6001",
        "RIVERBOAT_NATS_URL": "nats://a:1,nats://b:2",
        "RIVERBOAT_REPLICAS": "3",
        "RIVERBOAT_NATS_TIMEOUT": "7",
        "RIVERBOAT_CONNECT_TIMEOUT": "8",
        "RIVERBOAT_GRACE": "9",
        "RIVERBOAT_LOG_FORMAT": "json",
        "RIVERBOAT_LOG_LEVEL": "debug",
    }
    config = build([], env)
    assert _address(config) == "127.0.0.1:6001"
    assert config.nats.urls == ("nats://a:1", "nats://b:2")
    assert config.nats.connect_options()["servers"] == ["nats://a:1", "nats://b:2"]
    assert (config.replicas, config.nats_timeout, config.connect_timeout) == (3, 7.0, 8.0)
    assert (config.grace, config.log_format, config.log_level) == (9.0, "json", "debug")


@every_service
def test_flags_over_the_environment(name: str) -> None:
    build, _ = SERVICES[name]
    env = {
        f"RIVERBOAT_{name.upper()}_ADDRESS": "127.0.0.1:6001",
        "RIVERBOAT_NATS_URL": "nats://env:1",
        "RIVERBOAT_REPLICAS": "3",
        "RIVERBOAT_LOG_LEVEL": "debug",
    }
    argv = [
        "--address",
        "127.0.0.1:7001",
        "--nats",
        "nats://x:1,nats://y:2",
        "--nats",
        "nats://z:3",
        "--replicas",
        "1",
        "--log-level",
        "warning",
    ]
    config = build(argv, env)
    assert _address(config) == "127.0.0.1:7001"
    assert config.nats.urls == ("nats://x:1", "nats://y:2", "nats://z:3")
    assert (config.replicas, config.log_level) == (1, "warning")


@every_service
def test_the_in_flight_cap_flag_over_the_environment_over_512(name: str) -> None:
    build, _ = SERVICES[name]
    assert build([], {}).max_in_flight == 512
    assert build([], {"RIVERBOAT_MAX_IN_FLIGHT": "64"}).max_in_flight == 64
    env = {"RIVERBOAT_MAX_IN_FLIGHT": "64"}
    assert build(["--max-in-flight", "8"], env).max_in_flight == 8


@every_service
@pytest.mark.parametrize(
    ("argv", "env", "named"),
    [
        (["--replicas", "0"], {}, "--replicas"),
        ([], {"RIVERBOAT_REPLICAS": "three"}, "RIVERBOAT_REPLICAS"),
        ([], {"RIVERBOAT_GRACE": "soon"}, "RIVERBOAT_GRACE"),
        (["--nats", "http://x:1"], {}, "--nats"),
        (["--nats", " , "], {}, "--nats"),
        (["--nats-ca", "/nonexistent/ca.pem"], {}, "--nats-ca"),
        ([], {"RIVERBOAT_NATS_CERT": "/nonexistent/c.pem"}, "--nats-key"),
        (["--address", "nowhere"], {}, "--address"),
        (["--connect-timeout", "0"], {}, "--connect-timeout"),
        (["--max-in-flight", "0"], {}, "--max-in-flight"),
    ],
)
def test_a_bad_setting_is_named(
    name: str, argv: list[str], env: dict[str, str], named: str
) -> None:
    build, _ = SERVICES[name]
    with pytest.raises(ConfigError, match=named) as caught:
        build(argv, env)
    assert "\n" not in str(caught.value)


def test_tls_files_give_a_context(tmp_path: Path) -> None:
    # A CA file that is not a certificate is refused at start-up, by the flag's name.
    bogus = tmp_path / "ca.pem"
    bogus.write_text("not a certificate")
    with pytest.raises(ConfigError, match="TLS"):
        _table(["--nats-ca", str(bogus)], {})


class _Connected:
    """What stream_replicas reads of a nats-py client: the server's INFO."""

    def __init__(self, info: dict[str, object]) -> None:
        self._server_info = info


@pytest.mark.parametrize(
    ("configured", "info", "replicas"),
    [
        (None, {"server_name": "lone"}, 1),
        (None, {"cluster": "rb", "connect_urls": ["a:1", "b:1", "c:1"]}, 3),
        (None, {"cluster": "rb", "connect_urls": ["a:1", "b:1", "c:1", "d:1", "e:1"]}, 3),
        (None, {"cluster": "rb", "connect_urls": ["a:1", "b:1"]}, 2),
        (None, {"cluster": "rb"}, 3),  # a cluster that advertises no URLs
        (1, {"cluster": "rb", "connect_urls": ["a:1", "b:1", "c:1"]}, 1),  # the flag wins
        (3, {}, 3),
    ],
)
def test_replicas_default_to_1_alone_and_3_on_a_cluster(
    configured: int | None, info: dict[str, object], replicas: int
) -> None:
    assert stream_replicas(configured, _Connected(info)) == replicas
    assert TableConfig(replicas=configured).stream_replicas(_Connected(info)) == replicas


def test_the_handover_timeout_flag_over_the_environment_over_30_s() -> None:
    def config(argv: list[str], env: Mapping[str, str]) -> TableConfig:
        return TableConfig.from_namespace(table_parse(argv), env)

    env = {"RIVERBOAT_HANDOVER_TIMEOUT": "12"}
    assert config([], {}).handover_seconds == 30.0
    assert config([], env).handover_seconds == 12.0
    assert config(["--handover-timeout", "4.5"], env).handover_seconds == 4.5
    with pytest.raises(ValueError, match="--handover-timeout"):
        config(["--handover-timeout", "0"], {})


def test_the_seed_windows_flags_over_the_environment_and_a_phase_never_absent() -> None:
    def config(argv: list[str], env: Mapping[str, str]) -> TableConfig:
        return TableConfig.from_namespace(table_parse(argv), env)

    env = {"RIVERBOAT_SEED_WINDOW": "3", "RIVERBOAT_MIN_SEED_WINDOW": "0.5"}
    assert (config([], {}).seed_window, config([], {}).min_seed_window) == (1.0, 0.25)
    assert (config([], env).seed_window, config([], env).min_seed_window) == (3.0, 0.5)
    flags = ["--seed-window", "2", "--min-seed-window", "0.1"]
    assert (config(flags, env).seed_window, config(flags, env).min_seed_window) == (2.0, 0.1)
    # A seed phase lasts the pause within [min, max]: with no pause, the minimum.
    table = config([], env)
    assert [table.seed_phase_seconds(p) for p in (0.0, 2.0, 10.0)] == [0.5, 2.0, 3.0]
    with pytest.raises(ValueError, match="--min-seed-window"):
        config(["--min-seed-window", "0"], {})
