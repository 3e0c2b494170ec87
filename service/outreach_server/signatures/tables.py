"""Tables of the signatures area (migration revision 0004_billing): mailboxes and their
signature deployments.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
)

from ..core.db import metadata

ORG_FK = "organizations.id"

mailboxes = Table(
    "mailboxes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False, index=True),
    Column("email", String(320), nullable=False),
    Column("revision", Integer, nullable=False),  # the optimistic-concurrency token
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=True),
)


signature_deployments = Table(
    "signature_deployments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column(
        "mailbox_id",
        Integer,
        ForeignKey("mailboxes.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("revision", Integer, nullable=False),
    Column("status", String(16), nullable=False),  # queued (the compile/install worker: not shown)
    Column("created_at", BigInteger, nullable=False),
)
