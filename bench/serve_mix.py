"""The operations bench/serve_throughput.py and bench/serve_profile.py send, with their inputs.

Each is called with the demo organisation's live key (`outreach-server admin seed-demo`: five
contacts in list 1, ids 1-5; a webhook); the same requests go to the hand-written app
(bench/hand_app.py) and the stub app (bench/stub_app.py).
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class Operation:
    name: str  # the operationId
    method: str
    target: str  # path and query
    body: bytes = b""


FETCH_BODY = {
    "columns": ["first_name", "email"],
    "filter_model": {"last_name": {"filterType": "text", "type": "contains", "filter": "e"}},
}

MIX = (
    Operation("list_api_keys", "GET", "/v1/api-keys"),
    Operation("get_contact", "GET", "/api/v1/contacts/1"),
    Operation("list_webhooks", "GET", "/api/v1/webhooks"),
    Operation("list_suppressions", "GET", "/api/v1/contacts/suppressions?limit=10"),
    Operation("fetch_contacts", "POST", "/api/v1/contacts/fetch", json.dumps(FETCH_BODY).encode()),
    Operation("suppress_contact", "POST", "/api/v1/contacts/2/suppress", b"{}"),
)
