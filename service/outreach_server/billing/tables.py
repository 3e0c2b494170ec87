"""Tables of the billing area (registered on db.metadata; migration revision 0004).

Credits (a balance per organisation and a signed ledger of every grant and charge) and
asynchronous email-verification jobs. The other tables of revision 0004 belong to their own
domains: enrichment, forms, feedback, signatures.
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
)

from ..core.db import metadata

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
