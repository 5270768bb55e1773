import datetime

from buf.validate import validate_pb2 as _validate_pb2
from google.protobuf import timestamp_pb2 as _timestamp_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class EventEnvelope(_message.Message):
    __slots__ = ("event_id", "aggregate_id", "aggregate_version", "index", "occurred_at", "request_id", "actor", "previous_hash", "table_created", "player_seated", "player_left", "hand_committed", "hand_voided", "leave_requested", "hand_started", "ante_posted", "card_dealt", "community_card_dealt", "betting_round_started", "action_taken", "uncalled_bet_returned", "hand_shown", "rake_taken", "pot_awarded", "hand_ended", "game_options_set", "pot_carried_in", "phase_started", "cards_discarded", "cards_to_pass", "cards_passed", "cards_ordered", "card_turned_up", "offer_answered", "declaration_sealed", "declarations_revealed", "card_payment_posted", "wild_rank_changed", "match_due", "pot_matched", "match_declined", "table_row_dealt", "table_card_turned", "rank_eliminated", "cards_eliminated", "reshuffle_requested", "discards_reshuffled", "pot_carried_over", "game_chosen", "dealer_up", "player_sat_out", "player_sat_in", "player_timed_out", "timeouts_cleared", "time_bank_started", "time_bank_used", "client_seed_sent", "seeds_locked", "client_seed_committed", "seed_commits_locked", "table_closing", "table_closed", "dealing_paused", "dealing_resumed")
    EVENT_ID_FIELD_NUMBER: _ClassVar[int]
    AGGREGATE_ID_FIELD_NUMBER: _ClassVar[int]
    AGGREGATE_VERSION_FIELD_NUMBER: _ClassVar[int]
    INDEX_FIELD_NUMBER: _ClassVar[int]
    OCCURRED_AT_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTOR_FIELD_NUMBER: _ClassVar[int]
    PREVIOUS_HASH_FIELD_NUMBER: _ClassVar[int]
    TABLE_CREATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SEATED_FIELD_NUMBER: _ClassVar[int]
    PLAYER_LEFT_FIELD_NUMBER: _ClassVar[int]
    HAND_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    HAND_VOIDED_FIELD_NUMBER: _ClassVar[int]
    LEAVE_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    HAND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ANTE_POSTED_FIELD_NUMBER: _ClassVar[int]
    CARD_DEALT_FIELD_NUMBER: _ClassVar[int]
    COMMUNITY_CARD_DEALT_FIELD_NUMBER: _ClassVar[int]
    BETTING_ROUND_STARTED_FIELD_NUMBER: _ClassVar[int]
    ACTION_TAKEN_FIELD_NUMBER: _ClassVar[int]
    UNCALLED_BET_RETURNED_FIELD_NUMBER: _ClassVar[int]
    HAND_SHOWN_FIELD_NUMBER: _ClassVar[int]
    RAKE_TAKEN_FIELD_NUMBER: _ClassVar[int]
    POT_AWARDED_FIELD_NUMBER: _ClassVar[int]
    HAND_ENDED_FIELD_NUMBER: _ClassVar[int]
    GAME_OPTIONS_SET_FIELD_NUMBER: _ClassVar[int]
    POT_CARRIED_IN_FIELD_NUMBER: _ClassVar[int]
    PHASE_STARTED_FIELD_NUMBER: _ClassVar[int]
    CARDS_DISCARDED_FIELD_NUMBER: _ClassVar[int]
    CARDS_TO_PASS_FIELD_NUMBER: _ClassVar[int]
    CARDS_PASSED_FIELD_NUMBER: _ClassVar[int]
    CARDS_ORDERED_FIELD_NUMBER: _ClassVar[int]
    CARD_TURNED_UP_FIELD_NUMBER: _ClassVar[int]
    OFFER_ANSWERED_FIELD_NUMBER: _ClassVar[int]
    DECLARATION_SEALED_FIELD_NUMBER: _ClassVar[int]
    DECLARATIONS_REVEALED_FIELD_NUMBER: _ClassVar[int]
    CARD_PAYMENT_POSTED_FIELD_NUMBER: _ClassVar[int]
    WILD_RANK_CHANGED_FIELD_NUMBER: _ClassVar[int]
    MATCH_DUE_FIELD_NUMBER: _ClassVar[int]
    POT_MATCHED_FIELD_NUMBER: _ClassVar[int]
    MATCH_DECLINED_FIELD_NUMBER: _ClassVar[int]
    TABLE_ROW_DEALT_FIELD_NUMBER: _ClassVar[int]
    TABLE_CARD_TURNED_FIELD_NUMBER: _ClassVar[int]
    RANK_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    CARDS_ELIMINATED_FIELD_NUMBER: _ClassVar[int]
    RESHUFFLE_REQUESTED_FIELD_NUMBER: _ClassVar[int]
    DISCARDS_RESHUFFLED_FIELD_NUMBER: _ClassVar[int]
    POT_CARRIED_OVER_FIELD_NUMBER: _ClassVar[int]
    GAME_CHOSEN_FIELD_NUMBER: _ClassVar[int]
    DEALER_UP_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SAT_OUT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SAT_IN_FIELD_NUMBER: _ClassVar[int]
    PLAYER_TIMED_OUT_FIELD_NUMBER: _ClassVar[int]
    TIMEOUTS_CLEARED_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_STARTED_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_USED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_SENT_FIELD_NUMBER: _ClassVar[int]
    SEEDS_LOCKED_FIELD_NUMBER: _ClassVar[int]
    CLIENT_SEED_COMMITTED_FIELD_NUMBER: _ClassVar[int]
    SEED_COMMITS_LOCKED_FIELD_NUMBER: _ClassVar[int]
    TABLE_CLOSING_FIELD_NUMBER: _ClassVar[int]
    TABLE_CLOSED_FIELD_NUMBER: _ClassVar[int]
    DEALING_PAUSED_FIELD_NUMBER: _ClassVar[int]
    DEALING_RESUMED_FIELD_NUMBER: _ClassVar[int]
    event_id: str
    aggregate_id: str
    aggregate_version: int
    index: int
    occurred_at: _timestamp_pb2.Timestamp
    request_id: str
    actor: str
    previous_hash: bytes
    table_created: TableCreated
    player_seated: PlayerSeated
    player_left: PlayerLeft
    hand_committed: HandCommitted
    hand_voided: HandVoided
    leave_requested: LeaveRequested
    hand_started: HandStarted
    ante_posted: AntePosted
    card_dealt: CardDealt
    community_card_dealt: CommunityCardDealt
    betting_round_started: BettingRoundStarted
    action_taken: ActionTaken
    uncalled_bet_returned: UncalledBetReturned
    hand_shown: HandShown
    rake_taken: RakeTaken
    pot_awarded: PotAwarded
    hand_ended: HandEnded
    game_options_set: GameOptionsSet
    pot_carried_in: PotCarriedIn
    phase_started: PhaseStarted
    cards_discarded: CardsDiscarded
    cards_to_pass: CardsToPass
    cards_passed: CardsPassed
    cards_ordered: CardsOrdered
    card_turned_up: CardTurnedUp
    offer_answered: OfferAnswered
    declaration_sealed: DeclarationSealed
    declarations_revealed: DeclarationsRevealed
    card_payment_posted: CardPaymentPosted
    wild_rank_changed: WildRankChanged
    match_due: MatchDue
    pot_matched: PotMatched
    match_declined: MatchDeclined
    table_row_dealt: TableRowDealt
    table_card_turned: TableCardTurned
    rank_eliminated: RankEliminated
    cards_eliminated: CardsEliminated
    reshuffle_requested: ReshuffleRequested
    discards_reshuffled: DiscardsReshuffled
    pot_carried_over: PotCarriedOver
    game_chosen: GameChosen
    dealer_up: DealerUp
    player_sat_out: PlayerSatOut
    player_sat_in: PlayerSatIn
    player_timed_out: PlayerTimedOut
    timeouts_cleared: TimeoutsCleared
    time_bank_started: TimeBankStarted
    time_bank_used: TimeBankUsed
    client_seed_sent: ClientSeedSent
    seeds_locked: SeedsLocked
    client_seed_committed: ClientSeedCommitted
    seed_commits_locked: SeedCommitsLocked
    table_closing: TableClosing
    table_closed: TableClosed
    dealing_paused: DealingPaused
    dealing_resumed: DealingResumed
    def __init__(self, event_id: _Optional[str] = ..., aggregate_id: _Optional[str] = ..., aggregate_version: _Optional[int] = ..., index: _Optional[int] = ..., occurred_at: _Optional[_Union[datetime.datetime, _timestamp_pb2.Timestamp, _Mapping]] = ..., request_id: _Optional[str] = ..., actor: _Optional[str] = ..., previous_hash: _Optional[bytes] = ..., table_created: _Optional[_Union[TableCreated, _Mapping]] = ..., player_seated: _Optional[_Union[PlayerSeated, _Mapping]] = ..., player_left: _Optional[_Union[PlayerLeft, _Mapping]] = ..., hand_committed: _Optional[_Union[HandCommitted, _Mapping]] = ..., hand_voided: _Optional[_Union[HandVoided, _Mapping]] = ..., leave_requested: _Optional[_Union[LeaveRequested, _Mapping]] = ..., hand_started: _Optional[_Union[HandStarted, _Mapping]] = ..., ante_posted: _Optional[_Union[AntePosted, _Mapping]] = ..., card_dealt: _Optional[_Union[CardDealt, _Mapping]] = ..., community_card_dealt: _Optional[_Union[CommunityCardDealt, _Mapping]] = ..., betting_round_started: _Optional[_Union[BettingRoundStarted, _Mapping]] = ..., action_taken: _Optional[_Union[ActionTaken, _Mapping]] = ..., uncalled_bet_returned: _Optional[_Union[UncalledBetReturned, _Mapping]] = ..., hand_shown: _Optional[_Union[HandShown, _Mapping]] = ..., rake_taken: _Optional[_Union[RakeTaken, _Mapping]] = ..., pot_awarded: _Optional[_Union[PotAwarded, _Mapping]] = ..., hand_ended: _Optional[_Union[HandEnded, _Mapping]] = ..., game_options_set: _Optional[_Union[GameOptionsSet, _Mapping]] = ..., pot_carried_in: _Optional[_Union[PotCarriedIn, _Mapping]] = ..., phase_started: _Optional[_Union[PhaseStarted, _Mapping]] = ..., cards_discarded: _Optional[_Union[CardsDiscarded, _Mapping]] = ..., cards_to_pass: _Optional[_Union[CardsToPass, _Mapping]] = ..., cards_passed: _Optional[_Union[CardsPassed, _Mapping]] = ..., cards_ordered: _Optional[_Union[CardsOrdered, _Mapping]] = ..., card_turned_up: _Optional[_Union[CardTurnedUp, _Mapping]] = ..., offer_answered: _Optional[_Union[OfferAnswered, _Mapping]] = ..., declaration_sealed: _Optional[_Union[DeclarationSealed, _Mapping]] = ..., declarations_revealed: _Optional[_Union[DeclarationsRevealed, _Mapping]] = ..., card_payment_posted: _Optional[_Union[CardPaymentPosted, _Mapping]] = ..., wild_rank_changed: _Optional[_Union[WildRankChanged, _Mapping]] = ..., match_due: _Optional[_Union[MatchDue, _Mapping]] = ..., pot_matched: _Optional[_Union[PotMatched, _Mapping]] = ..., match_declined: _Optional[_Union[MatchDeclined, _Mapping]] = ..., table_row_dealt: _Optional[_Union[TableRowDealt, _Mapping]] = ..., table_card_turned: _Optional[_Union[TableCardTurned, _Mapping]] = ..., rank_eliminated: _Optional[_Union[RankEliminated, _Mapping]] = ..., cards_eliminated: _Optional[_Union[CardsEliminated, _Mapping]] = ..., reshuffle_requested: _Optional[_Union[ReshuffleRequested, _Mapping]] = ..., discards_reshuffled: _Optional[_Union[DiscardsReshuffled, _Mapping]] = ..., pot_carried_over: _Optional[_Union[PotCarriedOver, _Mapping]] = ..., game_chosen: _Optional[_Union[GameChosen, _Mapping]] = ..., dealer_up: _Optional[_Union[DealerUp, _Mapping]] = ..., player_sat_out: _Optional[_Union[PlayerSatOut, _Mapping]] = ..., player_sat_in: _Optional[_Union[PlayerSatIn, _Mapping]] = ..., player_timed_out: _Optional[_Union[PlayerTimedOut, _Mapping]] = ..., timeouts_cleared: _Optional[_Union[TimeoutsCleared, _Mapping]] = ..., time_bank_started: _Optional[_Union[TimeBankStarted, _Mapping]] = ..., time_bank_used: _Optional[_Union[TimeBankUsed, _Mapping]] = ..., client_seed_sent: _Optional[_Union[ClientSeedSent, _Mapping]] = ..., seeds_locked: _Optional[_Union[SeedsLocked, _Mapping]] = ..., client_seed_committed: _Optional[_Union[ClientSeedCommitted, _Mapping]] = ..., seed_commits_locked: _Optional[_Union[SeedCommitsLocked, _Mapping]] = ..., table_closing: _Optional[_Union[TableClosing, _Mapping]] = ..., table_closed: _Optional[_Union[TableClosed, _Mapping]] = ..., dealing_paused: _Optional[_Union[DealingPaused, _Mapping]] = ..., dealing_resumed: _Optional[_Union[DealingResumed, _Mapping]] = ...) -> None: ...

class EventBatch(_message.Message):
    __slots__ = ("events",)
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    events: _containers.RepeatedCompositeFieldContainer[EventEnvelope]
    def __init__(self, events: _Optional[_Iterable[_Union[EventEnvelope, _Mapping]]] = ...) -> None: ...

class TableOptions(_message.Message):
    __slots__ = ("small_bet", "big_bet", "ante", "ante_mode", "bring_in", "max_raises", "uncap_heads_up", "open_pair_double_bet", "low_qualifier", "rake_basis_points", "rake_caps", "no_rake_on_third_street", "odd_chip_order", "min_players", "max_players", "final_bet_rule", "no_bring_in", "all_in_reopen", "spread_limit")
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    ANTE_FIELD_NUMBER: _ClassVar[int]
    ANTE_MODE_FIELD_NUMBER: _ClassVar[int]
    BRING_IN_FIELD_NUMBER: _ClassVar[int]
    MAX_RAISES_FIELD_NUMBER: _ClassVar[int]
    UNCAP_HEADS_UP_FIELD_NUMBER: _ClassVar[int]
    OPEN_PAIR_DOUBLE_BET_FIELD_NUMBER: _ClassVar[int]
    LOW_QUALIFIER_FIELD_NUMBER: _ClassVar[int]
    RAKE_BASIS_POINTS_FIELD_NUMBER: _ClassVar[int]
    RAKE_CAPS_FIELD_NUMBER: _ClassVar[int]
    NO_RAKE_ON_THIRD_STREET_FIELD_NUMBER: _ClassVar[int]
    ODD_CHIP_ORDER_FIELD_NUMBER: _ClassVar[int]
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    MAX_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    FINAL_BET_RULE_FIELD_NUMBER: _ClassVar[int]
    NO_BRING_IN_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_REOPEN_FIELD_NUMBER: _ClassVar[int]
    SPREAD_LIMIT_FIELD_NUMBER: _ClassVar[int]
    small_bet: int
    big_bet: int
    ante: int
    ante_mode: str
    bring_in: int
    max_raises: int
    uncap_heads_up: bool
    open_pair_double_bet: bool
    low_qualifier: int
    rake_basis_points: int
    rake_caps: _containers.RepeatedCompositeFieldContainer[RakeCap]
    no_rake_on_third_street: bool
    odd_chip_order: str
    min_players: int
    max_players: int
    final_bet_rule: bool
    no_bring_in: bool
    all_in_reopen: str
    spread_limit: bool
    def __init__(self, small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ..., ante: _Optional[int] = ..., ante_mode: _Optional[str] = ..., bring_in: _Optional[int] = ..., max_raises: _Optional[int] = ..., uncap_heads_up: _Optional[bool] = ..., open_pair_double_bet: _Optional[bool] = ..., low_qualifier: _Optional[int] = ..., rake_basis_points: _Optional[int] = ..., rake_caps: _Optional[_Iterable[_Union[RakeCap, _Mapping]]] = ..., no_rake_on_third_street: _Optional[bool] = ..., odd_chip_order: _Optional[str] = ..., min_players: _Optional[int] = ..., max_players: _Optional[int] = ..., final_bet_rule: _Optional[bool] = ..., no_bring_in: _Optional[bool] = ..., all_in_reopen: _Optional[str] = ..., spread_limit: _Optional[bool] = ...) -> None: ...

class RakeCap(_message.Message):
    __slots__ = ("min_players", "cap")
    MIN_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    CAP_FIELD_NUMBER: _ClassVar[int]
    min_players: int
    cap: int
    def __init__(self, min_players: _Optional[int] = ..., cap: _Optional[int] = ...) -> None: ...

class TableCreated(_message.Message):
    __slots__ = ("table_id", "name", "variant", "options", "action_seconds", "dealers_choice", "time_bank")
    TABLE_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    ACTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DEALERS_CHOICE_FIELD_NUMBER: _ClassVar[int]
    TIME_BANK_FIELD_NUMBER: _ClassVar[int]
    table_id: str
    name: str
    variant: str
    options: TableOptions
    action_seconds: int
    dealers_choice: DealersChoiceRules
    time_bank: TimeBankPolicy
    def __init__(self, table_id: _Optional[str] = ..., name: _Optional[str] = ..., variant: _Optional[str] = ..., options: _Optional[_Union[TableOptions, _Mapping]] = ..., action_seconds: _Optional[int] = ..., dealers_choice: _Optional[_Union[DealersChoiceRules, _Mapping]] = ..., time_bank: _Optional[_Union[TimeBankPolicy, _Mapping]] = ...) -> None: ...

class TimeBankPolicy(_message.Message):
    __slots__ = ("seconds", "topup_seconds", "topup_hands", "protect_hands")
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    TOPUP_SECONDS_FIELD_NUMBER: _ClassVar[int]
    TOPUP_HANDS_FIELD_NUMBER: _ClassVar[int]
    PROTECT_HANDS_FIELD_NUMBER: _ClassVar[int]
    seconds: int
    topup_seconds: int
    topup_hands: int
    protect_hands: int
    def __init__(self, seconds: _Optional[int] = ..., topup_seconds: _Optional[int] = ..., topup_hands: _Optional[int] = ..., protect_hands: _Optional[int] = ...) -> None: ...

class DealersChoiceRules(_message.Message):
    __slots__ = ("games", "default_game", "game_defaults_json", "edition", "min_small_bet", "max_small_bet", "min_big_bet", "max_big_bet")
    GAMES_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_GAME_FIELD_NUMBER: _ClassVar[int]
    GAME_DEFAULTS_JSON_FIELD_NUMBER: _ClassVar[int]
    EDITION_FIELD_NUMBER: _ClassVar[int]
    MIN_SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    MAX_SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    MIN_BIG_BET_FIELD_NUMBER: _ClassVar[int]
    MAX_BIG_BET_FIELD_NUMBER: _ClassVar[int]
    games: _containers.RepeatedScalarFieldContainer[str]
    default_game: str
    game_defaults_json: str
    edition: int
    min_small_bet: int
    max_small_bet: int
    min_big_bet: int
    max_big_bet: int
    def __init__(self, games: _Optional[_Iterable[str]] = ..., default_game: _Optional[str] = ..., game_defaults_json: _Optional[str] = ..., edition: _Optional[int] = ..., min_small_bet: _Optional[int] = ..., max_small_bet: _Optional[int] = ..., min_big_bet: _Optional[int] = ..., max_big_bet: _Optional[int] = ...) -> None: ...

class PlayerSeated(_message.Message):
    __slots__ = ("seat", "player", "stack", "buy_in_reference")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    BUY_IN_REFERENCE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    stack: int
    buy_in_reference: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ..., buy_in_reference: _Optional[str] = ...) -> None: ...

class PlayerLeft(_message.Message):
    __slots__ = ("seat", "player", "stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    stack: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ...) -> None: ...

class LeaveRequested(_message.Message):
    __slots__ = ("seat", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class PlayerSatOut(_message.Message):
    __slots__ = ("seat", "player", "reason")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    reason: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class PlayerSatIn(_message.Message):
    __slots__ = ("seat", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class PlayerTimedOut(_message.Message):
    __slots__ = ("seat", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class TimeoutsCleared(_message.Message):
    __slots__ = ("seat", "player")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ...) -> None: ...

class TimeBankStarted(_message.Message):
    __slots__ = ("seat", "player", "seconds", "protection")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    PROTECTION_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    seconds: int
    protection: bool
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., seconds: _Optional[int] = ..., protection: _Optional[bool] = ...) -> None: ...

class TimeBankUsed(_message.Message):
    __slots__ = ("seat", "player", "seconds")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    seconds: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., seconds: _Optional[int] = ...) -> None: ...

class TableClosing(_message.Message):
    __slots__ = ("by", "reason")
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    by: str
    reason: str
    def __init__(self, by: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class TableClosed(_message.Message):
    __slots__ = ("by", "reason")
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    by: str
    reason: str
    def __init__(self, by: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DealingPaused(_message.Message):
    __slots__ = ("by", "reason")
    BY_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    by: str
    reason: str
    def __init__(self, by: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class DealingResumed(_message.Message):
    __slots__ = ("by",)
    BY_FIELD_NUMBER: _ClassVar[int]
    by: str
    def __init__(self, by: _Optional[str] = ...) -> None: ...

class HandCommitted(_message.Message):
    __slots__ = ("hand_id", "scheme", "commitment", "deck_size", "button", "merkle_root")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SCHEME_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    MERKLE_ROOT_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    scheme: str
    commitment: bytes
    deck_size: int
    button: int
    merkle_root: bytes
    def __init__(self, hand_id: _Optional[str] = ..., scheme: _Optional[str] = ..., commitment: _Optional[bytes] = ..., deck_size: _Optional[int] = ..., button: _Optional[int] = ..., merkle_root: _Optional[bytes] = ...) -> None: ...

class ClientSeedCommitted(_message.Message):
    __slots__ = ("seat", "player", "commitment")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    commitment: bytes
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., commitment: _Optional[bytes] = ...) -> None: ...

class SeedCommit(_message.Message):
    __slots__ = ("seat", "player", "commitment")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    commitment: bytes
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., commitment: _Optional[bytes] = ...) -> None: ...

class SeedCommitsLocked(_message.Message):
    __slots__ = ("hand_id", "commits")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    COMMITS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    commits: _containers.RepeatedCompositeFieldContainer[SeedCommit]
    def __init__(self, hand_id: _Optional[str] = ..., commits: _Optional[_Iterable[_Union[SeedCommit, _Mapping]]] = ...) -> None: ...

class ClientSeedSent(_message.Message):
    __slots__ = ("seat", "player", "seed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    seed: bytes
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., seed: _Optional[bytes] = ...) -> None: ...

class LockedSeed(_message.Message):
    __slots__ = ("seat", "player", "seed", "origin")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    SEED_FIELD_NUMBER: _ClassVar[int]
    ORIGIN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    seed: bytes
    origin: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., seed: _Optional[bytes] = ..., origin: _Optional[int] = ...) -> None: ...

class SeedsLocked(_message.Message):
    __slots__ = ("hand_id", "seeds")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    SEEDS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    seeds: _containers.RepeatedCompositeFieldContainer[LockedSeed]
    def __init__(self, hand_id: _Optional[str] = ..., seeds: _Optional[_Iterable[_Union[LockedSeed, _Mapping]]] = ...) -> None: ...

class HandVoided(_message.Message):
    __slots__ = ("hand_id", "reason", "refunds")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    REFUNDS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    reason: str
    refunds: _containers.RepeatedCompositeFieldContainer[SeatAmount]
    def __init__(self, hand_id: _Optional[str] = ..., reason: _Optional[str] = ..., refunds: _Optional[_Iterable[_Union[SeatAmount, _Mapping]]] = ...) -> None: ...

class SeatEntry(_message.Message):
    __slots__ = ("seat", "player", "stack")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    STACK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    player: str
    stack: int
    def __init__(self, seat: _Optional[int] = ..., player: _Optional[str] = ..., stack: _Optional[int] = ...) -> None: ...

class SeatAmount(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HandStarted(_message.Message):
    __slots__ = ("hand_id", "variant", "button", "seats", "deck_size", "options")
    HAND_ID_FIELD_NUMBER: _ClassVar[int]
    VARIANT_FIELD_NUMBER: _ClassVar[int]
    BUTTON_FIELD_NUMBER: _ClassVar[int]
    SEATS_FIELD_NUMBER: _ClassVar[int]
    DECK_SIZE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    hand_id: str
    variant: str
    button: int
    seats: _containers.RepeatedCompositeFieldContainer[SeatEntry]
    deck_size: int
    options: TableOptions
    def __init__(self, hand_id: _Optional[str] = ..., variant: _Optional[str] = ..., button: _Optional[int] = ..., seats: _Optional[_Iterable[_Union[SeatEntry, _Mapping]]] = ..., deck_size: _Optional[int] = ..., options: _Optional[_Union[TableOptions, _Mapping]] = ...) -> None: ...

class AntePosted(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class CardDealt(_message.Message):
    __slots__ = ("seat", "card", "face_up", "deal_index")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    FACE_UP_FIELD_NUMBER: _ClassVar[int]
    DEAL_INDEX_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    face_up: bool
    deal_index: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., face_up: _Optional[bool] = ..., deal_index: _Optional[int] = ...) -> None: ...

class CommunityCardDealt(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class BettingRoundStarted(_message.Message):
    __slots__ = ("street", "bet_size", "first_to_act", "forced_bring_in")
    STREET_FIELD_NUMBER: _ClassVar[int]
    BET_SIZE_FIELD_NUMBER: _ClassVar[int]
    FIRST_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    FORCED_BRING_IN_FIELD_NUMBER: _ClassVar[int]
    street: int
    bet_size: int
    first_to_act: int
    forced_bring_in: bool
    def __init__(self, street: _Optional[int] = ..., bet_size: _Optional[int] = ..., first_to_act: _Optional[int] = ..., forced_bring_in: _Optional[bool] = ...) -> None: ...

class ActionTaken(_message.Message):
    __slots__ = ("seat", "action", "amount", "to", "all_in")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    ALL_IN_FIELD_NUMBER: _ClassVar[int]
    seat: int
    action: str
    amount: int
    to: int
    all_in: bool
    def __init__(self, seat: _Optional[int] = ..., action: _Optional[str] = ..., amount: _Optional[int] = ..., to: _Optional[int] = ..., all_in: _Optional[bool] = ...) -> None: ...

class UncalledBetReturned(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class HandShown(_message.Message):
    __slots__ = ("seat", "cards", "high", "low", "high_text", "low_text")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    HIGH_FIELD_NUMBER: _ClassVar[int]
    LOW_FIELD_NUMBER: _ClassVar[int]
    HIGH_TEXT_FIELD_NUMBER: _ClassVar[int]
    LOW_TEXT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    high: int
    low: int
    high_text: str
    low_text: str
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., high: _Optional[int] = ..., low: _Optional[int] = ..., high_text: _Optional[str] = ..., low_text: _Optional[str] = ...) -> None: ...

class RakeTaken(_message.Message):
    __slots__ = ("amount", "from_pots")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    FROM_POTS_FIELD_NUMBER: _ClassVar[int]
    amount: int
    from_pots: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, amount: _Optional[int] = ..., from_pots: _Optional[_Iterable[int]] = ...) -> None: ...

class PotAwarded(_message.Message):
    __slots__ = ("pot", "amount", "eligible", "high_winners", "low_winners", "shares")
    POT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ELIGIBLE_FIELD_NUMBER: _ClassVar[int]
    HIGH_WINNERS_FIELD_NUMBER: _ClassVar[int]
    LOW_WINNERS_FIELD_NUMBER: _ClassVar[int]
    SHARES_FIELD_NUMBER: _ClassVar[int]
    pot: int
    amount: int
    eligible: _containers.RepeatedScalarFieldContainer[int]
    high_winners: _containers.RepeatedScalarFieldContainer[int]
    low_winners: _containers.RepeatedScalarFieldContainer[int]
    shares: _containers.RepeatedCompositeFieldContainer[SeatAmount]
    def __init__(self, pot: _Optional[int] = ..., amount: _Optional[int] = ..., eligible: _Optional[_Iterable[int]] = ..., high_winners: _Optional[_Iterable[int]] = ..., low_winners: _Optional[_Iterable[int]] = ..., shares: _Optional[_Iterable[_Union[SeatAmount, _Mapping]]] = ...) -> None: ...

class HandEnded(_message.Message):
    __slots__ = ("stacks",)
    STACKS_FIELD_NUMBER: _ClassVar[int]
    stacks: _containers.RepeatedCompositeFieldContainer[SeatAmount]
    def __init__(self, stacks: _Optional[_Iterable[_Union[SeatAmount, _Mapping]]] = ...) -> None: ...

class GameOptionsSet(_message.Message):
    __slots__ = ("options_json",)
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    options_json: str
    def __init__(self, options_json: _Optional[str] = ...) -> None: ...

class PotCarriedIn(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: int
    def __init__(self, amount: _Optional[int] = ...) -> None: ...

class PhaseStarted(_message.Message):
    __slots__ = ("phase", "seats_to_act", "simultaneous", "min_cards", "max_cards")
    PHASE_FIELD_NUMBER: _ClassVar[int]
    SEATS_TO_ACT_FIELD_NUMBER: _ClassVar[int]
    SIMULTANEOUS_FIELD_NUMBER: _ClassVar[int]
    MIN_CARDS_FIELD_NUMBER: _ClassVar[int]
    MAX_CARDS_FIELD_NUMBER: _ClassVar[int]
    phase: str
    seats_to_act: _containers.RepeatedScalarFieldContainer[int]
    simultaneous: bool
    min_cards: int
    max_cards: int
    def __init__(self, phase: _Optional[str] = ..., seats_to_act: _Optional[_Iterable[int]] = ..., simultaneous: _Optional[bool] = ..., min_cards: _Optional[int] = ..., max_cards: _Optional[int] = ...) -> None: ...

class CardsDiscarded(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CardsToPass(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CardsPassed(_message.Message):
    __slots__ = ("seat", "to_seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TO_SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    to_seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., to_seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CardsOrdered(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class CardTurnedUp(_message.Message):
    __slots__ = ("seat", "card")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ...) -> None: ...

class OfferAnswered(_message.Message):
    __slots__ = ("seat", "took")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TOOK_FIELD_NUMBER: _ClassVar[int]
    seat: int
    took: bool
    def __init__(self, seat: _Optional[int] = ..., took: _Optional[bool] = ...) -> None: ...

class DeclarationSealed(_message.Message):
    __slots__ = ("seat", "choice")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    choice: str
    def __init__(self, seat: _Optional[int] = ..., choice: _Optional[str] = ...) -> None: ...

class SeatDeclaration(_message.Message):
    __slots__ = ("seat", "choice")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CHOICE_FIELD_NUMBER: _ClassVar[int]
    seat: int
    choice: str
    def __init__(self, seat: _Optional[int] = ..., choice: _Optional[str] = ...) -> None: ...

class DeclarationsRevealed(_message.Message):
    __slots__ = ("declarations",)
    DECLARATIONS_FIELD_NUMBER: _ClassVar[int]
    declarations: _containers.RepeatedCompositeFieldContainer[SeatDeclaration]
    def __init__(self, declarations: _Optional[_Iterable[_Union[SeatDeclaration, _Mapping]]] = ...) -> None: ...

class CardPaymentPosted(_message.Message):
    __slots__ = ("seat", "card", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARD_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    card: str
    amount: int
    def __init__(self, seat: _Optional[int] = ..., card: _Optional[str] = ..., amount: _Optional[int] = ...) -> None: ...

class WildRankChanged(_message.Message):
    __slots__ = ("rank", "awaiting")
    RANK_FIELD_NUMBER: _ClassVar[int]
    AWAITING_FIELD_NUMBER: _ClassVar[int]
    rank: int
    awaiting: bool
    def __init__(self, rank: _Optional[int] = ..., awaiting: _Optional[bool] = ...) -> None: ...

class MatchDue(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class PotMatched(_message.Message):
    __slots__ = ("seat", "amount")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    amount: int
    def __init__(self, seat: _Optional[int] = ..., amount: _Optional[int] = ...) -> None: ...

class MatchDeclined(_message.Message):
    __slots__ = ("seat",)
    SEAT_FIELD_NUMBER: _ClassVar[int]
    seat: int
    def __init__(self, seat: _Optional[int] = ...) -> None: ...

class TableRowDealt(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class TableCardTurned(_message.Message):
    __slots__ = ("card", "from_stock")
    CARD_FIELD_NUMBER: _ClassVar[int]
    FROM_STOCK_FIELD_NUMBER: _ClassVar[int]
    card: str
    from_stock: bool
    def __init__(self, card: _Optional[str] = ..., from_stock: _Optional[bool] = ...) -> None: ...

class RankEliminated(_message.Message):
    __slots__ = ("rank",)
    RANK_FIELD_NUMBER: _ClassVar[int]
    rank: int
    def __init__(self, rank: _Optional[int] = ...) -> None: ...

class CardsEliminated(_message.Message):
    __slots__ = ("seat", "cards")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ...) -> None: ...

class ReshuffleRequested(_message.Message):
    __slots__ = ("seat", "cards", "owed")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    CARDS_FIELD_NUMBER: _ClassVar[int]
    OWED_FIELD_NUMBER: _ClassVar[int]
    seat: int
    cards: _containers.RepeatedScalarFieldContainer[str]
    owed: int
    def __init__(self, seat: _Optional[int] = ..., cards: _Optional[_Iterable[str]] = ..., owed: _Optional[int] = ...) -> None: ...

class DiscardsReshuffled(_message.Message):
    __slots__ = ("count",)
    COUNT_FIELD_NUMBER: _ClassVar[int]
    count: int
    def __init__(self, count: _Optional[int] = ...) -> None: ...

class PotCarriedOver(_message.Message):
    __slots__ = ("amount",)
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    amount: int
    def __init__(self, amount: _Optional[int] = ...) -> None: ...

class GameChosen(_message.Message):
    __slots__ = ("seat", "game", "options_json", "by_clock", "small_bet", "big_bet")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    BY_CLOCK_FIELD_NUMBER: _ClassVar[int]
    SMALL_BET_FIELD_NUMBER: _ClassVar[int]
    BIG_BET_FIELD_NUMBER: _ClassVar[int]
    seat: int
    game: str
    options_json: str
    by_clock: bool
    small_bet: int
    big_bet: int
    def __init__(self, seat: _Optional[int] = ..., game: _Optional[str] = ..., options_json: _Optional[str] = ..., by_clock: _Optional[bool] = ..., small_bet: _Optional[int] = ..., big_bet: _Optional[int] = ...) -> None: ...

class DealerUp(_message.Message):
    __slots__ = ("seat", "redeal", "game", "options_json")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    REDEAL_FIELD_NUMBER: _ClassVar[int]
    GAME_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_JSON_FIELD_NUMBER: _ClassVar[int]
    seat: int
    redeal: bool
    game: str
    options_json: str
    def __init__(self, seat: _Optional[int] = ..., redeal: _Optional[bool] = ..., game: _Optional[str] = ..., options_json: _Optional[str] = ...) -> None: ...
