"""contacts, companies, lists, columns, sequences

Revision ID: 0003
Revises: 0002
"""

from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

CONTACT_COLUMNS: list[tuple[str, sa.types.TypeEngine[Any]]] = [
    ("phone", sa.String(length=64)),
    ("linkedin_url", sa.String(length=500)),
    ("job_title", sa.String(length=200)),
    ("company_id", sa.Integer()),
    ("email_status", sa.String(length=32)),
    ("email_checked_at", sa.BigInteger()),
    ("unlocked_at", sa.BigInteger()),
    ("updated_at", sa.BigInteger()),
]


def _org_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["org_id"],
        ["organizations.id"],
        name=op.f(f"fk_{table}_org_id_organizations"),
        ondelete="CASCADE",
    )


def upgrade() -> None:
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        for name, type_ in CONTACT_COLUMNS:
            batch_op.add_column(sa.Column(name, type_, nullable=True))
    op.create_index("ix_contacts_org_id_id", "contacts", ["org_id", "id"])

    op.create_table(
        "companies",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("domain", sa.String(length=253), nullable=True),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["list_id"], ["lists.id"], name=op.f("fk_companies_list_id_lists"), ondelete="CASCADE"
        ),
        _org_fk("companies"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_companies")),
    )
    op.create_index("ix_companies_org_id_list_id", "companies", ["org_id", "list_id"])

    op.create_table(
        "list_memberships",
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("added_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["contact_id"],
            ["contacts.id"],
            name=op.f("fk_list_memberships_contact_id_contacts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["lists.id"],
            name=op.f("fk_list_memberships_list_id_lists"),
            ondelete="CASCADE",
        ),
        _org_fk("list_memberships"),
        sa.PrimaryKeyConstraint("list_id", "contact_id", name=op.f("pk_list_memberships")),
    )
    op.create_index(op.f("ix_list_memberships_contact_id"), "list_memberships", ["contact_id"])

    op.create_table(
        "custom_columns",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("entity_type", sa.String(length=16), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("type", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        _org_fk("custom_columns"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_custom_columns")),
    )
    op.create_index(
        "uq_custom_columns_org_id_entity_type_name",
        "custom_columns",
        ["org_id", "entity_type", "name"],
        unique=True,
    )

    op.create_table(
        "sequence_enrollments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("sequence_id", sa.Integer(), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("enrolled_at", sa.BigInteger(), nullable=False),
        sa.Column("withdrawn_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["contact_id"],
            ["contacts.id"],
            name=op.f("fk_sequence_enrollments_contact_id_contacts"),
            ondelete="CASCADE",
        ),
        _org_fk("sequence_enrollments"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sequence_enrollments")),
    )
    op.create_index(
        op.f("ix_sequence_enrollments_contact_id"), "sequence_enrollments", ["contact_id"]
    )
    op.create_index(
        "uq_sequence_enrollments_active",
        "sequence_enrollments",
        ["org_id", "contact_id", "sequence_id"],
        unique=True,
        sqlite_where=sa.text("withdrawn_at IS NULL"),
        postgresql_where=sa.text("withdrawn_at IS NULL"),
    )

    op.create_table(
        "profile_photos",
        sa.Column("linkedin_url", sa.String(length=500), nullable=False),
        sa.Column("photo_url", sa.String(length=2000), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("linkedin_url", name=op.f("pk_profile_photos")),
    )

    op.create_table(
        "api_key_lists",
        sa.Column("api_key_id", sa.String(length=40), nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["api_key_id"],
            ["api_keys.id"],
            name=op.f("fk_api_key_lists_api_key_id_api_keys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("api_key_id", "list_id", name=op.f("pk_api_key_lists")),
    )


def downgrade() -> None:
    op.drop_table("api_key_lists")
    op.drop_table("profile_photos")
    op.drop_index("uq_sequence_enrollments_active", table_name="sequence_enrollments")
    op.drop_index(op.f("ix_sequence_enrollments_contact_id"), table_name="sequence_enrollments")
    op.drop_table("sequence_enrollments")
    op.drop_index("uq_custom_columns_org_id_entity_type_name", table_name="custom_columns")
    op.drop_table("custom_columns")
    op.drop_index(op.f("ix_list_memberships_contact_id"), table_name="list_memberships")
    op.drop_table("list_memberships")
    op.drop_index("ix_companies_org_id_list_id", table_name="companies")
    op.drop_table("companies")
    op.drop_index("ix_contacts_org_id_id", table_name="contacts")
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        for name, _ in reversed(CONTACT_COLUMNS):
            batch_op.drop_column(name)
