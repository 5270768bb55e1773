"""docs/api.md's grpcurl session, call for call, the way grpcurl makes them: by reflection.

grpcurl is not on every machine (``make setup`` does not install it), so this test plays its
part: it reads the session's commands from the doc, and for each one asks the service's
``grpc.reflection.v1`` for the method (the first reflection version grpcurl asks for), builds
the request from the command's JSON against the descriptors the server sent (no generated
stubs, no proto files), sends it with the command's ``authorization`` header and reads the
reply back as JSON. The shell around the calls is the doc's own: ``$(cat
var/operator.password)``, ``VAR=$(grpcurl ... | jq -r .token)`` and ``$VAR``. The room is the
docs' (``riverboat up --bots 1``: ``make run`` on free ports), so the doc's addresses are
mapped to its ports.

What must hold: every call is understood (the method exists, the JSON fits its request, the
token is accepted) and answered OK; ``Act`` is sent on the player's turn, as the doc says to,
and may be refused only by the game's rules (the doc's ``call`` is not always a legal move).
"""

from __future__ import annotations

import asyncio
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import grpc.aio
import pytest
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha import reflection_pb2

from tests import statuskit
from tests.e2e.test_docs_runnable import ROOT, docs_room

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

SECTION = "## A whole session with grpcurl"
#: The doc's addresses (make run's) -> the docs room's services.
PORTS = {"50051": "lobby", "50052": "table", "50053": "dealer", "50054": "settlement"}
REFLECTION = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"


@dataclass
class Command:
    """One grpcurl command of the doc: the variable it sets (``OP=$(... | jq -r .token)``)."""

    args: list[str]
    assign: tuple[str, str] | None  # (variable, reply field)


def session_commands(text: str) -> list[str]:
    """The ``$ `` commands of the first console block after :data:`SECTION`, continuation
    lines joined."""
    block = text[text.index(SECTION) :]
    body = block[block.index("```console") + len("```console") : block.index("\n```\n")]
    commands: list[str] = []
    for line in body.strip("\n").splitlines():
        if line.startswith("$ "):
            commands.append(line[2:])
        else:
            commands[-1] += "\n" + line
    return [c.replace("\\\n", " ") for c in commands]


def parse(command: str, variables: dict[str, str]) -> Command:
    """A command, its shell parts done: the variables and ``$(cat FILE)`` substituted."""
    assign = None
    wrapped = re.fullmatch(r"(\w+)=\$\((grpcurl .*) \| jq -r \.(\w+)\)", command, re.S)
    if wrapped:
        assign = (wrapped.group(1), wrapped.group(3))
        command = wrapped.group(2)
    for name, value in variables.items():
        command = command.replace(f"${name}", value)
    args = shlex.split(command)
    assert args[0] == "grpcurl", command
    return Command(args[1:], assign)


class Reflected:
    """The request and reply types of the methods a server describes by reflection."""

    def __init__(self) -> None:
        self.pool = descriptor_pool.DescriptorPool()

    async def method(self, channel: grpc.aio.Channel, name: str) -> Any:
        """``riverboat.v1.LobbyService/Register``'s method descriptor, asked of the server."""
        service, _, method = name.partition("/")
        try:
            return self.pool.FindServiceByName(service).methods_by_name[method]
        except KeyError:
            pass
        request = reflection_pb2.ServerReflectionRequest(file_containing_symbol=service)
        call = channel.stream_stream(REFLECTION, None, None)(iter([request.SerializeToString()]))
        [raw] = [reply async for reply in call]
        reply = reflection_pb2.ServerReflectionResponse.FromString(raw)
        files = [
            descriptor_pb2.FileDescriptorProto.FromString(b)
            for b in reply.file_descriptor_response.file_descriptor_proto
        ]
        while files:  # dependencies first, in whatever order the server sent them
            for proto in list(files):
                if all(self._known(dep) for dep in proto.dependency):
                    if not self._known(proto.name):
                        self.pool.Add(proto)
                    files.remove(proto)
        return self.pool.FindServiceByName(service).methods_by_name[method]

    def _known(self, name: str) -> bool:
        try:
            self.pool.FindFileByName(name)
        except KeyError:
            return False
        return True


async def grpcurl(
    reflected: Reflected, args: list[str], addresses: dict[str, str]
) -> tuple[dict[str, Any], grpc.aio.AioRpcError | None]:
    """What grpcurl does with ``args``: the (first) reply as JSON, or the error."""
    headers: list[tuple[str, str]] = []
    data = "{}"
    rest: list[str] = []
    words = iter(args)
    for word in words:
        if word == "-plaintext":
            continue
        if word == "-H":
            key, _, value = next(words).partition(": ")
            headers.append((key.lower(), value))
        elif word == "-d":
            data = next(words)
        else:
            rest.append(word)
    address, name = rest
    host, _, port = address.rpartition(":")
    assert host == "127.0.0.1", address
    async with grpc.aio.insecure_channel(addresses[PORTS[port]]) as channel:
        method = await reflected.method(channel, name)
        request = message_factory.GetMessageClass(method.input_type)()
        json_format.Parse(data, request)
        reply_type = message_factory.GetMessageClass(method.output_type)
        path = f"/{name}"
        raw: Any
        try:
            if method.server_streaming:
                call = channel.unary_stream(path, None, None)(
                    request.SerializeToString(), metadata=headers, timeout=30
                )
                raw = await call.read()
                call.cancel()
            else:
                raw = await channel.unary_unary(path, None, None)(
                    request.SerializeToString(), metadata=headers, timeout=30
                )
        except grpc.aio.AioRpcError as exc:
            return {}, exc
        assert isinstance(raw, bytes), raw  # not EOF: the stream sent its first message
        reply = json_format.MessageToDict(reply_type.FromString(raw))
        return reply, None


async def _my_turn(
    reflected: Reflected, watch: list[str], addresses: dict[str, str], seat: int
) -> dict[str, Any]:
    """The table's view once it is ``seat``'s turn (Watch again until it is)."""
    deadline = asyncio.get_running_loop().time() + 120
    while True:
        reply, error = await grpcurl(reflected, watch, addresses)
        assert error is None, error
        view: dict[str, Any] = reply.get("view", {})
        if view.get("toAct") == seat:
            return view
        assert asyncio.get_running_loop().time() < deadline, f"never seat {seat}'s turn: {view}"
        await asyncio.sleep(0.2)


async def test_the_grpcurl_session_of_api_md_runs_through_reflection(tmp_path: Path) -> None:
    commands = session_commands((ROOT / "docs" / "api.md").read_text())
    assert len(commands) == 9, commands
    reflected = Reflected()
    with docs_room(tmp_path / "checkout") as room:
        password = (room.home / "var" / "operator.password").read_text().strip()
        variables = {"(cat var/operator.password)": password}
        seat = 0
        for text in commands:
            command = parse(text, variables)
            if command.args[-1].endswith("/Act"):
                watch = parse(commands[commands.index(text) - 1], variables).args
                view = await _my_turn(reflected, watch, room.addresses, seat)
                data = command.args[command.args.index("-d") + 1]
                data = data.replace("<hand_id from the view>", view["handId"])
                command.args[command.args.index("-d") + 1] = data.replace(
                    '"seat": 2', f'"seat": {seat}'
                )
            reply, error = await grpcurl(reflected, command.args, room.addresses)
            if error is not None and command.args[-1].endswith("/Act"):
                # A move the rules refuse (not the call itself): a reason of the game's.
                assert error.code() == grpc.StatusCode.FAILED_PRECONDITION, error
                assert statuskit.reason(error) not in ("NOT_YOUR_SEAT", "NO_HAND"), error
                continue
            assert error is None, f"{text}: {error}"
            if command.assign is not None:
                name, field = command.assign
                variables = {f"{name}": reply[field], **variables}
            if command.args[-1].endswith("/JoinTable"):
                seat = int(reply["seat"])
