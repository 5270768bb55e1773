"""One client calling ``Act`` at a fixed rate, whatever the answers: the limits bench's flood.

Runs as its own process (``python -m bench._flooder --address A --token T --rate R
--seconds S --table-id ID``) so its work does not slow the bots' event loop, only the service;
it sends calls on a timer without waiting for answers (a flood does not wait), and prints one
JSON line of outcome counts by status code when done.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import json
import sys

import grpc

from riverboat import eventloop
from riverboat.v1 import table_pb2, table_pb2_grpc


async def flood(
    address: str, token: str, table_id: str, rate: float, seconds: float
) -> dict[str, int]:
    """Send ``rate`` Act calls a second for ``seconds``; counts of the answers by code."""
    counts: collections.Counter[str] = collections.Counter()
    metadata = (("authorization", f"Bearer {token}"),)
    async with grpc.aio.insecure_channel(address) as channel:
        stub = table_pb2_grpc.TableServiceStub(channel)  # type: ignore[no-untyped-call]

        async def one(k: int) -> None:
            request = table_pb2.ActRequest(
                table_id=table_id, hand_id="flood", seat=1, action="call", request_id=f"flood-{k}"
            )
            try:
                await stub.Act(request, metadata=metadata, timeout=10)
                counts["OK"] += 1
            except grpc.aio.AioRpcError as exc:
                counts[exc.code().name] += 1

        loop = asyncio.get_running_loop()
        began = loop.time()
        calls = []
        k = 0
        while (now := loop.time()) < began + seconds:
            due = int((now - began) * rate) + 1  # calls that should have gone by now
            while k < due:
                calls.append(asyncio.ensure_future(one(k)))
                k += 1
            await asyncio.sleep(0.005)
        await asyncio.gather(*calls)
    return dict(counts)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench._flooder", description=__doc__)
    parser.add_argument("--address", required=True)
    parser.add_argument("--token", required=True)
    parser.add_argument("--table-id", required=True)
    parser.add_argument("--rate", type=float, required=True)
    parser.add_argument("--seconds", type=float, required=True)
    args = parser.parse_args(argv)
    counts = eventloop.run(flood(args.address, args.token, args.table_id, args.rate, args.seconds))
    print(json.dumps(counts), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
