"""Forms and their operational overview; a form key is unique only within its source."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from outreach_api.models import FormOverview
from sqlalchemy import bindparam, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.db import Reader
from .tables import forms

FORM_BY_KEY = select(forms).where(
    forms.c.org_id == bindparam("org_id"),
    forms.c.source_id == bindparam("source_id"),
    forms.c.form_key == bindparam("form_key"),
)
OVERVIEW_FIELDS = (
    "form_key",
    "source_id",
    "display_name",
    "technical_form_id",
    "owner_id",
    "identity_state",
    "activation_health",
    "capture_health",
    "delivery_health",
    "recommended_action",
    "placement_count",
    "metrics",
)


def overview(row: Mapping[str, Any]) -> FormOverview:
    verified = row["last_destination_verified_at"]
    return FormOverview.model_validate(
        {
            **{name: row[name] for name in OVERVIEW_FIELDS},
            "last_destination_verified_at": None
            if verified is None
            # the model keeps a timestamp's text as written (docs/models.md): RFC 3339, UTC
            else datetime.fromtimestamp(int(verified), UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }
    )


async def find_overview(
    reader: Reader, org_id: int, source_id: str, form_key: str
) -> FormOverview | None:
    row = await reader.one(FORM_BY_KEY, org_id=org_id, source_id=source_id, form_key=form_key)
    return None if row is None else overview(row)


async def create_form(
    engine: AsyncEngine, *, org_id: int, source_id: str, form_key: str, **fields: Any
) -> int:
    """A form; `fields` are optional overview columns (metrics defaults to {}, counts to 0)."""
    values = {"placement_count": 0, "metrics": {}, **fields}
    async with engine.begin() as connection:
        result = await connection.execute(
            insert(forms)
            .values(
                org_id=org_id,
                source_id=source_id,
                form_key=form_key,
                created_at=int(time.time()),
                **values,
            )
            .returning(forms.c.id)
        )
        return int(result.scalar_one())
