"""The suppression ledger: the one store every send path and every suppression endpoint reads.

The public face of the `ledger` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    ContactNotFound,
    SuppressionLedger,
)
from .tables import (
    CHANNELS,
    suppressions,
)

__all__ = [
    "CHANNELS",
    "ContactNotFound",
    "SuppressionLedger",
    "suppressions",
]
