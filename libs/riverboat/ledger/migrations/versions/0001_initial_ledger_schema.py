"""Initial ledger schema: accounts, balanced postings, processed events, read models.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Time = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("name", sa.String(300), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("player", sa.String(128), nullable=True),
        sa.Column("table_id", sa.String(128), nullable=True),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_accounts")),
        sa.UniqueConstraint("name", name=op.f("uq_accounts_name")),
    )
    op.create_index(op.f("ix_accounts_kind"), "accounts", ["kind"])
    op.create_index(op.f("ix_accounts_player"), "accounts", ["player"])
    op.create_table(
        "postings",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("kind", sa.String(32), nullable=False),
        sa.Column("reference", sa.String(300), nullable=False),
        sa.Column("table_id", sa.String(128), nullable=True),
        sa.Column("hand_id", sa.String(128), nullable=True),
        sa.Column("occurred_at", Time, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_postings")),
        sa.UniqueConstraint("key", name=op.f("uq_postings_key")),
    )
    op.create_table(
        "posting_lines",
        sa.Column("id", BigId, autoincrement=True, nullable=False),
        sa.Column("posting_id", BigId, nullable=False),
        sa.Column("account_id", BigId, nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("amount <> 0", name=op.f("ck_posting_lines_nonzero")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["accounts.id"], name=op.f("fk_posting_lines_account_id_accounts")
        ),
        sa.ForeignKeyConstraint(
            ["posting_id"], ["postings.id"], name=op.f("fk_posting_lines_posting_id_postings")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_posting_lines")),
    )
    op.create_index("ix_posting_lines_account_id_id", "posting_lines", ["account_id", "id"])
    op.create_index(op.f("ix_posting_lines_posting_id"), "posting_lines", ["posting_id"])
    op.create_table(
        "processed_events",
        sa.Column("key", sa.String(300), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("aggregate_id", sa.String(128), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.Column("processed_at", Time, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_processed_events")),
    )
    op.create_table(
        "positions",
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("aggregate_id", sa.String(128), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("source", "aggregate_id", name=op.f("pk_positions")),
    )
    op.create_table(
        "tables",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("current_hand_id", sa.String(128), nullable=True),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_tables")),
    )
    op.create_table(
        "table_seats",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("player", sa.String(128), nullable=False),
        sa.Column("stack", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seat", name=op.f("pk_table_seats")),
    )
    op.create_table(
        "hands",
        sa.Column("table_id", sa.String(128), nullable=False),
        sa.Column("hand_id", sa.String(128), nullable=False),
        sa.Column("variant", sa.String(64), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("started_at", Time, nullable=False),
        sa.Column("ended_at", Time, nullable=True),
        sa.Column("day", sa.String(10), nullable=True),
        sa.Column("rake", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "hand_id", name=op.f("pk_hands")),
    )
    op.create_index(op.f("ix_hands_day"), "hands", ["day"])
    op.create_table(
        "wallets",
        sa.Column("player", sa.String(128), nullable=False),
        sa.Column("wallet_id", sa.String(128), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("version", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("player", name=op.f("pk_wallets")),
        sa.UniqueConstraint("wallet_id", name=op.f("uq_wallets_wallet_id")),
    )


def downgrade() -> None:
    op.drop_table("wallets")
    op.drop_index(op.f("ix_hands_day"), table_name="hands")
    op.drop_table("hands")
    op.drop_table("table_seats")
    op.drop_table("tables")
    op.drop_table("positions")
    op.drop_table("processed_events")
    op.drop_index(op.f("ix_posting_lines_posting_id"), table_name="posting_lines")
    op.drop_index("ix_posting_lines_account_id_id", table_name="posting_lines")
    op.drop_table("posting_lines")
    op.drop_table("postings")
    op.drop_index(op.f("ix_accounts_player"), table_name="accounts")
    op.drop_index(op.f("ix_accounts_kind"), table_name="accounts")
    op.drop_table("accounts")
