"""Operator commands of organisations and keys, added to `outreach-server admin`:
create-org, create-key (the token is shown once), revoke-key, link-org, enable-flag,
and seed-demo.
"""

from __future__ import annotations

from typing import Any

import click
from outreach_api.constants import SCOPES

from .common import ORG_ID, database_option, run


def _scopes(value: str | None) -> list[str]:
    if value is None:
        return sorted(SCOPES)
    scopes = sorted({s.strip() for s in value.split(",") if s.strip()})
    unknown = [s for s in scopes if s not in SCOPES]
    if unknown:
        raise click.BadParameter(
            f"unknown scope(s) {', '.join(unknown)}; known: {', '.join(sorted(SCOPES))}"
        )
    return scopes


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""

    @admin.command("create-org")
    @click.argument("name")
    @database_option
    def create_org(name: str, database_url: str | None) -> None:
        """Create an organisation: {"org_id": ...}."""

        async def action(services: Any) -> dict[str, Any]:
            return {"org_id": await services.orgs.create(name)}

        run(database_url, action)

    @admin.command("create-key")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--mode", type=click.Choice(["live", "test"]), default="live", show_default=True)
    @click.option("--name", default="operator key", show_default=True)
    @click.option(
        "--tier",
        type=click.Choice(["read", "write", "billable"]),
        default="billable",
        show_default=True,
    )
    @click.option(
        "--scopes", default=None, help="Comma-separated (default: every scope of the spec)."
    )
    @click.option(
        "--agency", is_flag=True, help="The key may target organisations linked to its own."
    )
    @database_option
    def create_key(
        org_id: int,
        mode: str,
        name: str,
        tier: str,
        scopes: str | None,
        agency: bool,
        database_url: str | None,
    ) -> None:
        """Create an API key: {"api_key_id", "api_key_token", "mode"}; the token is shown only now."""
        granted = _scopes(scopes)

        async def action(services: Any) -> dict[str, Any]:
            if not await services.orgs.exists(org_id):
                raise click.ClickException(f"no organisation {org_id}")
            record, token = await services.keys.create(
                org_id=org_id, name=name, mode=mode, tier=tier, scopes=granted, is_agency=agency
            )
            return {"api_key_id": record.id, "api_key_token": token, "mode": record.mode}

        run(database_url, action)

    @admin.command("revoke-key")
    @click.option("--key-id", required=True)
    @database_option
    def revoke_key(key_id: str, database_url: str | None) -> None:
        """Revoke an API key; running servers refuse it within their key-cache time (5 s)."""

        async def action(services: Any) -> dict[str, Any]:
            return {"api_key_id": key_id, "revoked": await services.keys.revoke(key_id)}

        run(database_url, action)

    @admin.command("link-org")
    @click.option("--agency-org-id", type=ORG_ID, required=True)
    @click.option("--org-id", type=ORG_ID, required=True)
    @database_option
    def link_org(agency_org_id: int, org_id: int, database_url: str | None) -> None:
        """Let the agency organisation's agency keys act for another organisation."""

        async def action(services: Any) -> dict[str, Any]:
            for required in (agency_org_id, org_id):
                if not await services.orgs.exists(required):
                    raise click.ClickException(f"no organisation {required}")
            await services.orgs.link(agency_org_id, org_id)
            return {"agency_org_id": agency_org_id, "org_id": org_id, "linked": True}

        run(database_url, action)

    @admin.command("unlink-org")
    @click.option("--agency-org-id", type=ORG_ID, required=True)
    @click.option("--org-id", type=ORG_ID, required=True)
    @database_option
    def unlink_org(agency_org_id: int, org_id: int, database_url: str | None) -> None:
        """End an agency's access to another organisation (at once, on every key)."""

        async def action(services: Any) -> dict[str, Any]:
            await services.orgs.unlink(agency_org_id, org_id)
            return {"agency_org_id": agency_org_id, "org_id": org_id, "linked": False}

        run(database_url, action)

    @admin.command("enable-flag")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.argument("flag")
    @database_option
    def enable_flag(org_id: int, flag: str, database_url: str | None) -> None:
        """Enable a feature flag (e.g. M6_APP_TOKENS_ENABLED) for an organisation."""

        async def action(services: Any) -> dict[str, Any]:
            if not await services.orgs.exists(org_id):
                raise click.ClickException(f"no organisation {org_id}")
            await services.orgs.enable_flag(org_id, flag)
            return {"org_id": org_id, "flag": flag, "enabled": True}

        run(database_url, action)

    @admin.command("seed-demo")
    @click.option(
        "--rotate-keys",
        is_flag=True,
        help="Revoke the demo keys and issue new ones (otherwise the saved ones are printed again).",
    )
    @database_option
    def seed_demo(rotate_keys: bool, database_url: str | None) -> None:
        """The demo organisation (a list of contacts, what the docs' examples name) and its live
        and test keys; idempotent: a second run prints the same organisation and keys."""

        async def action(services: Any) -> dict[str, Any]:
            from .demo import seed_demo as seed

            return await seed(services, rotate_keys=rotate_keys)

        run(database_url, action)
