"""Tables of the keys area (migration revision 0003_contacts).

`api_key_lists` narrows an API key to some lists (provisional): a key with rows here sees
only the contacts of those lists (own list or membership); a key without rows sees the
whole organisation. No foreign key on list_id: a deleted list narrows to nothing rather
than widening the key.
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    ForeignKey,
    Integer,
    String,
    Table,
)

from ..core.db import metadata

api_key_lists = Table(
    "api_key_lists",
    metadata,
    Column(
        "api_key_id",
        String(40),
        ForeignKey("api_keys.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("list_id", Integer, primary_key=True),
)
