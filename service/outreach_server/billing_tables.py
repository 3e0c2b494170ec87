"""Tables of the billing area (registered on db.metadata; migration revision 0004).

Credits (a balance per organisation and a signed ledger of every grant and charge),
asynchronous email-verification jobs, enrichment waterfall configs and provider keys,
forms, feedback surveys and their triggers, mailboxes and their signature deployments.
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
    UniqueConstraint,
)

from .db import metadata

ORG_FK = "organizations.id"

credits = Table(
    "credits",
    metadata,
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), primary_key=True),
    Column("balance", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
)

# signed: a grant is positive, a charge negative; balance_after is the balance it left
credit_charges = Table(
    "credit_charges",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("operation", String(64), nullable=False),
    Column("units", Integer, nullable=False),  # contacts or addresses the entry is for
    Column("credits", BigInteger, nullable=False),
    Column("balance_after", BigInteger, nullable=False),
    Column("reference", String(64), nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_credit_charges_org_id_id", "org_id", "id"),
)

verification_jobs = Table(
    "verification_jobs",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("list_id", Integer, ForeignKey("lists.id", ondelete="CASCADE"), nullable=False),
    Column("status", String(16), nullable=False),  # queued, running, done
    Column("contacts_accepted", Integer, nullable=False),
    Column("addresses_accepted", Integer, nullable=False),
    Column("credits_charged", BigInteger, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("claimed_until", BigInteger, nullable=True),  # lease of the worker running it
    Column("finished_at", BigInteger, nullable=True),
    Index("ix_verification_jobs_status_id", "status", "id"),
)

# the contacts a job still has to verify; a row is deleted once its result is written
verification_job_items = Table(
    "verification_job_items",
    metadata,
    Column(
        "job_id",
        Integer,
        ForeignKey("verification_jobs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("contact_id", Integer, ForeignKey("contacts.id", ondelete="CASCADE"), primary_key=True),
)

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
