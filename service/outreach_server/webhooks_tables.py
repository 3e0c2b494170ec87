"""Tables of the webhooks area (registered on db.metadata; migration revision in migrations/versions)."""

from __future__ import annotations
