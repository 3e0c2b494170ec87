"""Every table of the service: importing this module registers them all on `db.metadata`."""

from . import (
    app_platform_tables,
    billing_tables,
    contacts_tables,
    ledger_tables,
    webhooks_tables,
)
from .db import metadata

__all__ = [
    "app_platform_tables",
    "billing_tables",
    "contacts_tables",
    "ledger_tables",
    "metadata",
    "webhooks_tables",
]
