"""The webhooks guide: events, delivery and retries, verifying signatures."""

from __future__ import annotations

import json

from ..ir import Api, resolve_schema
from ..targets.client.examples import example_value
from ..targets.client.facts import webhook_signature
from ..targets.client.resources import ClientOp
from .guide_common import (
    first_operation,
    op_link,
    settings_table,
)
from .model import (
    Block,
    Code,
    DocsSettings,
    Guide,
    Heading,
    Table,
    Text,
)
from .operations import (
    schema_blocks,
)

# -- webhooks ----------------------------------------------------------------------------------


def webhooks(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> Guide | None:
    delivery = api.extensions.get("x-webhook-delivery") or {}
    if not api.webhooks and not delivery and webhook_signature(api) is None:
        return None
    blocks: list[Block] = []
    hook = api.webhooks[0] if api.webhooks else None
    if hook is not None and hook.description.strip():
        blocks.append(Text(hook.description.strip()))
    kinds_schema = delivery.get("event_kinds_schema")
    kinds = (api.schemas.get(str(kinds_schema)) or {}).get("enum") if kinds_schema else None
    if kinds:
        blocks.append(Heading("Events"))
        blocks.append(Text(f"The event kinds a webhook subscribes to (`{kinds_schema}`):"))
        groups: dict[str, list[str]] = {}
        for kind in kinds:
            groups.setdefault(str(kind).split(".")[0], []).append(f"`{kind}`")
        rows: list[tuple[str, ...]] = [
            (f"`{group}`", ", ".join(names)) for group, names in groups.items()
        ]
        blocks.append(Table(("Group", "Events"), rows))
    if delivery:
        blocks.append(Heading("Delivery"))
        blocks.append(settings_table(delivery))
    attempts = delivery.get("max_attempts")
    delays = delivery.get("retry_delays_seconds")
    if isinstance(attempts, int) and isinstance(delays, list) and delays:
        rows = [("1", "when the event occurs")]
        for n in range(2, attempts + 1):
            wait = delays[min(n - 2, len(delays) - 1)]
            rows.append((str(n), f"{wait} s after attempt {n - 1} failed"))
        blocks.append(Heading("Retry schedule"))
        blocks.append(Text("A delivery succeeds on any 2xx answer; otherwise it is tried again:"))
        blocks.append(Table(("Attempt", "When"), rows))
    if hook is not None:
        blocks.append(Heading("The delivery request"))
        rows = [
            (f"`{p.name}`", "yes" if p.required else "no", " ".join(p.description.split()))
            for p in hook.headers
        ]
        if rows:
            blocks.append(Table(("Header", "Required", "Description"), rows))
        if hook.body is not None:
            about = " ".join(
                str(resolve_schema(api, hook.body.schema).get("description") or "").split()
            )
            blocks.append(
                Text(f"Body: `{hook.body.model}` (`{hook.body.content_type}`). {about}".strip())
            )
            blocks += schema_blocks(
                api, {"$ref": f"#/components/schemas/{hook.body.model}"}, hook.body.model
            )
    signature = webhook_signature(api)
    if hook is not None and hook.body is not None and signature is not None:
        header = signature["header"]
        package = settings.client_package
        payload = json.dumps(
            example_value(api, hook.body.schema, required_only=True), separators=(",", ":")
        )
        code = f'''from {package}.webhooks import WebhookSignatureError, construct_event, sign

SECRET = "whsec_example"  # the webhook's secret


def receive(raw_body: bytes, headers: dict[str, str]) -> int:
    """Handle one delivery: the body exactly as received (bytes, not re-encoded JSON)."""
    try:
        event = construct_event(raw_body, headers, SECRET)  # checks {header}
    except WebhookSignatureError:
        return 400  # forged or altered: drop it
    print("verified event:", event)
    return 204  # any 2xx acknowledges the delivery


# a delivery as the API sends it: the raw body signed with the secret
# ({signature["encoding"]} {signature["algorithm"].upper()} in {header})
body = {payload!r}.encode()
assert receive(body, {{"{header}": sign(body, SECRET)}}) == 204
assert receive(body, {{"{header}": sign(body, "another secret")}}) == 400
'''
        blocks.append(Heading("Verifying a delivery"))
        blocks.append(
            Text(
                f"Check `{header}` against the raw request body before trusting it; the "
                "client's `construct_event` does it in constant time and parses the payload:"
            )
        )
        blocks.append(Code("python", code, "Python", "python"))
    subscribe = first_operation(
        api, lambda op: op.method == "post" and op.path.rstrip("/").endswith("/webhooks")
    )
    if subscribe is not None:
        blocks.append(Text(f"Subscribe with {op_link(subscribe)}."))
    return Guide(
        "webhooks", "Webhooks", "Event kinds, delivery and retries, verifying signatures.", blocks
    )
