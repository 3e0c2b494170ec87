"""Feedback surveys and their automated-send triggers; a trigger belongs to one survey."""

from __future__ import annotations

import time
import uuid

from sqlalchemy import bindparam, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.db import Reader
from .tables import survey_triggers, surveys

SURVEY_IN_ORG = select(surveys.c.id).where(
    surveys.c.id == bindparam("survey_id"), surveys.c.org_id == bindparam("org_id")
)


def canonical_uuid(value: str) -> str | None:
    """The stored form of a survey id (lowercase, hyphenated), or None when not a UUID."""
    try:
        return str(uuid.UUID(value))
    except ValueError:
        return None


async def survey_exists(reader: Reader, org_id: int, survey_id: str) -> bool:
    return await reader.one(SURVEY_IN_ORG, survey_id=survey_id, org_id=org_id) is not None


async def delete_trigger(engine: AsyncEngine, org_id: int, survey_id: str, trigger_id: str) -> bool:
    """Delete a trigger of the survey; False when the survey has no such trigger."""
    async with engine.begin() as connection:
        result = await connection.execute(
            delete(survey_triggers).where(
                survey_triggers.c.id == trigger_id,
                survey_triggers.c.survey_id == survey_id,
                survey_triggers.c.org_id == org_id,
            )
        )
        return int(result.rowcount) == 1


async def create_survey(engine: AsyncEngine, *, org_id: int, name: str | None) -> str:
    survey_id = str(uuid.uuid4())
    async with engine.begin() as connection:
        await connection.execute(
            insert(surveys).values(
                id=survey_id, org_id=org_id, name=name, created_at=int(time.time())
            )
        )
    return survey_id


async def create_trigger(engine: AsyncEngine, *, org_id: int, survey_id: str) -> str | None:
    """A new trigger of the survey (None when the organisation has no such survey)."""
    trigger_id = str(uuid.uuid4())
    async with engine.begin() as connection:
        survey = await connection.execute(
            select(surveys.c.id).where(surveys.c.id == survey_id, surveys.c.org_id == org_id)
        )
        if survey.first() is None:
            return None
        await connection.execute(
            insert(survey_triggers).values(
                id=trigger_id, survey_id=survey_id, org_id=org_id, created_at=int(time.time())
            )
        )
    return trigger_id
