"""Tables of the ledger area (registered on db.metadata; migration revision in migrations/versions).

`suppressions` is the suppression ledger: one row per suppression, scoped by organisation,
holding no personal data (a contact id, a channel, a category and who/when). A row is active
until cleared; cleared rows stay as history. The database itself keeps at most one active row
per (org, contact, channel, category): a unique index restricted to active rows.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    text,
)

from ..core.db import metadata

CHANNELS = ("all", "email", "phone", "linkedin")
CATEGORIES = ("contact_initiated", "org_initiated", "system")

suppressions = Table(
    "suppressions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column(
        "contact_id",
        Integer,
        ForeignKey("contacts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,  # cascading deletes of contacts, a contact's history
    ),
    Column("channel", String(16), nullable=False),
    Column("category", String(24), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("created_by", String(64), nullable=False),  # API key id, "operator" or "system"
    Column("cleared_at", BigInteger, nullable=True),
    Column("cleared_by", String(64), nullable=True),
    CheckConstraint(
        "channel IN ('all', 'email', 'phone', 'linkedin')", name="ck_suppressions_channel"
    ),
    CheckConstraint(
        "category IN ('contact_initiated', 'org_initiated', 'system')",
        name="ck_suppressions_category",
    ),
)

# The predicate of the partial indexes, spelled as each dialect renders `suppressions.c.active`
# in a query (SQLite uses a partial index only when the query repeats its WHERE term).
ACTIVE_SQLITE = text("active = 1")
ACTIVE_POSTGRESQL = text("active")

# At most one active row per (org, contact, channel, category); also the index of the
# send-path check and of a contact's status (org_id, contact_id lead; channel is inside).
ACTIVE_KEY = Index(
    "uq_suppressions_active_key",
    suppressions.c.org_id,
    suppressions.c.contact_id,
    suppressions.c.channel,
    suppressions.c.category,
    unique=True,
    sqlite_where=ACTIVE_SQLITE,
    postgresql_where=ACTIVE_POSTGRESQL,
)

# The listing: an organisation's active rows in id order (filters on channel and category
# are applied while walking it).
ACTIVE_LISTING = Index(
    "ix_suppressions_org_id_id_active",
    suppressions.c.org_id,
    suppressions.c.id,
    sqlite_where=ACTIVE_SQLITE,
    postgresql_where=ACTIVE_POSTGRESQL,
)

ACTIVE_KEY_COLUMNS = ("org_id", "contact_id", "channel", "category")
