"""The one narrator of the players' actions and of the dealer's choice games' steps: bets,
calls, raises and folds, passes, rolls, offers, declarations, payments, wild cards, matches,
table cards and eliminations, reshuffles, the pot that rides.

Each sentence is written here once, for every reader: the hand-history exports
(:mod:`riverboat.history.narrate`, then PHH comments and PokerStars-style lines),
``riverboat play``'s screen (``riverboat.cli.play.narrate``) and the demo's and auditor's hand
text (:func:`riverboat.handlines.render`; the PokerStars lines keep that format's own action
words). :func:`tell` turns one engine
event into a :data:`Sentence`: text, and groups of cards (:class:`Cards`) that each reader
draws its own way (``[Ah 7c]`` in an export, coloured on the screen). Who is who is the
reader's :class:`Voice`: the players by name, and on a player's screen that player as "you".

Cards are only ever shown when the event shows them to the reader: someone else's hidden cards
(``-1`` in a player's events) are counted ("3 cards"), never drawn. No sentence puts a capital
rank letter before a suit letter ("The", "Aces"): an export's text is searched for card names.
A declaration is named for the half it claims (:func:`way`): Chicago's ``spade`` is the high
(or low) spade, 15-35's ``low`` is the 15.

>>> from riverboat.engine import events as ev
>>> from riverboat.engine.cards import parse_cards
>>> voice = Voice({1: "ann", 2: "bob"}.__getitem__, lambda c: f"${c / 100:.2f}", me=2)
>>> plain(tell(ev.CardsPassed(1, 2, tuple(parse_cards("Ah 7c"))), voice))
'ann passes 2 cards to you: [Ah 7c]'
>>> plain(tell(ev.CardPaymentPosted(2, parse_cards("5h")[0], 100), voice))
'You pay $1.00 for the [5h] (dead money)'
>>> plain(tell(ev.DeclarationsRevealed(((1, "spade"), (2, "high"))), voice,
...            halves=("high hand", "low spade")))
'Declarations: ann low spade, you high hand'
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, NamedTuple

from riverboat.engine import events as ev
from riverboat.engine.cards import RANK_CHARS
from riverboat.handtext import ACTION_VERBS, RANK_NAMES, card_text

__all__ = [
    "PHASE_TITLES",
    "Cards",
    "Sentence",
    "Voice",
    "plain",
    "tell",
    "way",
]


class Cards(NamedTuple):
    """Cards a sentence shows (every one visible to its reader), in order."""

    cards: tuple[int, ...]


#: A sentence: text and the cards in it, without a final full stop.
Sentence = tuple[str | Cards, ...]

#: What each card phase is called where a reader sees it begin.
PHASE_TITLES: Final = {
    "draw": "Draw",
    "discard": "Discard",
    "pass": "Pass to the left",
    "order": "Order your cards to roll",
    "expose": "Expose a card",
    "offer": "Card offers: take or stand",
    "declare": "Declare",
    "match": "Match the pot or fold",
}


@dataclass(frozen=True, slots=True)
class Voice:
    """Who the reader is: ``name`` names a seat's player, ``money`` writes cents, and ``me`` is
    the reader's own seat (told in the second person: "You pay", "to you"; 0 for none)."""

    name: Callable[[int], str]
    money: Callable[[int], str]
    me: int = 0

    def subject(self, seat: int) -> str:
        """The seat's player at the head of a sentence."""
        return "You" if self.mine(seat) else self.name(seat)

    def object(self, seat: int) -> str:
        """The seat's player anywhere else."""
        return "you" if self.mine(seat) else self.name(seat)

    def does(self, seat: int, you: str, they: str) -> str:
        """``"You pay"`` / ``"bob pays"``."""
        return f"{self.subject(seat)} {you if self.mine(seat) else they}"

    def mine(self, seat: int) -> bool:
        """Whether ``seat`` is the reader's own."""
        return seat != 0 and seat == self.me


def way(choice: str, halves: tuple[str, str]) -> str:
    """A declaration named for the half it claims (``halves``: the high and the low half's
    names, :func:`riverboat.engine.games.half_names`); ``both`` stays ``both``."""
    return {"high": halves[0], "low": halves[1], "spade": halves[1]}.get(choice, choice)


def _count(n: int) -> str:
    return "1 card" if n == 1 else f"{n} cards"


def _shown(cards: Sequence[int]) -> tuple[int, ...]:
    return tuple(c for c in cards if c >= 0)


def _cards_or_count(cards: Sequence[int]) -> str | Cards:
    """The cards when the reader sees them all, else how many."""
    shown = _shown(cards)
    return Cards(shown) if shown and len(shown) == len(cards) else _count(len(cards))


def tell(
    event: object,
    voice: Voice,
    halves: tuple[str, str] = ("high", "low"),
    *,
    phase: str = "",
) -> Sentence | None:
    """The sentence for ``event`` as ``voice``'s reader is told it, or None when this narrator
    has none (dealing, streets and showdowns: each reader's own notation). ``phase`` is the
    hand's phase when ``event`` happened (a draw's discards are told as draws)."""
    do, obj, money = voice.does, voice.object, voice.money
    match event:
        case ev.ActionTaken():
            # A call says the chips it adds; a bet, raise, completion or bring-in the street
            # total it goes to.
            you, they = ACTION_VERBS.get(event.action, (event.action, event.action + "s"))
            amount = {"check": "", "fold": "", "call": f" {money(event.amount)}"}.get(
                event.action, f" {money(event.to)}"
            )
            text = f"{do(event.seat, you, they)}{amount}"
            if event.all_in:
                text += f" and {'are' if voice.mine(event.seat) else 'is'} all in"
            return (text,)
        case ev.PhaseStarted():
            return (PHASE_TITLES.get(event.phase, event.phase),)
        case ev.CardsDiscarded() if phase == "draw":
            shown = _shown(event.cards)
            if not event.cards:
                return (f"{do(event.seat, 'stand', 'stands')} pat",)
            if shown and len(shown) == len(event.cards):
                drew = do(event.seat, "throw", "throws")
                return (
                    f"{drew} away ",
                    Cards(shown),
                    f" and draw{'' if voice.mine(event.seat) else 's'} {len(shown)}",
                )
            return (f"{do(event.seat, 'draw', 'draws')} {_count(len(event.cards))}",)
        case ev.CardsDiscarded():
            return (f"{do(event.seat, 'discard', 'discards')} ", _cards_or_count(event.cards))
        case ev.CardsToPass():
            put = do(event.seat, "put down", "puts down")
            return (f"{put} ", _cards_or_count(event.cards), " to pass")
        case ev.CardsPassed():
            passes = do(event.seat, "pass", "passes")
            told: Sentence = (f"{passes} {_count(len(event.cards))} to {obj(event.to_seat)}",)
            shown = _shown(event.cards)  # the giver and the taker see them, nobody else
            return (*told, ": ", Cards(shown)) if shown else told
        case ev.CardsOrdered():
            return (
                f"{do(event.seat, 'stack', 'stacks')} ",
                _cards_or_count(event.cards),
                " to roll",
            )
        case ev.CardTurnedUp():
            return (f"{do(event.seat, 'turn', 'turns')} up ", Cards((event.card,)))
        case ev.OfferAnswered():
            if event.took:
                return (f"{do(event.seat, 'take', 'takes')} the card",)
            return (do(event.seat, "stand", "stands"),)
        case ev.DeclarationSealed():
            if event.choice:  # only its maker (or the auditor) sees a sealed declaration
                said = do(event.seat, "declare", "declares")
                return (f"{said} {way(event.choice, halves)} (sealed until everyone has)",)
            return (f"{voice.subject(event.seat)} declares (sealed)",)
        case ev.DeclarationsRevealed():
            said = ", ".join(f"{obj(s)} {way(c, halves)}" for s, c in event.declarations)
            return (f"Declarations: {said}",)
        case ev.CardPaymentPosted():
            paid = do(event.seat, "pay", "pays")
            return (f"{paid} {money(event.amount)} for the ", Cards((event.card,)), " (dead money)")
        case ev.WildRankChanged():
            if event.rank is not None:
                return (f"Wild now: {RANK_NAMES[RANK_CHARS[event.rank]]}",)
            if event.awaiting:
                return ("A queen fell: the next face-up card's rank goes wild",)
            return ("No rank follows the queen now",)
        case ev.MatchDue():
            due = f"{voice.subject(event.seat)} must match the pot"
            return (f"{due} ({money(event.amount)}) or fold",)
        case ev.PotMatched():
            return (f"{do(event.seat, 'match', 'matches')} the pot with {money(event.amount)}",)
        case ev.MatchDeclined():
            declined = do(event.seat, "do not match", "does not match")
            return (f"{declined} and {'fold' if voice.mine(event.seat) else 'folds'}",)
        case ev.TableRowDealt():
            return (f"{event.count} table cards dealt face down",)
        case ev.TableCardTurned():
            where = " (from the stock)" if event.from_stock else ""
            return ("Table card: ", Cards((event.card,)), where)
        case ev.RankEliminated():
            return (f"All {RANK_NAMES[RANK_CHARS[event.rank]]} are eliminated",)
        case ev.CardsEliminated():
            return (f"{do(event.seat, 'throw', 'throws')} away ", _cards_or_count(event.cards))
        case ev.ReshuffleRequested():
            return (
                f"No cards left in the stub: the dealer reshuffles {len(event.cards)} earlier "
                f"discards for {obj(event.seat)}",
            )
        case ev.DiscardsReshuffled():
            n = event.count
            return (f"{n} discard{'' if n == 1 else 's'} reshuffled into a new stub",)
        case ev.PotCarriedIn():
            return (f"A riding pot of {money(event.amount)} joins this deal",)
        case ev.PotCarriedOver():
            return (f"Nobody wins: the pot of {money(event.amount)} rides to the next deal",)
        case ev.UncalledBetReturned():
            return (f"Uncalled {money(event.amount)} goes back to {obj(event.seat)}",)
    return None


def plain(sentence: Sentence | None) -> str:
    """A sentence as plain text, its cards in brackets (``[Ah 7c]``); "" for None."""
    if sentence is None:
        return ""
    return "".join(
        part if isinstance(part, str) else f"[{' '.join(card_text(c) for c in part.cards)}]"
        for part in sentence
    )
