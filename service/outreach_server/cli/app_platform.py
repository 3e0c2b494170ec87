"""Operator commands of the app_platform area, added to `outreach-server admin`.

Each prints one JSON object: create-app, install-app, create-app-credential (the client
secret is shown once, only its hash is stored), create-signing-key.
"""

from __future__ import annotations

from typing import Any

import click

from ..app_platform import RegistryError, SigningKeyUnavailable
from ..runtime.services import Services
from .common import ORG_ID, database_option, run


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""

    async def require(services: Services, org_id: int, app_id: str) -> None:
        if not await services.orgs.exists(org_id):
            raise click.ClickException(f"no organisation {org_id}")
        if not await services.app_platform.registry.app_exists(app_id):
            raise click.ClickException(f"no app {app_id}")

    @admin.command("create-app")
    @click.option("--name", required=True)
    @database_option
    def create_app(name: str, database_url: str | None) -> None:
        """Register an app: {"app_id"}."""

        async def action(services: Services) -> dict[str, Any]:
            return {"app_id": await services.app_platform.registry.create_app(name)}

        run(database_url, action)

    @admin.command("install-app")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--app-id", required=True)
    @click.option("--consent", is_flag=True, help="Record the organisation's consent.")
    @database_option
    def install_app(org_id: int, app_id: str, consent: bool, database_url: str | None) -> None:
        """Install an app in an organisation: {"installation_id", "org_id", "app_id", "consented"}."""

        async def action(services: Services) -> dict[str, Any]:
            await require(services, org_id, app_id)
            installation_id, consented_at = await services.app_platform.registry.install(
                org_id, app_id, consent=consent
            )
            return {
                "installation_id": installation_id,
                "org_id": org_id,
                "app_id": app_id,
                "consented": consented_at is not None,
            }

        run(database_url, action)

    @admin.command("create-app-credential")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--app-id", required=True)
    @database_option
    def create_app_credential(org_id: int, app_id: str, database_url: str | None) -> None:
        """A service-token credential: {"client_id", "client_secret"} (the secret is shown once)."""

        async def action(services: Services) -> dict[str, Any]:
            await require(services, org_id, app_id)
            try:
                client_id, secret = await services.app_platform.registry.create_credential(
                    org_id, app_id
                )
            except RegistryError as error:
                raise click.ClickException(str(error)) from None
            return {"client_id": client_id, "client_secret": secret}

        run(database_url, action)

    @admin.command("create-signing-key")
    @database_option
    def create_signing_key(database_url: str | None) -> None:
        """A new active app-token signing key (needs OUTREACH_SECRET_KEY): {"kid"}."""

        async def action(services: Services) -> dict[str, Any]:
            try:
                return {"kid": await services.app_platform.tokens.create_signing_key()}
            except SigningKeyUnavailable as error:
                raise click.ClickException(str(error)) from None

        run(database_url, action)
