"""Operator commands of the contacts area, added to `outreach-server admin`.

Each prints one JSON object naming what it created: lists, contacts (withheld fields
included, still locked), companies, custom columns, allow-listed profile photos, sequence
enrolments, and the lists an API key is narrowed to.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import click

from ..contacts import CUSTOM_COLUMN_TYPES, ENTITY_TYPES
from ..core.errors import ApiError
from .common import ORG_ID, database_option, run

Action = Callable[[Any], Awaitable[dict[str, Any]]]


def _guarded(action: Action) -> Action:
    """Domain refusals (unknown list, wrong type, ...) become a clean CLI error, exit 1."""

    async def guarded(services: Any) -> dict[str, Any]:
        try:
            return await action(services)
        except ApiError as error:
            raise click.ClickException(error.detail) from None

    return guarded


async def _require_org(services: Any, org_id: int) -> None:
    if not await services.orgs.exists(org_id):
        raise click.ClickException(f"no organisation {org_id}")


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""
    from .. import contacts as writes
    from ..contacts import LIST_TYPES

    @admin.command("create-list")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--name", required=True)
    @click.option("--type", "list_type", type=click.Choice(LIST_TYPES), default="contacts")
    @database_option
    def create_list(org_id: int, name: str, list_type: str, database_url: str | None) -> None:
        """Create a list: {"list_id", "type"}."""

        async def action(services: Any) -> dict[str, Any]:
            await _require_org(services, org_id)
            record = await writes.create_list(services.engine, org_id, name, list_type)
            return {"list_id": record["id"], "type": record["type"]}

        run(database_url, _guarded(action))

    @admin.command("create-contact")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--list-id", type=int, required=True)
    @click.option("--email")
    @click.option("--first-name")
    @click.option("--last-name")
    @click.option("--job-title")
    @click.option("--company-name")
    @click.option("--phone", help="Withheld until unlocked (unlock-info).")
    @click.option("--linkedin-url", help="Withheld until unlocked (unlock-info).")
    @database_option
    def create_contact(
        org_id: int,
        list_id: int,
        database_url: str | None,
        **values: str | None,
    ) -> None:
        """Create a contact in a list of contacts: {"contact_id"}."""
        given = {k: v for k, v in values.items() if v is not None}

        async def action(services: Any) -> dict[str, Any]:
            await _require_org(services, org_id)
            contact_id = await writes.seed_contact(services.engine, org_id, list_id, given)
            return {"contact_id": contact_id, "list_id": list_id}

        run(database_url, _guarded(action))

    @admin.command("create-company")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--list-id", type=int, required=True, help="A list of type companies.")
    @click.option("--name", required=True)
    @click.option("--domain")
    @database_option
    def create_company(
        org_id: int, list_id: int, name: str, domain: str | None, database_url: str | None
    ) -> None:
        """Create a company in a companies list: {"company_id"}."""

        async def action(services: Any) -> dict[str, Any]:
            await _require_org(services, org_id)
            company_id = await writes.seed_company(services.engine, org_id, list_id, name, domain)
            return {"company_id": company_id, "list_id": list_id}

        run(database_url, _guarded(action))

    @admin.command("create-custom-column")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--entity-type", type=click.Choice(ENTITY_TYPES), required=True)
    @click.option("--name", required=True)
    @click.option("--type", "column_type", type=click.Choice(CUSTOM_COLUMN_TYPES), default="text")
    @database_option
    def create_custom_column(
        org_id: int, entity_type: str, name: str, column_type: str, database_url: str | None
    ) -> None:
        """Define a custom column: {"custom_column_id", "column_id"}; values go under column_id."""

        async def action(services: Any) -> dict[str, Any]:
            await _require_org(services, org_id)
            created = await writes.create_custom_column(
                services.engine, org_id, entity_type, name, column_type
            )
            return {"custom_column_id": created["id"], "column_id": created["column_id"]}

        run(database_url, _guarded(action))

    @admin.command("allow-photo")
    @click.option("--linkedin-url", required=True)
    @click.option("--photo-url", required=True)
    @database_option
    def allow_photo(linkedin_url: str, photo_url: str, database_url: str | None) -> None:
        """Allow-list the profile photo of a LinkedIn URL: {"linkedin_url", "photo_url"}."""

        async def action(services: Any) -> dict[str, Any]:
            key = await writes.allow_photo(services.engine, linkedin_url, photo_url)
            return {"linkedin_url": key, "photo_url": photo_url}

        run(database_url, _guarded(action))

    @admin.command("enroll")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--sequence-id", type=int, required=True)
    @click.option("--contact-id", type=int, required=True)
    @database_option
    def enroll(org_id: int, sequence_id: int, contact_id: int, database_url: str | None) -> None:
        """Enrol a contact in a sequence: {"enrollment_id"} (the active one if already enrolled)."""

        async def action(services: Any) -> dict[str, Any]:
            enrollment_id = await writes.enroll(services.engine, org_id, sequence_id, contact_id)
            return {
                "enrollment_id": enrollment_id,
                "sequence_id": sequence_id,
                "contact_id": contact_id,
            }

        run(database_url, _guarded(action))

    @admin.command("restrict-key")
    @click.option("--key-id", required=True)
    @click.option("--list-id", "list_ids", type=int, multiple=True, required=True)
    @database_option
    def restrict_key(key_id: str, list_ids: tuple[int, ...], database_url: str | None) -> None:
        """Narrow an API key to lists of its organisation (provisional): {"api_key_id", "list_ids"}.

        A narrowed key sees only those lists and their contacts. Running servers apply it
        at once (the grants are read per request)."""

        async def action(services: Any) -> dict[str, Any]:
            granted = await writes.restrict_key(services.engine, key_id, list(list_ids))
            return {"api_key_id": key_id, "list_ids": granted}

        run(database_url, _guarded(action))
