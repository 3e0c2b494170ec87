"""credits, verification jobs, enrichment configs, provider keys, forms, surveys, signatures

Revision ID: 0004
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "credit_charges",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("operation", sa.String(length=64), nullable=False),
        sa.Column("units", sa.Integer(), nullable=False),
        sa.Column("credits", sa.BigInteger(), nullable=False),
        sa.Column("balance_after", sa.BigInteger(), nullable=False),
        sa.Column("reference", sa.String(length=64), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_credit_charges_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_credit_charges")),
    )
    with op.batch_alter_table("credit_charges", schema=None) as batch_op:
        batch_op.create_index("ix_credit_charges_org_id_id", ["org_id", "id"], unique=False)

    op.create_table(
        "credits",
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_credits_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("org_id", name=op.f("pk_credits")),
    )
    op.create_table(
        "forms",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("source_id", sa.String(length=200), nullable=False),
        sa.Column("form_key", sa.String(length=200), nullable=False),
        sa.Column("display_name", sa.String(length=200), nullable=True),
        sa.Column("technical_form_id", sa.String(length=200), nullable=True),
        sa.Column("owner_id", sa.String(length=100), nullable=True),
        sa.Column("identity_state", sa.String(length=64), nullable=True),
        sa.Column("activation_health", sa.String(length=64), nullable=True),
        sa.Column("capture_health", sa.String(length=64), nullable=True),
        sa.Column("delivery_health", sa.String(length=64), nullable=True),
        sa.Column("recommended_action", sa.Text(), nullable=True),
        sa.Column("last_destination_verified_at", sa.BigInteger(), nullable=True),
        sa.Column("placement_count", sa.Integer(), nullable=False),
        sa.Column("metrics", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_forms_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forms")),
        sa.UniqueConstraint(
            "org_id", "source_id", "form_key", name="uq_forms_org_id_source_id_form_key"
        ),
    )
    op.create_table(
        "mailboxes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("updated_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_mailboxes_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_mailboxes")),
    )
    with op.batch_alter_table("mailboxes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mailboxes_org_id"), ["org_id"], unique=False)

    op.create_table(
        "provider_keys",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("provider", sa.String(length=100), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_provider_keys_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_provider_keys")),
    )
    with op.batch_alter_table("provider_keys", schema=None) as batch_op:
        batch_op.create_index(
            "ix_provider_keys_org_id_provider", ["org_id", "provider"], unique=False
        )

    op.create_table(
        "surveys",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=True),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_surveys_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_surveys")),
    )
    with op.batch_alter_table("surveys", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_surveys_org_id"), ["org_id"], unique=False)

    op.create_table(
        "signature_deployments",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("mailbox_id", sa.Integer(), nullable=False),
        sa.Column("revision", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["mailbox_id"],
            ["mailboxes.id"],
            name=op.f("fk_signature_deployments_mailbox_id_mailboxes"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_signature_deployments_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signature_deployments")),
    )
    with op.batch_alter_table("signature_deployments", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_signature_deployments_mailbox_id"), ["mailbox_id"], unique=False
        )

    op.create_table(
        "survey_triggers",
        sa.Column("id", sa.String(length=36), nullable=False),
        sa.Column("survey_id", sa.String(length=36), nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_survey_triggers_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["survey_id"],
            ["surveys.id"],
            name=op.f("fk_survey_triggers_survey_id_surveys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_survey_triggers")),
    )
    with op.batch_alter_table("survey_triggers", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_survey_triggers_survey_id"), ["survey_id"], unique=False
        )

    op.create_table(
        "verification_jobs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("contacts_accepted", sa.Integer(), nullable=False),
        sa.Column("addresses_accepted", sa.Integer(), nullable=False),
        sa.Column("credits_charged", sa.BigInteger(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.Column("claimed_until", sa.BigInteger(), nullable=True),
        sa.Column("finished_at", sa.BigInteger(), nullable=True),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["lists.id"],
            name=op.f("fk_verification_jobs_list_id_lists"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_verification_jobs_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_verification_jobs")),
    )
    with op.batch_alter_table("verification_jobs", schema=None) as batch_op:
        batch_op.create_index("ix_verification_jobs_status_id", ["status", "id"], unique=False)

    op.create_table(
        "waterfall_configs",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("org_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("column_id", sa.String(length=200), nullable=False),
        sa.Column("list_id", sa.Integer(), nullable=True),
        sa.Column("is_global", sa.Boolean(), nullable=False),
        sa.Column("is_active", sa.Boolean(), nullable=False),
        sa.Column("data_type", sa.String(length=64), nullable=True),
        sa.Column("field_to_enrich", sa.String(length=200), nullable=True),
        sa.Column("steps", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["list_id"],
            ["lists.id"],
            name=op.f("fk_waterfall_configs_list_id_lists"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["org_id"],
            ["organizations.id"],
            name=op.f("fk_waterfall_configs_org_id_organizations"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_waterfall_configs")),
    )
    with op.batch_alter_table("waterfall_configs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_waterfall_configs_org_id_list_id", ["org_id", "list_id"], unique=False
        )

    op.create_table(
        "verification_job_items",
        sa.Column("job_id", sa.Integer(), nullable=False),
        sa.Column("contact_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["contact_id"],
            ["contacts.id"],
            name=op.f("fk_verification_job_items_contact_id_contacts"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["job_id"],
            ["verification_jobs.id"],
            name=op.f("fk_verification_job_items_job_id_verification_jobs"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("job_id", "contact_id", name=op.f("pk_verification_job_items")),
    )


def downgrade() -> None:
    op.drop_table("verification_job_items")
    with op.batch_alter_table("waterfall_configs", schema=None) as batch_op:
        batch_op.drop_index("ix_waterfall_configs_org_id_list_id")

    op.drop_table("waterfall_configs")
    with op.batch_alter_table("verification_jobs", schema=None) as batch_op:
        batch_op.drop_index("ix_verification_jobs_status_id")

    op.drop_table("verification_jobs")
    with op.batch_alter_table("survey_triggers", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_survey_triggers_survey_id"))

    op.drop_table("survey_triggers")
    with op.batch_alter_table("signature_deployments", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_signature_deployments_mailbox_id"))

    op.drop_table("signature_deployments")
    with op.batch_alter_table("surveys", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_surveys_org_id"))

    op.drop_table("surveys")
    with op.batch_alter_table("provider_keys", schema=None) as batch_op:
        batch_op.drop_index("ix_provider_keys_org_id_provider")

    op.drop_table("provider_keys")
    with op.batch_alter_table("mailboxes", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_mailboxes_org_id"))

    op.drop_table("mailboxes")
    op.drop_table("forms")
    op.drop_table("credits")
    with op.batch_alter_table("credit_charges", schema=None) as batch_op:
        batch_op.drop_index("ix_credit_charges_org_id_id")

    op.drop_table("credit_charges")
