"""NATS identities are enforced by a real nats-server: every identity tries every stream, subject
and consumer it must not touch, and is refused each time; what it may do, it can.

The oracle is the rule as docs/architecture.md states it ("NATS identities"), written out here
stream by stream, independently of ``riverboat.natsauth`` (which generates the server's config).
The planted-bug test gives the table service the dealer's seeds and shows the oracle notices.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import nats
import pytest
from nats.aio.client import Client as NATS

import riverboat.natsauth
from riverboat.natsauth import NatsUser, Permissions, room_passwords, room_users
from riverboat.natsserver import NatsServer

# -- the documented rule ------------------------------------------------------------------------

USERS = ("lobby", "table", "dealer", "settlement", "auditor", "operator")

#: stream -> subject prefix (docs/architecture.md's stream table).
STREAMS = {
    "RB_LOBBY": "rb.lobby",
    "RB_TABLES": "rb.tables",
    "RB_WALLETS": "rb.wallets",
    "RB_DEALER": "rb.dealer.seeds",
    "RB_AUDIT": "rb.audit.seeds",
}
#: Who writes each stream: only its owner appends to it.
OWNER = {
    "RB_LOBBY": "lobby",
    "RB_TABLES": "table",
    "RB_WALLETS": "settlement",
    "RB_DEALER": "dealer",
    "RB_AUDIT": "dealer",
}
#: Who may create each stream: its owner, and settlement the table log (if it starts first).
CREATORS = {stream: {owner} for stream, owner in OWNER.items()} | {
    "RB_TABLES": {"table", "settlement"}
}
#: Who may reconfigure a stream: its owner, except the dealer's write-once streams (nobody).
UPDATERS = {
    "RB_LOBBY": {"lobby"},
    "RB_TABLES": {"table"},
    "RB_WALLETS": {"settlement"},
    "RB_DEALER": set(),
    "RB_AUDIT": set(),
}
#: Who may read each stream's stored messages (by any means: get, direct get, consumer).
READERS = {
    "RB_LOBBY": {"lobby", "settlement"},  # settlement: the account registry
    "RB_TABLES": {"table", "dealer", "settlement", "auditor", "operator"},
    "RB_WALLETS": {"settlement", "auditor", "operator"},
    "RB_DEALER": {"dealer"},  # the sealed seeds: the dealer alone
    "RB_AUDIT": {"dealer", "auditor", "operator"},
}
#: Who may listen to a stream's subjects live: the table service follows other instances'
#: appends to its own stream; nobody else listens to any stream.
LISTENERS: dict[str, set[str]] = {stream: set() for stream in OWNER} | {
    "RB_TABLES": {"table"},
    "RB_LOBBY": {"lobby"},
}


def inbox(user: str) -> str:
    """Each user's own reply prefix (the documented ``_INBOX_<user>``)."""
    return f"_INBOX_{user}"


# -- probing a live server ----------------------------------------------------------------------


@dataclass(frozen=True)
class Probe:
    """One thing a user tries: publish (with a reply inbox) or subscribe."""

    kind: str  # "publish" | "subscribe"
    subject: str
    label: str
    payload: bytes = b""


def probes() -> Iterator[tuple[Probe, set[str]]]:
    """Every probe with the set of users the rule allows it to."""
    for stream, prefix in STREAMS.items():
        api = "$JS.API"
        subject = f"{prefix}.t1.h1"  # a table/hand-shaped subject inside the stream
        yield Probe("publish", subject, f"append to {stream}", b"x"), {OWNER[stream]}
        yield (
            Probe("publish", f"{api}.STREAM.CREATE.{stream}", f"create {stream}", b"{}"),
            (CREATORS[stream]),
        )
        yield (
            Probe("publish", f"{api}.STREAM.UPDATE.{stream}", f"update {stream}", b"{}"),
            (UPDATERS[stream]),
        )
        yield Probe("publish", f"{api}.STREAM.DELETE.{stream}", f"delete {stream}"), set()
        yield Probe("publish", f"{api}.STREAM.PURGE.{stream}", f"purge {stream}", b"{}"), set()
        yield (
            Probe("publish", f"{api}.STREAM.MSG.DELETE.{stream}", f"delete from {stream}", b"{}"),
            set(),
        )
        # Reading stored messages, every way JetStream offers.
        reads = [
            Probe("publish", f"{api}.STREAM.MSG.GET.{stream}", f"get from {stream}", b'{"seq":1}'),
            Probe("publish", f"{api}.DIRECT.GET.{stream}", f"direct get {stream}", b'{"seq":1}'),
            Probe("publish", f"{api}.DIRECT.GET.{stream}.{subject}", f"last of {stream}"),
            Probe("publish", f"{api}.CONSUMER.CREATE.{stream}", f"consumer on {stream}", b"{}"),
            Probe(
                "publish",
                f"{api}.CONSUMER.CREATE.{stream}.spy.{prefix}.>",
                f"named consumer on {stream}",
                b"{}",
            ),
            Probe(
                "publish",
                f"{api}.CONSUMER.DURABLE.CREATE.{stream}.spy",
                f"durable on {stream}",
                b"{}",
            ),
            Probe("publish", f"{api}.CONSUMER.MSG.NEXT.{stream}.spy", f"pull from {stream}"),
        ]
        for probe in reads:
            # Readers are checked to read one way at least (below); everyone else, no way at all.
            yield probe, READERS[stream] | {"*maybe*"}
        # Live messages as they are published: only the table service, to its own stream.
        yield Probe("subscribe", f"{prefix}.>", f"listen to {stream}"), LISTENERS[stream]
    yield Probe("subscribe", "rb.tables.*", "follow table appends"), {"table"}
    for what in (">", "_INBOX.>", "$JS.API.>", "$JS.ACK.>", "$SYS.>", "rb.>"):
        yield Probe("subscribe", what, f"listen to {what}"), set()
    for other in USERS:
        yield Probe("subscribe", f"{inbox(other)}.>", f"{other}'s replies"), {other}
    yield Probe("publish", "$JS.API.STREAM.NAMES", "list streams", b"{}"), set()
    yield Probe("publish", "$JS.API.ACCOUNT.PURGE.x", "purge the account"), set()
    yield Probe("publish", "$JS.API.SERVER.REMOVE", "remove a server"), set()


class Session:
    """One user's connection that tells a permission refusal from an answer."""

    def __init__(self, user: str, nc: NATS, errors: asyncio.Queue[str]) -> None:
        self.user = user
        self.nc = nc
        self.errors = errors
        self._n = 0

    async def attempt(self, probe: Probe) -> bool:
        """True if the server let it through (an answer came), False if it refused it."""
        while not self.errors.empty():
            self.errors.get_nowait()
        if probe.kind == "subscribe":
            sub = await self.nc.subscribe(probe.subject)
            await self.nc.flush()
            # The server's -ERR may trail the PONG a little: a few more round trips (to the
            # account info everyone may ask for) let it arrive if it is coming.
            for _ in range(3):
                if not self.errors.empty():
                    break
                await self.nc.request("$JS.API.INFO", b"", timeout=10)
            refused = await self._refused(probe.subject, wait=False)
            await sub.unsubscribe()
            return not refused
        self._n += 1
        reply = f"{inbox(self.user)}.probe.{self._n}"
        answers = await self.nc.subscribe(reply, max_msgs=1)
        await self.nc.publish(probe.subject, probe.payload, reply=reply)
        answer = asyncio.ensure_future(answers.next_msg(timeout=20))
        refusal = asyncio.ensure_future(self._refused(probe.subject, wait=True))
        done, pending = await asyncio.wait({answer, refusal}, return_when=asyncio.FIRST_COMPLETED)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        if refusal in done and refusal.result():
            return False
        answer.result()  # neither refused nor answered: the timeout is raised here
        return True

    async def _refused(self, subject: str, *, wait: bool) -> bool:
        while True:
            if self.errors.empty() and not wait:
                return False
            # nats-py lower-cases the server's -ERR text.
            message = (await self.errors.get()).lower()
            if "permissions violation" in message and f'"{subject.lower()}"' in message:
                return True


async def _connect(url: str, user: str, password: str) -> Session:
    errors: asyncio.Queue[str] = asyncio.Queue()

    async def on_error(exc: Exception) -> None:
        errors.put_nowait(str(exc))

    nc = await nats.connect(
        url,
        user=user,
        password=password,
        inbox_prefix=inbox(user),
        error_cb=on_error,
        allow_reconnect=False,
        max_reconnect_attempts=0,
    )
    return Session(user, nc, errors)


async def _seed_streams(url: str, passwords: dict[str, str]) -> None:
    """Each owner creates its stream and stores one message, as the room would."""
    for stream, prefix in STREAMS.items():
        owner = OWNER[stream]
        nc = await nats.connect(
            url, user=owner, password=passwords[owner], inbox_prefix=inbox(owner)
        )
        js = nc.jetstream()
        await js.add_stream(name=stream, subjects=[f"{prefix}.>"], allow_direct=True)
        await js.publish(f"{prefix}.t1.h1", b"secret", stream=stream)
        await nc.close()


async def violations(url: str, passwords: dict[str, str]) -> list[str]:
    """Every way the server's behaviour differs from the rule (empty: it enforces the rule)."""
    await _seed_streams(url, passwords)
    found: list[str] = []
    for user in USERS:
        session = await _connect(url, user, passwords[user])
        read_any: dict[str, bool] = {}
        try:
            for probe, allowed in probes():
                got_through = await session.attempt(probe)
                stream = probe.label.rsplit(" ", 1)[-1]
                if "*maybe*" in allowed:
                    if user in allowed:
                        read_any[stream] = read_any.get(stream, False) or got_through
                        continue
                    allowed = set()
                if got_through != (user in allowed):
                    verdict = "allowed" if got_through else "refused"
                    found.append(f"{user}: {probe.label} ({probe.subject}) was {verdict}")
            for stream, readers in READERS.items():
                if user in readers and not read_any.get(stream):
                    found.append(f"{user}: cannot read {stream} in any way")
        finally:
            await session.nc.close()
    return found


@pytest.fixture
def passwords(tmp_path: Path) -> dict[str, str]:
    return room_passwords(tmp_path / "nats-auth")


async def test_every_identity_is_refused_what_the_rule_forbids_and_allowed_the_rest(
    tmp_path: Path, passwords: dict[str, str]
) -> None:
    with NatsServer(tmp_path / "nats", port=0, users=room_users(passwords)) as server:
        assert await violations(server.url, passwords) == []


async def test_a_wrong_password_or_no_login_is_refused(
    tmp_path: Path, passwords: dict[str, str]
) -> None:
    with NatsServer(tmp_path / "nats", port=0, users=room_users(passwords)) as server:
        for login in ({}, {"user": "table", "password": passwords["dealer"]}):
            with pytest.raises(nats.errors.Error, match="Authorization Violation"):
                await nats.connect(
                    server.url, allow_reconnect=False, max_reconnect_attempts=0, **login
                )


async def test_the_oracle_catches_a_table_user_given_the_seeds(
    tmp_path: Path, passwords: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Plant the bug: the table service may read RB_DEALER and listen to the seeds."""
    honest = riverboat.natsauth.room_permissions()

    def leaky(layout: object = None) -> dict[str, Permissions]:
        perms = dict(honest)
        table = perms["table"]
        perms["table"] = Permissions(
            publish=(*table.publish, "$JS.API.DIRECT.GET.RB_DEALER"),
            subscribe=(*table.subscribe, "rb.dealer.seeds.>"),
        )
        return perms

    monkeypatch.setattr(riverboat.natsauth, "room_permissions", leaky)
    users: list[NatsUser] = room_users(passwords)
    with NatsServer(tmp_path / "nats", port=0, users=users) as server:
        found = await violations(server.url, passwords)
    assert any("table: direct get RB_DEALER" in line for line in found), found
    assert any("table: listen to RB_DEALER" in line for line in found), found
    assert all(line.startswith("table:") for line in found), found


def test_the_generated_config_names_each_user_once_and_quotes_every_subject(
    tmp_path: Path, passwords: dict[str, str]
) -> None:
    """The config text nats-server reads: six users, ``$JS`` subjects quoted (not variables)."""
    server = NatsServer(tmp_path / "nats", port=0, users=room_users(passwords))
    text = server.config_text(tmp_path)
    for user in USERS:
        assert text.count(f"user: {json.dumps(user)}") == 1
    before = [text[i - 1] for i in range(len(text)) if text.startswith("$JS", i)]
    assert before and set(before) == {'"'}, before
