"""app-platform apps, installations, credentials and signing keys

Revision ID: 0006
Revises: 0005
"""

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "apps",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_apps")),
    )
    op.create_table(
        "app_signing_keys",
        sa.Column("kid", sa.String(length=64), nullable=False),
        sa.Column("alg", sa.String(length=16), nullable=False),
        sa.Column("public_jwk", sa.Text(), nullable=False),
        sa.Column("private_jwk", sa.Text(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("kid", name=op.f("pk_app_signing_keys")),
    )
    op.create_table(
        "app_installations",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("app_id", sa.String(length=40), nullable=False),
        sa.Column("consented_at", sa.BigInteger(), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["app_id"],
            ["apps.id"],
            name=op.f("fk_app_installations_app_id_apps"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_app_installations_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_app_installations")),
        sa.UniqueConstraint("org_id", "app_id", name="uq_app_installations_org_id_app_id"),
    )
    op.create_table(
        "app_credentials",
        sa.Column("client_id", sa.String(length=64), nullable=False),
        sa.Column("secret_hash", sa.String(length=64), nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("app_id", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("revoked_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["app_id"],
            ["apps.id"],
            name=op.f("fk_app_credentials_app_id_apps"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_app_credentials_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("client_id", name=op.f("pk_app_credentials")),
    )
    with op.batch_alter_table("app_credentials", schema=None) as batch_op:
        batch_op.create_index(
            "ix_app_credentials_org_id_app_id", ["org_id", "app_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("app_credentials", schema=None) as batch_op:
        batch_op.drop_index("ix_app_credentials_org_id_app_id")

    op.drop_table("app_credentials")
    op.drop_table("app_installations")
    op.drop_table("app_signing_keys")
    op.drop_table("apps")
