"""Every table of the service: importing this module registers them all on `core.db.metadata`
(each domain package imports its `tables` module)."""

from . import (
    app_platform,
    billing,
    contacts,
    enrichment,
    feedback,
    forms,
    keys,
    ledger,
    orgs,
    signatures,
    webhooks,
)
from .core import tables as core_tables
from .core.db import metadata

DOMAINS = (
    app_platform,
    billing,
    contacts,
    enrichment,
    feedback,
    forms,
    keys,
    ledger,
    orgs,
    signatures,
    webhooks,
)

__all__ = ["DOMAINS", "core_tables", "metadata"]
