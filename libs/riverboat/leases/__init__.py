"""Table leases: which table-service instance owns each table.

One port (:class:`LeaseStore`, in :mod:`riverboat.leases.base`) with two adapters:
:class:`MemoryLeaseStore` for unit tests (time moved by hand) and :class:`JetStreamLeaseStore`
over a JetStream KV bucket (default ``RB_TABLE_OWNERS``). Both pass the same contract suite
(``tests/contract/leases.py``).
"""

from riverboat.leases.base import (
    Holder,
    Lease,
    LeaseChange,
    LeaseError,
    LeaseLost,
    LeaseStore,
    LeaseStoreUnavailable,
    LeaseTaken,
    LeaseWatch,
)
from riverboat.leases.jetstream import DEFAULT_BUCKET, JetStreamLeaseStore, owners_bucket
from riverboat.leases.memory import MemoryLeaseStore

__all__ = [
    "DEFAULT_BUCKET",
    "Holder",
    "JetStreamLeaseStore",
    "Lease",
    "LeaseChange",
    "LeaseError",
    "LeaseLost",
    "LeaseStore",
    "LeaseStoreUnavailable",
    "LeaseTaken",
    "LeaseWatch",
    "MemoryLeaseStore",
    "owners_bucket",
]
