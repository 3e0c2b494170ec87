"""Tables of the webhooks area (registered on db.metadata; migration revision in migrations/versions).

Times in these tables are integer Unix **milliseconds** (UTC): the retry schedule is scaled
down to fractions of a second in tests and benchmarks, and the delivery listing orders by
them.

- `webhooks`: one subscription; `secret_encrypted` is the signing secret encrypted with the
  server key (core/secrets.py), never returned after creation.
- `webhook_events`: the transactional outbox, one row per published event (payload as given).
- `webhook_deliveries`: one row per delivery attempt of an event to a webhook. A pending row
  is a scheduled (or leased, in-flight) attempt: `next_attempt_at` is when it is due, pushed
  forward by a worker's claim (the lease) and `lease_token` names the claim. `attempts` is the
  number of attempts made for the (event, webhook) pair as of this row: ordinal - 1 while
  pending, the ordinal once the row is success or failed.
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
)

from ..core.db import metadata

webhooks = Table(
    "webhooks",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("name", String(200), nullable=True),
    Column("url", Text, nullable=False),
    Column("events", JSON, nullable=False),  # list of event kinds
    Column("is_active", Boolean, nullable=False),
    Column("secret_encrypted", Text, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("updated_at", BigInteger, nullable=False),
    # the agency whose key set the URL (None: the organisation's own key): such a webhook
    # delivers only while the agency is linked (revision 0007). No foreign key: an agency
    # organisation deleted must not turn the value into None, "the organisation's own"
    Column("agency_org_id", Integer, nullable=True),
    Index("ix_webhooks_org_id_created_at", "org_id", "created_at"),
)

webhook_events = Table(
    "webhook_events",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(64), nullable=False),
    Column("payload", JSON, nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Index("ix_webhook_events_org_id_created_at", "org_id", "created_at"),
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(40), primary_key=True),
    Column("org_id", Integer, ForeignKey("organizations.id", ondelete="CASCADE"), nullable=False),
    Column("webhook_id", String(40), ForeignKey("webhooks.id", ondelete="CASCADE"), nullable=False),
    Column(
        "event_id",
        String(40),
        ForeignKey("webhook_events.id", ondelete="CASCADE"),
        nullable=False,
        index=True,
    ),
    Column("event", String(64), nullable=False),
    Column("status", String(16), nullable=False),
    Column("attempts", Integer, nullable=False),
    Column("max_attempts", Integer, nullable=False),
    Column("response_code", Integer, nullable=True),
    Column("error_message", Text, nullable=True),
    Column("created_at", BigInteger, nullable=False),
    Column("completed_at", BigInteger, nullable=True),
    Column("next_attempt_at", BigInteger, nullable=False),
    Column("lease_token", String(32), nullable=True),
    # the listing of one webhook's deliveries, newest first
    Index("ix_webhook_deliveries_webhook_id_created_at", "webhook_id", "created_at"),
    # the workers' claim: due pending rows
    Index("ix_webhook_deliveries_status_next_attempt_at", "status", "next_attempt_at"),
)
