"""Tables of the feedback area (migration revision 0004_billing): surveys and their triggers."""

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

surveys = Table(
    "surveys",
    metadata,
    Column("id", String(36), primary_key=True),  # a UUID, canonical lowercase form
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False, index=True),
    Column("name", String(200), nullable=True),
    Column("created_at", BigInteger, nullable=False),
)


survey_triggers = Table(
    "survey_triggers",
    metadata,
    Column("id", String(36), primary_key=True),
    Column(
        "survey_id",
        String(36),
        ForeignKey("surveys.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)
