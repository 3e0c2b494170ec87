"""Mailboxes, their signature revision and deployments.

The public face of the `signatures` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    create_mailbox,
)
from .tables import (
    mailboxes,
)

__all__ = [
    "create_mailbox",
    "mailboxes",
]
