"""Tables of the app_platform area (registered on db.metadata; migration revision in migrations/versions)."""

from __future__ import annotations
