"""Tables of the enrichment area (migration revision 0004_billing): waterfall configs and the
organisation's provider keys.
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
)

from ..core.db import metadata

ORG_FK = "organizations.id"

waterfall_configs = Table(
    "waterfall_configs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("column_id", String(200), nullable=False),
    Column("list_id", Integer, ForeignKey("lists.id", ondelete="CASCADE"), nullable=True),
    Column("is_global", Boolean, nullable=False),
    Column("is_active", Boolean, nullable=False),
    Column("data_type", String(64), nullable=True),
    Column("field_to_enrich", String(200), nullable=True),
    Column("steps", JSON, nullable=False),  # [{"provider": ..., "credential_source": ...}]
    Column("created_at", BigInteger, nullable=False),
    Index("ix_waterfall_configs_org_id_list_id", "org_id", "list_id"),
)


provider_keys = Table(
    "provider_keys",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("provider", String(100), nullable=False),
    Column("active", Boolean, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_provider_keys_org_id_provider", "org_id", "provider"),
)
