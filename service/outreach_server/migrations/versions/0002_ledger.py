"""suppression ledger

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "suppressions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.Column("channel", sa.String(length=16), nullable=False),
        sa.Column("category", sa.String(length=24), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("created_by", sa.String(length=64), nullable=False),
        sa.Column("cleared_at", sa.BigInteger(), nullable=True),
        sa.Column("cleared_by", sa.String(length=64), nullable=True),
        sa.CheckConstraint(
            "channel IN ('all', 'email', 'phone', 'linkedin')", name="ck_suppressions_channel"
        ),
        sa.CheckConstraint(
            "category IN ('contact_initiated', 'org_initiated', 'system')",
            name="ck_suppressions_category",
        ),
        sa.ForeignKeyConstraint(
            ["contact_id"],
            ["contacts.id"],
            name=op.f("fk_suppressions_contact_id_contacts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_suppressions_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_suppressions")),
    )
    with op.batch_alter_table("suppressions", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_suppressions_contact_id"), ["contact_id"], unique=False
        )
        batch_op.create_index(
            "uq_suppressions_active_key",
            ["org_id", "contact_id", "channel", "category"],
            unique=True,
            sqlite_where=sa.text("active = 1"),
            postgresql_where=sa.text("active"),
        )
        batch_op.create_index(
            "ix_suppressions_org_id_id_active",
            ["org_id", "id"],
            unique=False,
            sqlite_where=sa.text("active = 1"),
            postgresql_where=sa.text("active"),
        )


def downgrade() -> None:
    with op.batch_alter_table("suppressions", schema=None) as batch_op:
        batch_op.drop_index("ix_suppressions_org_id_id_active")
        batch_op.drop_index("uq_suppressions_active_key")
        batch_op.drop_index(batch_op.f("ix_suppressions_contact_id"))

    op.drop_table("suppressions")
