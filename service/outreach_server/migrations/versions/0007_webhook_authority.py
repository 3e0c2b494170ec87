"""webhook authority: the agency that set a webhook's URL, and the webhooks:manage scope

Revision ID: 0007
Revises: 0006

Keys that held every scope there was (contacts:read, contacts:write, enrichment:run: the
default of `admin create-key` and of the API) are granted `webhooks:manage`, so they keep
managing webhooks; every other key lacks it until it is given (spec/DECISIONS.md row 130).
"""

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

EVERY_SCOPE_BEFORE = "contacts:read contacts:write enrichment:run"


def upgrade() -> None:
    with op.batch_alter_table("webhooks") as batch:
        batch.add_column(sa.Column("agency_org_id", sa.Integer(), nullable=True))
    # scopes are stored sorted and space-separated; webhooks:manage sorts last
    op.execute(
        sa.text(
            "UPDATE api_keys SET scopes = scopes || ' webhooks:manage' WHERE scopes = :every"
        ).bindparams(every=EVERY_SCOPE_BEFORE)
    )


def downgrade() -> None:
    op.execute(
        sa.text("UPDATE api_keys SET scopes = :every WHERE scopes = :granted").bindparams(
            every=EVERY_SCOPE_BEFORE, granted=EVERY_SCOPE_BEFORE + " webhooks:manage"
        )
    )
    with op.batch_alter_table("webhooks") as batch:
        batch.drop_column("agency_org_id")
