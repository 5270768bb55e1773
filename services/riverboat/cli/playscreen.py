"""What ``riverboat play`` shows and understands, kept free of I/O so it can be tested alone.

* :func:`table_panel` draws a ``TableView`` with Rich: every seat (name, stack, street bet,
  cards with hidden ones as ``░░``, folded and all-in marks, the button), the pot, the street,
  whose turn it is and the viewer's legal actions with their amounts.
* :class:`Narrator` turns the events of each watch update into short sentences ("bot-1 raises
  to $2.00", "You win the main pot of $6.50").
* :func:`choose_action` maps a typed command (``c``, ``r 4``, ``f`` ...) to an ``Act`` request's
  action and amount, or explains in a sentence why it cannot be done now.

Everything reads the protobuf messages of ``riverboat.v1`` directly: this is the view a
third-party client gets, nothing more (no hidden card ever reaches it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from riverboat.cli.clientkit import AmountError, money, parse_amount
from riverboat.v1 import events_pb2, lobby_pb2, table_pb2

SUITS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
RED_SUITS = {"d", "h"}
HIDDEN = "░░"

STREETS = {3: "3rd street", 4: "4th street", 5: "5th street", 6: "6th street", 7: "7th street"}
VARIANTS = {"seven_card_stud_hi_lo": "Seven-card stud hi/lo"}
SHORT_VARIANTS = {"seven_card_stud_hi_lo": "Stud hi/lo"}  # where columns are narrow

# The key a player types for each action the table service knows.
KEYS = {
    "check": "c",
    "call": "c",
    "bring_in": "i",
    "complete": "k",
    "bet": "b",
    "raise": "r",
    "fold": "f",
}
_WORDS = {
    "c": "c",
    "check": "c",
    "call": "c",
    "b": "b",
    "bet": "b",
    "r": "b",
    "raise": "b",
    "k": "k",
    "complete": "k",
    "i": "i",
    "bring-in": "i",
    "bring_in": "i",
    "bringin": "i",
    "f": "f",
    "fold": "f",
}
ACTION_WORDS = frozenset(_WORDS)


def card_label(card: str) -> str:
    """``"Ah"`` -> ``"A♥"``; a hidden card (``""``) -> ``"░░"``."""
    if not card:
        return HIDDEN
    return card[:-1] + SUITS.get(card[-1], card[-1])


def card_text(card: str, *, face_up: bool = True) -> Text:
    """One card, coloured by suit; a face-down card the viewer may see is in brackets."""
    if not card:
        return Text(HIDDEN, style="grey50")
    label = card_label(card)
    style = "bold red" if card[-1] in RED_SUITS else "bold"
    return Text(label if face_up else f"[{label}]", style=style)


def cards_text(cards: Iterable[table_pb2.ViewCard]) -> Text:
    """A seat's cards in the order dealt."""
    return Text(" ").join(card_text(c.card, face_up=c.face_up) for c in cards)


def variant_name(variant: str) -> str:
    """``"seven_card_stud_hi_lo"`` -> ``"Seven-card stud hi/lo"``."""
    return VARIANTS.get(variant, variant.replace("_", " ").capitalize())


def street_name(street: int) -> str:
    """``4`` -> ``"4th street"``."""
    return STREETS.get(street, f"street {street}")


def stakes(options: events_pb2.TableOptions) -> str:
    """``"$1.00/$2.00, ante $0.25"``."""
    text = f"{money(options.small_bet)}/{money(options.big_bet)}"
    return f"{text}, ante {money(options.ante)}" if options.ante else text


# --- actions ---------------------------------------------------------------------------------


class ActionError(ValueError):
    """A command that cannot be sent now; the message is a sentence for the player."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One legal action as the player sees it: the key, the action and its amounts."""

    key: str
    action: str
    to: tuple[int, ...]
    text: str


def my_seat(view: table_pb2.TableView) -> table_pb2.SeatView | None:
    """The viewer's seat in ``view``, if they sit there."""
    if not view.viewer_seat:
        return None
    return next((s for s in view.seats if s.seat == view.viewer_seat), None)


def choices(view: table_pb2.TableView) -> list[Choice]:
    """The viewer's legal actions, described with what they cost."""
    seat = my_seat(view)
    in_front = seat.street_bet if seat is not None else 0
    out: list[Choice] = []
    for legal in view.legal_actions:
        to = tuple(legal.to)
        amounts = " or ".join(money(t) for t in to)
        match legal.action:
            case "check":
                text = "check"
            case "call":
                text = f"call {money(to[0] - in_front)}" if to else "call"
            case "bring_in":
                text = f"bring in for {amounts}"
            case "complete":
                text = f"complete to {amounts}"
            case "bet":
                text = f"bet {amounts}"
            case "raise":
                text = f"raise to {amounts}"
            case "fold":
                text = "fold"
            case other:
                text = other.replace("_", " ")
        out.append(Choice(KEYS.get(legal.action, legal.action), legal.action, to, text))
    return out


def choices_line(view: table_pb2.TableView) -> str:
    """``"c call $0.75 · r raise to $2.00 · f fold"``."""
    return " · ".join(f"{c.key} {c.text}" for c in choices(view))


def choose_action(word: str, amount_text: str | None, view: table_pb2.TableView) -> tuple[str, int]:
    """The ``Act`` action and amount for a typed command, or :class:`ActionError`.

    ``c`` checks when it can and calls otherwise; ``b`` and ``r`` bet, raise or complete,
    whichever the table allows now; an amount (a street total, "r 4") must be one the table
    lists, and without one the smallest is used.
    """
    if my_seat(view) is None:
        raise ActionError("You do not sit at this table.")
    if view.to_act != view.viewer_seat or not view.legal_actions:
        raise ActionError("It is not your turn.")
    legal = {c.action: c for c in choices(view)}
    key = _WORDS.get(word.lower())
    candidates = {
        "c": ("check", "call"),
        "b": ("bet", "raise", "complete"),
        "k": ("complete",),
        "i": ("bring_in",),
        "f": ("fold",),
    }.get(key or "", ())
    action = next((a for a in candidates if a in legal), None)
    if action is None:
        wanted = {"c": "check or call", "b": "bet or raise", "k": "complete", "i": "bring in"}
        raise ActionError(
            f"You cannot {wanted.get(key or '', word)} now; you may: {choices_line(view)}."
        )
    choice = legal[action]
    if action in ("check", "fold"):
        if amount_text:
            raise ActionError(f"{action.capitalize()} takes no amount.")
        return action, 0
    if not amount_text:
        return action, choice.to[0] if choice.to else 0
    try:
        amount = parse_amount(amount_text)
    except AmountError as exc:
        raise ActionError(str(exc)) from None
    if choice.to and amount not in choice.to:
        raise ActionError(
            f"You cannot {choice.action.replace('_', ' ')} to {money(amount)}; "
            f"you may {choice.text}."
        )
    return action, amount


# --- the table -------------------------------------------------------------------------------


def _who(view: table_pb2.TableView, seat: int) -> str:
    if seat == view.viewer_seat:
        return "you"
    return next((s.player for s in view.seats if s.seat == seat), f"seat {seat}")


def turn_line(view: table_pb2.TableView) -> Text:
    """Whose turn it is, and the viewer's choices when it is theirs."""
    if view.to_act and view.to_act == view.viewer_seat:
        line = Text("Your turn", style="bold yellow")
        line.append(f" ({view.action_seconds} s): ", style="yellow")
        line.append(choices_line(view))
        return line
    if view.to_act:
        return Text(f"Waiting for {_who(view, view.to_act)} (seat {view.to_act}).")
    if not view.hand_in_progress:
        with_chips = sum(1 for s in view.seats if s.stack > 0)
        if with_chips < 2:
            return Text("Waiting for players: a hand starts when two sit with chips.")
        return Text("Waiting for the next hand.")
    return Text("Dealing...")


def table_panel(view: table_pb2.TableView, recent: Sequence[str] = (), player: str = "") -> Panel:
    """The whole table as the viewer may see it, with the last few actions.

    ``player`` (the viewer's id) marks their row; without it, the view's ``viewer_seat`` does.
    """
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    grid.add_column("", width=1)
    grid.add_column("Seat", justify="right")
    grid.add_column("Player")
    grid.add_column("Stack", justify="right")
    grid.add_column("Bet", justify="right")
    grid.add_column("Cards")
    grid.add_column("")
    for s in view.seats:
        mine = s.player == player if player else s.seat == view.viewer_seat
        marks = []
        if s.folded:
            marks.append("folded")
        if s.all_in:
            marks.append("all in")
        if view.hand_in_progress and not s.in_hand:
            marks.append("sitting out")
        seat_label = f"{s.seat} D" if s.seat == view.button else str(s.seat)
        grid.add_row(
            Text("▶", style="bold yellow") if s.seat == view.to_act else "",
            seat_label,
            Text(f"{s.player} (you)" if mine else s.player, style="bold cyan" if mine else ""),
            money(s.stack),
            money(s.street_bet) if s.street_bet else "",
            cards_text(s.cards) if s.cards else Text("—" if s.folded else "", style="grey50"),
            Text(", ".join(marks), style="grey50"),
        )
    title = Text(f"{view.name} ({view.table_id})", style="bold")
    if view.hand_id:
        state = street_name(view.street) if view.hand_in_progress and view.street else "over"
        title.append(f" · hand {view.hand_id} · {state}")
    parts: list[Text] = []
    if view.hand_in_progress:  # between hands the pot is empty: the narration told who won it
        parts.append(Text(f"Pot {money(view.pot)}", style="bold green"))
    if view.community:
        parts.append(
            Text("community card ").append_text(
                Text(" ").join(card_text(c) for c in view.community)
            )
        )
    if any(not c.face_up and c.card for s in view.seats for c in s.cards):
        parts.append(Text("[x] face down, ░░ hidden", style="grey50"))
    lines: list[Text | Table] = [grid, Text()]
    if parts:
        lines.append(Text("   ").join(parts))
    if recent:
        lines.append(Text("Last: " + " · ".join(recent), style="grey70"))
    lines.append(turn_line(view))
    subtitle = f"{variant_name(view.variant)} {stakes(view.options)}"
    return Panel(Group(*lines), title=title, subtitle=subtitle, expand=False)


def lobby_table(tables: Sequence[lobby_pb2.LobbyTable], me: str = "") -> Table:
    """The tables of the lobby, numbered for ``j 1 40``."""
    grid = Table(header_style="bold", title="Tables", box=box.SIMPLE_HEAD, pad_edge=False)
    # Money never wraps; an id folds rather than lose characters (people type ids).
    grid.add_column("#", justify="right", no_wrap=True)
    grid.add_column("Table", overflow="fold")
    grid.add_column("Game")
    grid.add_column("Buy-in", no_wrap=True)
    grid.add_column("Seats", justify="right", no_wrap=True)
    grid.add_column("Players")
    for n, t in enumerate(tables, 1):
        players = "\n".join(
            f"{p.player} {money(p.stack)}" + (" (you)" if p.player == me else "") for p in t.seats
        )
        grid.add_row(
            str(n),
            Text(t.table_id, style="bold").append(f"\n{t.name}", style="default"),
            f"{SHORT_VARIANTS.get(t.variant, variant_name(t.variant))}\n"
            f"{money(t.small_bet)}/{money(t.big_bet)}",
            f"{money(t.min_buy_in)}-{money(t.max_buy_in)}",
            f"{len(t.seats)}/{t.max_players}",
            players,
        )
    return grid


# --- what happened ---------------------------------------------------------------------------

_VERBS = {
    # action: (second person, third person)
    "bring_in": ("bring in for", "brings in for"),
    "complete": ("complete to", "completes to"),
    "bet": ("bet", "bets"),
    "raise": ("raise to", "raises to"),
    "call": ("call", "calls"),
    "check": ("check", "checks"),
    "fold": ("fold", "folds"),
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
            self.variant = self.variant or view.variant  # joined mid-hand: no HandStarted seen
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
            self._event(kind, getattr(env, kind), digest, antes, clock=env.actor == "clock")
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
        m: object,
        digest: Digest,
        antes: list[tuple[int, int]],
        *,
        clock: bool = False,
    ) -> None:
        add = digest.lines.append
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
                for s in m.seats:
                    if s.player == self.player:
                        self.seat = s.seat
                digest.new_hand = True
                add(Text(f"── Hand {m.hand_id} ──", style="bold"))
            case "ante_posted":
                assert isinstance(m, events_pb2.AntePosted)
                antes.append((m.seat, m.amount))
            case "community_card_dealt":
                assert isinstance(m, events_pb2.CommunityCardDealt)
                add(Text("Community card: ").append_text(card_text(m.card)))
            case "betting_round_started":
                assert isinstance(m, events_pb2.BettingRoundStarted)
                digest.new_street = True
                add(Text(f"── {street_name(m.street)} ──", style="bold"))
            case "action_taken":
                assert isinstance(m, events_pb2.ActionTaken)
                you, they = _VERBS.get(m.action, (m.action, m.action + "s"))
                amount = {"check": "", "fold": "", "call": f" {money(m.amount)}"}.get(
                    m.action, f" {money(m.to)}"
                )
                text = f"{self._verb(m.seat, you, they)}{amount}"
                if m.all_in:
                    text += f" and {'are' if self._me(m.seat) else 'is'} all in"
                if clock:  # the action clock ran out and acted for the player
                    text += " (out of time)"
                digest.actions.append(text)
                add(Text(text + ".", style="bold cyan" if self._me(m.seat) else ""))
            case "uncalled_bet_returned":
                assert isinstance(m, events_pb2.UncalledBetReturned)
                add(Text(f"Uncalled {money(m.amount)} goes back to {self._name(m.seat)}."))
            case "hand_shown":
                assert isinstance(m, events_pb2.HandShown)
                digest.showdown = True
                line = Text(f"{self._verb(m.seat, 'show', 'shows')} ")
                line.append_text(Text(" ").join(card_text(c) for c in m.cards))
                line.append(f": {m.high_text}")
                if m.low_text:
                    line.append(f"; low {m.low_text}")
                elif "hi_lo" in self.variant:
                    line.append("; no low")
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
                add(Text(f"Hand {m.hand_id} was voided ({m.reason}); every bet went back."))
            case _:
                pass  # table_created, hand_committed, card_dealt: the table shows them

    def _pot(self, m: events_pb2.PotAwarded) -> Text:
        label = "main pot" if m.pot == 0 else f"side pot {m.pot}"
        if len(m.shares) == 1:
            seat = m.shares[0].seat
            how = ""
            if m.high_winners and m.low_winners and seat in m.low_winners:
                how = " (high and low)"
            text = f"{self._verb(seat, 'win', 'wins')} the {label} of {money(m.amount)}{how}."
            return Text(text, style="bold green" if self._me(seat) else "bold")
        parts = []
        for share in m.shares:
            halves = [
                h
                for h, winners in (("high", m.high_winners), ("low", m.low_winners))
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
