"""Creating a stream waits out a cluster that is not answering yet, and no longer.

A fake JetStream context plays the server: a script of what each ``stream_info`` and
``add_stream`` call meets, and the stream it holds. The expected results follow from the
script alone: a creation that timed out but happened is found on the next try, not made twice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, cast

import nats.errors
import nats.js.errors
import pytest
from nats.js import JetStreamContext
from nats.js.api import StorageType, StreamConfig

from riverboat.eventstore.streams import ensure_stream_config
from riverboat.retrying import Policy

FAST = Policy(first=0.001, maximum=0.01, total=1.0)
WANTED = StreamConfig(name="RB_T", subjects=["t.>"], storage=StorageType.FILE, num_replicas=3)


@dataclass
class FakeJetStream:
    """``info``/``add``: per call, ``"ok"`` or the failure met (``"timeout"``, ``"lost"``:
    stored but the answer timed out, ``"closed"``, ``"no_responders"``)."""

    info: list[str]
    add: list[str] = field(default_factory=list)
    stream: StreamConfig | None = None
    created: int = 0

    async def stream_info(self, name: str) -> Any:
        self._meet(self.info.pop(0))
        if self.stream is None:
            raise nats.js.errors.NotFoundError()
        return SimpleNamespace(config=self.stream)

    async def add_stream(self, config: StreamConfig) -> Any:
        step = self.add.pop(0)
        if step == "lost":
            self.stream, self.created = config, self.created + 1
        self._meet(step)
        self.stream, self.created = config, self.created + 1
        return SimpleNamespace(config=config)

    @staticmethod
    def _meet(step: str) -> None:
        failures: dict[str, Exception] = {
            "timeout": nats.errors.TimeoutError(),
            "lost": nats.errors.TimeoutError(),
            "closed": nats.errors.ConnectionClosedError(),
            "no_responders": nats.errors.NoRespondersError(),
            # A node just restarted, not yet counted online by the meta leader: an R3 stream
            # has nowhere to put its third replica for a moment.
            "no_peers": nats.js.errors.APIError(
                code=400,
                err_code=10005,
                description="no suitable peers for placement, peer offline",
            ),
            "bad_config": nats.js.errors.BadRequestError(
                code=400, err_code=10052, description="invalid stream configuration"
            ),
        }
        if step in failures:
            raise failures[step]


async def _ensure(js: FakeJetStream) -> Any:
    return await ensure_stream_config(
        cast(JetStreamContext, js), WANTED, fixed=("storage",), retry=FAST
    )


async def test_a_stream_is_created_after_the_cluster_starts_answering() -> None:
    # The try after the failed add starts again from the stream's info (the fourth "ok").
    js = FakeJetStream(info=["timeout", "no_responders", "ok", "ok"], add=["timeout", "ok"])
    check = await _ensure(js)
    assert check.created and js.created == 1 and js.stream == WANTED


async def test_a_creation_that_timed_out_but_happened_is_found_not_repeated() -> None:
    js = FakeJetStream(info=["ok", "ok"], add=["lost"])
    check = await _ensure(js)
    assert js.created == 1 and not check.created and check.replicas == 3


async def test_a_closed_connection_fails_at_once() -> None:
    js = FakeJetStream(info=["closed", "ok"])
    with pytest.raises(nats.errors.ConnectionClosedError):
        await _ensure(js)
    assert js.info == ["ok"]  # no second try


async def test_a_cluster_that_never_answers_fails_after_the_budget() -> None:
    js = FakeJetStream(info=["timeout"] * 10_000)
    with pytest.raises(nats.errors.TimeoutError):
        await _ensure(js)
    assert 0 < 10_000 - len(js.info) < 10_000


async def test_an_r3_stream_waits_for_placement_after_a_node_restart() -> None:
    # Seen on CI after a node's restart: "no suitable peers for placement, peer offline".
    js = FakeJetStream(info=["ok", "ok"], add=["no_peers", "ok"])
    check = await _ensure(js)
    assert check.created and js.created == 1


async def test_a_configuration_the_server_refuses_fails_at_once() -> None:
    js = FakeJetStream(info=["ok", "ok"], add=["bad_config", "ok"])
    with pytest.raises(nats.js.errors.BadRequestError):
        await _ensure(js)
    assert js.add == ["ok"]  # no second try
