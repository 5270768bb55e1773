"""What ``riverboat play`` draws, with Rich, from the protobuf messages of ``riverboat.v1``.

:func:`table_panel` draws a ``TableView``: every seat (name, stack, street bet, cards with
hidden ones as ``░░``, folded and all-in marks, the button), the pot, the street, whose turn it
is and the viewer's legal actions with their amounts. :func:`lobby_table` lists the tables,
:func:`games_table` the games a dealer may choose, :func:`help_table` the commands.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC
from typing import Any

from rich import box
from rich.console import Group
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from riverboat.cli.clientkit import AMOUNT_RULE, money
from riverboat.cli.play.clock import TurnClock
from riverboat.cli.play.commands import HELP, limit_bounds, parse_game
from riverboat.cli.play.text import (
    CARD_ACTIONS,
    DEALERS_CHOICE,
    SHORT_VARIANTS,
    VARIANTS,
    card_row,
    card_text,
    cards_text,
    changed_options,
    choices_line,
    my_seat,
    owes_move,
    phase_name,
    running_count,
    seat_name,
    show_value,
    stakes,
    street_name,
    variant_name,
    wild_text,
)
from riverboat.engine.games import GAMES, half_names
from riverboat.narration import way
from riverboat.v1 import lobby_pb2, table_pb2


def games_table(view: table_pb2.TableView, game: str = "") -> Table:
    """The games the dealer may choose now, a line each (a screen, not a manual); with
    ``game`` (a name, the start of one or its number, as ``g`` takes it), that game's options
    instead: each with its default and the values it takes (:class:`ActionError` if no game
    offered is meant)."""
    legal = next((a for a in view.legal_actions if a.action == "choose_game"), None)
    limits = limit_bounds(legal) if legal is not None else "the table's own"
    if game and legal is not None:
        return _options_table(parse_game([game], legal)[0], limits)
    grid = Table(
        # No markup in either: the brackets are the player's to type.
        title=Text("Games: g GAME plays one with its usual rules, e.g. g draw (or g 1)"),
        caption=Text(
            "g GAME ? lists a game's options (g draw ?), to be set as g draw draws=2. "
            f"Limits you may declare for the deal (limits=S/B): {limits}."
        ),
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title_justify="left",
        caption_justify="left",
        min_width=72,  # the title and the caption on a line each where the screen allows
    )
    grid.add_column("#", justify="right", no_wrap=True)
    grid.add_column("Game", no_wrap=True)
    grid.add_column("Name")
    grid.add_column("Options", justify="right", no_wrap=True)
    for n, name in enumerate(legal.choices if legal is not None else (), 1):
        specs = GAMES[name].specs if name in GAMES else ()
        grid.add_row(str(n), name, VARIANTS.get(name, name), str(len(specs)))
    return grid


def _options_table(game: str, limits: str) -> Table:
    """One game's options: name, default, the values allowed (money in dollars)."""
    grid = Table(
        title=Text(f"{VARIANTS.get(game, game)}: g {game} [option=value ...] [limits=S/B]"),
        caption=Text(f"Limits you may declare for the deal (limits=S/B): {limits}."),
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        title_justify="left",
        caption_justify="left",
        min_width=72,
    )
    grid.add_column("Option", no_wrap=True)
    grid.add_column("Default", no_wrap=True)
    grid.add_column("Values")
    for spec in GAMES[game].specs if game in GAMES else ():
        if spec.allowed == "cents":
            values = "an amount, e.g. 1.50"
        elif spec.allowed == "rank":
            values = "a rank (A, K, ... 2) or null"
        elif isinstance(spec.allowed, tuple):
            values = " / ".join(show_value(v) for v in spec.allowed)
        else:
            values = str(spec.allowed)
        grid.add_row(spec.name, show_value(spec.default, spec.allowed), values)
    return grid


# --- the table -------------------------------------------------------------------------------


def turn_line(view: table_pb2.TableView, clock: TurnClock | None = None) -> Text:
    """Whose turn it is, and the viewer's choices when it is theirs (with their cards numbered
    when a move names cards: ``d 1 4`` means the first and the fourth). With ``clock``, the
    seconds are those left now; without, the turn's whole time."""
    if owes_move(view):
        line = Text("Your turn", style="bold yellow")
        me = my_seat(view)
        left = clock.left(view.viewer_seat) if clock is not None else None
        if me is not None and me.time_bank_running:
            bank = "protection" if me.time_bank_protection else "time bank"
            seconds = me.time_bank_running if left is None else left
            line.append(f" (on your {bank}: {seconds} s): ", style="yellow")
        elif me is not None and 0 < me.time_bank_seconds < view.time_bank.seconds:
            # Once drawn on, the bank left is worth saying (a full one is the table's own).
            seconds = view.action_seconds if left is None else left
            line.append(f" ({seconds} s, time bank {me.time_bank_seconds} s): ", style="yellow")
        else:
            seconds = view.action_seconds if left is None else left
            line.append(f" ({seconds} s): ", style="yellow")
        line.append(choices_line(view))
        seat = my_seat(view)
        if seat is not None and any(a.action in CARD_ACTIONS for a in view.legal_actions):
            line.append("\nYour cards: ", style="grey70")
            line.append_text(
                Text("  ").join(
                    Text(f"{n} ", style="grey70").append_text(card_text(c.card, face_up=c.face_up))
                    for n, c in enumerate(seat.cards, 1)
                )
            )
        return line
    if view.choosing_game and view.dealer:
        return Text(
            f"Waiting for {seat_name(view, view.dealer)} (seat {view.dealer}) to choose the "
            f"game{_time_left(view, clock, view.dealer)}."
        )
    if len(view.waiting_for) > 1:
        names = ", ".join(seat_name(view, s) for s in view.waiting_for)
        return Text(
            f"Waiting for {names} ({phase_name(view.phase)})"
            f"{_time_left(view, clock, view.waiting_for[0])}."
        )
    if view.to_act:
        doing = f" ({phase_name(view.phase)})" if view.phase not in ("", "bet") else ""
        return Text(
            f"Waiting for {seat_name(view, view.to_act)} (seat {view.to_act}){doing}"
            f"{_time_left(view, clock, view.to_act)}."
        )
    if not view.hand_in_progress:
        with_chips = sum(1 for s in view.seats if s.stack > 0)
        if with_chips < 2:
            return Text("Waiting for players: a hand starts when two sit with chips.")
        return Text("Waiting for the next hand.")
    return Text("Dealing...")


def _time_left(view: table_pb2.TableView, clock: TurnClock | None, seat: int) -> str:
    """``": 12 s left"`` for a seat the table waits for (its time bank's when one runs)."""
    left = clock.left(seat) if clock is not None else None
    return "" if left is None else f": {left} s left"


def hand_state(view: table_pb2.TableView) -> str:
    """The title's state: ``"4th street"``, ``"round 2 · draw"``, or ``"over"``."""
    if not view.hand_in_progress:
        return "over"
    if not view.street and view.phase in ("", "bet"):
        return "dealing"
    game = view.game or view.variant
    state = street_name(view.street, game) if view.street else ""
    if view.phase and view.phase != "bet":
        state = f"{state} · {phase_name(view.phase)}" if state else phase_name(view.phase)
    return state


def game_line(view: table_pb2.TableView) -> Text | None:
    """The dealer's choice line: the game and its options (or who is choosing it), the dealer."""
    if view.variant != DEALERS_CHOICE and not view.dealer:
        return None
    dealer = seat_name(view, view.dealer) if view.dealer else ""
    if view.choosing_game:
        who = "You are" if view.dealer == view.viewer_seat else f"{dealer} is"
        return Text(f"{who} choosing the game (dealer, seat {view.dealer}).", style="bold yellow")
    if not view.game:
        return None
    line = Text("Game: ", style="bold").append(variant_name(view.game), style="bold")
    options = dict(view.game_options.items()) if view.HasField("game_options") else {}
    chosen = changed_options(view.game, options)
    if chosen:
        line.append(f" ({chosen})")
    if dealer:
        line.append(f" · dealer {dealer}")
    return line


def declaration_text(
    view: table_pb2.TableView, seat: table_pb2.SeatView, halves: tuple[str, str] | None = None
) -> Text:
    """``declared`` while sealed, the declaration once revealed (named for the half it claims,
    as the narrator and the exports name it: 7-27's ``27``, Chicago's ``high spade``); your
    own, marked sealed. ``halves``: the halves of the hand shown, for a view that no longer
    names its game (a hand over, the next game not chosen yet)."""
    if not seat.declaration:
        return Text("declared", style="magenta") if seat.declared else Text("")
    sealed = any(
        s.declared and not s.declaration for s in view.seats if s.seat != seat.seat
    ) or any(s.in_hand and not s.folded and not s.declared for s in view.seats)
    if view.game or halves is None:
        halves = half_names(view.game or view.variant, dict(view.game_options.items()))
    said = way(seat.declaration, halves)
    if seat.seat == view.viewer_seat and sealed:
        return Text(f"{said} (sealed)", style="bold magenta")
    return Text(said, style="bold magenta")


def table_panel(
    view: table_pb2.TableView,
    recent: Sequence[str] = (),
    player: str = "",
    halves: tuple[str, str] | None = None,
    clock: TurnClock | None = None,
) -> Panel:
    """The whole table as the viewer may see it, with the last few actions.

    ``player`` (the viewer's id) marks their row; without it, the view's ``viewer_seat`` does.
    ``halves``: the shown hand's halves (:func:`declaration_text`), from its events.
    ``clock``: the seconds left to whoever the table waits for (else the turn's whole time).
    """
    grid = Table(box=None, pad_edge=False, show_edge=False, header_style="bold")
    grid.add_column("", width=1)
    grid.add_column("Seat", justify="right", no_wrap=True)
    # Ids fold rather than lose characters (people type them); money never wraps.
    grid.add_column("Player", overflow="fold")
    grid.add_column("Stack", justify="right", no_wrap=True)
    grid.add_column("Bet", justify="right", no_wrap=True)
    grid.add_column("Cards")
    declaring = any(s.declared or s.declaration for s in view.seats)
    if declaring:
        grid.add_column("Declared")
    grid.add_column("")
    # A round's bets stand in the Bet column only while it is bet: a draw or a declaration
    # after it starts nothing there (the table keeps street_bet until the next round).
    betting = view.hand_in_progress and view.phase in ("", "bet")
    for s in view.seats:
        mine = s.player == player if player else s.seat == view.viewer_seat
        row: list[Any] = [
            Text("▶", style="bold yellow") if _acting(view, s.seat) else "",
            f"{s.seat} D" if s.seat == (view.dealer or view.button) else str(s.seat),
            Text(f"{s.player} (you)" if mine else s.player, style="bold cyan" if mine else ""),
            money(s.stack),
            money(s.street_bet) if s.street_bet and betting else "",
            cards_text(s.cards) if s.cards else Text("—" if s.folded else "", style="grey50"),
        ]
        if declaring:
            row.append(declaration_text(view, s, halves))
        row.append(Text(", ".join(seat_marks(view, s, clock)), style="grey50"))
        grid.add_row(*row)
    # The title and the stakes are lines of their own, not the border's: a border cuts what
    # does not fit at 80 columns, a line wraps.
    title = Text(f"{view.name} ({view.table_id})", style="bold")
    if view.hand_id:
        hand = f"#{view.hand_number}" if view.hand_number else view.hand_id
        title.append(f" · hand {hand} · {hand_state(view)}")
    lines: list[Text | Table] = [
        title,
        Text(f"{variant_name(view.variant)} {stakes(view.options)}", style="grey70"),
        grid,
        Text(),
    ]
    game = game_line(view)
    if game is not None:
        lines.append(game)
    parts = table_parts(view)
    if parts:
        lines.append(Text("   ").join(parts))
    if recent:
        lines.append(Text("Last: " + " · ".join(recent), style="grey70"))
    lines.append(turn_line(view, clock))
    return Panel(Group(*lines), expand=False)


def _acting(view: table_pb2.TableView, seat: int) -> bool:
    return seat == view.to_act or (len(view.waiting_for) > 1 and seat in view.waiting_for)


def seat_marks(
    view: table_pb2.TableView, s: table_pb2.SeatView, clock: TurnClock | None = None
) -> list[str]:
    """What a seat's last column says: folded, all in, sitting out, waiting for the next hand
    (seated during a hand), its time bank running (the seconds left, with ``clock``)."""
    marks = []
    if s.folded:
        marks.append("folded")
    if s.all_in:
        marks.append("all in")
    if s.sitting_out:
        marks.append("sitting out")
    elif view.hand_in_progress and not s.in_hand:
        marks.append("dealt in next hand")  # sat down during this one: not sitting out
    if s.time_bank_running:
        left = clock.left(s.seat) if clock is not None else None
        marks.append(f"time bank {s.time_bank_running if left is None else left} s")
    return marks


def table_parts(view: table_pb2.TableView) -> list[Text]:
    """The line under the seats: the operator's note, the pot, a riding pot, wild cards, table
    and community cards, the viewer's count in a card-total game, the legend."""
    parts: list[Text] = []
    if operator_note := operator_status(view):
        parts.append(Text(operator_note, style="bold red"))
    if view.hand_in_progress:  # between hands the pot is empty: the narration told who won it
        parts.append(Text(f"Pot {money(view.pot)}", style="bold green"))
    if view.carried_pot:
        parts.append(Text(f"Riding pot {money(view.carried_pot)}", style="bold magenta"))
    if view.wild_cards:
        parts.append(Text(f"Wild: {wild_text(view.wild_cards)}", style="bold magenta"))
    if view.table_cards:
        parts.append(Text("Table cards: ").append_text(card_row(view.table_cards)))
    if view.community:
        parts.append(Text("community card ").append_text(card_row(view.community)))
    me = my_seat(view)
    if me is not None and view.hand_in_progress and me.in_hand and not me.folded:
        count = running_count(view, me)
        if count:
            parts.append(Text(f"Your count: {count}", style="bold cyan"))
    if any(not c.face_up and c.card for s in view.seats for c in s.cards):
        parts.append(Text("[x] face down, ░░ hidden", style="grey50"))
    return parts


def operator_status(view: table_pb2.TableView | lobby_pb2.LobbyTable) -> str:
    """What an operator did to the table, in a sentence ("" when nothing)."""
    if view.closed:
        return "The table is closed."
    if view.closing:
        return "The table closes after this hand."
    if view.paused:
        return "Dealing is paused by the operator."
    return ""


def lobby_table(tables: Sequence[lobby_pb2.LobbyTable], me: str = "") -> Table:
    """The tables of the lobby, numbered for ``j 1 40``."""
    grid = Table(header_style="bold", title="Tables", box=box.SIMPLE_HEAD, pad_edge=False)
    # Four columns before the optional ones, so that 80 columns hold them: the game, its stakes
    # and buy-in are lines of one (money never wraps); an id folds rather than lose characters
    # (people type ids), a player's id too.
    grid.add_column("#", justify="right", no_wrap=True)
    grid.add_column("Table", overflow="fold")
    grid.add_column("Game, stakes, buy-in", no_wrap=True)
    grid.add_column("Seats", justify="right", no_wrap=True)
    grid.add_column("Players", overflow="fold")
    waits = any(t.waiting_list.waiting for t in tables)
    if waits:  # only when someone waits: the usual screen stays as it was
        grid.add_column("Waiting", overflow="fold")
    controlled = any(t.closed or t.closing or t.paused for t in tables)
    if controlled:  # likewise only when an operator closed or paused a table
        grid.add_column("Status", no_wrap=True)
    for n, t in enumerate(tables, 1):
        players = "\n".join(
            f"{p.player} {money(p.stack)}" + (" (you)" if p.player == me else "") for p in t.seats
        )
        grid.add_row(
            str(n),
            Text(t.table_id, style="bold").append(f"\n{t.name}", style="default"),
            f"{SHORT_VARIANTS.get(t.variant, variant_name(t.variant))}\n"
            f"{money(t.small_bet)}/{money(t.big_bet)}\n"
            f"buy-in {money(t.min_buy_in)}-{money(t.max_buy_in)}",
            f"{len(t.seats)}/{t.max_players}",
            players,
            *([waiting_cell(t.waiting_list, me)] if waits else []),
            *([table_status(t)] if controlled else []),
        )
    return grid


def table_status(table: lobby_pb2.LobbyTable) -> str:
    """ "closed", "closing" (after the hand in play), "paused", or ""."""
    if table.closed:
        return "closed"
    if table.closing:
        return "closing"
    return "paused" if table.paused else ""


def waiting_cell(listed: lobby_pb2.WaitingList, me: str = "") -> str:
    """Who waits, first in line first; a seat offered to ``me`` says until when."""
    lines = []
    for n, entry in enumerate(listed.waiting, 1):
        line = f"{n}. {entry.player}" + (" (you)" if entry.player == me else "")
        if entry.offered_seat:
            until = entry.offer_expires_at.ToDatetime(tzinfo=UTC).strftime("%H:%M:%S")
            line += f": seat {entry.offered_seat} until {until} UTC"
        lines.append(line)
    return "\n".join(lines)


def hands_table(hands: Sequence[table_pb2.HandSummary], me: str = "") -> Table:
    """The last hands at a table, newest first, by number (``hand 12`` shows #12); with what
    each came to for ``me`` (their stack after the hand less before it)."""
    grid = Table(header_style="bold", title="Last hands", box=box.SIMPLE_HEAD, pad_edge=False)
    grid.add_column("#", justify="right", no_wrap=True)
    grid.add_column("Hand", overflow="fold")
    grid.add_column("Game", overflow="fold")
    grid.add_column("Players", overflow="fold")
    grid.add_column("Pot", justify="right", no_wrap=True)
    grid.add_column("You", justify="right", no_wrap=True)
    for h in hands:
        mine = next((p for p in h.players if p.player == me), None)
        result = ""
        if mine is not None:
            net = mine.final_stack - mine.starting_stack
            result = ("+" if net > 0 else "-" if net < 0 else "") + money(abs(net))
        # One number per hand, the one `hand N` takes: the hand's own, never a row count.
        grid.add_row(
            str(h.hand_number) if h.hand_number else "",
            h.hand_id + (" (voided)" if h.voided else ""),
            SHORT_VARIANTS.get(h.game, variant_name(h.game)),
            ", ".join(p.player for p in h.players),
            money(h.paid_out + h.rake),
            result,
        )
    return grid


def help_table() -> Table:
    """The commands."""
    grid = Table(title="Commands", box=None, show_header=False, title_justify="left")
    grid.add_column(style="bold")
    grid.add_column()
    for keys, what in HELP:
        grid.add_row(keys, what)
    grid.add_row("", f"Money: {AMOUNT_RULE}.")
    return grid
