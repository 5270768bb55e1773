"""The NATS login setting every service and tool shares: flags over RIVERBOAT_* over none."""

from __future__ import annotations

import argparse
import stat
from pathlib import Path

import nkeys
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


def _seed(tmp_path: Path, name: str, prefix: int = nkeys.PREFIX_BYTE_USER) -> tuple[Path, str]:
    seed = nkeys.encode_seed(bytes(range(32)), prefix).decode()
    path = tmp_path / name
    path.write_text(seed + "\n")
    return path, seed


def test_an_nkey_seed_file_from_the_flag_or_the_environment(tmp_path: Path) -> None:
    flag, _ = _seed(tmp_path, "flag.nk")
    env, _ = _seed(tmp_path, "env.nk")
    login = nats_login(_args("--nats-nkey", str(flag)), {"RIVERBOAT_NATS_NKEY": str(env)})
    assert login.connect_options() == {"nkeys_seed": str(flag)}
    assert nats_login(_args(), {"RIVERBOAT_NATS_NKEY": str(env)}).nkey_file == env
    table = nats_login(table_parse(["--nats-nkey", str(flag)]), {})
    dealer = DealerConfig.from_namespace(dealer_parser().parse_args(["--nats-nkey", str(flag)]), {})
    assert table.nkey_file == dealer.nats_login.nkey_file == flag


def test_a_bad_nkey_or_two_logins_at_once_is_a_clear_error_without_the_seed(
    tmp_path: Path, secret: Path
) -> None:
    user, seed = _seed(tmp_path, "user.nk")
    account, account_seed = _seed(tmp_path, "account.nk", nkeys.PREFIX_BYTE_ACCOUNT)
    garbage = tmp_path / "garbage.nk"
    garbage.write_text("SUNOTASEED\n")
    creds = tmp_path / "room.creds"
    creds.write_text("jwt and seed")
    cases = [
        (["--nats-nkey", "/nonexistent/u.nk"], "cannot read"),
        (["--nats-nkey", str(garbage)], "does not hold an nkey seed"),
        (["--nats-nkey", str(account)], "not a user's"),
        (["--nats-nkey", str(user), "--nats-creds", str(creds)], "one NATS login at a time"),
        (
            ["--nats-nkey", str(user), "--nats-user", "t", "--nats-password-file", str(secret)],
            "one NATS login at a time",
        ),
    ]
    for argv, complaint in cases:
        with pytest.raises(NatsLoginError, match=complaint) as caught:
            nats_login(_args(*argv), {})
        assert seed not in str(caught.value) and account_seed not in str(caught.value)
    assert seed not in repr(nats_login(_args("--nats-nkey", str(user)), {}))
