"""riverboat.services.common: error mapping, per-RPC logs, health, signals, log rendering."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
from collections.abc import AsyncIterator
from typing import Any

import grpc
import grpc.aio
import pytest
import structlog
from google.protobuf import descriptor_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2

from riverboat.services.common.errors import (
    ErrorInterceptor,
    FailedPrecondition,
    InvalidArgument,
    NotFound,
)
from riverboat.services.common.grpcserver import LIVENESS, BindError, GrpcServer, ShutdownSignals
from riverboat.services.common.logs import configure_logging
from riverboat.v1 import dealer_pb2
from tests import statuskit
from tests.integration.dealer._kit import rpc_error

pytestmark = pytest.mark.timeout(30)

SERVICE = "test.Probe"
Request = dealer_pb2.CommitHandRequest  # any message with a table_id field will do
Reply = dealer_pb2.GetDeckResponse


def _explode() -> None:
    secret_local = "LOCAL-VALUE-7f3a"  # noqa: F841 - must not appear in any traceback
    raise RuntimeError("internal detail 91c2 the client must not see")


async def _unary(request: Request, context: Any) -> Reply:
    if request.hand_id == "missing":
        raise NotFound("no such hand", reason="HAND_NOT_COMMITTED")
    if request.hand_id == "boom":
        _explode()
    if request.hand_id == "card":
        raise FailedPrecondition("you do not hold 7h or T♠", reason="NOT_HELD")
    if request.hand_id == "fields":
        raise InvalidArgument(
            "two fields are wrong",
            field="table_id",
            violations=[("hand_id", "hand_id is too long")],
            metadata={"rule": "some_rule"},
        )
    if request.hand_id == "plain":
        raise FailedPrecondition("no reason given")
    structlog.get_logger("test").info("handled")
    return Reply(cards=["ok"])


async def _stream(request: Request, context: Any) -> AsyncIterator[Reply]:
    yield Reply(cards=["first"])
    raise FailedPrecondition("stopped after one", reason="STOPPED")


def _handlers() -> grpc.GenericRpcHandler:  # type: ignore[type-arg]
    def rpc(behavior: Any, streaming: bool) -> grpc.RpcMethodHandler:  # type: ignore[type-arg]
        make = (
            grpc.unary_stream_rpc_method_handler
            if streaming
            else grpc.unary_unary_rpc_method_handler
        )
        return make(
            behavior,
            request_deserializer=Request.FromString,
            response_serializer=Reply.SerializeToString,
        )

    return grpc.method_handlers_generic_handler(
        SERVICE, {"Unary": rpc(_unary, False), "Stream": rpc(_stream, True)}
    )


@pytest.fixture
async def probe() -> AsyncIterator[GrpcServer]:
    server = GrpcServer(
        "127.0.0.1:0",
        service_names=[SERVICE],
        interceptors=[ErrorInterceptor(context_fields=("table_id", "hand_id"))],
        grace=0.2,
    )
    server.server.add_generic_rpc_handlers([_handlers()])
    await server.start()
    yield server
    await server.stop(0)


async def _call(address: str, hand_id: str) -> Reply:
    """Call Probe/Unary."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_unary(f"/{SERVICE}/Unary", Request.SerializeToString, Reply.FromString)
        reply: Reply = await call(Request(table_id="t-77", hand_id=hand_id), timeout=5)
        return reply


async def _stream_call(address: str, received: list[Reply]) -> None:
    """Call Probe/Stream, collecting replies into ``received`` until it fails."""
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.unary_stream(
            f"/{SERVICE}/Stream", Request.SerializeToString, Reply.FromString
        )
        async for reply in call(Request(table_id="t-77", hand_id="h"), timeout=5):
            received.append(reply)


async def test_service_errors_keep_their_status_and_reason(
    probe: GrpcServer, captured_logs: io.StringIO
) -> None:
    error = await rpc_error(
        _call(probe.address, "missing"),
        grpc.StatusCode.NOT_FOUND,
        reason="HAND_NOT_COMMITTED",
    )
    assert error.details() == "no such hand"
    lines = [json.loads(line) for line in captured_logs.getvalue().splitlines()]
    finished = [line for line in lines if line["event"] == "rpc finished"]
    assert finished[-1]["code"] == "NOT_FOUND"
    assert finished[-1]["table_id"] == "t-77" and finished[-1]["rpc"] == "Probe/Unary"


async def test_every_error_is_a_standard_status_with_error_info(probe: GrpcServer) -> None:
    error = await rpc_error(_call(probe.address, "fields"), grpc.StatusCode.INVALID_ARGUMENT)
    found = statuskit.details(error)
    assert found.reason == "INVALID_ARGUMENT"  # no reason of its own: the code's name
    assert found.metadata == {"rule": "some_rule"}
    assert found.fields == {"table_id": "two fields are wrong", "hand_id": "hand_id is too long"}
    plain = statuskit.details(
        await rpc_error(_call(probe.address, "plain"), grpc.StatusCode.FAILED_PRECONDITION)
    )
    assert (plain.reason, plain.fields, plain.retry_ms) == ("FAILED_PRECONDITION", {}, None)
    pairs: Any = error.trailing_metadata() or ()
    keys = [key for key, _ in pairs]
    assert "rb-error-reason" not in keys  # the one model: no trailers of our own


async def test_a_refusal_naming_cards_is_logged_without_them(
    probe: GrpcServer, captured_logs: io.StringIO
) -> None:
    # The caller named the cards, so it reads them back; the log's reader must not learn
    # what a player does or does not hold.
    error = await rpc_error(
        _call(probe.address, "card"), grpc.StatusCode.FAILED_PRECONDITION, reason="NOT_HELD"
    )
    assert error.details() == "you do not hold 7h or T♠"
    lines = [json.loads(line) for line in captured_logs.getvalue().splitlines()]
    finished = [line for line in lines if line["event"] == "rpc finished"]
    assert finished[-1]["error"] == "you do not hold ?? or ??"
    assert "7h" not in captured_logs.getvalue() and "T♠" not in captured_logs.getvalue()


async def test_unexpected_errors_become_internal_without_details(
    probe: GrpcServer, captured_logs: io.StringIO
) -> None:
    error = await rpc_error(_call(probe.address, "boom"), grpc.StatusCode.INTERNAL)
    details = error.details() or ""
    assert details.startswith("internal error (incident ")
    assert "91c2" not in details and "RuntimeError" not in details
    incident = details.removeprefix("internal error (incident ").rstrip(")")
    found = statuskit.details(error)
    assert (found.reason, found.metadata) == ("INTERNAL", {"incident": incident})

    text = captured_logs.getvalue()
    failure = next(json.loads(line) for line in text.splitlines() if incident in line)
    assert failure["level"] == "error" and failure["error_type"] == "RuntimeError"
    assert "Traceback" in failure["exception"] and "91c2" in failure["exception"]
    assert "LOCAL-VALUE-7f3a" not in text  # tracebacks never show local variables


async def test_streaming_errors_are_mapped_too(probe: GrpcServer) -> None:
    received: list[Reply] = []
    await rpc_error(
        _stream_call(probe.address, received),
        grpc.StatusCode.FAILED_PRECONDITION,
        reason="STOPPED",
    )
    assert [reply.cards[0] for reply in received] == ["first"]


async def test_request_fields_are_bound_for_handler_logs(
    probe: GrpcServer, captured_logs: io.StringIO
) -> None:
    assert (await _call(probe.address, "h-5")).cards == ["ok"]
    handled = next(
        json.loads(line) for line in captured_logs.getvalue().splitlines() if '"handled"' in line
    )
    assert (handled["table_id"], handled["hand_id"]) == ("t-77", "h-5")


async def _health(address: str, service: str = "") -> int:
    async with grpc.aio.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        reply = await stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        status: int = reply.status
        return status


async def test_health_is_not_serving_until_told(probe: GrpcServer) -> None:
    not_serving = health_pb2.HealthCheckResponse.NOT_SERVING
    assert await _health(probe.address) == not_serving
    assert await _health(probe.address, SERVICE) == not_serving
    await probe.set_serving(True)
    assert await _health(probe.address) == health_pb2.HealthCheckResponse.SERVING
    await probe.set_serving(False)
    assert await _health(probe.address, SERVICE) == not_serving


async def test_liveness_is_serving_from_start_whatever_readiness_says(probe: GrpcServer) -> None:
    serving = health_pb2.HealthCheckResponse.SERVING
    assert await _health(probe.address, LIVENESS) == serving  # started, not yet ready
    await probe.set_serving(True)
    await probe.set_serving(False)  # e.g. NATS gone: readiness only
    assert await _health(probe.address, LIVENESS) == serving
    assert await _health(probe.address) == health_pb2.HealthCheckResponse.NOT_SERVING


async def _reflect(address: str, version: str, *requests: Any) -> list[Any]:
    """``requests`` on one reflection stream of ``version`` (``v1`` or ``v1alpha``), by path
    with raw bytes: v1's messages are v1alpha's field for field, so one encoding serves both."""
    path = f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo"
    async with grpc.aio.insecure_channel(address) as channel:
        call = channel.stream_stream(path, None, None)(
            iter([r.SerializeToString() for r in requests]), timeout=5
        )
        return [reflection_pb2.ServerReflectionResponse.FromString(b) async for b in call]


@pytest.mark.parametrize("version", ["v1", "v1alpha"])
async def test_reflection_answers_as_v1_and_v1alpha(probe: GrpcServer, version: str) -> None:
    """Current tools ask for grpc.reflection.v1 first; older ones for v1alpha."""
    listed, described, health = await _reflect(
        probe.address,
        version,
        reflection_pb2.ServerReflectionRequest(list_services=""),
        reflection_pb2.ServerReflectionRequest(
            file_containing_symbol="grpc.reflection.v1.ServerReflection"
        ),
        reflection_pb2.ServerReflectionRequest(file_containing_symbol="grpc.health.v1.Health"),
    )
    names = {service.name for service in listed.list_services_response.service}
    assert names == {
        SERVICE,
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    }
    [raw] = described.file_descriptor_response.file_descriptor_proto
    v1 = descriptor_pb2.FileDescriptorProto.FromString(raw)
    assert v1.package == "grpc.reflection.v1"
    [method] = v1.service[0].method
    assert method.input_type == ".grpc.reflection.v1.ServerReflectionRequest"
    assert health.file_descriptor_response.file_descriptor_proto


@pytest.mark.parametrize(
    "path",
    [
        "/grpc.health.v1.Health/Check",
        "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        f"/{SERVICE}/Unary",
        f"/{SERVICE}/Stream",
    ],
)
async def test_every_method_refuses_a_request_over_64_kib_in_the_error_model(
    probe: GrpcServer, path: str
) -> None:
    """Health and reflection too: the transport reads up to 4 MiB, the error model refuses."""
    payload = b"\x0a\xf0\xa2\x04" + b"x" * 70_000  # field 1, 70,000 bytes
    async with grpc.aio.insecure_channel(probe.address) as channel:
        with pytest.raises(grpc.aio.AioRpcError) as err:
            if "Reflection" in path:
                async for _ in channel.stream_stream(path, None, None)(iter([payload])):
                    pass
            elif path.endswith("Stream"):
                async for _ in channel.unary_stream(path, None, None)(payload):
                    pass
            else:
                await channel.unary_unary(path, None, None)(payload)
    found = statuskit.details(err.value)
    assert (found.code, found.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "REQUEST_TOO_LARGE")
    assert found.metadata == {"size_bytes": str(len(payload)), "limit_bytes": "65536"}


async def test_a_taken_port_is_a_bind_error(probe: GrpcServer) -> None:
    # gRPC would share the port through SO_REUSEPORT; GrpcServer turns that off.
    clash = GrpcServer(probe.address, service_names=[SERVICE])
    with pytest.raises(BindError, match="cannot listen"):
        await clash.start()
    await clash.stop(0)


async def test_shutdown_signals_turn_sigterm_into_an_event() -> None:
    async with ShutdownSignals() as signals:
        assert signals._installed, "handlers must be installed before a real signal is sent"
        os.kill(os.getpid(), signal.SIGTERM)
        assert await asyncio.wait_for(signals.wait(), 5) == signal.SIGTERM
        os.kill(os.getpid(), signal.SIGTERM)  # a second one is absorbed
        await asyncio.sleep(0.05)
    assert signals.received == signal.SIGTERM


@pytest.mark.parametrize("fmt", ["json", "console"])
def test_logged_tracebacks_never_show_locals(fmt: str) -> None:
    buffer = io.StringIO()
    configure_logging(fmt=fmt, level="info", stream=buffer, service="probe")
    try:
        _explode()
    except RuntimeError:
        structlog.get_logger("test").exception("failed")
    text = buffer.getvalue()
    assert "Traceback" in text and "_explode" in text
    assert "LOCAL-VALUE-7f3a" not in text
    if fmt == "json":
        assert json.loads(text.splitlines()[0])["service"] == "probe"
