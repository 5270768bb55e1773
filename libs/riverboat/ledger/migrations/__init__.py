"""Alembic environment and versions of the ledger schema (run them via riverboat.ledger.migrate)."""
