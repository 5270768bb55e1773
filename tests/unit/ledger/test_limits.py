"""Responsible-gaming limits in the wallet (riverboat.ledger.wallet, .limits): the oracle is
arithmetic on the amounts and times these tests choose."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from riverboat.ledger import wallet as w

T0 = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
COOL = timedelta(hours=24)


def run(state: w.WalletState, decision: w.Decision, at: datetime) -> None:
    balance = state.balance
    for event in decision.events:
        balance += w.balance_change(event)
        state.apply(event, balance, at)


def refused(decide, reason: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(w.WalletError) as err:
        decide()
    assert err.value.reason == reason, err.value.message


def test_a_daily_deposit_limit_counts_the_last_24_hours() -> None:
    ann = w.WalletState("ann")
    run(ann, w.decide_limit(ann, "deposit_day", 10_000, "player:ann", T0, COOL), T0)
    run(ann, w.decide_deposit(ann, 6_000, "p1", now=T0), T0)
    later = T0 + timedelta(hours=23)
    refused(lambda: w.decide_deposit(ann, 4_001, "p2", now=later), "DEPOSIT_LIMIT")
    run(ann, w.decide_deposit(ann, 4_000, "p2", now=later), later)
    # 24 hours after the first deposit it no longer counts: 6,000 free again, not 6,001.
    day_after = T0 + timedelta(hours=24, seconds=1)
    refused(lambda: w.decide_deposit(ann, 6_001, "p3", now=day_after), "DEPOSIT_LIMIT")
    run(ann, w.decide_deposit(ann, 6_000, "p3", now=day_after), day_after)
    assert ann.balance == 16_000
    # A repeat of a recorded deposit is answered as before, limit or not.
    assert w.decide_deposit(ann, 4_000, "p2", now=day_after).duplicate


def test_lower_at_once_higher_after_the_cooling_off() -> None:
    bob = w.WalletState("bob")
    run(bob, w.decide_limit(bob, "buy_in_week", 5_000, "player:bob", T0, COOL), T0)
    assert bob.limits.amount("buy_in_week", T0) == 5_000
    raised = w.decide_limit(bob, "buy_in_week", 20_000, "player:bob", T0, COOL)
    assert raised.events[0].effective_at == T0 + COOL  # type: ignore[union-attr]
    run(bob, raised, T0)
    assert bob.limits.amount("buy_in_week", T0 + COOL - timedelta(seconds=1)) == 5_000
    assert bob.limits.amount("buy_in_week", T0 + COOL) == 20_000
    # Asking for the same raise again records nothing; lowering cancels the waiting raise.
    assert not w.decide_limit(bob, "buy_in_week", 20_000, "player:bob", T0, COOL).events
    run(bob, w.decide_limit(bob, "buy_in_week", 3_000, "player:bob", T0, COOL), T0)
    assert bob.limits.amount("buy_in_week", T0 + 2 * COOL) == 3_000
    # Removing a limit (0) is the most generous change of all: it waits too.
    removal = w.decide_limit(bob, "buy_in_week", 0, "operator:boss", T0, COOL)
    assert removal.events[0].effective_at == T0 + COOL  # type: ignore[union-attr]


def test_buy_ins_given_back_do_not_count() -> None:
    cyd = w.WalletState("cyd")
    run(cyd, w.decide_deposit(cyd, 50_000, "p1"), T0)
    run(cyd, w.decide_limit(cyd, "buy_in_day", 4_000, "player:cyd", T0, COOL), T0)
    run(cyd, w.decide_reserve(cyd, "t1", 3_000, "j1", now=T0), T0)
    refused(lambda: w.decide_reserve(cyd, "t1", 2_000, "j2", now=T0), "BUY_IN_LIMIT")
    run(cyd, w.decide_release(cyd, "j1", "could not sit"), T0)
    run(cyd, w.decide_reserve(cyd, "t1", 4_000, "j3", now=T0), T0)


def test_self_exclusion_refuses_deposits_and_buy_ins_and_is_never_shortened() -> None:
    dee = w.WalletState("dee")
    run(dee, w.decide_deposit(dee, 10_000, "p1"), T0)
    until = T0 + timedelta(days=30)
    run(dee, w.decide_self_exclude(dee, until, "player:dee", T0), T0)
    assert not w.decide_self_exclude(dee, T0 + timedelta(days=1), "player:dee", T0).events
    refused(lambda: w.decide_deposit(dee, 100, "p2", now=T0), "SELF_EXCLUDED")
    refused(lambda: w.decide_reserve(dee, "t1", 1_000, "j1", now=T0), "SELF_EXCLUDED")
    run(dee, w.decide_withdraw(dee, 10_000, "out-1"), T0)  # their money may always leave
    run(dee, w.decide_deposit(dee, 100, "p3", now=until), until)


def test_limits_survive_the_codec() -> None:
    from riverboat.ledger.walletcodec import decode_wallet_batch, encode_wallet_batch

    events: list[w.WalletEvent] = [
        w.LimitChanged("deposit_week", 7_000, T0 + COOL, "player:ann"),
        w.SelfExcluded(T0 + timedelta(days=7), "operator:boss"),
    ]
    payload = encode_wallet_batch("ann", events, balance_before=500, occurred_at=T0)
    player, items = decode_wallet_batch(payload)
    assert player == "ann" and [i.event for i in items] == events
    assert [i.balance_after for i in items] == [500, 500]


def test_an_unknown_limit_is_refused() -> None:
    refused(
        lambda: w.decide_limit(w.WalletState("x"), "loss_day", 1, "player:x", T0, COOL),
        "BAD_LIMIT",
    )
