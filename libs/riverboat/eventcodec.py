"""Engine and table events <-> protobuf (``riverboat.v1.EventEnvelope`` / ``EventBatch``).

One mapping, used by the table service to write its log and by everyone who reads it. A card
is two characters (``"Ah"``); a hidden card (``-1`` in a redacted event) is the empty string.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from google.protobuf.timestamp_pb2 import Timestamp

from riverboat.engine import events as ev
from riverboat.engine.cards import card_str, parse_card
from riverboat.engine.options import TableOptions
from riverboat.engine.session import DealersChoiceRules
from riverboat.table import events as tev
from riverboat.table.events import AnyEvent
from riverboat.v1 import events_pb2 as pb


class CodecError(ValueError):
    """A stored message does not decode to known events."""


@dataclass(frozen=True, slots=True)
class EventMeta:
    """Where and why an event happened (the envelope around it)."""

    aggregate_id: str
    version: int
    index: int
    request_id: str
    actor: str
    occurred_at: datetime

    @property
    def event_id(self) -> str:
        """Unique per event: the aggregate, its version and the position in the batch."""
        return f"{self.aggregate_id}:{self.version}:{self.index}"


def _card(card: int) -> str:
    return "" if card < 0 else card_str(card)


#: Cards by their text, for the decoders (a hidden card, ``""``, is -1).
_UNCARD: dict[str, int] = {"": -1} | {card_str(c): c for c in range(52)}


def _uncard(text: str) -> int:
    card = _UNCARD.get(text)
    return parse_card(text) if card is None else card  # parse_card raises the precise error


def options_to_pb(options: TableOptions) -> pb.TableOptions:
    """Table options as protobuf."""
    return pb.TableOptions(
        small_bet=options.small_bet,
        big_bet=options.big_bet,
        ante=options.ante,
        ante_mode=options.ante_mode,
        bring_in=options.bring_in,
        max_raises=options.max_raises,
        uncap_heads_up=options.uncap_heads_up,
        open_pair_double_bet=options.open_pair_double_bet,
        low_qualifier=options.low_qualifier or 0,
        rake_basis_points=options.rake_basis_points,
        rake_caps=[pb.RakeCap(min_players=a, cap=b) for a, b in options.rake_caps],
        no_rake_on_third_street=options.no_rake_on_third_street,
        odd_chip_order=options.odd_chip_order,
        min_players=options.min_players,
        max_players=options.max_players,
        final_bet_rule=options.final_bet_rule,
        no_bring_in=options.no_bring_in,
        all_in_reopen=options.all_in_reopen,
        spread_limit=options.spread_limit,
    )


def options_from_pb(msg: pb.TableOptions, *, new_table: bool = False) -> TableOptions:
    """Table options from protobuf (validated). An unset ``all_in_reopen`` is the rule of the
    records made before it existed, unless this is a ``new_table``'s request."""
    return TableOptions.from_dict(
        {
            "small_bet": msg.small_bet,
            "big_bet": msg.big_bet,
            "ante": msg.ante,
            "ante_mode": msg.ante_mode,
            "bring_in": msg.bring_in,
            "max_raises": msg.max_raises,
            "uncap_heads_up": msg.uncap_heads_up,
            "open_pair_double_bet": msg.open_pair_double_bet,
            "low_qualifier": msg.low_qualifier or None,
            "rake_basis_points": msg.rake_basis_points,
            "rake_caps": [(c.min_players, c.cap) for c in msg.rake_caps],
            "no_rake_on_third_street": msg.no_rake_on_third_street,
            "odd_chip_order": msg.odd_chip_order,
            "min_players": msg.min_players,
            "max_players": msg.max_players,
            "final_bet_rule": msg.final_bet_rule,
            "no_bring_in": msg.no_bring_in,
            # Unset on tables and hands recorded before the rule existed: their rule.
            "all_in_reopen": msg.all_in_reopen or ("faced" if new_table else "last_full"),
            "spread_limit": msg.spread_limit,
        }
    )


def rules_to_pb(rules: DealersChoiceRules) -> pb.DealersChoiceRules:
    """A dealer's choice table's rules as protobuf."""
    data = rules.to_dict()
    return pb.DealersChoiceRules(
        games=data["games"],
        default_game=data["default_game"],
        game_defaults_json=_json(data["game_defaults"]),
        edition=rules.edition,
        min_small_bet=rules.min_small_bet,
        max_small_bet=rules.max_small_bet,
        min_big_bet=rules.min_big_bet,
        max_big_bet=rules.max_big_bet,
    )


def rules_from_pb(msg: pb.DealersChoiceRules, *, edition: int = 1) -> DealersChoiceRules:
    """A dealer's choice table's rules from protobuf (validated; unset fields: defaults). An
    unset ``edition`` is ``edition``: 1 for a stored table (recorded before editions existed),
    today's for a new table's request."""
    data: dict[str, Any] = {"game_defaults": _unjson(msg.game_defaults_json)}
    if msg.games:
        data["games"] = list(msg.games)
    if msg.default_game:
        data["default_game"] = msg.default_game
    data["edition"] = msg.edition or edition
    for name in ("min_small_bet", "max_small_bet", "min_big_bet", "max_big_bet"):
        data[name] = getattr(msg, name)
    return DealersChoiceRules.from_dict(data)


_UNIX_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def time_bank_to_pb(policy: tev.TimeBankPolicy) -> pb.TimeBankPolicy:
    """A table's time bank policy as its protobuf message."""
    return pb.TimeBankPolicy(
        seconds=policy.seconds,
        topup_seconds=policy.topup_seconds,
        topup_hands=policy.topup_hands,
        protect_hands=policy.protect_hands,
    )


def time_bank_from_pb(msg: pb.TimeBankPolicy) -> tev.TimeBankPolicy:
    """The time bank policy a protobuf message holds."""
    return tev.TimeBankPolicy(msg.seconds, msg.topup_seconds, msg.topup_hands, msg.protect_hands)


def _amounts(pairs: Sequence[tuple[int, int]]) -> list[pb.SeatAmount]:
    return [pb.SeatAmount(seat=s, amount=a) for s, a in pairs]


def event_to_pb(event: AnyEvent, meta: EventMeta) -> pb.EventEnvelope:
    """One event in its envelope."""
    when = meta.occurred_at
    if when.tzinfo is None:  # naive: UTC, as Timestamp.FromDatetime takes it
        when = when.replace(tzinfo=UTC)
    # What FromDatetime computes, without its time-tuple round trip (every watcher's update
    # converts events, so this is on a busy table's hot path).
    since = when - _UNIX_EPOCH
    ts = Timestamp(seconds=since.days * 86_400 + since.seconds, nanos=since.microseconds * 1000)
    env = pb.EventEnvelope(
        event_id=meta.event_id,
        aggregate_id=meta.aggregate_id,
        aggregate_version=meta.version,
        index=meta.index,
        occurred_at=ts,
        request_id=meta.request_id,
        actor=meta.actor,
    )
    match event:
        case tev.TableCreated():
            env.table_created.CopyFrom(
                pb.TableCreated(
                    table_id=event.table_id,
                    name=event.name,
                    variant=event.variant,
                    options=options_to_pb(event.options),
                    action_seconds=event.action_seconds,
                    dealers_choice=rules_to_pb(event.rules) if event.rules else None,
                    time_bank=time_bank_to_pb(event.time_bank) if event.time_bank else None,
                )
            )
        case tev.PlayerSeated():
            env.player_seated.CopyFrom(
                pb.PlayerSeated(
                    seat=event.seat,
                    player=event.player,
                    stack=event.stack,
                    buy_in_reference=event.buy_in_reference,
                )
            )
        case tev.LeaveRequested():
            env.leave_requested.CopyFrom(pb.LeaveRequested(seat=event.seat, player=event.player))
        case tev.PlayerSatOut():
            env.player_sat_out.CopyFrom(
                pb.PlayerSatOut(seat=event.seat, player=event.player, reason=event.reason)
            )
        case tev.PlayerSatIn():
            env.player_sat_in.CopyFrom(pb.PlayerSatIn(seat=event.seat, player=event.player))
        case tev.TableClosing():
            env.table_closing.CopyFrom(pb.TableClosing(by=event.by, reason=event.reason))
        case tev.TableClosed():
            env.table_closed.CopyFrom(pb.TableClosed(by=event.by, reason=event.reason))
        case tev.DealingPaused():
            env.dealing_paused.CopyFrom(pb.DealingPaused(by=event.by, reason=event.reason))
        case tev.DealingResumed():
            env.dealing_resumed.CopyFrom(pb.DealingResumed(by=event.by))
        case tev.PlayerTimedOut():
            env.player_timed_out.CopyFrom(pb.PlayerTimedOut(seat=event.seat, player=event.player))
        case tev.TimeoutsCleared():
            env.timeouts_cleared.CopyFrom(pb.TimeoutsCleared(seat=event.seat, player=event.player))
        case tev.TimeBankStarted():
            env.time_bank_started.CopyFrom(
                pb.TimeBankStarted(
                    seat=event.seat,
                    player=event.player,
                    seconds=event.seconds,
                    protection=event.protection,
                )
            )
        case tev.TimeBankUsed():
            env.time_bank_used.CopyFrom(
                pb.TimeBankUsed(seat=event.seat, player=event.player, seconds=event.seconds)
            )
        case tev.PlayerLeft():
            env.player_left.CopyFrom(
                pb.PlayerLeft(seat=event.seat, player=event.player, stack=event.stack)
            )
        case tev.HandCommitted():
            env.hand_committed.CopyFrom(
                pb.HandCommitted(
                    hand_id=event.hand_id,
                    scheme=event.scheme,
                    commitment=event.commitment,
                    deck_size=event.deck_size,
                    button=event.button,
                    merkle_root=event.root,
                )
            )
        case tev.ClientSeedCommitted():
            env.client_seed_committed.CopyFrom(
                pb.ClientSeedCommitted(
                    seat=event.seat, player=event.player, commitment=event.commitment
                )
            )
        case tev.SeedCommitsLocked():
            env.seed_commits_locked.CopyFrom(
                pb.SeedCommitsLocked(
                    hand_id=event.hand_id,
                    commits=[
                        pb.SeedCommit(seat=seat, player=player, commitment=commitment)
                        for seat, player, commitment in event.commits
                    ],
                )
            )
        case tev.ClientSeedSent():
            env.client_seed_sent.CopyFrom(
                pb.ClientSeedSent(seat=event.seat, player=event.player, seed=event.seed)
            )
        case tev.SeedsLocked():
            env.seeds_locked.CopyFrom(
                pb.SeedsLocked(
                    hand_id=event.hand_id,
                    seeds=[
                        pb.LockedSeed(seat=seat, player=player, seed=seed, origin=origin)
                        for seat, player, seed, origin in event.seeds
                    ],
                )
            )
        case tev.HandVoided():
            env.hand_voided.CopyFrom(
                pb.HandVoided(
                    hand_id=event.hand_id, reason=event.reason, refunds=_amounts(event.refunds)
                )
            )
        case ev.HandStarted():
            env.hand_started.CopyFrom(
                pb.HandStarted(
                    hand_id=event.hand_id,
                    variant=event.variant,
                    button=event.button,
                    seats=[
                        pb.SeatEntry(seat=s.seat, player=s.player, stack=s.stack)
                        for s in event.seats
                    ],
                    deck_size=event.deck_size,
                    options=options_to_pb(TableOptions.from_dict(event.options)),
                )
            )
        case ev.AntePosted():
            env.ante_posted.CopyFrom(pb.AntePosted(seat=event.seat, amount=event.amount))
        case ev.CardDealt():
            env.card_dealt.CopyFrom(
                pb.CardDealt(seat=event.seat, card=_card(event.card), face_up=event.face_up)
            )
        case ev.CommunityCardDealt():
            env.community_card_dealt.CopyFrom(pb.CommunityCardDealt(card=_card(event.card)))
        case ev.BettingRoundStarted():
            env.betting_round_started.CopyFrom(
                pb.BettingRoundStarted(
                    street=event.street,
                    bet_size=event.bet_size,
                    first_to_act=event.first_to_act or 0,
                    forced_bring_in=event.forced_bring_in,
                )
            )
        case ev.ActionTaken():
            env.action_taken.CopyFrom(
                pb.ActionTaken(
                    seat=event.seat,
                    action=event.action,
                    amount=event.amount,
                    to=event.to,
                    all_in=event.all_in,
                )
            )
        case ev.UncalledBetReturned():
            env.uncalled_bet_returned.CopyFrom(
                pb.UncalledBetReturned(seat=event.seat, amount=event.amount)
            )
        case ev.HandShown():
            shown = pb.HandShown(
                seat=event.seat,
                cards=[_card(c) for c in event.cards],
                high=event.high,
                high_text=event.high_text,
                low_text=event.low_text or "",
            )
            if event.low is not None:
                shown.low = event.low
            env.hand_shown.CopyFrom(shown)
        case ev.RakeTaken():
            env.rake_taken.CopyFrom(
                pb.RakeTaken(amount=event.amount, from_pots=list(event.from_pots))
            )
        case ev.PotAwarded():
            env.pot_awarded.CopyFrom(
                pb.PotAwarded(
                    pot=event.pot,
                    amount=event.amount,
                    eligible=list(event.eligible),
                    high_winners=list(event.high_winners),
                    low_winners=list(event.low_winners),
                    shares=_amounts(event.shares),
                )
            )
        case ev.HandEnded():
            env.hand_ended.CopyFrom(pb.HandEnded(stacks=_amounts(event.stacks)))
        case _:
            _game_event_to_pb(event, env)
    return env


def _cards(cards: Sequence[int]) -> list[str]:
    return [_card(c) for c in cards]


def _uncards(cards: Sequence[str]) -> tuple[int, ...]:
    return tuple(_uncard(c) for c in cards)


def _game_event_to_pb(event: AnyEvent, env: pb.EventEnvelope) -> None:
    """The dealer's choice games' events (and a table's across hands)."""
    match event:
        case ev.GameOptionsSet():
            env.game_options_set.CopyFrom(pb.GameOptionsSet(options_json=_json(event.options)))
        case ev.PotCarriedIn():
            env.pot_carried_in.CopyFrom(pb.PotCarriedIn(amount=event.amount))
        case ev.PhaseStarted():
            env.phase_started.CopyFrom(
                pb.PhaseStarted(
                    phase=event.phase,
                    seats_to_act=list(event.seats_to_act),
                    simultaneous=event.simultaneous,
                    min_cards=event.min_cards,
                    max_cards=event.max_cards,
                )
            )
        case ev.CardsDiscarded():
            env.cards_discarded.CopyFrom(
                pb.CardsDiscarded(seat=event.seat, cards=_cards(event.cards))
            )
        case ev.CardsToPass():
            env.cards_to_pass.CopyFrom(pb.CardsToPass(seat=event.seat, cards=_cards(event.cards)))
        case ev.CardsPassed():
            env.cards_passed.CopyFrom(
                pb.CardsPassed(seat=event.seat, to_seat=event.to_seat, cards=_cards(event.cards))
            )
        case ev.CardsOrdered():
            env.cards_ordered.CopyFrom(pb.CardsOrdered(seat=event.seat, cards=_cards(event.cards)))
        case ev.CardTurnedUp():
            env.card_turned_up.CopyFrom(pb.CardTurnedUp(seat=event.seat, card=_card(event.card)))
        case ev.OfferAnswered():
            env.offer_answered.CopyFrom(pb.OfferAnswered(seat=event.seat, took=event.took))
        case ev.DeclarationSealed():
            env.declaration_sealed.CopyFrom(
                pb.DeclarationSealed(seat=event.seat, choice=event.choice)
            )
        case ev.DeclarationsRevealed():
            env.declarations_revealed.CopyFrom(
                pb.DeclarationsRevealed(
                    declarations=[
                        pb.SeatDeclaration(seat=s, choice=c) for s, c in event.declarations
                    ]
                )
            )
        case ev.CardPaymentPosted():
            env.card_payment_posted.CopyFrom(
                pb.CardPaymentPosted(seat=event.seat, card=_card(event.card), amount=event.amount)
            )
        case ev.WildRankChanged():
            wild = pb.WildRankChanged(awaiting=event.awaiting)
            if event.rank is not None:
                wild.rank = event.rank
            env.wild_rank_changed.CopyFrom(wild)
        case ev.MatchDue():
            env.match_due.CopyFrom(pb.MatchDue(seat=event.seat, amount=event.amount))
        case ev.PotMatched():
            env.pot_matched.CopyFrom(pb.PotMatched(seat=event.seat, amount=event.amount))
        case ev.MatchDeclined():
            env.match_declined.CopyFrom(pb.MatchDeclined(seat=event.seat))
        case ev.TableRowDealt():
            env.table_row_dealt.CopyFrom(pb.TableRowDealt(count=event.count))
        case ev.TableCardTurned():
            env.table_card_turned.CopyFrom(
                pb.TableCardTurned(card=_card(event.card), from_stock=event.from_stock)
            )
        case ev.RankEliminated():
            env.rank_eliminated.CopyFrom(pb.RankEliminated(rank=event.rank))
        case ev.CardsEliminated():
            env.cards_eliminated.CopyFrom(
                pb.CardsEliminated(seat=event.seat, cards=_cards(event.cards))
            )
        case ev.ReshuffleRequested():
            env.reshuffle_requested.CopyFrom(
                pb.ReshuffleRequested(seat=event.seat, cards=_cards(event.cards), owed=event.owed)
            )
        case ev.DiscardsReshuffled():
            env.discards_reshuffled.CopyFrom(pb.DiscardsReshuffled(count=event.count))
        case ev.PotCarriedOver():
            env.pot_carried_over.CopyFrom(pb.PotCarriedOver(amount=event.amount))
        case ev.GameChosen():
            env.game_chosen.CopyFrom(
                pb.GameChosen(
                    seat=event.seat,
                    game=event.game,
                    options_json=_json(event.options),
                    by_clock=event.by_clock,
                    small_bet=event.small_bet,
                    big_bet=event.big_bet,
                )
            )
        case ev.DealerUp():
            env.dealer_up.CopyFrom(
                pb.DealerUp(
                    seat=event.seat,
                    redeal=event.redeal,
                    game=event.game,
                    options_json=_json(event.options),
                )
            )
        case _:
            raise CodecError(f"no protobuf mapping for {type(event).__name__}")


def _json(options: dict[str, Any]) -> str:
    return json.dumps(options, sort_keys=True, separators=(",", ":"))


def _unjson(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError as exc:
        raise CodecError(f"bad options: {exc}") from None
    if not isinstance(value, dict):
        raise CodecError("options must be a JSON object")
    return value


def _pairs(items: Sequence[pb.SeatAmount]) -> tuple[tuple[int, int], ...]:
    return tuple((i.seat, i.amount) for i in items)


#: The table options of the hands decoded so far, by their bytes: every hand of a table
#: carries the same, and validating them is most of a ``HandStarted``'s decoding.
_HAND_OPTIONS: dict[bytes, dict[str, Any]] = {}


def _hand_started(m: Any) -> ev.HandStarted:
    key = m.options.SerializeToString(deterministic=True)
    options = _HAND_OPTIONS.get(key)
    if options is None:
        options = options_from_pb(m.options).to_dict()
        if len(_HAND_OPTIONS) < 1024:
            _HAND_OPTIONS[key] = options
    return ev.HandStarted(
        hand_id=m.hand_id,
        variant=m.variant,
        button=m.button,
        seats=tuple(ev.SeatEntry(s.seat, s.player, s.stack) for s in m.seats),
        deck_size=m.deck_size,
        options=dict(options),  # a copy: the kept one must never change
    )


def _table_created(m: Any) -> tev.TableCreated:
    return tev.TableCreated(
        m.table_id,
        m.name,
        m.variant,
        options_from_pb(m.options),
        m.action_seconds,
        rules_from_pb(m.dealers_choice) if m.HasField("dealers_choice") else None,
        time_bank_from_pb(m.time_bank) if m.HasField("time_bank") else None,
    )


def _hand_shown(m: Any) -> ev.HandShown:
    return ev.HandShown(
        m.seat,
        _uncards(m.cards),
        m.high,
        m.low if m.HasField("low") else None,
        m.high_text,
        m.low_text or None,
    )


def _pot_awarded(m: Any) -> ev.PotAwarded:
    return ev.PotAwarded(
        m.pot,
        m.amount,
        tuple(m.eligible),
        tuple(m.high_winners),
        tuple(m.low_winners),
        _pairs(m.shares),
    )


#: The inverse of :func:`event_to_pb`: each payload kind's decoder, given the payload.
_DECODERS: dict[str, Callable[[Any], AnyEvent]] = {
    "table_created": _table_created,
    "player_seated": lambda m: tev.PlayerSeated(m.seat, m.player, m.stack, m.buy_in_reference),
    "leave_requested": lambda m: tev.LeaveRequested(m.seat, m.player),
    "player_left": lambda m: tev.PlayerLeft(m.seat, m.player, m.stack),
    "player_sat_out": lambda m: tev.PlayerSatOut(m.seat, m.player, m.reason),
    "player_sat_in": lambda m: tev.PlayerSatIn(m.seat, m.player),
    "table_closing": lambda m: tev.TableClosing(m.by, m.reason),
    "table_closed": lambda m: tev.TableClosed(m.by, m.reason),
    "dealing_paused": lambda m: tev.DealingPaused(m.by, m.reason),
    "dealing_resumed": lambda m: tev.DealingResumed(m.by),
    "player_timed_out": lambda m: tev.PlayerTimedOut(m.seat, m.player),
    "timeouts_cleared": lambda m: tev.TimeoutsCleared(m.seat, m.player),
    "time_bank_started": lambda m: tev.TimeBankStarted(m.seat, m.player, m.seconds, m.protection),
    "time_bank_used": lambda m: tev.TimeBankUsed(m.seat, m.player, m.seconds),
    "hand_committed": lambda m: tev.HandCommitted(
        m.hand_id, m.scheme, m.commitment, m.deck_size, m.button, m.merkle_root
    ),
    "client_seed_committed": lambda m: tev.ClientSeedCommitted(m.seat, m.player, m.commitment),
    "seed_commits_locked": lambda m: tev.SeedCommitsLocked(
        m.hand_id, tuple((c.seat, c.player, c.commitment) for c in m.commits)
    ),
    "client_seed_sent": lambda m: tev.ClientSeedSent(m.seat, m.player, m.seed),
    "seeds_locked": lambda m: tev.SeedsLocked(
        m.hand_id, tuple((s.seat, s.player, s.seed, s.origin) for s in m.seeds)
    ),
    "hand_voided": lambda m: tev.HandVoided(m.hand_id, m.reason, _pairs(m.refunds)),
    "hand_started": _hand_started,
    "ante_posted": lambda m: ev.AntePosted(m.seat, m.amount),
    "card_dealt": lambda m: ev.CardDealt(m.seat, _uncard(m.card), m.face_up),
    "community_card_dealt": lambda m: ev.CommunityCardDealt(_uncard(m.card)),
    "betting_round_started": lambda m: ev.BettingRoundStarted(
        m.street, m.bet_size, m.first_to_act or None, m.forced_bring_in
    ),
    "action_taken": lambda m: ev.ActionTaken(m.seat, m.action, m.amount, m.to, m.all_in),
    "uncalled_bet_returned": lambda m: ev.UncalledBetReturned(m.seat, m.amount),
    "hand_shown": _hand_shown,
    "rake_taken": lambda m: ev.RakeTaken(m.amount, tuple(m.from_pots)),
    "pot_awarded": _pot_awarded,
    "hand_ended": lambda m: ev.HandEnded(_pairs(m.stacks)),
    "game_options_set": lambda m: ev.GameOptionsSet(_unjson(m.options_json)),
    "pot_carried_in": lambda m: ev.PotCarriedIn(m.amount),
    "phase_started": lambda m: ev.PhaseStarted(
        m.phase, tuple(m.seats_to_act), m.simultaneous, m.min_cards, m.max_cards
    ),
    "cards_discarded": lambda m: ev.CardsDiscarded(m.seat, _uncards(m.cards)),
    "cards_to_pass": lambda m: ev.CardsToPass(m.seat, _uncards(m.cards)),
    "cards_passed": lambda m: ev.CardsPassed(m.seat, m.to_seat, _uncards(m.cards)),
    "cards_ordered": lambda m: ev.CardsOrdered(m.seat, _uncards(m.cards)),
    "card_turned_up": lambda m: ev.CardTurnedUp(m.seat, _uncard(m.card)),
    "offer_answered": lambda m: ev.OfferAnswered(m.seat, m.took),
    "declaration_sealed": lambda m: ev.DeclarationSealed(m.seat, m.choice),
    "declarations_revealed": lambda m: ev.DeclarationsRevealed(
        tuple((d.seat, d.choice) for d in m.declarations)
    ),
    "card_payment_posted": lambda m: ev.CardPaymentPosted(m.seat, _uncard(m.card), m.amount),
    "wild_rank_changed": lambda m: ev.WildRankChanged(
        m.rank if m.HasField("rank") else None, m.awaiting
    ),
    "match_due": lambda m: ev.MatchDue(m.seat, m.amount),
    "pot_matched": lambda m: ev.PotMatched(m.seat, m.amount),
    "match_declined": lambda m: ev.MatchDeclined(m.seat),
    "table_row_dealt": lambda m: ev.TableRowDealt(m.count),
    "table_card_turned": lambda m: ev.TableCardTurned(_uncard(m.card), m.from_stock),
    "rank_eliminated": lambda m: ev.RankEliminated(m.rank),
    "cards_eliminated": lambda m: ev.CardsEliminated(m.seat, _uncards(m.cards)),
    "reshuffle_requested": lambda m: ev.ReshuffleRequested(m.seat, _uncards(m.cards), m.owed),
    "discards_reshuffled": lambda m: ev.DiscardsReshuffled(m.count),
    "pot_carried_over": lambda m: ev.PotCarriedOver(m.amount),
    "game_chosen": lambda m: ev.GameChosen(
        m.seat, m.game, _unjson(m.options_json), m.by_clock, m.small_bet, m.big_bet
    ),
    "dealer_up": lambda m: ev.DealerUp(m.seat, m.redeal, m.game, _unjson(m.options_json)),
}


def decode_event(env: pb.EventEnvelope) -> AnyEvent:
    """The event in ``env``, without the envelope's metadata (for readers that need none of
    it, or one field they read from the envelope: the audit, a rebuild's later events)."""
    kind = env.WhichOneof("payload")
    decoder = _DECODERS.get(kind) if kind else None
    if decoder is None:
        raise CodecError(f"unknown event payload {kind!r}")
    return decoder(getattr(env, kind))


def _meta(env: pb.EventEnvelope, occurred_at: datetime) -> EventMeta:
    return EventMeta(
        aggregate_id=env.aggregate_id,
        version=env.aggregate_version,
        index=env.index,
        request_id=env.request_id,
        actor=env.actor,
        occurred_at=occurred_at,
    )


def event_from_pb(env: pb.EventEnvelope) -> tuple[AnyEvent, EventMeta]:
    """The event and its envelope's metadata."""
    return decode_event(env), _meta(env, env.occurred_at.ToDatetime(tzinfo=UTC))


GENESIS_HASH = bytes(32)


def event_hash(envelope: pb.EventEnvelope) -> bytes:
    """The chain hash of one stored event: SHA-256 of its deterministic serialization."""
    return hashlib.sha256(envelope.SerializeToString(deterministic=True)).digest()


def encode_batch(
    events: Sequence[AnyEvent],
    *,
    aggregate_id: str,
    version: int,
    request_id: str,
    actor: str,
    occurred_at: datetime,
    previous_hash: bytes = GENESIS_HASH,
) -> bytes:
    """The bytes of one log message: every event of one command, chained to ``previous_hash``
    (the hash of the last event before them on the subject; see :func:`chain_end`)."""
    return encode_chained_batch(
        events,
        aggregate_id=aggregate_id,
        version=version,
        request_id=request_id,
        actor=actor,
        occurred_at=occurred_at,
        previous_hash=previous_hash,
    )[0]


def encode_chained_batch(
    events: Sequence[AnyEvent],
    *,
    aggregate_id: str,
    version: int,
    request_id: str,
    actor: str,
    occurred_at: datetime,
    previous_hash: bytes = GENESIS_HASH,
) -> tuple[bytes, bytes]:
    """:func:`encode_batch` and the hash of its last event (``chain_end`` of the bytes), for a
    writer that chains the next batch to it without parsing its own bytes back."""
    envelopes = []
    for i, e in enumerate(events):
        env = event_to_pb(e, EventMeta(aggregate_id, version, i, request_id, actor, occurred_at))
        env.previous_hash = previous_hash
        previous_hash = event_hash(env)
        envelopes.append(env)
    return pb.EventBatch(events=envelopes).SerializeToString(deterministic=True), previous_hash


def chain_end(data: bytes, previous_hash: bytes = GENESIS_HASH) -> bytes:
    """The hash of the last event of a stored batch (what the next batch chains to), or
    ``previous_hash`` for an empty batch."""
    batch = pb.EventBatch()
    batch.ParseFromString(data)
    events = batch.events
    return event_hash(events[-1]) if events else previous_hash


def decode_batch(data: bytes) -> list[tuple[AnyEvent, EventMeta]]:
    """Every event of one log message, with metadata."""
    batch = pb.EventBatch()
    try:
        batch.ParseFromString(data)
    except Exception as exc:  # protobuf raises DecodeError, a bare Exception subclass
        raise CodecError(f"not an EventBatch: {exc}") from None
    out = []
    # One command's events share its time (encode_batch): each distinct time is converted
    # once, the conversion being about half of an event's decoding.
    times: dict[tuple[int, int], datetime] = {}
    for env in batch.events:
        stamp = env.occurred_at
        key = (stamp.seconds, stamp.nanos)
        occurred_at = times.get(key)
        if occurred_at is None:
            occurred_at = times[key] = stamp.ToDatetime(tzinfo=UTC)
        out.append((decode_event(env), _meta(env, occurred_at)))
    return out
