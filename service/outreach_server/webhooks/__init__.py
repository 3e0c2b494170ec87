"""Webhook subscriptions, the transactional outbox of events, and the delivery worker.

The public face of the `webhooks` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .delivery import (
    DeliveryWorker,
)
from .outbox import (
    EVENT_KINDS,
    publish_event,
)
from .signature import sign, verify_signature
from .store import end_agency_webhooks, insert_webhook
from .tables import (
    webhooks,
)

__all__ = [
    "EVENT_KINDS",
    "DeliveryWorker",
    "end_agency_webhooks",
    "insert_webhook",
    "publish_event",
    "sign",
    "verify_signature",
    "webhooks",
]
