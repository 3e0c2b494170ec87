"""The tables every domain joins on (migration revision 0001_core): organisations, their
agency links and feature flags, API keys, lists and contacts.

Every row that belongs to an organisation carries `org_id`, and every query of the service
filters on it. Times are integer Unix seconds (UTC).
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from .db import metadata

organizations = Table(
    "organizations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(200), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)


agency_links = Table(
    "agency_links",
    metadata,
    Column(
        "agency_org_id",
        Integer,
        ForeignKey("organizations.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True),
)


feature_flags = Table(
    "feature_flags",
    metadata,
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), primary_key=True),
    Column("flag", String(100), primary_key=True),
)


api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(40), primary_key=True),
    Column(
        "org_id",
        Integer,
        ForeignKey("organizations.id", ondelete="SET NULL"),
        nullable=True,
        index=True,
    ),
    Column("name", String(200), nullable=False),
    Column("mode", String(8), nullable=False),
    Column("token_hash", String(64), nullable=False, unique=True),
    Column("tier", String(16), nullable=False),
    Column("scopes", Text, nullable=False),  # space-separated
    Column("is_agency", Boolean, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("last_used_at", BigInteger, nullable=True),
    Column("expires_at", BigInteger, nullable=True),
    Column("revoked_at", BigInteger, nullable=True),
)


lists = Table(
    "lists",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("type", String(16), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_lists_org_id_id", "org_id", "id"),
)


contacts = Table(
    "contacts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("list_id", Integer, ForeignKey("lists.id", ondelete="CASCADE"), nullable=False),
    Column("email", String(320), nullable=True),
    Column("first_name", String(200), nullable=True),
    Column("last_name", String(200), nullable=True),
    Column("company_name", String(200), nullable=True),
    Column("owner_id", String(100), nullable=True),
    Column("fields", JSON, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    # withheld until unlocked (POST /contacts/unlock-info sets unlocked_at)
    Column("phone", String(64), nullable=True),
    Column("linkedin_url", String(500), nullable=True),
    Column("job_title", String(200), nullable=True),
    Column("company_id", Integer, nullable=True),
    # deliverability, written back by verification
    Column("email_status", String(32), nullable=True),
    Column("email_checked_at", BigInteger, nullable=True),
    Column("unlocked_at", BigInteger, nullable=True),
    Column("updated_at", BigInteger, nullable=True),
    Index("ix_contacts_org_id_list_id", "org_id", "list_id"),
)


async def lock_organization(connection: AsyncConnection, org_id: int) -> None:
    """Serialise the caller's transaction with others on the same organisation (a per-organisation
    bound counted then written: keys, verification jobs): a no-op UPDATE of its row, a row lock on
    PostgreSQL; on SQLite it takes the database's write lock first, so the reads that follow in
    the transaction see every earlier commit."""
    await connection.execute(
        update(organizations).where(organizations.c.id == org_id).values(id=organizations.c.id)
    )
