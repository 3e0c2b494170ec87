"""Organisations, agency links and feature flags.

The public face of the `orgs` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    OrgStore,
)

__all__ = [
    "OrgStore",
]
