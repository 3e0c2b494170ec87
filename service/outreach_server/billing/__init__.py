"""Credits, and the paid contact operations: email verification and unlocking withheld fields.

The public face of the `billing` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .balances import (
    ADDRESS_CHECK_CREDITS,
    InsufficientCredits,
    charge,
    ensure_affordable,
    grant,
)
from .deliverability import (
    verify_address,
)
from .tables import (
    credits,
)
from .verification import (
    VerificationWorker,
)

__all__ = [
    "ADDRESS_CHECK_CREDITS",
    "InsufficientCredits",
    "VerificationWorker",
    "charge",
    "credits",
    "ensure_affordable",
    "grant",
    "verify_address",
]
