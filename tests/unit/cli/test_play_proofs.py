"""What ``riverboat play`` shows of CRV1: the quiet line, once a hand, that the cards verified,
the loud red line for a proof that fails, the notice that a seed was drawn for the player, and
(watching the table again) no false alarm over the player's own seed.

The session gets the Watch messages the table service builds for its seat (the runner with fake
ports, time moved by hand) and sends its seeds through ``ClientSeeds`` to a table client that
submits them to that runner; the screen is a recording console."""

from __future__ import annotations

import argparse
import asyncio
import io
from collections.abc import AsyncIterator, Callable
from typing import Any

import grpc
import pytest
from rich.console import Console

from riverboat.cli.play.session import PlaySession
from riverboat.client import ClientSeeds
from riverboat.proofcheck import CardChecker
from riverboat.services.table.runner import TableRunner
from riverboat.services.table.viewpb import TableViews
from riverboat.table import aggregate as table
from riverboat.table.aggregate import COMMIT_SEED, TableError
from riverboat.v1 import table_pb2
from tests.unit.table.crv1kit import PAUSE, WINDOW, Crv1Dealer, dealt_hand, messages_to, opened
from tests.unit.table.fakes import settle

pytestmark = pytest.mark.timeout(60)

RED = "\x1b[1;37;41m"  # bold white on red
YELLOW = "\x1b[1;33m"  # bold yellow


class _Tables:
    """The table client the session's ClientSeeds sends through: each seed Act is submitted to
    the runner as the table service does (a refusal is the gRPC error a client gets)."""

    def __init__(self, runner: TableRunner, player: str, refuse: str = "", seat: int = 2) -> None:
        self.runner, self.player, self.refuse, self.seat = runner, player, refuse, seat
        self.sent: list[str] = []

    async def view(self, table_id: str) -> table_pb2.TableView:
        views = TableViews(table_id)
        views.proofs, views.deal_indices = self.runner.proofs, self.runner.deal_indices
        return views.view(self.runner.state, self.runner.version, self.seat)

    async def watch(self, table_id: str, after: int) -> AsyncIterator[table_pb2.WatchResponse]:
        """A stream that brings nothing (the test delivers the updates itself)."""
        await asyncio.Event().wait()
        yield table_pb2.WatchResponse()

    async def act(self, table_id: str, hand_id: str, seat: int, action: str, **kw: Any) -> None:
        self.sent.append(action)
        if action == self.refuse:
            raise _rpc_error(grpc.StatusCode.FAILED_PRECONDITION, "the seeds are locked (test)")
        decide: Callable[..., Any]
        if action == COMMIT_SEED:
            digest = kw["seed_commitment"]
            decide = lambda s: table.commit_seed(  # noqa: E731
                s, seat=seat, player=self.player, hand_id=hand_id, commitment=digest
            )
        else:
            seed = kw["client_seed"]
            decide = lambda s: table.send_seed(  # noqa: E731
                s, seat=seat, player=self.player, hand_id=hand_id, seed=seed
            )
        try:
            await self.runner.submit(decide, request_id=kw["request_id"], actor=self.player)
        except TableError as exc:
            raise _rpc_error(grpc.StatusCode.FAILED_PRECONDITION, exc.message) from None


def _rpc_error(code: grpc.StatusCode, details: str) -> grpc.aio.AioRpcError:
    return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), details, None)


class _NoInput(io.StringIO):
    """Standard input that is never read (the session only shows what comes)."""

    def fileno(self) -> int:
        return -1


def _session(player: str) -> tuple[PlaySession, io.StringIO]:
    screen = io.StringIO()
    console = Console(file=screen, width=160, force_terminal=True, color_system="standard")
    args = argparse.Namespace(lobby="l:1", table="t:1", settlement="s:1", save=None)
    session = PlaySession(args, console, stdin=_NoInput())
    session.player, session.table_id = player, "t1"
    return session, screen


async def _follow(runner: TableRunner, session: PlaySession, seat: int) -> asyncio.Task[None]:
    """Deliver each update to the session as the table service would, as it happens."""
    mailbox = runner.watch(session.player)
    views = TableViews("t1")

    async def pump() -> None:
        while (update := await mailbox.get()) is not None:
            views.proofs, views.deal_indices = runner.proofs, runner.deal_indices
            session._on_update(views.update(runner.state, runner.version, seat, update))

    return asyncio.ensure_future(pump())


async def _play(
    refuse: str = "", *, attach: bool = False
) -> tuple[TableRunner, PlaySession, io.StringIO, _Tables]:
    """Seat 2 follows the table through a session that sends its own seeds (set up by hand, or
    with ``attach`` as ``w``/``j`` do); the others send none. The first hand is dealt."""
    runner, clock = await opened(Crv1Dealer())
    session, screen = _session("p2")
    tables = _Tables(runner, "p2", refuse)
    if attach:
        session.tables = tables  # type: ignore[assignment]
        await session.attach("t1")
    else:
        # The session's first view: the table before the hand (so it knows it sits there).
        views = TableViews("t1")
        session.view = views.view(runner.state, runner.version, 2)
        session.checker = CardChecker()
        session.seeds = ClientSeeds(tables, "t1", session.checker)  # type: ignore[arg-type]
    pump = await _follow(runner, session, 2)
    await clock.advance(PAUSE)  # the commitment: the session commits to a seed
    await settle()
    await clock.advance(WINDOW)  # the others never do: the commitments are locked
    await settle()
    await clock.advance(WINDOW)  # (a reveal the table refused leaves the phase to run out)
    await settle()
    assert runner.state.hand is not None
    pump.cancel()
    return runner, session, screen, tables


async def test_the_cards_verified_are_shown_quietly_and_the_seed_counted() -> None:
    runner, session, screen, tables = await _play()
    out = screen.getvalue()
    assert tables.sent == ["commit_seed", "seed"]
    locked = runner.state.locked
    assert locked is not None and [(s, o) for s, _, _, o in locked.seeds] == [
        (1, 1),
        (2, 0),
        (3, 1),
    ]
    verified = [x for x in out.splitlines() if "Your cards are verified" in x]
    assert len(verified) == 1 and "committed to before the deal" in verified[0]
    assert "PROOF FAILED" not in out and "No seed of yours" not in out
    assert session.checker.failures == []
    await runner.close()


async def test_a_seed_the_table_refused_is_said_to_be_drawn() -> None:
    runner, _, screen, tables = await _play(refuse="seed")
    out = screen.getvalue()
    assert tables.sent == ["commit_seed", "seed"]
    line = next(x for x in out.splitlines() if "No seed of yours" in x)
    assert YELLOW in line and "the table refused it" in line and "was drawn" in line
    assert "PROOF FAILED" not in out
    await runner.close()


async def test_a_proof_that_fails_is_a_red_line() -> None:
    runner = await dealt_hand(Crv1Dealer(), committing=(2,), revealing=(2,))
    messages = await messages_to(runner, 2)
    last = messages[-1]
    proof = next(p for p in last.view.proofs if p.deal_index)
    raw = bytearray(proof.opening)
    raw[10] ^= 0x04  # one bit of its salt
    proof.opening = bytes(raw)
    session, screen = _session("p2")
    for message in messages:
        session._on_update(message)
    failed = [x for x in screen.getvalue().splitlines() if "PROOF FAILED" in x]
    assert len(failed) == 1
    assert RED in failed[0] and f"!!! PROOF FAILED for {proof.card}" in failed[0]
    assert failed[0].count("!!!") == 2
    assert "Your cards are verified" in screen.getvalue()  # the other cards still verify
    await runner.close()


async def test_watching_the_table_again_raises_no_alarm_over_the_players_own_seed() -> None:
    """The player leaves the table's screen and watches it again (``w``): the new stream is
    checked afresh, but the seed this session sent for the hand is still known as its own."""
    runner, session, screen, tables = await _play(attach=True)
    assert tables.sent == ["commit_seed", "seed"]
    session.detach()
    await session.attach("t1")
    out = screen.getvalue()
    assert "PROOF FAILED" not in out and "cannot check" not in out
    assert session.checker.failures == []
    session.detach()
    await runner.close()


async def test_a_new_session_says_it_cannot_check_a_seed_an_earlier_one_sent() -> None:
    """A second ``riverboat play`` of the player (the first sent the seed) watches the hand:
    its own seed in the lock is beyond this client's check, said plainly, not failed."""
    runner, first, _, tables = await _play(attach=True)
    first.detach()
    session, screen = _session("p2")
    session.tables = tables  # type: ignore[assignment]
    await session.attach("t1")
    out = screen.getvalue()
    assert "PROOF FAILED" not in out and session.checker.failures == []
    line = next(x for x in out.splitlines() if "cannot check your own seed" in x)
    assert YELLOW in line
    assert "Your cards are verified" in out  # the rest of the hand's checks hold
    session.detach()
    await runner.close()
