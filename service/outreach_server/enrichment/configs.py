"""Waterfall enrichment configs and the organisation's provider keys (BYOK readiness).

A config's steps are stored as a JSON list of {provider, credential_source}; a system step
uses the system key (charges credits) and is always ready; a BYOK step is ready only while
the organisation has an active key for its provider, and is skipped at run time otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from outreach_api.models import CredentialSource, ProviderDetail, WaterfallConfig
from sqlalchemy import bindparam, insert, or_, select, true
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.db import Reader
from .tables import provider_keys, waterfall_configs

SYSTEM, BYOK = CredentialSource.SYSTEM.value, CredentialSource.BYOK.value

CONFIGS_FOR_LIST = (
    select(waterfall_configs)
    .where(
        waterfall_configs.c.org_id == bindparam("org_id"),
        or_(
            waterfall_configs.c.list_id == bindparam("list_id"),
            waterfall_configs.c.is_global == true(),
        ),
    )
    .order_by(waterfall_configs.c.id)
)
ACTIVE_PROVIDERS = (
    select(provider_keys.c.provider)
    .where(provider_keys.c.org_id == bindparam("org_id"), provider_keys.c.active == true())
    .distinct()
)


def describe(row: Mapping[str, Any], active_providers: set[str]) -> WaterfallConfig:
    """The API form of a stored config, with readiness computed from the active keys."""
    steps: Sequence[Mapping[str, Any]] = row["steps"] or []
    details = [
        ProviderDetail(
            provider=str(step["provider"]),
            is_system_provider=step["credential_source"] == SYSTEM,
            credential_source=CredentialSource(step["credential_source"]),
            credential_ready=step["credential_source"] == SYSTEM
            or str(step["provider"]) in active_providers,
        )
        for step in steps
    ]
    missing = [d.provider for d in details if not d.credential_ready]
    return WaterfallConfig(
        name=row["name"],
        column_id=row["column_id"],
        list_id=row["list_id"],
        is_global=bool(row["is_global"]),
        is_active=bool(row["is_active"]),
        data_type=row["data_type"],
        field_to_enrich=row["field_to_enrich"],
        step_count=len(details),
        providers=_unique(d.provider for d in details),
        missing_credentials=_unique(missing),
        providers_detail=details,
    )


def _unique(values: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(values))


async def configs_for_list(reader: Reader, org_id: int, list_id: int) -> list[WaterfallConfig]:
    rows = await reader.all(CONFIGS_FOR_LIST, org_id=org_id, list_id=list_id)
    active = {str(r["provider"]) for r in await reader.all(ACTIVE_PROVIDERS, org_id=org_id)}
    return [describe(row, active) for row in rows]


def parse_step(spec: str) -> dict[str, str]:
    """`provider:system` or `provider:byok` as a stored step."""
    provider, _, source = spec.rpartition(":")
    provider = provider.strip().lower()
    if not provider or source not in (SYSTEM, BYOK):
        raise ValueError(f"step {spec!r} is not provider:system or provider:byok")
    return {"provider": provider, "credential_source": source}


async def create_config(
    engine: AsyncEngine,
    *,
    org_id: int,
    name: str,
    column_id: str,
    list_id: int | None,
    is_global: bool,
    steps: Sequence[Mapping[str, str]],
    is_active: bool = True,
    data_type: str | None = None,
    field_to_enrich: str | None = None,
) -> int:
    async with engine.begin() as connection:
        result = await connection.execute(
            insert(waterfall_configs)
            .values(
                org_id=org_id,
                name=name,
                column_id=column_id,
                list_id=list_id,
                is_global=is_global,
                is_active=is_active,
                data_type=data_type,
                field_to_enrich=field_to_enrich,
                steps=[dict(step) for step in steps],
                created_at=int(time.time()),
            )
            .returning(waterfall_configs.c.id)
        )
        return int(result.scalar_one())


async def add_provider_key(engine: AsyncEngine, *, org_id: int, provider: str, active: bool) -> int:
    async with engine.begin() as connection:
        result = await connection.execute(
            insert(provider_keys)
            .values(
                org_id=org_id,
                provider=provider.strip().lower(),
                active=active,
                created_at=int(time.time()),
            )
            .returning(provider_keys.c.id)
        )
        return int(result.scalar_one())
