"""The NATS login setting every service and tool shares: flags over RIVERBOAT_* over none."""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import pytest

from riverboat.natsauth import IDENTITIES, NatsCredentials, room_passwords
from riverboat.services.common.natslogin import NatsLoginError, add_nats_login_arguments, nats_login
from riverboat.services.dealer.config import DealerConfig
from riverboat.services.dealer.server import build_parser as dealer_parser
from riverboat.services.lobby.__main__ import parse as lobby_parse
from riverboat.services.settlement.config import SettlementConfig
from riverboat.services.settlement.server import build_parser as settlement_parser
from riverboat.services.table.__main__ import parse as table_parse


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_nats_login_arguments(parser)
    return parser.parse_args(list(argv))


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "table.password"
    path.write_text("s3cret-from-file\n")
    return path


def test_no_setting_means_no_login() -> None:
    login = nats_login(_args(), {})
    assert login == NatsCredentials()
    assert login.connect_options() == {}


def test_flags_win_over_the_environment(secret: Path, tmp_path: Path) -> None:
    other = tmp_path / "other.password"
    other.write_text("from-env-file")
    env = {
        "RIVERBOAT_NATS_USER": "dealer",
        "RIVERBOAT_NATS_PASSWORD_FILE": str(other),
        "RIVERBOAT_NATS_PASSWORD": "from-env",
    }
    login = nats_login(_args("--nats-user", "table", "--nats-password-file", str(secret)), env)
    assert login.connect_options() == {
        "user": "table",
        "password": "s3cret-from-file",
        "inbox_prefix": "_INBOX_table",
    }
    from_env = nats_login(_args(), env)
    assert (from_env.user, from_env.password) == ("dealer", "from-env-file")
    only_env_password = nats_login(
        _args(), {"RIVERBOAT_NATS_USER": "lobby", **{"RIVERBOAT_NATS_PASSWORD": "from-env"}}
    )
    assert only_env_password.password == "from-env"


@pytest.mark.parametrize(
    ("argv", "env", "complaint"),
    [
        (["--nats-user", "table"], {}, "give its password"),
        ([], {"RIVERBOAT_NATS_PASSWORD": "x"}, "needs a user"),
        (["--nats-user", "t", "--nats-password-file", "/nonexistent/p"], {}, "cannot read"),
        (["--nats-creds", "/nonexistent/room.creds"], {}, "no such file"),
    ],
)
def test_an_incomplete_login_is_a_clear_error_without_the_secret(
    argv: list[str], env: dict[str, str], complaint: str
) -> None:
    with pytest.raises(NatsLoginError, match=complaint) as caught:
        nats_login(_args(*argv), env)
    assert "x" not in str(caught.value).split() and "\n" not in str(caught.value)


def test_the_password_never_shows_in_repr(secret: Path) -> None:
    login = nats_login(_args("--nats-user", "table", "--nats-password-file", str(secret)), {})
    assert "s3cret" not in repr(login)
    config = DealerConfig(nats_login=login)
    assert "s3cret" not in repr(config)


def test_every_service_takes_the_same_login_flags(secret: Path) -> None:
    flags = ["--nats-user", "table", "--nats-password-file", str(secret)]
    dealer = DealerConfig.from_namespace(dealer_parser().parse_args(flags), {})
    settlement = SettlementConfig.from_namespace(settlement_parser().parse_args(flags), {})
    lobby = nats_login(lobby_parse(flags), {})
    table = nats_login(table_parse(flags), {})
    for login in (dealer.nats_login, settlement.nats_login, lobby, table):
        assert (login.user, login.password) == ("table", "s3cret-from-file")


def test_room_passwords_are_made_once_and_kept_private(tmp_path: Path) -> None:
    first = room_passwords(tmp_path / "auth")
    assert set(first) == set(IDENTITIES) and len(set(first.values())) == len(IDENTITIES)
    assert room_passwords(tmp_path / "auth") == first
    assert stat.S_IMODE((tmp_path / "auth").stat().st_mode) == 0o700
    for name in IDENTITIES:
        assert stat.S_IMODE((tmp_path / "auth" / f"{name}.password").stat().st_mode) == 0o600
