"""Operator commands of the webhooks area, added to `outreach-server admin`.

`emit-event KIND --org-id ID --payload JSON` publishes an event through the transactional
outbox (webhooks.publish_event) and prints {"event_id", "org_id", "event",
"deliveries_created"}; a running worker delivers it.
"""

from __future__ import annotations

import json
from typing import Any

import click

from .common import ORG_ID, database_option, run


def register(admin: click.Group) -> None:
    """Add this area's commands to the admin group."""
    from ..webhooks import EVENT_KINDS

    @admin.command("emit-event")
    @click.argument("kind", type=click.Choice(sorted(EVENT_KINDS)))
    @click.option("--org-id", type=ORG_ID, required=True)
    @click.option("--payload", default="{}", show_default=True, help="JSON object.")
    @database_option
    def emit_event(kind: str, org_id: int, payload: str, database_url: str | None) -> None:
        """Publish a webhook event for an organisation (deliveries to its subscribed webhooks)."""
        try:
            data = json.loads(payload)
        except json.JSONDecodeError as exc:
            raise click.BadParameter(f"not JSON: {exc}", param_hint="--payload") from None
        if not isinstance(data, dict):
            raise click.BadParameter("must be a JSON object", param_hint="--payload")

        async def action(services: Any) -> dict[str, Any]:
            from ..webhooks import publish_event

            if not await services.orgs.exists(org_id):
                raise click.ClickException(f"no organisation {org_id}")
            published = await publish_event(services.engine, org_id, kind, data)
            return {
                "event_id": published.event_id,
                "org_id": org_id,
                "event": kind,
                "deliveries_created": published.deliveries,
            }

        run(database_url, action)
