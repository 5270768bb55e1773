"""Plain sentences for the events neither export format has a notation for (the dealer's
choice games' passes, rolls, declarations, payments...). Hidden cards read ``??``."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from riverboat.engine import events as ev
from riverboat.engine.cards import RANK_CHARS, card_str

__all__ = ["cards_text", "describe"]


def card_text(card: int) -> str:
    """``"7h"``, or ``"??"`` for a hidden card."""
    return "??" if card < 0 else card_str(card)


def cards_text(cards: tuple[int, ...], sep: str = " ") -> str:
    """Cards as text, hidden ones as ``??``."""
    return sep.join(card_text(c) for c in cards)


def describe(event: object, name: Callable[[int], str], money: Callable[[int], str]) -> str | None:
    """A sentence for ``event`` (``name`` maps a seat to how the format names its player,
    ``money`` formats cents), or None for events that need none."""
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
            return f"{name(event.seat)} declares" + (f" {event.choice}" if event.choice else "")
        case ev.DeclarationsRevealed():
            said = ", ".join(f"{name(s)} {c}" for s, c in event.declarations)
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
