"""A player's own check of every card it receives (CRV1, docs/shuffle.md part II).

:class:`CardChecker` reads what a client gets from ``TableService.Watch`` (or ``Act``,
``GetTableView``) and trusts nothing but the protos and its own count:

- it pins the hand's commitment ``C`` and Merkle root ``R`` from the first sight of the hand,
  before its seed phases (the ``HandCommitted`` event, or the view's ``seeding``), and fails
  if a later view names others;
- the lock is the logged one: the ``SeedsLocked`` event of the Watch stream (docs/shuffle.md
  II.5). A view's ``locked_seeds`` must be the same list, and a hand whose commitment or start
  the stream carried must have its ``SeedsLocked`` before the deal; only a client that began
  watching after the lock takes the view's copy (its cards are then marked not witnessed);
- at the lock it recomputes every drawn seed from ``C`` and ``R``, checks every client's seed
  against the commitment locked for its seat, and checks that the seed this client sent is
  there, as its own (origin 0); a seat whose client sent none is told. What the client sent
  is a :class:`~riverboat.sentseeds.SentSeeds` that outlives the stream (shared by every
  checker of the player at the table); a seed locked as the client's that another process
  sent is said to be beyond this client's check, not failed;
- it counts the deal itself from the public events (each card taken is the next dealing
  index, whoever gets it) and requires each proof to name the index it counted
  (:mod:`riverboat.dealcount`);
- for each card it recomputes the leaf, climbs the path to ``R`` and checks that the deck
  position is the one the locked seeds' dealing order gives that index (a reshuffled card:
  one of its round's public positions).

The hashing is the auditor's own CRV1 (:mod:`riverboat.audit.crv1`, written from
docs/shuffle.md alone), not the dealer's (:mod:`riverboat.shuffle.crv1`): a fault in the
dealer's code is not repeated by the check that should catch it.
"""

from __future__ import annotations

import enum
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field

from riverboat.audit import crv1
from riverboat.dealcount import Deal, index_problem, reshuffle_problem
from riverboat.engine.cards import DECK_SIZE, card_str, parse_card
from riverboat.sentseeds import Sent, SentSeeds
from riverboat.v1 import events_pb2, table_pb2

__all__ = ["CardCheck", "CardChecker", "Verdict"]

_Seeds = tuple[tuple[int, str, bytes, int], ...]
"""A lock's entries: (seat, player, seed, origin), as logged."""

#: A locked seed's origin (docs/shuffle.md II.4): its client revealed it, or it is derived.
_CLIENT, _DRAWN = 0, 1

#: Hands remembered at once (the one in play, the next one seeding, a few before).
_HANDS = 4


class Verdict(enum.StrEnum):
    """The outcome of one check."""

    VERIFIED = "verified"
    FAILED = "failed"
    NOTICE = "notice"
    """Not a failure: something the player should know (a seed was drawn for it)."""
    UNCHECKED = "unchecked"
    """Not a failure: the lock holds a seed as this client's that another process of the
    player sent (the client restarted), so this client has nothing to check it against."""


@dataclass(frozen=True, slots=True)
class CardCheck:
    """One card checked (or, with ``card`` empty, one check of the hand's commitment or
    seeds): which, where it was dealt, and how it went."""

    hand_id: str
    card: str
    deal_index: int
    """0-based dealing index (which card of the deal); -1 if none."""
    position: int
    """Deck position the opening names (-1 if it could not be read)."""
    verdict: Verdict
    reason: str = ""
    witnessed: bool = True
    """The client watched the hand from before its lock: the lock is the logged one and the
    card's dealing index the client's own count. False: the lock is a view's copy, and the
    index (if the deal began out of sight) the table's, checked against the order only."""

    def line(self) -> str:
        """One line for a screen."""
        if not self.card:
            if self.verdict is Verdict.FAILED:
                return f"PROOF FAILED for hand {self.hand_id}: {self.reason}"
            return self.reason
        if self.verdict is Verdict.VERIFIED:
            return (
                f"{self.card} verified: card {self.deal_index + 1} dealt, deck position "
                f"{self.position}, opens the committed root"
            )
        return f"PROOF FAILED for {self.card} (card {self.deal_index + 1} dealt): {self.reason}"


@dataclass(slots=True)
class _Hand:
    hand_id: str
    #: (C, R) as first seen, and whether that was before the seeds were locked.
    pin: tuple[bytes, bytes] | None = None
    pinned_early: bool = False
    seeds: _Seeds = ()
    #: ``seeds`` came from the log's SeedsLocked (else from a view, or none yet).
    logged: bool = False
    #: The stream showed this hand before its lock (its HandCommitted, or a view of its seed
    #: phases), so its SeedsLocked must come in the stream too.
    before_lock: bool = False
    #: The lock's absence was told; the view copies told to disagree with the log.
    missing_told: bool = False
    disagreed: set[_Seeds] = field(default_factory=set)
    #: Seat -> the seed commitment the commitments' lock holds for it (None: not seen).
    commits: dict[int, bytes] | None = None
    order: tuple[int, ...] = ()
    deal: Deal | None = None
    rounds: tuple[tuple[int, ...], ...] = ()
    checked: set[tuple[int, str]] = field(default_factory=set)
    #: This viewer's seat, and the commitment and seed the table's views acknowledge it sent
    #: (what it sent itself is in the checker's SentSeeds).
    seat: int = 0
    acked_commitment: bytes = b""
    acked_seed: bytes = b""
    lock_mine: tuple[int, bytes] | None = None
    commits_checked: bool = False
    told: bool = False


class CardChecker:
    """Checks each CRV1 proof a viewer receives, once per card, and the hand's seeds.

    One checker follows one stream. ``sent`` is what the client sent, kept across streams: a
    client that watches the table again passes the same one to its new checker.
    """

    def __init__(self, sent: SentSeeds | None = None) -> None:
        self._hands: dict[str, _Hand] = {}
        self._dealing: _Hand | None = None
        self.sent = sent if sent is not None else SentSeeds()
        self.checks: list[CardCheck] = []

    @property
    def failures(self) -> list[CardCheck]:
        """Every failed check so far."""
        return [c for c in self.checks if c.verdict is Verdict.FAILED]

    # --- what the client sent -------------------------------------------------------------

    def committing(self, hand_id: str, seat: int, seed: bytes) -> None:
        """The client is about to commit to ``seed`` for ``hand_id`` (call before sending)."""
        self.sent.committing(hand_id, seat, seed)
        self._hand(hand_id).seat = seat

    def commit_accepted(self, hand_id: str) -> list[CardCheck]:
        """The table accepted the client's commitment."""
        self._sent(hand_id).committed = True
        return []

    def revealing(self, hand_id: str) -> None:
        """The client is about to reveal its seed (call before sending)."""
        self._sent(hand_id).revealing = True

    def reveal_accepted(self, hand_id: str) -> list[CardCheck]:
        """The table accepted the client's seed; returns the checks this settles."""
        sent = self._sent(hand_id)
        sent.revealed, sent.revealing = True, False
        return self._settle_mine(self._hand(hand_id))

    def refused(self, hand_id: str, reason: str) -> list[CardCheck]:
        """The table refused the client's commitment or seed; returns the checks this
        settles (the notice that a seed was drawn, once the lock is known)."""
        sent = self._sent(hand_id)
        sent.refused, sent.revealing = reason, False
        return self._settle_mine(self._hand(hand_id))

    # --- what the client received ---------------------------------------------------------

    def update(self, update: table_pb2.WatchResponse) -> list[CardCheck]:
        """Check one Watch message: its events (counted into the deal), then its view."""
        out: list[CardCheck] = []
        for env in update.events:
            out.extend(self._event(env))
        if update.HasField("view"):
            out.extend(self._view(update.view, in_stream=True))
        self.checks.extend(out)
        return out

    def view(self, view: table_pb2.TableView) -> list[CardCheck]:
        """Check the proofs in a view alone (an Act reply, GetTableView): outside the Watch
        stream's order, so a lock it shows before the stream's SeedsLocked is taken for now
        and compared with the logged one when that comes."""
        out = self._view(view, in_stream=False)
        self.checks.extend(out)
        return out

    def views(self, views: Iterable[table_pb2.TableView]) -> list[CardCheck]:
        """Check several views in order."""
        out: list[CardCheck] = []
        for view in views:
            out.extend(self.view(view))
        return out

    # --- internals ------------------------------------------------------------------------

    def _sent(self, hand_id: str) -> Sent:
        """What the client sent for the hand (nothing noted yet: an empty seed, its seat)."""
        sent = self.sent.get(hand_id)
        return sent or self.sent.committing(hand_id, self._hand(hand_id).seat, b"")

    def _hand(self, hand_id: str) -> _Hand:
        hand = self._hands.get(hand_id)
        if hand is None:
            sent = self.sent.get(hand_id)
            hand = self._hands[hand_id] = _Hand(hand_id, seat=sent.seat if sent else 0)
            while len(self._hands) > _HANDS:
                del self._hands[next(iter(self._hands))]
        return hand

    def _failed(self, hand: _Hand, reason: str) -> CardCheck:
        return CardCheck(hand.hand_id, "", -1, -1, Verdict.FAILED, reason)

    def _pin(self, hand: _Hand, c: bytes, r: bytes, *, early: bool) -> list[CardCheck]:
        """Pin (C, R) at first sight; a later sight that differs fails."""
        if not c or not r:
            return []
        if hand.pin is None:
            hand.pin, hand.pinned_early = (bytes(c), bytes(r)), early
            return []
        if hand.pin != (c, r):
            return [
                self._failed(
                    hand,
                    f"the hand's commitment changed: C {hand.pin[0].hex()[:16]}... and R "
                    f"{hand.pin[1].hex()[:16]}... were committed before the seeds, now "
                    f"{bytes(c).hex()[:16]}... and {bytes(r).hex()[:16]}...",
                )
            ]
        return []

    def _event(self, env: events_pb2.EventEnvelope) -> list[CardCheck]:
        kind = env.WhichOneof("payload")
        if kind == "hand_committed":
            m = env.hand_committed
            if m.scheme == crv1.SCHEME:
                hand = self._hand(m.hand_id)
                hand.before_lock = True
                return self._pin(hand, m.commitment, m.merkle_root, early=True)
        elif kind == "seed_commits_locked":
            locked = env.seed_commits_locked
            self._hand(locked.hand_id).commits = {
                c.seat: bytes(c.commitment) for c in locked.commits
            }
        elif kind == "seeds_locked":
            lock = env.seeds_locked
            seeds = tuple((s.seat, s.player, bytes(s.seed), s.origin) for s in lock.seeds)
            return self._logged_lock(self._hand(lock.hand_id), seeds)
        elif kind == "hand_started":
            hand = self._hand(env.hand_started.hand_id)
            hand.deal = Deal()
            self._dealing = hand
            if hand.before_lock and not hand.logged:
                return self._missing(hand)
        elif self._dealing is not None and self._dealing.deal is not None:
            return self._count(self._dealing, env, kind)
        return []

    def _count(
        self, hand: _Hand, env: events_pb2.EventEnvelope, kind: str | None
    ) -> list[CardCheck]:
        """Count one event into the deal: every card taken from the deck is the next index."""
        deal = hand.deal
        assert deal is not None
        if kind == "card_dealt":
            m = env.card_dealt
            index = deal.take(m.card)
            if m.deal_index and m.deal_index != index + 1:
                return [
                    self._failed(
                        hand,
                        f"the table numbers the card dealt to seat {m.seat} as card "
                        f"{m.deal_index}, but it is card {index + 1} of the deal",
                    )
                ]
        elif kind == "community_card_dealt":
            deal.take(env.community_card_dealt.card)
        elif kind == "table_row_dealt":
            deal.row_start = deal.cursor
            deal.cursor += env.table_row_dealt.count
        elif kind == "table_card_turned":
            turned = env.table_card_turned
            if turned.from_stock:
                deal.take(turned.card)
            elif deal.row_start >= 0:
                # The row is turned in the order it was dealt.
                deal.seen.setdefault(turned.card, set()).add(deal.row_start + deal.row_turned)
                deal.row_turned += 1
        return []

    def _view(self, view: table_pb2.TableView, *, in_stream: bool) -> list[CardCheck]:
        out: list[CardCheck] = []
        if view.HasField("seeding"):
            out.extend(self._seeding(view.seeding, view.viewer_seat))
            if in_stream:
                self._hand(view.seeding.hand_id).before_lock = True
        if view.scheme != crv1.SCHEME or not view.hand_id:
            return out
        hand = self._hand(view.hand_id)
        out.extend(self._pin(hand, view.commitment, view.merkle_root, early=False))
        seeds = tuple((s.seat, s.player, bytes(s.seed), s.origin) for s in view.locked_seeds)
        if seeds:
            out.extend(self._view_lock(hand, seeds, in_stream=in_stream))
        if view.viewer_seat and not hand.seat:
            hand.seat = view.viewer_seat  # now known: this viewer's entry in a lock seen before
            out.extend(self._mine(hand))
        hand.rounds = tuple(tuple(r.positions) for r in view.reshuffles)
        for proof in view.proofs:
            key = (proof.deal_index, proof.card)
            if key in hand.checked:
                continue
            hand.checked.add(key)
            out.append(self._check(hand, proof, view))
        mine = next((s for s in view.seats if s.seat == view.viewer_seat), None)
        proven = {p.card for p in view.proofs}
        for card in mine.cards if mine is not None else ():
            if card.card and card.card not in proven and (-1, card.card) not in hand.checked:
                hand.checked.add((-1, card.card))
                out.append(
                    CardCheck(hand.hand_id, card.card, -1, -1, Verdict.FAILED, "no proof came")
                )
        return out

    def _seeding(self, seeding: table_pb2.SeedRound, seat: int) -> list[CardCheck]:
        """A hand in its seed phases: pin C and R; note what the table acknowledges this
        viewer sent; once the commitments are locked, this client's must be among them."""
        hand = self._hand(seeding.hand_id)
        out = self._pin(hand, seeding.commitment, seeding.merkle_root, early=True)
        if seat and not hand.seat:
            hand.seat = seat
        if seeding.my_commitment and not hand.acked_commitment:
            hand.acked_commitment = bytes(seeding.my_commitment)
        if seeding.my_seed and not hand.acked_seed:
            hand.acked_seed = bytes(seeding.my_seed)
        if seeding.phase == "reveal" and hand.commits is None:
            hand.commits = {c.seat: bytes(c.commitment) for c in seeding.commits}
        sent = self.sent.get(hand.hand_id)
        committed = hand.acked_commitment
        if sent is not None and sent.committed:
            committed = crv1.client_commitment(hand.hand_id, sent.seat, sent.seed)
        if seeding.phase == "reveal" and committed and not hand.commits_checked:
            hand.commits_checked = True
            locked = {(c.seat, bytes(c.commitment)) for c in seeding.commits}
            if (hand.seat, committed) not in locked:
                out.append(
                    self._failed(
                        hand,
                        "the table accepted your seed commitment, but the commitments it "
                        "locked leave it out",
                    )
                )
        return out

    def _logged_lock(self, hand: _Hand, seeds: _Seeds) -> list[CardCheck]:
        """The log's SeedsLocked: the lock the hand is checked against from now on."""
        if hand.logged:
            twice = "the log holds two different SeedsLocked for the hand"
            return [] if seeds == hand.seeds else [self._failed(hand, twice)]
        out: list[CardCheck] = []
        if hand.seeds and seeds != hand.seeds:  # a view showed another lock first
            hand.disagreed.add(hand.seeds)
            out.append(self._failed(hand, _disagreement(seeds, hand.seeds)))
        hand.logged = True
        return out + self._lock(hand, seeds)

    def _view_lock(self, hand: _Hand, seeds: _Seeds, *, in_stream: bool) -> list[CardCheck]:
        """A view's copy of the lock: it must be the logged one. Without one, it is taken
        only if the stream began after the lock (or the view came outside it)."""
        if hand.logged:
            if seeds == hand.seeds or seeds in hand.disagreed:
                return []
            hand.disagreed.add(seeds)
            return [self._failed(hand, _disagreement(hand.seeds, seeds))]
        if in_stream and hand.before_lock:
            return self._missing(hand)
        return self._lock(hand, seeds) if seeds != hand.seeds else []

    def _missing(self, hand: _Hand) -> list[CardCheck]:
        """The stream showed the hand begin but no SeedsLocked came before its deal."""
        if hand.missing_told:
            return []
        hand.missing_told = True
        hand.seeds, hand.order = (), ()
        why = "the log holds no SeedsLocked for the hand before its deal: there is no lock to "
        return [self._failed(hand, why + "check the dealing order against")]

    def _lock(self, hand: _Hand, seeds: _Seeds) -> list[CardCheck]:
        """The lock: the dealing order, every seed's derivation or commitment, this client's."""
        hand.seeds = seeds
        out: list[CardCheck] = []
        if hand.pin is None:
            hand.order = ()
            return [self._failed(hand, "the seeds were locked before the hand's commitment")]
        c, r = hand.pin
        try:
            hand.order = crv1.dealing_order(hand.hand_id, c, r, seeds)
        except ValueError as exc:
            hand.order = ()
            return [self._failed(hand, f"the locked seeds are malformed: {exc}")]
        for seat, _, seed, origin in seeds:
            if origin == _DRAWN and seed != crv1.drawn(hand.hand_id, c, r, seat):
                out.append(
                    self._failed(
                        hand,
                        f"seat {seat}'s seed is marked drawn but is not the seed the "
                        "commitment fixes for it: the table chose it",
                    )
                )
            elif (
                origin == _CLIENT
                and hand.commits is not None
                and hand.commits.get(seat) != crv1.client_commitment(hand.hand_id, seat, seed)
            ):
                held = "another" if seat in hand.commits else "none"
                out.append(
                    self._failed(
                        hand,
                        f"seat {seat}'s seed in the lock is not the seed its client committed "
                        f"to (the commitments' lock holds {held} for that seat)",
                    )
                )
        return out + self._mine(hand)

    def _mine(self, hand: _Hand) -> list[CardCheck]:
        """This viewer's entry in the lock, once both are known."""
        if hand.lock_mine is None and hand.seat:
            mine = next(((o, s) for seat, _, s, o in hand.seeds if seat == hand.seat), None)
            if mine is not None:
                hand.lock_mine = mine
                return self._settle_mine(hand)
        return []

    def _settle_mine(self, hand: _Hand) -> list[CardCheck]:
        """This client's own entry in the lock, once both the lock and what it sent are
        known: its revealed seed as its own, or a notice that one was drawn for it."""
        if hand.lock_mine is None or hand.told:
            return []
        origin, seed = hand.lock_mine
        sent = self.sent.get(hand.hand_id)
        if origin == _CLIENT:
            # What this client sent decides; else the table's own acknowledgement must agree.
            known = sent.seed if sent is not None else hand.acked_seed
            if known and hmac.compare_digest(seed, known):
                hand.told = True
                return []
            if sent is not None or hand.acked_seed:
                hand.told = True
                return [self._failed(hand, "the lock holds a seed as yours that you did not send")]
            if self.sent.sender:
                hand.told = True
                return [_unchecked(hand.hand_id)]
            return []
        if (sent is not None and sent.revealed) or hand.acked_seed:
            hand.told = True
            return [
                self._failed(
                    hand,
                    "the table accepted your seed, but the lock marks your seat's seed drawn",
                )
            ]
        if sent is not None and sent.revealing:
            return []  # settled when the reveal's answer comes
        hand.told = True
        why = f" ({sent.refused})" if sent is not None and sent.refused else ""
        return [
            CardCheck(
                hand.hand_id,
                "",
                -1,
                -1,
                Verdict.NOTICE,
                f"No seed of yours went into hand {hand.hand_id}{why}: the seed locked for your "
                "seat was drawn (derived from the dealer's commitment, checked).",
            )
        ]

    def _check(
        self, hand: _Hand, proof: table_pb2.CardProof, view: table_pb2.TableView
    ) -> CardCheck:
        index = proof.deal_index - 1
        witnessed = hand.deal is not None and hand.logged

        def failed(reason: str, position: int = -1) -> CardCheck:
            return CardCheck(
                hand.hand_id, proof.card, index, position, Verdict.FAILED, reason, witnessed
            )

        if hand.pin is None:
            return failed("the hand's committed root is unknown")
        if index < 0:
            return failed("the proof names no dealing index")
        raw = bytes(proof.opening)
        try:
            card = parse_card(proof.card)
        except ValueError as exc:
            return failed(f"unreadable proof: {exc}")
        parsed = crv1.parse_opening(raw)
        if parsed is None:
            return failed(f"unreadable proof: {len(raw)} bytes that are no opening")
        position, opened = parsed[0], parsed[1]
        if opened != card:
            return failed(f"the opening is for {card_str(opened)}, not {proof.card}", position)
        problem = index_problem(hand.deal, proof.card, index)
        if problem:
            return failed(problem, position)
        if index < len(hand.order):
            expected: int | None = hand.order[index]
        elif index < DECK_SIZE:
            if hand.missing_told:
                return failed("the log holds no lock for this hand", position)
            return failed("the locked seeds are unknown or malformed", position)
        else:
            expected = None
            problem = reshuffle_problem(hand.rounds, position, index, view)
            if problem:
                return failed(problem, position)
        # The path climbed from the recomputed leaf (docs/shuffle.md II.5), compared with R
        # in constant time; a path of the wrong length climbs to nothing.
        climbed = crv1.climb(hand.hand_id, raw)
        if climbed is None or not hmac.compare_digest(climbed[2], hand.pin[1]):
            return failed(
                f"{proof.card} at deck position {position} does not open the committed root "
                f"{hand.pin[1].hex()[:16]}...",
                position,
            )
        if expected is not None and position != expected:
            return failed(
                f"{proof.card} comes from deck position {position}, but the locked seeds put "
                f"position {expected} here",
                position,
            )
        return CardCheck(hand.hand_id, proof.card, index, position, Verdict.VERIFIED, "", witnessed)


def _disagreement(logged: _Seeds, shown: _Seeds) -> str:
    """Why a view's copy of the lock is not the logged one, naming the first seat that differs."""
    seat = min({e[0] for e in set(logged) ^ set(shown)}, default=0)
    return (
        f"the view's locked seeds are not the logged SeedsLocked (seat {seat} differs); "
        "the cards are checked against the logged lock"
    )


def _unchecked(hand_id: str) -> CardCheck:
    """A seed locked as the client's that it has no memory of sending: sent before this
    client started (by an earlier session of the player), so beyond its check."""
    return CardCheck(
        hand_id,
        "",
        -1,
        -1,
        Verdict.UNCHECKED,
        f"This client cannot check your own seed in hand {hand_id}: the lock holds one as "
        "yours, but it was sent before this client started (by another session of yours), "
        "so there is nothing here to compare it with. The other checks of the hand still hold.",
    )
