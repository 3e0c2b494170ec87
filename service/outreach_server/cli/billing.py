"""Operator commands of the billing area, added to `outreach-server admin`.

Each prints one JSON object naming what it created: credits, waterfall configs, provider
keys, forms, surveys and their triggers, mailboxes.
"""

from __future__ import annotations

import json
from typing import Any

import click
from sqlalchemy import select

from ..billing import grant
from ..contacts import storable
from ..core.tables import lists
from ..enrichment import add_provider_key, create_config, parse_step
from ..feedback import canonical_uuid, create_survey, create_trigger
from ..forms import create_form
from ..runtime.services import Services
from ..signatures import create_mailbox
from .common import ORG_ID, database_option, run

org_option = click.option("--org-id", type=ORG_ID, required=True)


async def _require_org(services: Services, org_id: int) -> None:
    if not await services.orgs.exists(org_id):
        raise click.ClickException(f"no organisation {org_id}")


async def _require_list(services: Services, org_id: int, list_id: int) -> None:
    async with services.engine.connect() as connection:
        found = await connection.execute(
            select(lists.c.id).where(lists.c.id == list_id, lists.c.org_id == org_id)
        )
        if not storable(list_id) or found.first() is None:
            raise click.ClickException(f"no list {list_id} in organisation {org_id}")


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""

    @admin.command("add-credits")
    @org_option
    @click.option("--amount", type=click.IntRange(min=1), required=True)
    @database_option
    def add_credits(org_id: int, amount: int, database_url: str | None) -> None:
        """Add credits to an organisation's balance: {"credit_entry_id", "org_id", "balance"}."""

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            async with services.engine.begin() as connection:
                entry_id, balance = await grant(connection, org_id, amount)
            return {"credit_entry_id": entry_id, "org_id": org_id, "balance": balance}

        run(database_url, action)

    @admin.command("create-waterfall-config")
    @org_option
    @click.option("--name", required=True)
    @click.option("--column-id", required=True)
    @click.option("--list-id", type=int, default=None, help="The list the config belongs to.")
    @click.option("--global", "is_global", is_flag=True, help="Apply to every list.")
    @click.option(
        "--step",
        "steps",
        multiple=True,
        required=True,
        help="provider:system or provider:byok, in order (repeatable).",
    )
    @click.option("--data-type", default=None)
    @click.option("--field-to-enrich", default=None)
    @click.option("--inactive", is_flag=True)
    @database_option
    def create_waterfall_config(
        org_id: int,
        name: str,
        column_id: str,
        list_id: int | None,
        is_global: bool,
        steps: tuple[str, ...],
        data_type: str | None,
        field_to_enrich: str | None,
        inactive: bool,
        database_url: str | None,
    ) -> None:
        """A waterfall enrichment config: {"config_id"}."""
        try:
            parsed = [parse_step(step) for step in steps]
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--step") from None
        if list_id is None and not is_global:
            raise click.UsageError("give --list-id, --global, or both")

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            if list_id is not None:
                await _require_list(services, org_id, list_id)
            config_id = await create_config(
                services.engine,
                org_id=org_id,
                name=name,
                column_id=column_id,
                list_id=list_id,
                is_global=is_global,
                steps=parsed,
                is_active=not inactive,
                data_type=data_type,
                field_to_enrich=field_to_enrich,
            )
            return {"config_id": config_id}

        run(database_url, action)

    @admin.command("add-provider-key")
    @org_option
    @click.option("--provider", required=True)
    @click.option("--inactive", is_flag=True, help="Record the key as inactive.")
    @database_option
    def add_provider_key_command(
        org_id: int, provider: str, inactive: bool, database_url: str | None
    ) -> None:
        """An organisation's own key for an enrichment provider (BYOK): {"provider_key_id"}."""
        if not provider.strip():
            raise click.BadParameter("must not be empty", param_hint="--provider")

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            key_id = await add_provider_key(
                services.engine, org_id=org_id, provider=provider, active=not inactive
            )
            return {"provider_key_id": key_id}

        run(database_url, action)

    @admin.command("create-form")
    @org_option
    @click.option("--source-id", required=True)
    @click.option("--form-key", required=True)
    @click.option("--display-name", default=None)
    @click.option("--technical-form-id", default=None)
    @click.option("--owner-id", default=None)
    @click.option("--placement-count", type=click.IntRange(min=0), default=0)
    @click.option("--metrics", default=None, help="A JSON object.")
    @database_option
    def create_form_command(
        org_id: int,
        source_id: str,
        form_key: str,
        display_name: str | None,
        technical_form_id: str | None,
        owner_id: str | None,
        placement_count: int,
        metrics: str | None,
        database_url: str | None,
    ) -> None:
        """A form of a source: {"form_id"} (form keys are unique only within a source)."""
        parsed_metrics = json.loads(metrics) if metrics else {}
        if not isinstance(parsed_metrics, dict):
            raise click.BadParameter("must be a JSON object", param_hint="--metrics")

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            form_id = await create_form(
                services.engine,
                org_id=org_id,
                source_id=source_id,
                form_key=form_key,
                display_name=display_name,
                technical_form_id=technical_form_id,
                owner_id=owner_id,
                placement_count=placement_count,
                metrics=parsed_metrics,
            )
            return {"form_id": form_id}

        run(database_url, action)

    @admin.command("create-survey")
    @org_option
    @click.option("--name", default=None)
    @database_option
    def create_survey_command(org_id: int, name: str | None, database_url: str | None) -> None:
        """A feedback survey: {"survey_id"} (a UUID)."""

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            return {"survey_id": await create_survey(services.engine, org_id=org_id, name=name)}

        run(database_url, action)

    @admin.command("create-survey-trigger")
    @org_option
    @click.option("--survey-id", required=True)
    @database_option
    def create_survey_trigger(org_id: int, survey_id: str, database_url: str | None) -> None:
        """An automated-send trigger of a survey: {"trigger_id", "survey_id"}."""
        survey = canonical_uuid(survey_id)
        if survey is None:
            raise click.BadParameter("must be a UUID", param_hint="--survey-id")

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            trigger_id = await create_trigger(services.engine, org_id=org_id, survey_id=survey)
            if trigger_id is None:
                raise click.ClickException(f"no survey {survey} in organisation {org_id}")
            return {"trigger_id": trigger_id, "survey_id": survey}

        run(database_url, action)

    @admin.command("create-mailbox")
    @org_option
    @click.option("--email", required=True)
    @database_option
    def create_mailbox_command(org_id: int, email: str, database_url: str | None) -> None:
        """A mailbox with a signature at revision 1: {"mailbox_id", "revision"}."""

        async def action(services: Services) -> dict[str, Any]:
            await _require_org(services, org_id)
            mailbox_id, revision = await create_mailbox(services.engine, org_id=org_id, email=email)
            return {"mailbox_id": mailbox_id, "revision": revision}

        run(database_url, action)
