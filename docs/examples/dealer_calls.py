"""The dealer service's gates, called as the table service calls them (docs/dealer-service.md).

A service token from the room's key (``var/token.key``), then: commit a hand of an existing
table twice (one commitment), ask for its deck and its seed before the table logged the
commitment (both refused), and three calls the dealer refuses to anyone but a service. Run it
in a checkout next to ``make run``'s ``var/``:

    .venv/bin/python docs/examples/dealer_calls.py pacific-demo-pacific
"""

from __future__ import annotations

import argparse
import os

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from riverboat.auth import TokenIssuer, load_token_key
from riverboat.v1 import dealer_pb2, dealer_pb2_grpc


def refusal(call: grpc.RpcError) -> str:
    """``CODE REASON: message``, the reason from the standard ErrorInfo detail."""
    error: grpc.Call = call  # type: ignore[assignment]
    reason = ""
    status = rpc_status.from_call(error)
    for detail in status.details if status else ():
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            reason = info.reason
    return f"{error.code().name} {reason}: {error.details()}"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("table", help="a table of the room (its log must exist)")
    parser.add_argument(
        "--dealer", default=os.environ.get("RIVERBOAT_DEALER_ADDRESS", "127.0.0.1:50053")
    )
    args = parser.parse_args()
    issuer = TokenIssuer(load_token_key())  # $RIVERBOAT_TOKEN_KEY, else var/token.key
    service = (("authorization", f"Bearer {issuer.issue('docs', 'service')}"),)
    dealer = dealer_pb2_grpc.DealerServiceStub(grpc.insecure_channel(args.dealer))
    hand = f"{args.table}-docs-1"  # an id the table itself never deals

    def attempt(what: str, call: object) -> None:
        try:
            call()  # type: ignore[operator]
            print(f"{what}: accepted")
        except grpc.RpcError as exc:
            print(f"{what}: {refusal(exc)}")

    commit = dealer_pb2.CommitHandRequest(table_id=args.table, hand_id=hand)
    first = dealer.CommitHand(commit, metadata=service)
    print(f"CommitHand {hand}: scheme {first.scheme}, {first.deck_size} cards")
    print(f"  commitment  {first.commitment.hex()}")
    print(f"  merkle root {first.merkle_root.hex()}")
    again = dealer.CommitHand(commit, metadata=service)
    print(f"CommitHand again: the same commitment: {again.commitment == first.commitment}")

    deck = dealer_pb2.GetDeckRequest(table_id=args.table, hand_id=hand, log_sequence=1)
    attempt(
        "GetDeck (record 1 holds no such commitment)",
        lambda: dealer.GetDeck(deck, metadata=service),
    )
    reveal = dealer_pb2.RevealSeedRequest(table_id=args.table, hand_id=hand)
    attempt("RevealSeed (never logged)", lambda: dealer.RevealSeed(reveal, metadata=service))
    nowhere = dealer_pb2.CommitHandRequest(table_id="no-such-table", hand_id="no-such-table-1")
    attempt("CommitHand at no table", lambda: dealer.CommitHand(nowhere, metadata=service))
    attempt("CommitHand without a token", lambda: dealer.CommitHand(commit))
    player = (("authorization", f"Bearer {issuer.issue('ann', 'player')}"),)
    attempt("CommitHand as a player", lambda: dealer.CommitHand(commit, metadata=player))


if __name__ == "__main__":
    main()
