"""The audit archive: a portable copy of the raw stored messages (``docs/audit.md``).

An archive is a gzip-compressed JSON Lines file. Line 1 is the manifest, then one line per
stored message (stream, sequence, subject, server time, headers, payload in base64) in stream
order, then a trailer with the message count and the SHA-256 of the message lines. The payload
bytes are exactly what the stream holds, so everything the audit checks (hash chains included)
is checked on the original bytes.

The trailer's digest protects against truncation and accidental damage in transit; it is not a
signature (anyone who edits the file can recompute it). Tamper evidence comes from the events'
own hash chain, checked by the audit.
"""

from __future__ import annotations

import base64
import binascii
import gc
import gzip
import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal, NamedTuple, Protocol

FORMAT: Final = "riverboat.audit-archive/1"

StreamRole = Literal["tables", "seeds", "wallets"]

#: Headers the server adds when a message is read back; the archive keeps them as fields.
SERVER_HEADERS: Final = frozenset(
    {
        "Nats-Stream",
        "Nats-Subject",
        "Nats-Sequence",
        "Nats-Time-Stamp",
        "Nats-Last-Sequence",
        "Nats-Num-Pending",
    }
)


class ByteSink(Protocol):
    """Anything bytes can be written to (a file, a gzip stream)."""

    def write(self, data: bytes, /) -> object:
        """Write ``data``."""


class ArchiveError(ValueError):
    """The file is not a readable audit archive (wrong format, not gzip, bad JSON)."""


class StoredMessage(NamedTuple):
    """One message as the stream stores it (a tuple: archives hold millions, and tables are
    shipped to worker processes, so construction and pickling must be cheap).

    Attributes:
        stream: the stream's name.
        sequence: its stream sequence.
        subject: the subject it was published on.
        time: when the server stored it (RFC 3339, UTC), or ``""`` if unknown.
        headers: the headers it was published with.
        data: the payload bytes.
    """

    stream: str
    sequence: int
    subject: str
    time: str
    headers: dict[str, str]
    data: bytes


@dataclass(frozen=True, slots=True)
class StreamEntry:
    """One stream in the archive.

    Attributes:
        role: ``tables`` (the table logs), ``seeds`` (the dealer's revealed seeds) or
            ``wallets`` (the settlement service's wallet logs, for the ledger comparison).
        name: the stream's name.
        subject_prefix: table ``t1``'s log is ``<prefix>.t1``; a hand's seed is
            ``<prefix>.<table>.<hand>``.
        first_seq, last_seq: the stream's sequence range when it was exported (0, 0 if empty).
        messages: how many messages the stream held.
    """

    role: StreamRole
    name: str
    subject_prefix: str
    first_seq: int
    last_seq: int
    messages: int


@dataclass(frozen=True, slots=True)
class Manifest:
    """What the archive holds and where it came from."""

    streams: tuple[StreamEntry, ...]
    source: str = ""
    exported_at: str = field(
        default_factory=lambda: datetime.now(UTC).isoformat(timespec="seconds")
    )
    format: str = FORMAT

    def stream(self, role: StreamRole) -> StreamEntry | None:
        """The stream playing ``role``, if archived."""
        return next((s for s in self.streams if s.role == role), None)


@dataclass(slots=True)
class Archive:
    """A manifest and the messages, in stream order; ``problems`` lists what reading found
    wrong with the file itself (a missing trailer, a digest that does not match)."""

    manifest: Manifest
    messages: list[StoredMessage]
    problems: list[str] = field(default_factory=list)

    def of_stream(self, role: StreamRole) -> list[StoredMessage]:
        """The messages of the stream playing ``role``."""
        entry = self.manifest.stream(role)
        if entry is None:
            return []
        return [m for m in self.messages if m.stream == entry.name]


# --- writing -----------------------------------------------------------------------------------


def _dump(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=True).encode("ascii") + b"\n"


def message_line(message: StoredMessage) -> bytes:
    """One message as an archive line (newline included)."""
    return _dump(
        {
            "stream": message.stream,
            "seq": message.sequence,
            "subject": message.subject,
            "time": message.time,
            "headers": message.headers,
            "data": base64.b64encode(message.data).decode("ascii"),
        }
    )


def _manifest_line(manifest: Manifest) -> bytes:
    return _dump(
        {
            "format": manifest.format,
            "exported_at": manifest.exported_at,
            "source": manifest.source,
            "streams": [
                {
                    "role": s.role,
                    "name": s.name,
                    "subject_prefix": s.subject_prefix,
                    "first_seq": s.first_seq,
                    "last_seq": s.last_seq,
                    "messages": s.messages,
                }
                for s in manifest.streams
            ],
        }
    )


def write_lines(out: ByteSink, manifest: Manifest, messages: Iterable[StoredMessage]) -> int:
    """Write an archive's lines (uncompressed) to ``out``; returns the number of messages."""
    out.write(_manifest_line(manifest))
    digest = hashlib.sha256()
    count = 0
    for message in messages:
        line = message_line(message)
        digest.update(line)
        out.write(line)
        count += 1
    out.write(_dump({"end": {"messages": count, "sha256": digest.hexdigest()}}))
    return count


def write_archive(path: Path, archive: Archive) -> int:
    """Write ``archive`` to ``path`` (gzip); returns the number of messages written."""
    # mtime=0: the same messages always give the same bytes.
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as out:
        return write_lines(out, archive.manifest, archive.messages)


# --- reading -----------------------------------------------------------------------------------


def _manifest(obj: dict[str, Any]) -> Manifest:
    if obj.get("format") != FORMAT:
        raise ArchiveError(f"not a {FORMAT} archive (format {obj.get('format')!r})")
    streams = []
    for s in obj.get("streams", []):
        role = s["role"]
        if role not in ("tables", "seeds", "wallets"):
            raise ArchiveError(f"unknown stream role {role!r}")
        streams.append(
            StreamEntry(
                role=role,
                name=str(s["name"]),
                subject_prefix=str(s["subject_prefix"]),
                first_seq=int(s["first_seq"]),
                last_seq=int(s["last_seq"]),
                messages=int(s["messages"]),
            )
        )
    return Manifest(
        streams=tuple(streams),
        source=str(obj.get("source", "")),
        exported_at=str(obj.get("exported_at", "")),
    )


def _message(obj: dict[str, Any]) -> StoredMessage:
    headers = obj.get("headers") or {}
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise ValueError("headers must be an object of strings")
    return StoredMessage(
        str(obj["stream"]),
        int(obj["seq"]),
        str(obj["subject"]),
        str(obj.get("time", "")),
        headers,
        base64.b64decode(obj["data"], validate=True),
    )


@dataclass(slots=True)
class RawArchive:
    """An archive's manifest and its message lines, not yet parsed (``lines[k]`` is file line
    ``k + 2``); ``problems`` as in :class:`Archive`."""

    manifest: Manifest
    lines: list[bytes]
    problems: list[str] = field(default_factory=list)


def scan_lines(lines: Iterator[bytes]) -> RawArchive:
    """Split an archive's (uncompressed) lines into manifest, message lines and trailer, and
    check the trailer's count and digest."""
    try:
        first = next(lines)
    except StopIteration:
        raise ArchiveError("the archive is empty") from None
    try:
        manifest = _manifest(json.loads(first))
    except (ValueError, KeyError, TypeError) as exc:
        raise ArchiveError(f"unreadable manifest: {exc}") from None
    raw = RawArchive(manifest, [])
    digest = hashlib.sha256()
    trailer: Any = None
    for number, line in enumerate(lines, start=2):
        if not line.strip():
            continue
        if trailer is not None:
            raw.problems.append(f"line {number}: data after the trailer")
            break
        if line.lstrip().startswith(b'{"end"'):
            try:
                trailer = json.loads(line)["end"]
            except (ValueError, KeyError, TypeError):
                trailer = {}
                raw.problems.append(f"line {number}: unreadable trailer")
            continue
        raw.lines.append(line)
        digest.update(line)
    if trailer is None:
        raw.problems.append("no trailer: the archive is truncated")
    else:
        count = trailer.get("messages") if isinstance(trailer, dict) else None
        if count != len(raw.lines):
            raw.problems.append(
                f"the trailer counts {count} messages, the file holds {len(raw.lines)}"
            )
        if not isinstance(trailer, dict) or trailer.get("sha256") != digest.hexdigest():
            raw.problems.append("the message lines do not match the trailer's SHA-256")
    return raw


def parse_message(line: bytes) -> StoredMessage:
    """One message line.

    Raises:
        ValueError: the line is not a message (bad JSON, a field missing or mistyped).
    """
    try:
        obj = json.loads(line)
        return _message(obj)
    except (KeyError, TypeError, binascii.Error) as exc:
        raise ValueError(str(exc)) from None


def parse_lines(lines: Iterator[bytes]) -> Archive:
    """An archive from its (uncompressed) lines."""
    raw = scan_lines(lines)
    archive = Archive(raw.manifest, [], raw.problems)
    for number, line in enumerate(raw.lines, start=2):
        try:
            archive.messages.append(parse_message(line))
        except ValueError as exc:
            archive.problems.append(f"message line {number}: unreadable ({exc})")
    return archive


def _open_lines(path: Path) -> Iterator[bytes]:
    with gzip.open(path, "rb") as f:
        yield from f


def read_archive(path: Path) -> Archive:
    """Read an archive file (see the module docstring)."""
    was = gc.isenabled()
    gc.disable()  # many small objects, no cycles: collections would only re-scan them
    try:
        return parse_lines(_open_lines(path))
    except (OSError, EOFError) as exc:  # gzip.BadGzipFile is an OSError
        raise ArchiveError(f"{path}: {exc}") from None
    finally:
        if was:
            gc.enable()


def read_raw_archive(path: Path) -> RawArchive:
    """Read an archive file's lines without parsing the messages (see :class:`RawArchive`)."""
    was = gc.isenabled()
    gc.disable()  # as in read_archive
    try:
        return scan_lines(_open_lines(path))
    except (OSError, EOFError) as exc:
        raise ArchiveError(f"{path}: {exc}") from None
    finally:
        if was:
            gc.enable()
