"""Webhooks and callbacks: typed payload models, listed by the API layer."""

from __future__ import annotations

import importlib

import pytest
from harness import models, package, serve
from pydantic import ValidationError

M = models("callbacks")


def test_payload_types_of_webhooks_and_callbacks() -> None:
    package("callbacks")
    hooks = importlib.import_module("callbacks_api.webhooks")
    assert hooks.WEBHOOK_PAYLOADS == {"orderShipped": M.Shipment}  # rawPing's body is text
    payload = hooks.CALLBACK_PAYLOADS[("subscribe", "onEvent")]
    event = payload.model_validate({"event": "e", "at": "2024-01-02T03:04:05Z"})
    assert event.at == "2024-01-02T03:04:05Z"  # a timestamp keeps its text (docs/models.md)
    with pytest.raises(ValidationError):
        payload.model_validate({"event": "e"})
    with pytest.raises(ValidationError, match="RFC 3339"):
        payload.model_validate({"event": "e", "at": "2024-02-30T03:04:05Z"})


def test_operation_with_callback_is_served() -> None:
    class Events:
        async def subscribe(self, ctx: str, *, body: object) -> object:
            return M.SubscribeResponse(id="s1")

    client = serve("callbacks", events=Events())
    created = client.post("/subscriptions", json={"callback_url": "https://example.com/cb"})
    assert (created.status_code, created.json()) == (201, {"id": "s1"})
    assert client.post("/subscriptions", json={}).status_code == 422
