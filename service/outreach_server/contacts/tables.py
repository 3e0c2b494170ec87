"""Tables of the contacts area (registered on db.metadata; migration revision 0003).

- `companies`: the records of a companies list (custom values in `fields`, keyed by column_id).
- `ix_contacts_org_id_id` on contacts: listings and fetches page by id within an organisation.
- `list_memberships`: a contact's membership of lists other than its own (`contacts.list_id`),
  written by merge-filtered; one row per (list, contact), so a contact is never added twice.
- `custom_columns`: an organisation's custom column definitions, per entity (contact|company);
  values live in the `fields` JSON of contacts and companies under the column_id `cc_<id>`.
- `sequence_enrollments`: a contact's enrolments in sequences; withdrawing stamps withdrawn_at.
  At most one active enrolment per (org, contact, sequence).
- `profile_photos`: the allow-list of profile photos, LinkedIn URL (normalised) to photo URL.
- `api_key_lists`: narrows an API key to some lists (provisional): a key with rows here sees
  only the contacts of those lists (own list or membership); a key without rows sees the
  whole organisation. No foreign key on list_id: a deleted list narrows to nothing rather
  than widening the key.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    text,
)

from ..core.db import metadata
from ..core.tables import contacts

ENTITY_TYPES = ("contact", "company")

# An organisation's contacts in id order: every listing and fetch pages by id, so a filtered
# first page walks this index and stops after `limit` matches instead of sorting them all.
CONTACTS_BY_ORG = Index("ix_contacts_org_id_id", contacts.c.org_id, contacts.c.id)
CUSTOM_COLUMN_TYPES = ("text", "number")

companies = Table(
    "companies",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("list_id", Integer, ForeignKey("lists.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=False),
    Column("domain", String(253), nullable=True),
    Column("fields", JSON, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=True),
    Index("ix_companies_org_id_list_id", "org_id", "list_id"),
)

list_memberships = Table(
    "list_memberships",
    metadata,
    Column(
        "list_id",
        Integer,
        ForeignKey("lists.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "contact_id",
        Integer,
        ForeignKey("contacts.id", ondelete="CASCADE"),
        primary_key=True,
        index=True,  # visibility checks per contact, cascading deletes of contacts
    ),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("added_at", BigInteger, nullable=False),
)

custom_columns = Table(
    "custom_columns",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("entity_type", String(16), nullable=False),
    Column("name", String(200), nullable=False),
    Column("type", String(16), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index(
        "uq_custom_columns_org_id_entity_type_name", "org_id", "entity_type", "name", unique=True
    ),
)

sequence_enrollments = Table(
    "sequence_enrollments",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("sequence_id", Integer, nullable=False),
    Column(
        "contact_id",
        Integer,
        ForeignKey("contacts.id", ondelete="CASCADE"),
        nullable=False,
        index=True,  # cascading deletes of contacts
    ),
    Column("enrolled_at", BigInteger, nullable=False),
    Column("withdrawn_at", BigInteger, nullable=True),
)

# One active enrolment per (org, contact, sequence); also the index of a withdrawal
# (org_id, contact_id lead). SQLite uses a partial index only when the query repeats its
# WHERE term, which the withdrawal does.
ACTIVE_ENROLLMENT = Index(
    "uq_sequence_enrollments_active",
    sequence_enrollments.c.org_id,
    sequence_enrollments.c.contact_id,
    sequence_enrollments.c.sequence_id,
    unique=True,
    sqlite_where=text("withdrawn_at IS NULL"),
    postgresql_where=text("withdrawn_at IS NULL"),
)

profile_photos = Table(
    "profile_photos",
    metadata,
    Column("linkedin_url", String(500), primary_key=True),  # normalised (columns.py)
    Column("photo_url", String(2000), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)
