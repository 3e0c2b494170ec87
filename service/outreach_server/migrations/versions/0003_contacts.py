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


def upgrade() -> None:
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        for name, type_ in CONTACT_COLUMNS:
            batch_op.add_column(sa.Column(name, type_, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("contacts", schema=None) as batch_op:
        for name, _ in reversed(CONTACT_COLUMNS):
            batch_op.drop_column(name)
