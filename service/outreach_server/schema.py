"""Every table of the service: importing this module registers them all on `db.metadata`."""

from . import billing_tables, contacts_tables, ledger_tables
from .db import metadata

__all__ = ["billing_tables", "contacts_tables", "ledger_tables", "metadata"]
