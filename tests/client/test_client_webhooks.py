"""Webhook deliveries end to end: real signed deliveries verified with the client's helpers,
and their delivery log walked page by page, sync and async."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import pytest
from outreach_client import SyncPage
from outreach_client.testing import OutreachServer, start_outreach_server
from outreach_client.webhooks import (
    SIGNATURE_HEADER,
    WebhookSignatureError,
    construct_event,
    verify_signature,
)

EVENTS = 3


@pytest.fixture(scope="module")
def delivered(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[OutreachServer, Any, list[Any]]]:
    """A server, a webhook subscribed to campaign.created, and five real deliveries to it."""
    directory = tmp_path_factory.mktemp("hooks")
    with (
        start_outreach_server(
            directory,
            env={
                "OUTREACH_RATE_LIMIT_PER_SECOND": "1000",
                "OUTREACH_RATE_LIMIT_PER_MINUTE": "100_000",
            },
        ) as server,
        server.client() as client,
    ):
        hook = client.webhooks.create(
            body={"url": server.receiver.url, "events": ["campaign.created"]}
        )
        for n in range(EVENTS):
            payload = json.dumps({"n": n})
            server.run(
                "emit-event",
                "campaign.created",
                "--org-id",
                str(server.org_id),
                "--payload",
                payload,
            )
        received = server.receiver.wait_for(EVENTS, timeout=20)
        yield server, hook, received


def test_a_real_delivery_verifies(delivered: tuple[OutreachServer, Any, list[Any]]) -> None:
    _, hook, received = delivered
    for delivery in received:
        signature = delivery.headers[SIGNATURE_HEADER.lower()]
        assert verify_signature(delivery.body, signature, hook.secret)
        event = construct_event(delivery.body, delivery.headers, hook.secret)
        assert event.model_dump()  # the payload, parsed into the spec's model
    sample = received[0]
    signature = sample.headers[SIGNATURE_HEADER.lower()]
    assert not verify_signature(sample.body + b" ", signature, hook.secret)  # tampered body
    assert not verify_signature(sample.body, signature, "whsec_wrong")
    with pytest.raises(WebhookSignatureError, match="does not match"):
        construct_event(sample.body, signature, "whsec_wrong")
    with pytest.raises(WebhookSignatureError, match="missing"):
        construct_event(sample.body, {}, hook.secret)


def test_deliveries_paginate_over_more_than_two_pages(
    delivered: tuple[OutreachServer, Any, list[Any]],
) -> None:
    server, hook, _ = delivered
    with server.client() as client:
        first = client.webhooks.deliveries.list(webhook_id=hook.id, limit=1)
        assert isinstance(first, SyncPage) and len(first.data) == 1 and first.has_next_page()
        pages = list(first.iter_pages())
        everything = list(client.webhooks.deliveries.list(hook.id, limit=1))  # positional id
    assert len(pages) >= 3
    assert len(everything) >= EVENTS
    assert len({d.id for d in everything}) == len(everything)  # no item twice across pages

    async def walk() -> list[Any]:
        async with server.async_client() as aclient:
            return [d async for d in aclient.webhooks.deliveries.list(webhook_id=hook.id, limit=1)]

    assert [d.id for d in asyncio.run(walk())] == [d.id for d in everything]
