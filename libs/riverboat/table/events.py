"""Table-level events (the hand's own events come from ``riverboat.engine.events``)."""

from __future__ import annotations

from dataclasses import dataclass

from riverboat.engine.events import Event as HandEvent
from riverboat.engine.options import TableOptions
from riverboat.engine.session import DealersChoiceRules


@dataclass(frozen=True, slots=True)
class TimeBankPolicy:
    """A table's time bank and disconnect protection (docs/table-service.md).

    ``seconds``: each player's reserve when they sit down, and its cap (0: no time bank);
    ``topup_seconds`` are added every ``topup_hands`` hands (0: never); a player whose Watch
    stream is gone gets ``seconds`` more once per ``protect_hands`` hands (0: never).
    """

    seconds: int = 60
    topup_seconds: int = 10
    topup_hands: int = 10
    protect_hands: int = 10


#: The policy of a table opened without one (OpenTable's default).
DEFAULT_TIME_BANK = TimeBankPolicy()
#: A table whose log predates time banks has none (its clock acts as it always did).
NO_TIME_BANK = TimeBankPolicy(0, 0, 0, 0)


@dataclass(frozen=True, slots=True)
class TableCreated:
    """A table was opened. ``rules``: a dealer's choice table's games (variant
    ``"dealers_choice"``), else None. ``time_bank``: None in logs from before time banks
    (:data:`NO_TIME_BANK` then)."""

    table_id: str
    name: str
    variant: str
    options: TableOptions
    action_seconds: int
    rules: DealersChoiceRules | None = None
    time_bank: TimeBankPolicy | None = None


@dataclass(frozen=True, slots=True)
class PlayerSeated:
    """A player sat down with chips."""

    seat: int
    player: str
    stack: int
    buy_in_reference: str = ""


@dataclass(frozen=True, slots=True)
class LeaveRequested:
    """A player in a hand asked to leave; they leave when the hand ends."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerLeft:
    """A player left with their chips."""

    seat: int
    player: str
    stack: int


@dataclass(frozen=True, slots=True)
class HandCommitted:
    """The dealer's commitment to the next hand's deck, before any card is dealt."""

    hand_id: str
    scheme: str
    commitment: bytes
    deck_size: int
    button: int
    #: CRV1: the Merkle root over the deck's per-position commitments (b"" under RBS1).
    root: bytes = b""


@dataclass(frozen=True, slots=True)
class ClientSeedCommitted:
    """CRV1: a player's commitment to the client seed it will reveal (docs/shuffle.md II.4),
    after the dealer's commitment and before the commitments are locked. Public (a hash of 256
    random bits says nothing); sending again replaces it."""

    seat: int
    player: str
    commitment: bytes


@dataclass(frozen=True, slots=True)
class SeedCommitsLocked:
    """CRV1: the end of the commit phase: the commitments (seat, player, commitment) by seat
    whose seeds may now be revealed; no other seat's client seed counts in this hand."""

    hand_id: str
    commits: tuple[tuple[int, str, bytes], ...]


@dataclass(frozen=True, slots=True)
class ClientSeedSent:
    """CRV1: a player's client seed for the committed hand, revealed after the commitments
    were locked and matching the seat's commitment (seen by the sender only until the lock)."""

    seat: int
    player: str
    seed: bytes


@dataclass(frozen=True, slots=True)
class SeedsLocked:
    """CRV1: the seeds fixing the hand's dealing order: (seat, player, seed, origin) by seat,
    origin 0 revealed by the client, 1 the seat's derived seed (``crv1.drawn_seed``) because its
    client revealed none. After the commitment, before the first card."""

    hand_id: str
    seeds: tuple[tuple[int, str, bytes, int], ...]


@dataclass(frozen=True, slots=True)
class HandVoided:
    """A hand that could not resume: every contribution refunded, no rake."""

    hand_id: str
    reason: str
    refunds: tuple[tuple[int, int], ...]


@dataclass(frozen=True, slots=True)
class PlayerSatOut:
    """A player sits out: dealt out of every hand from the next one, posting nothing, until
    they sit in. ``reason``: "" (they asked) or "timeouts" (the clock acted for them twice in
    a row)."""

    seat: int
    player: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class PlayerSatIn:
    """A player who sat out is dealt in again from the next hand."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class PlayerTimedOut:
    """The clock acted for the player (after their time bank); it comes before the clock's
    action in the same batch. Two in a row sit the player out."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class TimeoutsCleared:
    """The player acted themselves after the clock had acted for them: the count of time-outs
    in a row starts again (it comes before their action in the same batch)."""

    seat: int
    player: str


@dataclass(frozen=True, slots=True)
class TimeBankStarted:
    """The action clock ran out and the player's turn goes on for ``seconds`` more: from
    their own time bank, or (``protection``) the disconnect protection's, which is not drawn
    from the bank."""

    seat: int
    player: str
    seconds: int
    protection: bool = False


@dataclass(frozen=True, slots=True)
class TimeBankUsed:
    """A turn on the time bank ended: ``seconds`` are drawn from the player's bank (0 for the
    disconnect protection's time). Before the action that ended it, in the same batch."""

    seat: int
    player: str
    seconds: int


@dataclass(frozen=True, slots=True)
class TableClosing:
    """An operator (``by``) closes the table after the hand in play, and after any pot riding
    from it is won: no new game is dealt; :class:`TableClosed` follows when that is over."""

    by: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class TableClosed:
    """The table is closed for good: the :class:`PlayerLeft` events after it (same batch)
    take every seated player off with their chips; nobody sits down again."""

    by: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DealingPaused:
    """An operator pauses dealing: the hand in play finishes; no new hand until resumed."""

    by: str
    reason: str = ""


@dataclass(frozen=True, slots=True)
class DealingResumed:
    """Dealing resumes after a pause."""

    by: str


#: Events that keep a seat's sit-out and time-bank state; they may open a batch before the
#: command's own events (docs/audit.md).
SEAT_EVENTS = (
    PlayerSatOut,
    PlayerSatIn,
    PlayerTimedOut,
    TimeoutsCleared,
    TimeBankStarted,
    TimeBankUsed,
)

TableEvent = (
    TableCreated
    | PlayerSeated
    | LeaveRequested
    | PlayerLeft
    | HandCommitted
    | HandVoided
    | PlayerSatOut
    | PlayerSatIn
    | PlayerTimedOut
    | TimeoutsCleared
    | TimeBankStarted
    | TimeBankUsed
    | ClientSeedCommitted
    | SeedCommitsLocked
    | ClientSeedSent
    | SeedsLocked
    | TableClosing
    | TableClosed
    | DealingPaused
    | DealingResumed
)
#: The operator's table controls (docs/admin.md); each opens the batch it is in.
OPERATOR_EVENTS = (TableClosing, TableClosed, DealingPaused, DealingResumed)
AnyEvent = TableEvent | HandEvent
