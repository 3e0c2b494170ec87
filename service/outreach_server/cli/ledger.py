"""Operator commands of the ledger area, added to `outreach-server admin`.

`record-optout` records a contact_initiated suppression (the contact asked), `record-bounce`
a system one (a bounce or a complaint). Each prints one JSON object; an active row already
there is left untouched (`"created": false`).
"""

from __future__ import annotations

from typing import Any

import click

from ..ledger import CHANNELS
from .common import ORG_ID, database_option, run

RECORDED_BY = "operator"


def _record(org_id: int, contact_id: int, channel: str, category: str) -> Any:
    """The admin action recording one suppression through the ledger."""
    from ..ledger import ContactNotFound, SuppressionLedger

    async def action(services: Any) -> dict[str, Any]:
        ledger = SuppressionLedger(services.engine, services.reader)
        try:
            done = await ledger.record(
                org_id, contact_id, channel=channel, category=category, actor=RECORDED_BY
            )
        except ContactNotFound:
            raise click.ClickException(
                f"Contact not found: {contact_id} (organisation {org_id})"
            ) from None
        return {
            "suppression_id": done.suppression_id,
            "org_id": org_id,
            "contact_id": done.contact_id,
            "channel": done.channel,
            "category": done.category,
            "created": done.created,
        }

    return action


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""

    @admin.command("record-optout")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--contact-id", type=int, required=True)
    @click.option("--channel", type=click.Choice(CHANNELS), default="all", show_default=True)
    @database_option
    def record_optout(org_id: int, contact_id: int, channel: str, database_url: str | None) -> None:
        """Record that the contact opted out (category contact_initiated)."""
        run(database_url, _record(org_id, contact_id, channel, "contact_initiated"))

    @admin.command("record-bounce")
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--contact-id", type=int, required=True)
    @click.option("--channel", type=click.Choice(CHANNELS), default="email", show_default=True)
    @database_option
    def record_bounce(org_id: int, contact_id: int, channel: str, database_url: str | None) -> None:
        """Record a bounce or complaint (category system)."""
        run(database_url, _record(org_id, contact_id, channel, "system"))
