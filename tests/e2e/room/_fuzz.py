"""The fuzz battery's generator and driver: requests from the descriptors, the oracle per batch.

Requests are built by hypothesis from each RPC's request descriptor (so a new RPC or field is
fuzzed with no change here): every field unset or drawn from values chosen to break things
(wrong and foreign ids, stale hand ids, seats past the table, zero, negative and overflowing
amounts, versions past the end, unicode and 10 kB strings), then sent as they are or with their
bytes mutated (cut, flipped, padded, garbage, oversized). Each carries a token: none, forged,
expired, or a real one of any role.

The driver sends a batch at once over several channels per service and judges every answer
(:func:`~tests.e2e.room._edge.status_problem`); after a batch in which no call that
may write succeeded, the room's streams and balances must be exactly as before it.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import grpc
import grpc.aio
from google.protobuf import struct_pb2
from google.protobuf.descriptor import Descriptor, FieldDescriptor, MethodDescriptor
from google.protobuf.message import DecodeError, Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

from riverboat.auth import TokenIssuer
from tests.e2e.room._edge import UNTYPED, call, status_problem

#: Methods that only read: a success of one of them must leave everything unchanged too.
#: Anything not listed (a new RPC included) is taken to be a write.
READS = frozenset(
    {
        "Login",
        "ListTables",
        "GetTable",
        "GetTableView",
        "ListHands",
        "GetHandHistory",
        "Watch",
        "GetDeck",
        "Reshuffle",
        "GetBalance",
        "ListLedgerEntries",
        "GetRakeReport",
    }
)
#: Statuses no fuzzed call may get, besides UNKNOWN and INTERNAL: a method the descriptors
#: promise but the server lacks, or a server that stopped answering.
BAD = UNTYPED | {grpc.StatusCode.UNIMPLEMENTED, grpc.StatusCode.DATA_LOSS}
#: Argon2 makes Register and Login cost tens of milliseconds each: drawn less often.
SLOW = frozenset({"Register", "Login"})

INT32 = (0, 1, -1, 2, 7, 8, 9, 10, 11, 99, 2**31 - 1, -(2**31))
INT64 = (0, 1, -1, 50, 100, 5_000, 10**12, 10**12 + 1, 2**62, 2**63 - 1, -(2**63))
UINT64 = (0, 1, 2, 3, 5, 2**32, 2**63, 2**64 - 1)
BIG = ("x" * 10_240, "é" * 5_120, "🂡" * 2_600)
WEIRD = (
    "",
    " ",
    "ünïcødé-tàble",
    "🂡🂱",
    "\u202eevil",
    "\x00",
    "a.b",
    "*",
    ">",
    "rb.tables.x",
    "../../etc/passwd",
    "-",
    "_",
    "x" * 64,
    "x" * 65,
    "DROP TABLE accounts;--",
    "%s%n",
    "null",
)
ACTIONS = (
    "fold", "call", "check", "bet", "raise", "bring_in", "complete", "draw", "discard", "pass",
    "order", "expose", "take", "stand", "declare", "match", "choose_game", "FOLD", "",
)  # fmt: skip
CARDS = ("Ah", "Kd", "2c", "Ts", "XX", "A", "Ahh", "", "1h", "ah")
DAYS = ("2026-12-01", "2026-11-30", "1970-01-01", "9999-12-31", "2026-02-30", "today", "")
OPTION_KEYS = (
    "small_bet", "big_bet", "ante", "bring_in", "max_raises", "rake_percent", "rake_cap",
    "max_players", "min_players", "low_qualifier", "bogus",
)  # fmt: skip


@dataclass
class Pools:
    """Room values the generator draws from (the driver refreshes them)."""

    tables: list[str] = field(default_factory=lambda: ["no-such-table"])
    hands: list[str] = field(default_factory=lambda: ["no-such-hand"])
    players: list[str] = field(default_factory=lambda: ["ghost"])
    accounts: list[str] = field(default_factory=lambda: ["cashier", "rake"])
    versions: list[int] = field(default_factory=lambda: [0])


@dataclass(frozen=True)
class Request:
    """One call to make."""

    path: str
    method: MethodDescriptor
    payload: bytes
    metadata: tuple[tuple[str, str], ...]

    def decoded(self) -> Message | None:
        cls = GetMessageClass(self.method.input_type)
        try:
            return cls.FromString(self.payload)
        except DecodeError:
            return None

    def describe(self) -> str:
        message = self.decoded()
        shown = repr(message)[:300] if message is not None else f"{self.payload[:60]!r}..."
        who = self.metadata[0][1][:30] if self.metadata else "no token"
        return f"{self.path} [{who}] {shown}"


_TOKEN_CHARS = st.sampled_from("abcXYZ019_-")


def _live(pool: list[Any]) -> st.SearchStrategy[Any]:
    """An element of ``pool`` as it is when drawn (the driver refreshes pools in place)."""
    return st.integers(0, 2**16).map(lambda i: pool[i % len(pool)])


def _text(pools: Pools, name: str) -> st.SearchStrategy[str]:
    """Strings for a field, by what its name says it holds."""
    generic = st.one_of(
        st.sampled_from(WEIRD),
        st.sampled_from(BIG),
        st.text(max_size=24),
        st.text(_TOKEN_CHARS, min_size=1, max_size=70),  # well-formed ids, some too long
    )
    if name in ("request_id", "reference", "external_ref"):
        # Mostly well-formed and fresh, so the request gets past the id check to the rest.
        fresh = st.integers(0, 10**9).map(lambda i: f"fz-{i}")
        return st.one_of(fresh, fresh, fresh, generic)
    pool: list[str]
    if name in ("table_id",):
        pool = pools.tables
    elif name in ("hand_id",):
        pool = pools.hands
    elif name in ("player", "username", "subject"):
        pool = pools.players
    elif name == "account":
        pool = pools.accounts
    elif name == "action":
        pool = list(ACTIONS)
    elif name in ("from_day", "to_day"):
        pool = list(DAYS)
    elif name == "template":
        pool = ["pacific", "dealers_choice", "omaha"]
    elif name == "variant":
        pool = ["seven_card_stud_hi_lo", "dealers_choice", "holdem"]
    elif name in ("choice", "default_game"):
        pool = ["low", "high", "both", "baseball", "seven_card_stud", "nope"]
    elif name == "password":
        pool = ["correct horse", "short", "boss-password"]
    elif name == "page_token":
        pool = ["", "0", "1", "-5", "99999999999", "bGluZTox", "bGluZTotNQ", "%%%"]
    else:
        return generic
    live = any(pool is p for p in (pools.tables, pools.hands, pools.players, pools.accounts))
    known = _live(pool) if live else st.sampled_from(pool)
    return st.one_of(known, known, known, generic)  # the room's own values, three times in four


def _scalar(pools: Pools, f: FieldDescriptor) -> st.SearchStrategy[Any]:
    t = f.type
    if t == FieldDescriptor.TYPE_STRING:
        if f.name == "cards":
            return st.one_of(st.sampled_from(CARDS), st.sampled_from(BIG), st.text(max_size=4))
        return _text(pools, f.name)
    if t == FieldDescriptor.TYPE_BYTES:
        return st.one_of(st.binary(max_size=40), st.just(b"\x00" * 10_240))
    if t == FieldDescriptor.TYPE_BOOL:
        return st.booleans()
    if t in (
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_FIXED64,
    ):
        limit = 2**64 - 1 if t != FieldDescriptor.TYPE_UINT32 else 2**32 - 1
        values = [v for v in UINT64 if v <= limit]
        return st.one_of(st.sampled_from(values), _live(pools.versions), st.integers(0, 60))
    if t in (
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_SFIXED64,
    ):
        return st.one_of(st.sampled_from(INT64), st.integers(-10, 20_000))
    if t in (
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
    ):
        return st.one_of(st.sampled_from(INT32), st.integers(-3, 12))
    if t == FieldDescriptor.TYPE_ENUM:
        assert f.enum_type is not None
        return st.sampled_from([v.number for v in f.enum_type.values] + [99])
    if t in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return st.floats(allow_nan=True, allow_infinity=True, width=32)
    raise AssertionError(f"unhandled field type {t} of {f.full_name}")


_JSON = st.one_of(
    st.none(),
    st.booleans(),
    st.sampled_from([0, -1, 1, 2.5, 100, 500, 10**12, 2**63 - 1, 1e300, float("inf")]),
    st.sampled_from(["", "x", "dealer", "seat", "5"]),
)


def _struct() -> st.SearchStrategy[struct_pb2.Struct]:
    def build(items: dict[str, Any]) -> struct_pb2.Struct:
        out = struct_pb2.Struct()
        for key, value in items.items():
            try:
                out.update({key: value})
            except (ValueError, TypeError):
                continue
        return out

    keys = st.one_of(st.sampled_from(OPTION_KEYS), st.text(max_size=8))
    return st.dictionaries(keys, _JSON, max_size=4).map(build)


def message(pools: Pools, desc: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Messages of ``desc``: each field unset or drawn as above (nested ones two deep)."""
    cls = GetMessageClass(desc)
    if desc.full_name == "google.protobuf.Struct":
        return _struct()
    parts: dict[str, st.SearchStrategy[Any]] = {}
    for f in desc.fields:
        if f.type == FieldDescriptor.TYPE_MESSAGE:
            nested = f.message_type
            assert nested is not None
            if depth >= 2 or nested.GetOptions().map_entry:
                continue
            value: st.SearchStrategy[Any] = message(pools, nested, depth + 1)
        else:
            value = _scalar(pools, f)
        if f.is_repeated:
            value = st.lists(value, max_size=3)
        parts[f.name] = st.one_of(st.none(), value)

    def build(values: dict[str, Any]) -> Message:
        msg = cls()
        for name, value in values.items():
            if value is None:
                continue
            target = getattr(msg, name, None)
            if isinstance(value, list):
                if value and isinstance(value[0], Message):
                    for item in value:
                        target.add().CopyFrom(item)  # type: ignore[union-attr]
                else:
                    target.extend(value)  # type: ignore[union-attr]
            elif isinstance(value, Message):
                target.CopyFrom(value)  # type: ignore[union-attr]
            else:
                setattr(msg, name, value)
        return msg

    return st.fixed_dictionaries(parts).map(build)


def _mutate(data: bytes, how: int, position: int, junk: bytes) -> bytes:
    at = position % (len(data) + 1)
    return [
        lambda: data,
        lambda: data[:at],  # cut short
        lambda: data[:at] + bytes([(data[at] if at < len(data) else 0) ^ 0xFF]) + data[at + 1 :],
        lambda: data[:at] + junk + data[at:],  # garbage inside
        lambda: data + b"\x7f",  # a tag with wire type 7 (there is none)
        lambda: b"\x0a\xff\xff\xff\xff\x0f" + data,  # a length far past the end
        lambda: junk,
        lambda: data + b"\x00" * (5 * 1024 * 1024),  # oversized
    ][how]()


def tokens(
    issuer: TokenIssuer, subjects: Sequence[tuple[str, str]], *, seated: Sequence[str] = ()
) -> list[tuple[tuple[str, str], ...]]:
    """Call metadata: no token, broken ones, and a valid token for each ``(subject, role)``
    (the ``seated`` players' more often, so their calls reach the table's rules)."""
    bearer = "authorization"
    out: list[tuple[tuple[str, str], ...]] = [
        (),
        ((bearer, "Bearer garbage"),),
        ((bearer, "Basic Ym9zczpwYXNz"),),
        ((bearer, "Bearer " + TokenIssuer(b"k" * 32).issue("boss", "operator")),),
        ((bearer, "Bearer " + issuer.issue("boss", "operator", ttl=1, now=time.time() - 3600)),),
    ]
    # Valid tokens three times as often: most calls should get past authentication.
    out += [((bearer, "Bearer " + issuer.issue(s, r)),) for s, r in subjects] * 3
    out += [((bearer, "Bearer " + issuer.issue(s, "player")),) for s in seated] * 6
    return out


def requests(
    pools: Pools,
    rpcs: Sequence[tuple[str, MethodDescriptor]],
    metadata: Sequence[tuple[tuple[str, str], ...]],
) -> st.SearchStrategy[Request]:
    """One request to any of ``rpcs``: generated, maybe byte-mutated, with any token."""
    weighted = [r for r in rpcs for _ in range(1 if r[1].name in SLOW else 6)]
    # Built once: constructing and validating strategies costs more than drawing from them.
    messages = {path: message(pools, method.input_type) for path, method in rpcs}
    which = st.sampled_from(weighted)
    mutation = st.sampled_from([0] * 36 + list(range(1, 7)) * 2 + [7])
    positions, junk = st.integers(0, 400), st.binary(min_size=1, max_size=12)
    metadata_ = st.sampled_from(list(metadata))

    @st.composite
    def build(draw: st.DrawFn) -> Request:
        path, method = draw(which)
        msg = draw(messages[path])
        payload = msg.SerializeToString()
        how = draw(mutation)  # as generated mostly; cut, flipped, padded, garbage, oversized
        if how:
            payload = _mutate(payload, how, draw(positions), draw(junk))
        return Request(path, method, payload, draw(metadata_))

    return build()


@dataclass
class Report:
    """What the battery saw."""

    calls: int = 0
    codes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)
    checked_batches: int = 0
    write_batches: int = 0

    def add(self, problem: str) -> None:
        if len(self.problems) < 50:
            self.problems.append(problem)


Snapshot = Callable[[], Awaitable[Any]]


@dataclass
class Driver:
    """Sends batches to the services and judges them.

    Args:
        channels: per service full name, the channels to spread its calls over.
        snapshot: the state refused calls must not change (streams, balances).
        settled: the same, once the room has stopped moving (after a batch that wrote).
        version_of: a table's current version (for a Watch that rightly stays silent).
    """

    channels: dict[str, list[grpc.aio.Channel]]
    snapshot: Snapshot
    settled: Snapshot
    version_of: Callable[[str], Awaitable[int | None]]
    watch_timeout: float = 3.0
    report: Report = field(default_factory=Report)
    _turn: int = 0
    _baseline: Any = None

    async def start(self) -> None:
        self._baseline = await self.settled()

    async def run(self, batch: Sequence[Request]) -> None:
        """Send ``batch`` at once; judge each answer and the state after."""
        outcomes = await asyncio.gather(*(self._one(r) for r in batch))
        wrote = False
        for request, (code, details, silent) in zip(batch, outcomes, strict=True):
            self.report.calls += 1
            self.report.codes[code.name] += 1
            if code == grpc.StatusCode.OK:
                if request.method.name not in READS:
                    wrote = True
                if silent and not await self._rightly_silent(request):
                    self.report.add(f"silent stream: {request.describe()}")
                continue
            if code in BAD:
                self.report.add(f"{code.name} {details[:200]!r}: {request.describe()}")
                continue
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                self.report.add(f"no answer in time: {request.describe()}")
                continue
            problem = status_problem(code, details)
            if problem:
                self.report.add(f"{problem}: {details[:200]!r}: {request.describe()}")
        if self.report.calls // 1000 != (self.report.calls - len(batch)) // 1000:
            print(f"fuzz: {self.report.calls} calls, {self.report.write_batches} wrote", flush=True)
        if wrote:
            self.report.write_batches += 1
            self._baseline = await self.settled()
            return
        now = await self.snapshot()
        self.report.checked_batches += 1
        if now != self._baseline:
            paths = sorted({r.path.rsplit("/", 1)[-1] for r in batch})
            self.report.add(f"refused calls changed the room: {self._baseline} -> {now} ({paths})")
            self._baseline = await self.settled()

    async def _one(self, request: Request) -> tuple[grpc.StatusCode, str, bool]:
        service = request.method.containing_service.full_name
        pool = self.channels[service]
        self._turn += 1
        channel = pool[self._turn % len(pool)]
        streaming = request.method.server_streaming
        code, details, reply = await call(
            channel,
            request.path,
            request.payload,
            request.metadata,
            streaming=streaming,
            timeout=self.watch_timeout if streaming else 60.0,
        )
        if streaming and code == grpc.StatusCode.DEADLINE_EXCEEDED:
            # Nothing in the short wait: a stream with nothing to send yet, or a loaded
            # machine. Unless silence is right, ask again with a long wait before judging.
            if await self._rightly_silent(request):
                return grpc.StatusCode.OK, "", False
            code, details, reply = await call(
                channel, request.path, request.payload, request.metadata, streaming=True, timeout=30
            )
            if code == grpc.StatusCode.DEADLINE_EXCEEDED:
                return grpc.StatusCode.OK, "", True  # silent for no reason: reported
        return code, details, streaming and reply is None

    async def _rightly_silent(self, request: Request) -> bool:
        """A stream that sent nothing: right only if it asked for what comes after now."""
        msg = request.decoded()
        table_id = getattr(msg, "table_id", None)
        after = getattr(msg, "after_version", None)
        if table_id is None or after is None:
            return False
        version = await self.version_of(table_id)
        return version is not None and after >= version
