"""The webhook signature scheme comes from the spec's `x-webhook-signature` (header, algorithm,
encoding, prefix): the events golden fixture declares base64 HMAC-SHA512 with a `v1=` prefix."""

from __future__ import annotations

import base64
import hashlib
import hmac
import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

CLIENT = Path(__file__).parents[1] / "golden" / "fixtures" / "events" / "expected" / "client"


@pytest.fixture(scope="module")
def hooks() -> Iterator[ModuleType]:
    sys.path.insert(0, str(CLIENT))
    try:
        yield importlib.import_module("events_client.webhooks")
    finally:
        sys.path.remove(str(CLIENT))
        for module in [m for m in sys.modules if m.split(".")[0] == "events_client"]:
            del sys.modules[module]


def test_signature_follows_the_extension(hooks: ModuleType) -> None:
    body = b'{"id": 1}'
    digest = hmac.new(b"s3cret", body, hashlib.sha512).digest()
    expected = "v1=" + base64.b64encode(digest).decode()
    assert hooks.SIGNATURE_HEADER == "X-Events-Signature"
    assert hooks.sign(body, "s3cret") == expected
    assert hooks.verify_signature(body, expected, "s3cret")
    assert not hooks.verify_signature(body + b" ", expected, "s3cret")
    assert not hooks.verify_signature(body, expected.lower(), "s3cret")  # base64 is case-sensitive


def test_construct_event_reads_the_declared_header(hooks: ModuleType) -> None:
    body = b'{"id": 7, "kind": "created", "at": "2026-01-01T00:00:00Z"}'
    good = hooks.sign(body, "k")
    with pytest.raises(hooks.WebhookSignatureError, match="missing X-Events-Signature"):
        hooks.construct_event(body, {"X-Webhook-Signature": good}, "k")
    with pytest.raises(hooks.WebhookSignatureError, match="does not match"):
        hooks.construct_event(body, {"x-events-signature": hooks.sign(body, "other")}, "k")
