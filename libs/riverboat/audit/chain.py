"""The hash chain and numbering of one table's log: name the exact event where it breaks.

Every stored event carries ``previous_hash``, the SHA-256 of the deterministic serialization of
the event stored before it on the table's subject (the genesis hash, 32 zero bytes, for the
first). Walking the stored order, each event either links to its predecessor or it does not;
when it does not, where its ``previous_hash`` points tells what happened:

* to a later event, and a later stored event links to this one's predecessor: two blocks of
  events (two events, or two messages) were swapped;
* to a later event otherwise: it is stored before an event it follows (moved or reordered);
* to an earlier, non-adjacent event: the events in between were inserted or moved there;
* to no stored event: if its version/index follows its predecessor's, the predecessor was
  altered (it no longer hashes to what was recorded); otherwise events were removed.

Versions must run 1, 2, 3... (one per message, the ``Rb-Version`` header agreeing with the
envelopes) and indices 0, 1, 2... within a message.
"""

from __future__ import annotations

from collections import Counter

from riverboat.audit.report import Check, EventRef, Violation
from riverboat.audit.tablelog import LoggedEvent, LoggedMessage
from riverboat.eventchain import GENESIS_HASH

__all__ = ["check_chain"]


def check_chain(table_id: str, log: list[LoggedMessage]) -> tuple[list[Violation], bytes]:
    """Violations of the chain and numbering, and the hash of the last stored event (the chain
    head an operator can publish, and an auditor compare)."""
    numbering = _numbering(table_id, log)
    events = [e for m in log for e in m.events]
    last_in_batch = {id(m.events[-1]) for m in log if m.events}
    links = _links(table_id, events, last_in_batch)
    # A removed message shows twice (a version gap and a dangling link): report it once, at the
    # event whose link dangles, with the gap in the same sentence.
    gaps = {v.at.stream_sequence: v for v in numbering if _is_gap(v) and v.at is not None}
    dangling = {
        v.at.stream_sequence for v in links if v.check == Check.EVENT_REMOVED and v.at is not None
    }
    problems = [
        v
        for v in numbering
        if not (_is_gap(v) and v.at is not None and v.at.stream_sequence in dangling)
    ]
    for v in links:
        gap = gaps.get(v.at.stream_sequence) if v.at is not None else None
        if gap is not None and v.check == Check.EVENT_REMOVED:
            v = Violation(v.check, f"{gap.message}; {v.message}", v.table_id, v.hand_id, v.at)
        problems.append(v)
    head = events[-1].hash if events else GENESIS_HASH
    return problems, head


def _is_gap(v: Violation) -> bool:
    return v.check == Check.EVENT_REMOVED and v.at is not None and v.at.index is None


def _numbering(table_id: str, log: list[LoggedMessage]) -> list[Violation]:
    problems = []
    present = Counter(m.version for m in log)
    last = 0
    for m in log:
        versions = {e.envelope.aggregate_version for e in m.events}
        if versions != {m.version}:
            problems.append(
                Violation(
                    Check.VERSIONS,
                    f"header Rb-Version {m.version} but the envelopes say "
                    f"{sorted(versions) or 'nothing (empty batch)'}",
                    table_id=table_id,
                    at=m.ref,
                )
            )
        if m.version > last + 1:
            # Versions skipped here but stored later are a reordering, reported there.
            missing = [v for v in range(last + 1, m.version) if v not in present]
            if missing:
                what = (
                    f"version {missing[0]}"
                    if len(missing) == 1
                    else f"versions {missing[0]}..{missing[-1]}"
                )
                problems.append(
                    Violation(
                        Check.EVENT_REMOVED,
                        f"{what} missing: the log jumps from v{last} to v{m.version}",
                        table_id=table_id,
                        at=m.ref,
                    )
                )
        elif m.version <= last:
            twice = present[m.version] > 1
            problems.append(
                Violation(
                    Check.EVENTS_REORDERED if not twice else Check.VERSIONS,
                    f"v{m.version} stored twice" if twice else f"v{m.version} stored after v{last}",
                    table_id=table_id,
                    at=m.ref,
                )
            )
        last = max(last, m.version)
        for index, e in enumerate(m.events):
            if e.envelope.index != index:
                check = Check.EVENT_REMOVED if e.envelope.index > index else Check.VERSIONS
                problems.append(
                    Violation(
                        check,
                        f"stored as event {index} of its message but numbered "
                        f"{e.envelope.index}"
                        + (" (events before it are missing)" if e.envelope.index > index else ""),
                        table_id=table_id,
                        at=e.ref,
                    )
                )
            if e.envelope.aggregate_id != table_id:
                problems.append(
                    Violation(
                        Check.VERSIONS,
                        f"envelope names table {e.envelope.aggregate_id!r}",
                        table_id=table_id,
                        at=e.ref,
                    )
                )
    return problems


def _follows(before: LoggedEvent, after: LoggedEvent, before_is_last: bool) -> bool:
    """Whether ``after``'s (version, index) is the one right after ``before``'s."""
    b, a = before.envelope, after.envelope
    if a.aggregate_version == b.aggregate_version:
        return a.index == b.index + 1
    return before_is_last and a.aggregate_version == b.aggregate_version + 1 and a.index == 0


def _swap_point(events: list[LoggedEvent], i: int, j: int, expected: bytes) -> int | None:
    """If the events stored at ``i``.. are a block swapped with the block ending at ``j`` (which
    ``events[i]`` chains to), where that second block starts; else None."""
    for k in range(i + 1, j + 1):
        if events[k].envelope.previous_hash == expected:
            return k
    return None


def _links(table_id: str, events: list[LoggedEvent], last_in_batch: set[int]) -> list[Violation]:
    problems: list[Violation] = []
    position = {e.hash: i for i, e in enumerate(events)}
    explained: set[int] = set()
    n = len(events)

    def report(check: Check, message: str, at: EventRef) -> None:
        problems.append(Violation(check, message, table_id=table_id, at=at))

    for i, e in enumerate(events):
        expected = events[i - 1].hash if i else GENESIS_HASH
        linked_to = e.envelope.previous_hash
        if linked_to == expected or i in explained:
            continue
        j = position.get(linked_to)
        if j is None and linked_to == GENESIS_HASH:
            j = -1  # it claims to be the first event of the log
        k = _swap_point(events, i, j, expected) if j is not None and j > i else None
        if k is not None and j is not None:
            # Stored: a block i..k-1, then a block k..j that the chain puts before it.
            first, second = k - i, j - k + 1
            report(
                Check.EVENTS_REORDERED,
                f"swapped with {events[k].ref}: the chain puts the {second} event(s) stored from "
                f"there before the {first} stored from here",
                e.ref,
            )
            explained.add(k)
            if j + 1 < n and events[j + 1].envelope.previous_hash == events[k - 1].hash:
                explained.add(j + 1)
        elif j is not None and j > i:
            report(
                Check.EVENTS_REORDERED,
                f"stored before {events[j].ref}, which its hash chain says comes before it",
                e.ref,
            )
        elif j == -1:
            report(
                Check.EVENTS_REORDERED,
                "chains to the genesis hash: it was the log's first event, stored here",
                e.ref,
            )
        elif j is not None:
            skipped = i - j - 1
            report(
                Check.HASH_CHAIN,
                f"chains to {events[j].ref}, skipping the {skipped} event(s) stored between "
                f"them (from {events[j + 1].ref}): those were inserted or moved",
                e.ref,
            )
        elif i > 0 and _follows(events[i - 1], e, id(events[i - 1]) in last_in_batch):
            before = events[i - 1]
            report(
                Check.EVENT_ALTERED,
                f"its content changed: it hashes to {before.hash.hex()[:16]}..., but the next "
                f"event, {e.ref}, recorded {linked_to.hex()[:16]}...",
                before.ref,
            )
        else:
            what = "the log's first event(s)" if i == 0 else f"event(s) after {events[i - 1].ref}"
            report(
                Check.EVENT_REMOVED,
                f"{what} missing: this event chains to {linked_to.hex()[:16]}..., which is no "
                "stored event",
                e.ref,
            )
    return problems
