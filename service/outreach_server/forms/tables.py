"""Tables of the forms area (migration revision 0004_billing)."""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from ..core.db import metadata

ORG_FK = "organizations.id"

forms = Table(
    "forms",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("source_id", String(200), nullable=False),
    Column("form_key", String(200), nullable=False),
    Column("display_name", String(200), nullable=True),
    Column("technical_form_id", String(200), nullable=True),
    Column("owner_id", String(100), nullable=True),
    Column("identity_state", String(64), nullable=True),
    Column("activation_health", String(64), nullable=True),
    Column("capture_health", String(64), nullable=True),
    Column("delivery_health", String(64), nullable=True),
    Column("recommended_action", Text, nullable=True),
    Column("last_destination_verified_at", BigInteger, nullable=True),
    Column("placement_count", Integer, nullable=False),
    Column("metrics", JSON, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    UniqueConstraint("org_id", "source_id", "form_key", name="uq_forms_org_id_source_id_form_key"),
)
