"""Plain sentences for the events neither export format has a notation for (the dealer's
choice games' passes, rolls, declarations, payments...). Hidden cards read ``??``."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from riverboat.engine import events as ev
from riverboat.engine.cards import RANK_CHARS
from riverboat.engine.games import half_names
from riverboat.handtext import card_text

__all__ = ["cards_text", "describe", "halves_of"]


def halves_of(events: Iterable[object]) -> tuple[str, str]:
    """What the hand's two halves are called (Chicago's spade half, 15-35's 15...), from its
    ``HandStarted`` and ``GameOptionsSet``."""
    variant, options = "", {}
    for event in events:
        if isinstance(event, ev.HandStarted):
            variant = event.variant
        elif isinstance(event, ev.GameOptionsSet):
            options = event.options
            break
    return half_names(variant, options)


def _way(choice: str, halves: tuple[str, str]) -> str:
    """A declaration as the half it claims: Chicago's ``spade`` is the high (or low) spade."""
    return {"high": halves[0], "low": halves[1], "spade": halves[1]}.get(choice, choice)


def cards_text(cards: tuple[int, ...], sep: str = " ") -> str:
    """Cards as text, hidden ones as ``??``."""
    return sep.join(card_text(c) for c in cards)


def describe(
    event: object,
    name: Callable[[int], str],
    money: Callable[[int], str],
    halves: tuple[str, str] = ("high", "low"),
) -> str | None:
    """A sentence for ``event`` (``name`` maps a seat to how the format names its player,
    ``money`` formats cents, ``halves`` names the pot's halves: :func:`halves_of`), or None
    for events that need none."""
    match event:
        case ev.PhaseStarted():
            return f"{event.phase} phase"
        case ev.CardsToPass():
            return f"{name(event.seat)} puts down {len(event.cards)} cards to pass"
        case ev.CardsPassed():
            return f"{name(event.seat)} passes [{cards_text(event.cards)}] to {name(event.to_seat)}"
        case ev.CardsOrdered():
            return f"{name(event.seat)} orders their cards [{cards_text(event.cards)}]"
        case ev.CardTurnedUp():
            return f"{name(event.seat)} turns up {card_text(event.card)}"
        case ev.OfferAnswered():
            return f"{name(event.seat)} {'takes the card' if event.took else 'stands'}"
        case ev.DeclarationSealed():
            way = f" {_way(event.choice, halves)}" if event.choice else ""
            return f"{name(event.seat)} declares{way}"
        case ev.DeclarationsRevealed():
            said = ", ".join(f"{name(s)} {_way(c, halves)}" for s, c in event.declarations)
            return f"declarations revealed: {said}"
        case ev.CardPaymentPosted():
            return f"{name(event.seat)} pays {money(event.amount)} for {card_text(event.card)}"
        case ev.WildRankChanged():
            rank = "none" if event.rank is None else RANK_CHARS[event.rank]
            return f"wild rank now {rank}" + (" (next up card names it)" if event.awaiting else "")
        case ev.MatchDue():
            return f"{name(event.seat)} must match the pot: {money(event.amount)}"
        case ev.PotMatched():
            return f"{name(event.seat)} matches the pot with {money(event.amount)}"
        case ev.MatchDeclined():
            return f"{name(event.seat)} declines to match and folds"
        case ev.TableRowDealt():
            return f"{event.count} table cards dealt face down"
        case ev.TableCardTurned():
            where = " from the stock" if event.from_stock else ""
            return f"table card {card_text(event.card)} turned{where}"
        case ev.RankEliminated():
            return f"rank {RANK_CHARS[event.rank]} eliminated"
        case ev.CardsEliminated():
            return f"{name(event.seat)} throws away [{cards_text(event.cards)}]"
        case ev.ReshuffleRequested():
            return (
                f"the stub ran out: {len(event.cards)} discards reshuffled for {name(event.seat)}"
            )
        case ev.DiscardsReshuffled():
            return f"{event.count} cards reshuffled into the stub"
        case ev.PotCarriedIn():
            return f"{money(event.amount)} carried in from the previous deal"
        case ev.PotCarriedOver():
            return f"nobody wins: {money(event.amount)} rides to the next deal"
        case ev.UncalledBetReturned():
            return f"uncalled bet ({money(event.amount)}) returned to {name(event.seat)}"
    return None


def names_of(started: ev.HandStarted) -> Mapping[int, str]:
    """Seat -> player name."""
    return {s.seat: s.player for s in started.seats}
