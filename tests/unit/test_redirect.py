"""The owner redirect detail: what a server builds, a client reads back; nothing else matches."""

from __future__ import annotations

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from riverboat.redirect import REASON_NOT_OWNER, Owner, not_owner_status, owner_address, owner_of


class _Error(grpc.RpcError):
    def __init__(self, trailers: tuple[tuple[str, str | bytes], ...]) -> None:
        self._trailers = trailers

    def trailing_metadata(self) -> tuple[tuple[str, str | bytes], ...]:  # type: ignore[override]
        return self._trailers


def _details(status: status_pb2.Status) -> _Error:
    return _Error((("grpc-status-details-bin", status.SerializeToString()),))


def test_a_not_owner_status_names_the_owner() -> None:
    owner = Owner(table_id="t1", instance="table-2", address="10.0.0.7:50052")
    status = not_owner_status(owner, "table t1 is served by table-2")
    assert status.code == grpc.StatusCode.FAILED_PRECONDITION.value[0]
    assert owner_of(_details(status)) == owner
    assert owner_address(_details(status)) == "10.0.0.7:50052"


def test_other_errors_name_no_owner() -> None:
    info = error_details_pb2.ErrorInfo(reason="RATE_LIMITED", domain="riverboat")
    packed = any_pb2.Any()
    packed.Pack(info)
    status = status_pb2.Status(code=8, message="slow down", details=[packed])
    assert owner_of(_details(status)) is None
    assert owner_of(_Error(())) is None
    foreign = error_details_pb2.ErrorInfo(
        reason=REASON_NOT_OWNER, domain="example.com", metadata={"owner_address": "x:1"}
    )
    packed.Pack(foreign)
    assert owner_address(_details(status_pb2.Status(code=9, details=[packed]))) is None


def test_a_no_owner_status_carries_its_delay() -> None:
    from riverboat.redirect import DEFAULT_NO_OWNER_DELAY, no_owner_delay, no_owner_status

    status = no_owner_status("t1", 1.25, "nobody owns t1 yet")
    assert no_owner_delay(_details(status)) == 1.25
    assert owner_of(_details(status)) is None
    without_retry = status_pb2.Status(code=14, details=[status.details[0]])
    assert no_owner_delay(_details(without_retry)) == DEFAULT_NO_OWNER_DELAY
    redirect = not_owner_status(Owner("t1", "table-2", "h:1"), "not mine")
    assert no_owner_delay(_details(redirect)) is None
    assert no_owner_delay(_Error(())) is None
