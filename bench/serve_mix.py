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

# what the service answers each operation of MIX on the demo data: the stub apps' answers
ANSWERS: dict[str, object] = {
    "list_api_keys": {"data": {"keys": [
        {"api_key_id": "key_144a28a9394a1bce4c3ba5d1", "name": "demo live key", "mode": "live",
         "is_agency": False, "created_at": 1795800095, "last_used_at": 1795800309,
         "tier": "billable", "scopes": ["contacts:read", "contacts:write", "enrichment:run", "webhooks:manage"]},
        {"api_key_id": "key_1ea6de3918821c484212bca7", "name": "demo test key", "mode": "test",
         "is_agency": False, "created_at": 1795800095, "last_used_at": None,
         "tier": "billable", "scopes": ["contacts:read", "contacts:write", "enrichment:run", "webhooks:manage"]},
    ], "total": 2}},
    "get_contact": {"data": {
        "id": 1, "list_id": 1, "email": "ada@example.com", "first_name": "Ada", "last_name": "Lovelace",
        "job_title": None, "company_name": "Analytical Engines", "company_id": None, "owner_id": None,
        "phone": None, "linkedin_url": None, "email_status": None, "email_checked_at": None,
        "unlocked_at": None, "created_at": 1795800095, "updated_at": None, "fields": {"cc_1": "1840s"},
    }},
    "list_webhooks": {"data": [
        {"id": "wh_demo", "name": "Demo webhook", "url": "https://example.com/hooks/outreach",
         "events": ["campaign.created"], "is_active": False,
         "created_at": "2026-11-27T17:21:35.656", "updated_at": "2026-11-27T17:21:35.656"},
    ]},
    "list_suppressions": {"data": [
        {"id": 1, "contact_id": 2, "channel": "all", "category": "org_initiated",
         "operator_reversible": True, "created_at": 1795800131, "created_by": "key_144a28a9394a1bce4c3ba5d1"},
    ]},
    "fetch_contacts": {
        "data": [{"id": 1, "first_name": "Ada", "email": "ada@example.com"},
                 {"id": 2, "first_name": "Grace", "email": "grace@example.com"}],
        "pagination": {"page": 1, "limit": 50, "total": 2, "has_next": False, "next_cursor": None},
    },
    "suppress_contact": {"data": {"contact_id": 2, "suppressed": True, "created": False}},
}  # fmt: skip
