"""Type-checked, never run: what a user of the client sees under `mypy --strict`.

`mypy` (repo config) checks this file; a template change that loosens a return type to
`Any` or breaks a signature fails the type check.
"""

from __future__ import annotations

from typing import assert_type

from outreach_client import OMIT, APIResponse, AsyncClient, AsyncPage, Client, SyncPage
from outreach_client.models import (
    ApiKeyList,
    BulkUpdateResult,
    ContactRecord,
    WebhookDelivery,
    WebhookWithSecret,
)
from outreach_client.webhooks import construct_event, verify_signature


def sync_usage(client: Client) -> None:
    contact = client.contacts.get(contact_id=1)
    assert_type(contact, ContactRecord)
    page = client.contacts.list(limit=10)
    assert_type(page, SyncPage[ContactRecord])
    for item in page:
        assert_type(item, ContactRecord)
    deliveries = client.webhooks.deliveries.list(webhook_id="wh_1")
    assert_type(next(iter(deliveries)), WebhookDelivery)
    hook = client.webhooks.create(
        body={"url": "https://example.com", "events": ["campaign.created"]}
    )
    assert_type(hook, WebhookWithSecret)
    result = client.contacts.bulk_update(body=[{"id": 1}])
    assert_type(result, BulkUpdateResult)
    assert_type(result.updated, int)
    assert_type(client.api_keys.list(), ApiKeyList)
    raw = client.with_raw_response.contacts.get(contact_id=1)
    assert_type(raw, APIResponse[ContactRecord])
    assert_type(raw.parse(), ContactRecord)
    assert_type(client.key_mode, str | None)
    assert_type(client.with_options(max_retries=0), Client)
    assert_type(verify_signature(b"{}", "00", "secret"), bool)
    construct_event(b"{}", {"x-webhook-signature": "00"}, "secret")


def body_keywords(client: Client) -> None:
    """Body fields as typed keyword arguments (required ones required), beside `body=`."""
    hook = client.webhooks.create(url="https://example.com", events=["campaign.created"])
    assert_type(hook, WebhookWithSecret)
    named = client.webhooks.create(
        url="https://example.com", events=["campaign.created"], name=OMIT
    )
    assert_type(named, WebhookWithSecret)
    client.webhooks.create(url="https://example.com")  # type: ignore[call-overload]
    client.webhooks.create(url=1, events=["campaign.created"])  # type: ignore[call-overload]
    raw = client.with_raw_response.webhooks.create(url="https://example.com", events=["x"])
    assert_type(raw, APIResponse[WebhookWithSecret])
    # ids: integers or their text, on options, headers and integer path parameters
    scoped = client.with_options(target_org_id=2)
    assert_type(scoped.contacts.get(contact_id="1", x_target_org_id=2), ContactRecord)


async def async_usage(client: AsyncClient) -> None:
    contact = await client.contacts.get(contact_id=1)
    assert_type(contact, ContactRecord)
    page = await client.contacts.list(limit=10)
    assert_type(page, AsyncPage[ContactRecord])
    async for item in client.contacts.list():
        assert_type(item, ContactRecord)
    hook = await client.webhooks.create(url="https://example.com", events=["campaign.created"])
    assert_type(hook, WebhookWithSecret)
    raw = await client.with_raw_response.contacts.list()
    assert_type(raw, APIResponse[AsyncPage[ContactRecord]])
