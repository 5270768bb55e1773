"""What ``riverboat play`` says happened: :class:`Narrator` turns the events of each watch
update into short sentences ("bot-1 raises to $2.00", "You win the main pot of $6.50"), from
one player's seat (or an observer's)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text

from riverboat.cli.clientkit import money
from riverboat.cli.play.text import (
    card_row,
    card_text,
    changed_options,
    street_name,
    variant_name,
)
from riverboat.engine import events as engine_events
from riverboat.engine.cards import card_str
from riverboat.engine.games import half_names, shown_hand
from riverboat.eventcodec import event_from_pb
from riverboat.handtext import pot_label
from riverboat.narration import Sentence, Voice, plain, tell
from riverboat.v1 import events_pb2, table_pb2

#: How the one narrator's sentences stand out on the screen (the rest are plain).
_STYLES: dict[type[Any], str] = {
    engine_events.PhaseStarted: "bold",
    engine_events.DeclarationsRevealed: "bold",
    engine_events.WildRankChanged: "bold magenta",
    engine_events.RankEliminated: "bold",
    engine_events.PotCarriedIn: "bold",
    engine_events.PotCarriedOver: "bold magenta",
}


@dataclass
class Digest:
    """What one watch update meant for the screen."""

    lines: list[Text] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    new_hand: bool = False
    new_street: bool = False
    showdown: bool = False
    hand_ended: bool = False
    left_with: int | None = None  # the viewer stood up with this stack


class Narrator:
    """Sentences for the events of watch updates, from one player's seat (or an observer's).

    It remembers who sits where and each stack at the start of the hand, so the end of a hand
    can say what the viewer won or lost.
    """

    def __init__(self, player: str) -> None:
        self.player = player
        self.seat = 0
        self.names: dict[int, str] = {}
        self.start: dict[int, int] = {}
        self.variant = ""
        self.phase = ""  # the hand's phase: a draw's discards are told as draws
        #: The hand's game options (Chicago's high or low spade half names its half).
        self.game_options: dict[str, Any] = {}
        #: Hand numbers (1, 2, 3... at the table) by hand id, as the views name them.
        self.numbers: dict[str, int] = {}

    def hand_name(self, hand_id: str) -> str:
        """``#N`` once a view has numbered the hand, else its id."""
        number = self.numbers.get(hand_id)
        return f"#{number}" if number else hand_id

    def _me(self, seat: int) -> bool:
        return seat != 0 and seat == self.seat

    def _subject(self, seat: int) -> str:
        return "You" if self._me(seat) else self.names.get(seat, f"seat {seat}")

    def _verb(self, seat: int, you: str, they: str) -> str:
        return f"{self._subject(seat)} {you if self._me(seat) else they}"

    def _name(self, seat: int) -> str:
        return "you" if self._me(seat) else self.names.get(seat, f"seat {seat}")

    def feed(
        self,
        events: Sequence[events_pb2.EventEnvelope],
        view: table_pb2.TableView | None = None,
    ) -> Digest:
        """Narrate one update's events; ``view`` (the view after them) fills in names."""
        if view is not None:
            if view.hand_id and view.hand_number:
                self.numbers[view.hand_id] = view.hand_number
            self.variant = self.variant or view.variant  # joined mid-hand: no HandStarted seen
            if not self.game_options and view.HasField("game_options"):
                self.game_options = dict(view.game_options.items())
            for s in view.seats:
                self.names[s.seat] = s.player
            # By name: a view's viewer_seat can still name the seat of a hand just left.
            seat = next((s.seat for s in view.seats if s.player == self.player), 0)
            if seat:
                self.seat = seat
        digest = Digest()
        antes: list[tuple[int, int]] = []
        for env in events:
            kind = env.WhichOneof("payload")
            if kind != "ante_posted" and antes:
                digest.lines.append(self._antes(antes))
                antes = []
            if kind is None:
                continue
            self._event(kind, env, digest, antes, clock=env.actor == "clock")
        if antes:
            digest.lines.append(self._antes(antes))
        return digest

    def _antes(self, antes: list[tuple[int, int]]) -> Text:
        if len(antes) == 1:
            seat, amount = antes[0]
            return Text(f"{self._verb(seat, 'ante', 'antes')} {money(amount)}.", style="grey70")
        amounts = {a for _, a in antes}
        if len(amounts) == 1:
            return Text(f"Antes: {money(amounts.pop())} each.", style="grey70")
        return Text(
            "Antes: " + ", ".join(f"{self._name(s)} {money(a)}" for s, a in antes) + ".",
            style="grey70",
        )

    def _event(
        self,
        kind: str,
        env: events_pb2.EventEnvelope,
        digest: Digest,
        antes: list[tuple[int, int]],
        *,
        clock: bool = False,
    ) -> None:
        add = digest.lines.append
        m = getattr(env, kind)
        match kind:
            case "player_seated":
                assert isinstance(m, events_pb2.PlayerSeated)
                self.names[m.seat] = m.player
                if m.player == self.player:
                    self.seat = m.seat
                add(
                    Text(
                        f"{self._verb(m.seat, 'sit', 'sits')} down in seat {m.seat} "
                        f"with {money(m.stack)}."
                    )
                )
            case "leave_requested":
                assert isinstance(m, events_pb2.LeaveRequested)
                add(Text(f"{self._subject(m.seat)} will leave when this hand ends."))
            case "player_left":
                assert isinstance(m, events_pb2.PlayerLeft)
                if m.player == self.player:
                    digest.left_with = m.stack
                    add(
                        Text(
                            f"You stood up with {money(m.stack)}; it goes back to your wallet.",
                            style="bold",
                        )
                    )
                    self.seat = 0
                else:
                    add(Text(f"{m.player} left with {money(m.stack)}."))
                self.names.pop(m.seat, None)
            case "hand_started":
                assert isinstance(m, events_pb2.HandStarted)
                self.names.update({s.seat: s.player for s in m.seats})
                self.start = {s.seat: s.stack for s in m.seats}
                self.variant = m.variant
                self.game_options = {}
                for s in m.seats:
                    if s.player == self.player:
                        self.seat = s.seat
                digest.new_hand = True
                add(Text(f"── Hand {self.hand_name(m.hand_id)} ──", style="bold"))
            case "ante_posted":
                assert isinstance(m, events_pb2.AntePosted)
                antes.append((m.seat, m.amount))
            case "community_card_dealt":
                assert isinstance(m, events_pb2.CommunityCardDealt)
                add(Text("Community card: ").append_text(card_text(m.card)))
            case "betting_round_started":
                assert isinstance(m, events_pb2.BettingRoundStarted)
                digest.new_street = True
                self.phase = "bet"
                add(Text(f"── {street_name(m.street, self.variant)} ──", style="bold"))
            case "action_taken":
                assert isinstance(m, events_pb2.ActionTaken)
                action = engine_events.ActionTaken(m.seat, m.action, m.amount, m.to, m.all_in)
                text = plain(tell(action, self._voice()))
                if clock:  # the action clock ran out and acted for the player
                    text += " (out of time)"
                digest.actions.append(text)
                add(Text(text + ".", style="bold cyan" if self._me(m.seat) else ""))
            case "hand_shown":
                assert isinstance(m, events_pb2.HandShown)
                digest.showdown = True
                line = Text(f"{self._verb(m.seat, 'show', 'shows')} ")
                line.append_text(card_row(m.cards))
                # Each half by its name: Chicago's spade half is no "low" (shown_hand).
                line.append(f": {shown_hand(self.variant, m.high_text, m.low_text or None)}")
                add(line)
            case "rake_taken":
                assert isinstance(m, events_pb2.RakeTaken)
                if m.amount:
                    add(Text(f"Rake {money(m.amount)}.", style="grey70"))
            case "pot_awarded":
                assert isinstance(m, events_pb2.PotAwarded)
                add(self._pot(m))
            case "hand_ended":
                assert isinstance(m, events_pb2.HandEnded)
                digest.hand_ended = True
                add(self._result(m))
            case "hand_voided":
                assert isinstance(m, events_pb2.HandVoided)
                digest.hand_ended = True
                add(
                    Text(
                        f"Hand {self.hand_name(m.hand_id)} was voided ({m.reason}); "
                        "every bet went back."
                    )
                )
            case "player_sat_out":
                assert isinstance(m, events_pb2.PlayerSatOut)
                why = " (the clock acted twice in a row)" if m.reason == "timeouts" else ""
                after = "; si sits you in again" if self._me(m.seat) else ""
                add(Text(f"{self._verb(m.seat, 'sit', 'sits')} out{why}{after}.", style="grey70"))
            case "table_closing":
                add(Text("The operator closes the table after this hand.", style="bold red"))
            case "table_closed":
                add(
                    Text("The table is closed: everyone leaves with their chips.", style="bold red")
                )
            case "dealing_paused":
                add(Text("The operator pauses dealing after this hand.", style="bold red"))
            case "dealing_resumed":
                add(Text("Dealing resumes.", style="bold red"))
            case "player_sat_in":
                assert isinstance(m, events_pb2.PlayerSatIn)
                add(
                    Text(
                        f"{self._verb(m.seat, 'are', 'is')} dealt in again from the next hand.",
                        style="grey70",
                    )
                )
            case "time_bank_started":
                assert isinstance(m, events_pb2.TimeBankStarted)
                what = "disconnected: gets" if m.protection else "on the time bank:"
                if self._me(m.seat):
                    what = "disconnected: you get" if m.protection else "on your time bank:"
                    text = f"You are {what} {m.seconds} s more."
                else:
                    text = f"{self._name(m.seat)} is {what} {m.seconds} s more."
                add(Text(text, style="yellow"))
            case "time_bank_used" | "player_timed_out" | "timeouts_cleared":
                pass  # the action that follows says it (a clock's action: "out of time")
            case "game_options_set":
                assert isinstance(m, events_pb2.GameOptionsSet)
                self.game_options = json.loads(m.options_json or "{}")
            case _:
                # table_created, hand_committed, card_dealt: the table shows them; the dealer's
                # choice steps are told by the one narrator (_dealers_choice).
                self._dealers_choice(kind, env, digest)

    def _dealers_choice(self, kind: str, env: events_pb2.EventEnvelope, digest: Digest) -> None:
        """The dealer's choice table's own lines (who deals, the game chosen), and the one
        narrator's sentence for every other step (riverboat.narration), as this viewer sees
        it: cards only where the event shows them, this player as "you"."""
        add = digest.lines.append
        m: Any = getattr(env, kind)
        if kind == "dealer_up":
            if m.redeal:
                game = variant_name(m.game)
                text = f"The pot rides: {self._name(m.seat)} deals {game} again."
                add(Text(text, style="bold"))
            else:
                chooses = "choose" if self._me(m.seat) else "chooses"
                add(Text(f"{self._verb(m.seat, 'deal', 'deals')} next and {chooses} the game."))
            return
        if kind == "game_chosen":
            chosen = changed_options(m.game, json.loads(m.options_json or "{}"))
            text = f"{self._verb(m.seat, 'choose', 'chooses')} {variant_name(m.game)}"
            text += f" ({chosen})" if chosen else ""
            if m.small_bet or m.big_bet:
                text += f", limits {money(m.small_bet)}/{money(m.big_bet)}"
            if m.by_clock:
                text += " (out of time: the table's default)"
            add(Text(text + ".", style="bold"))
            return
        event = event_from_pb(env)[0]
        sentence = tell(event, self._voice(), self.halves(), phase=self.phase)
        if sentence is None:
            return
        if kind == "phase_started":
            self.phase = m.phase
            digest.new_street = True
            add(Text(f"── {self._plain(sentence)} ──", style="bold"))
            return
        if kind == "declarations_revealed":
            digest.showdown = True
        style = _STYLES.get(type(event), "")
        if kind == "match_due" and self._me(m.seat):
            style = "bold"
        elif kind == "wild_rank_changed" and not m.HasField("rank"):
            style = "magenta"  # a queen fell, or no rank follows it: no rank is wild by it
        add(self._render(sentence, style))

    def _voice(self) -> Voice:
        return Voice(lambda seat: self.names.get(seat, f"seat {seat}"), money, self.seat)

    @staticmethod
    def _render(sentence: Sentence, style: str) -> Text:
        """A narrator's sentence on the screen: its cards coloured by suit."""
        line = Text(style=style)
        for part in sentence:
            if isinstance(part, str):
                line.append(part)
            else:
                line.append_text(card_row(card_str(c) for c in part.cards))
        return line.append(".")

    @staticmethod
    def _plain(sentence: Sentence) -> str:
        return "".join(p for p in sentence if isinstance(p, str))

    def halves(self) -> tuple[str, str]:
        """The pot's halves by name: high and low, Chicago's high hand and spade, 15-35's...
        (of the hand last told)."""
        return half_names(self.variant, self.game_options)

    def _pot(self, m: events_pb2.PotAwarded) -> Text:
        label = pot_label(m.pot)
        if len(m.shares) == 1:
            seat = m.shares[0].seat
            how = ""
            if m.high_winners and m.low_winners and seat in m.low_winners:
                how = f" ({' and '.join(self.halves())})"
            text = f"{self._verb(seat, 'win', 'wins')} the {label} of {money(m.amount)}{how}."
            return Text(text, style="bold green" if self._me(seat) else "bold")
        parts = []
        for share in m.shares:
            halves = [
                h
                for h, winners in zip(self.halves(), (m.high_winners, m.low_winners), strict=True)
                if share.seat in winners
            ]
            parts.append(f"{self._name(share.seat)} {money(share.amount)} ({' and '.join(halves)})")
        return Text(f"{label.capitalize()} of {money(m.amount)} split: {', '.join(parts)}.")

    def _result(self, m: events_pb2.HandEnded) -> Text:
        stacks = ", ".join(f"{self._name(s.seat)} {money(s.amount)}" for s in m.stacks)
        mine = next((s.amount for s in m.stacks if self._me(s.seat)), None)
        if mine is None or self.seat not in self.start:
            return Text(f"Hand over. Stacks: {stacks}.", style="bold")
        net = mine - self.start[self.seat]
        if net > 0:
            verdict, style = f"You won {money(net)}", "bold green"
        elif net < 0:
            verdict, style = f"You lost {money(-net)}", "bold red"
        else:
            verdict, style = "You broke even", "bold"
        return Text(f"Hand over. {verdict}. Stacks: {stacks}.", style=style)
