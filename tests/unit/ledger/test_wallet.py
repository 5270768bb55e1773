"""The wallet aggregate's decisions and its protobuf records."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from riverboat.ledger import wallet as w
from riverboat.ledger.walletcodec import (
    WalletCodecError,
    decode_wallet_batch,
    encode_wallet_batch,
)

AT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def run(state: w.WalletState, decision: w.Decision) -> w.Decision:
    """Fold a decision's events into the state, as the repository does after appending."""
    balance = state.balance
    for event in decision.events:
        balance += w.balance_change(event)
        state.apply(event, balance)
    if decision.events:
        state.version += 1
    return decision


def funded(amount: int = 1_000) -> w.WalletState:
    state = w.WalletState("ann")
    run(state, w.decide_deposit(state, amount, "pay-1"))
    return state


def test_deposit_is_idempotent_per_external_ref() -> None:
    state = funded(1_000)
    again = w.decide_deposit(state, 1_000, "pay-1")
    assert again.duplicate and not again.events and again.balance == 1_000
    with pytest.raises(w.WalletError) as err:
        w.decide_deposit(state, 999, "pay-1")
    assert err.value.reason == "REQUEST_ID_REUSED" and err.value.kind == "conflict"


@pytest.mark.parametrize("amount", [0, -5, w.MAX_AMOUNT + 1, True])
def test_amounts_must_be_positive_cents(amount: int) -> None:
    with pytest.raises(w.WalletError) as err:
        w.decide_deposit(w.WalletState("ann"), amount, "x")
    assert err.value.kind == "invalid"


def test_withdrawal_never_overdraws() -> None:
    state = funded(1_000)
    with pytest.raises(w.WalletError) as err:
        w.decide_withdraw(state, 1_001, "out-1")
    assert err.value.reason == "INSUFFICIENT_FUNDS"
    assert run(state, w.decide_withdraw(state, 1_000, "out-1")).balance == 0
    assert w.decide_withdraw(state, 1_000, "out-1").duplicate  # a repeat, not a second payout


def test_reserve_release_and_burned_reference() -> None:
    state = funded(1_000)
    run(state, w.decide_reserve(state, "t1", 600, "join-1"))
    assert (state.balance, state.reserved) == (400, 600)
    assert w.decide_reserve(state, "t1", 600, "join-1").duplicate
    with pytest.raises(w.WalletError):
        w.decide_reserve(state, "t1", 500, "join-1")  # same reference, other terms
    with pytest.raises(w.WalletError) as err:
        w.decide_reserve(state, "t1", 600, "join-2")
    assert err.value.reason == "INSUFFICIENT_FUNDS"
    released = run(state, w.decide_release(state, "join-1", "seat taken"))
    assert released.flag and state.balance == 1_000 and state.reserved == 0
    again = w.decide_release(state, "join-1", "retry")
    assert again.duplicate and again.flag
    with pytest.raises(w.WalletError) as err:
        w.decide_reserve(state, "t1", 600, "join-1")
    assert err.value.reason == "BUY_IN_RELEASED"
    # A release that overtakes its reservation burns the reference: the late reserve fails.
    burned = run(state, w.decide_release(state, "join-9", "timed out"))
    assert not burned.flag and burned.events
    with pytest.raises(w.WalletError):
        w.decide_reserve(state, "t1", 100, "join-9")


def test_seating_consumes_the_reservation_and_settles_differences() -> None:
    state = funded(1_000)
    run(state, w.decide_reserve(state, "t1", 500, "join-1"))
    seated = run(state, w.decide_seat(state, "join-1", "t1", 400, "t1:3:0"))
    assert seated.events[0] == w.BuyInSeated("join-1", "t1", 400, 100, "t1:3:0")
    assert (state.balance, state.reserved) == (600, 0)
    assert w.decide_seat(state, "join-1", "t1", 400, "t1:3:0").duplicate
    with pytest.raises(w.WalletError) as err:
        w.decide_release(state, "join-1", "too late")
    assert err.value.reason == "BUY_IN_SEATED"
    # A seat whose reservation was released is paid from the wallet after all.
    run(state, w.decide_reserve(state, "t2", 100, "join-2"))
    run(state, w.decide_release(state, "join-2", "gave up"))
    late = run(state, w.decide_seat(state, "join-2", "t2", 100, "t2:9:0"))
    assert late.events[0].wallet_delta == -100 and state.balance == 500  # type: ignore[union-attr]


def test_cash_out_happens_once_per_table_event() -> None:
    state = funded(0 + 1)
    first = run(state, w.decide_cash_out(state, "t1", 700, "t1:20:1"))
    assert first.balance == 701
    again = w.decide_cash_out(state, "t1", 700, "t1:20:1")
    assert again.duplicate and again.balance == 701 and state.balance == 701


def test_wallet_ids_are_subject_tokens() -> None:
    assert w.wallet_id("ann_1-x") == "ann_1-x"
    for odd in ("ann.b", "zoë", "a b", "h_looks-hashed", "x" * 121):
        token = w.wallet_id(odd)
        assert token.startswith("h_") and len(token) == 42
    assert w.wallet_id("ann.b") != w.wallet_id("ann.c")


def test_codec_round_trip_keeps_balances() -> None:
    events = (w.Deposited(500, "p1"), w.BuyInReserved("j1", "t1", 200))
    data = encode_wallet_batch("ann", events, balance_before=100, occurred_at=AT)
    player, items = decode_wallet_batch(data)
    assert player == "ann"
    assert [(i.event, i.balance_after, i.index, i.occurred_at) for i in items] == [
        (events[0], 600, 0, AT),
        (events[1], 400, 1, AT),
    ]
    with pytest.raises(WalletCodecError):
        decode_wallet_batch(b"\xff\xff")
