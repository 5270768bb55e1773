"""The auditor's tools: prove every deck, action, pot and rake from the raw streams.

``riverboat audit export`` copies the streams into a portable archive
(:mod:`riverboat.audit.archive`); ``riverboat audit`` verifies an archive or the live streams
(:func:`verify_archive`) and reports by table and hand (:class:`AuditReport`). What is checked,
and the file formats, are in ``docs/audit.md``.
"""

from riverboat.audit.archive import (
    Archive,
    ArchiveError,
    Manifest,
    StoredMessage,
    StreamEntry,
    read_archive,
    write_archive,
)
from riverboat.audit.report import (
    AuditReport,
    Check,
    EventRef,
    HandResult,
    HandStatus,
    TableResult,
    Violation,
)
from riverboat.audit.verify import verify_archive

__all__ = [
    "Archive",
    "ArchiveError",
    "AuditReport",
    "Check",
    "EventRef",
    "HandResult",
    "HandStatus",
    "Manifest",
    "StoredMessage",
    "StreamEntry",
    "TableResult",
    "Violation",
    "read_archive",
    "verify_archive",
    "write_archive",
]
