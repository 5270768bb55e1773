"""Every dealer's choice game played by bots through gRPC against the real services and NATS:
the dealer chooses each game in turn through ``Act``, chips are conserved hand by hand, and
nobody ever receives a card, a pass or a declaration they may not see."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import grpc

from riverboat.client import BotStats, Move, TableClient, play_bot, random_chooser, random_picker
from riverboat.engine import events as ev
from riverboat.engine.cards import card_str
from riverboat.engine.games import DEALERS_CHOICE
from riverboat.table.events import AnyEvent, HandCommitted
from riverboat.v1 import table_pb2
from tests.e2e.room._play import read_log
from tests.e2e.room.conftest import Room

TABLE = "t-choice"


def _streams(room: Room) -> tuple[str, str]:
    args = room.table.args
    return args[args.index("--stream") + 1], args[args.index("--subject-prefix") + 1]


def _forcing_picker(games: Iterator[str], rng: random.Random):  # type: ignore[no-untyped-def]
    """Random card moves; as dealer, the next game of ``games`` (shared by all the bots)."""
    plain = random_picker(rng)
    chosen: dict[int, str] = {}

    def pick(view: table_pb2.TableView) -> Move:
        if any(a.action == "choose_game" for a in view.legal_actions):
            # One game per call of the dealer, even if the request is retried.
            game = chosen.setdefault(view.version, next(games, DEALERS_CHOICE[0]))
            return Move("choose_game", choice=game)
        return plain(view)

    return pick


async def _play_every_game(
    room: Room, players: list[str], received: dict[str, list[table_pb2.WatchResponse]]
) -> list[BotStats]:
    games = iter(DEALERS_CHOICE)
    ended: set[str] = set()
    stop = asyncio.Event()
    rng = random.Random(3)
    variant = ""

    def record(name: str):  # type: ignore[no-untyped-def]
        def on_update(update: table_pb2.WatchResponse) -> None:
            nonlocal variant
            received.setdefault(name, []).append(update)
            for env in update.events:
                kind = env.WhichOneof("payload")
                if kind == "hand_started":
                    variant = env.hand_started.variant
                elif kind == "hand_ended":
                    ended.add(variant)
            if ended >= set(DEALERS_CHOICE):
                stop.set()

        return on_update

    async with grpc.aio.insecure_channel(room.table_address) as channel:
        tasks = [
            asyncio.ensure_future(
                play_bot(
                    room.client(channel, name),
                    TABLE,
                    random_chooser(random.Random(rng.random())),
                    stop=stop,
                    on_update=record(name),
                    pick=_forcing_picker(games, random.Random(rng.random())),
                )
            )
            for name in players
        ]
        try:
            await asyncio.wait_for(stop.wait(), 120)
        finally:
            stop.set()
            stats = list(await asyncio.gather(*tasks))
    return stats


async def test_every_game_is_played_conserving_chips_and_hiding_what_is_hidden(
    room: Room, operator: TableClient
) -> None:
    await operator.create_table(TABLE, variant="dealers_choice", action_seconds=30)
    players = [f"{TABLE}-p{k}" for k in range(1, 5)]
    for k, name in enumerate(players, start=1):
        await operator.seat(TABLE, k, name, 50_000)  # deep: a broke table deals no more
    received: dict[str, list[table_pb2.WatchResponse]] = {}
    stats = await _play_every_game(room, players, received)
    # Every move the bots made from their views was legal (no refusals).
    assert [e for s in stats for e in s.errors] == []
    assert sum(s.actions for s in stats) > 100
    batches = await read_log(room.nats_url, *_streams(room), TABLE)
    events = [e for batch in batches for e in batch]

    chosen = [e.game for e in events if isinstance(e, ev.GameChosen)]
    assert chosen[: len(DEALERS_CHOICE)] == list(DEALERS_CHOICE)  # in the order the test chose
    played = {e.variant for e in events if isinstance(e, ev.HandStarted)}
    assert played == set(DEALERS_CHOICE)
    kinds = {type(e) for e in events}
    assert {ev.CardsPassed, ev.CardsDiscarded, ev.DeclarationsRevealed} <= kinds  # leak test bites
    _check_chips(events)
    _check_commitments(events)
    for k, name in enumerate(players, start=1):
        assert _check_leaks(batches, received[name], k) > 0


def _check_chips(events: list[AnyEvent]) -> None:
    """Each hand: starting stacks + a pot carried in == final stacks + rake + a pot riding out;
    and a pot that rides out is the next hand's pot carried in."""
    start = rake = carried_in = carried_out = 0
    riding = 0
    for e in events:
        if isinstance(e, ev.HandStarted):
            start, rake, carried_in, carried_out = sum(s.stack for s in e.seats), 0, 0, 0
        elif isinstance(e, ev.RakeTaken):
            rake += e.amount
        elif isinstance(e, ev.PotCarriedIn):
            carried_in = e.amount
            assert carried_in == riding
        elif isinstance(e, ev.PotCarriedOver):
            carried_out = e.amount
        elif isinstance(e, ev.HandEnded):
            final = sum(v for _, v in e.stacks)
            assert start + carried_in == final + rake + carried_out
            riding = carried_out


def _check_commitments(events: list[AnyEvent]) -> None:
    committed: set[str] = set()
    for e in events:
        if isinstance(e, HandCommitted):
            committed.add(e.hand_id)
        elif isinstance(e, ev.HandStarted):
            assert e.hand_id in committed


def _truth(batches: list[list[AnyEvent]]) -> dict[int, tuple[dict[str, set[int]], set[str], bool]]:
    """After each version: who may know each hidden card (its holder, and the giver and the
    receiver of a pass), the cards everyone has seen, and whether declarations are revealed."""
    knowers: dict[str, set[int]] = {}
    public: set[str] = set()
    revealed = False
    out = {}
    for version, batch in enumerate(batches, start=1):
        for e in batch:
            if isinstance(e, ev.HandStarted):
                knowers, public, revealed = {}, set(), False
            elif isinstance(e, ev.CardDealt):
                if e.face_up:
                    public.add(card_str(e.card))
                else:
                    knowers.setdefault(card_str(e.card), set()).add(e.seat)
            elif isinstance(e, ev.CardsPassed):
                for c in e.cards:
                    knowers.setdefault(card_str(c), set()).update({e.seat, e.to_seat})
            elif isinstance(e, ev.CardTurnedUp | ev.CardPaymentPosted | ev.TableCardTurned):
                public.add(card_str(e.card))
            elif isinstance(e, ev.HandShown | ev.CardsEliminated):
                public |= {card_str(c) for c in e.cards}
            elif isinstance(e, ev.DeclarationsRevealed):
                revealed = True
        out[version] = ({c: set(s) for c, s in knowers.items()}, set(public), revealed)
    return out


_CARD_FIELDS = ("card", "cards")


def _event_cards(env: object) -> set[str]:
    kind = env.WhichOneof("payload")  # type: ignore[attr-defined]
    msg = getattr(env, kind)
    cards: set[str] = set()
    for field in _CARD_FIELDS:
        if field in msg.DESCRIPTOR.fields_by_name:
            value = getattr(msg, field)
            cards |= {value} if isinstance(value, str) else set(value)
    return cards - {""}


def _check_leaks(
    batches: list[list[AnyEvent]], messages: list[table_pb2.WatchResponse], seat: int
) -> int:
    """Every card ``seat`` received was theirs, passed to or by them, or public; every other
    player's declaration reached them only once all were revealed."""
    truth = _truth(batches)
    checked = 0
    for update in messages:
        parts: list[tuple[int, set[str]]] = []
        cards: set[str] = set()
        for env in update.events:
            cards |= _event_cards(env)
            if env.HasField("declaration_sealed") and env.declaration_sealed.seat != seat:
                assert env.declaration_sealed.choice == "", f"seat {seat} saw a sealed choice"
        parts.append((update.version, cards))
        if update.HasField("view"):
            view = update.view
            seen = {c.card for s in view.seats for c in s.cards} - {""}
            parts.append((view.version, seen | set(view.community) | set(view.table_cards)))
            _, _, revealed = truth.get(view.version, ({}, set(), True))
            for s in view.seats:
                if s.seat != seat and s.declaration:
                    assert revealed, f"seat {seat} saw seat {s.seat}'s sealed declaration"
        for version, found in parts:
            if version not in truth:
                continue
            knowers, public, _ = truth[version]
            for card in found:
                checked += 1
                who = knowers.get(card)
                assert who is None or seat in who or card in public, (
                    f"seat {seat} received {card}, known only to {sorted(who)}, at v{version}"
                )
    return checked
