"""Lists (section 2 and the known messages of section 7), through HTTP on SQLite and PostgreSQL."""

from __future__ import annotations

from outreach_server.contacts import seeding as writes
from service_support import Api, bearer

LISTS = "/api/v1/lists"
TYPES = ["contacts", "companies", "suppressions", "deals", "leads"]


def test_create_list_answers_201_for_every_type_and_400_for_others(api: Api) -> None:
    org = api.org()
    headers = bearer(api.key(org, tier="write", scopes=()))  # lists carry no scope
    ids = []
    for list_type in TYPES:
        response = api.client.post(
            LISTS, json={"name": f"My {list_type}", "type": list_type}, headers=headers
        )
        assert response.status_code == 201, response.text
        record = response.json()["data"]
        assert record["type"] == list_type and record["name"] == f"My {list_type}"
        assert isinstance(record["id"], int) and isinstance(record["created_at"], int)
        ids.append(record["id"])
    for bad in ("contact", "Contacts", "friends", ""):
        response = api.client.post(LISTS, json={"name": "x", "type": bad}, headers=headers)
        assert response.status_code == 400 and response.json() == {"detail": "Invalid list type"}
    assert api.client.post(LISTS, json={"name": "  ", "type": "leads"}, headers=headers).json() == {
        "detail": "name must not be empty"
    }
    assert (
        api.client.post(
            LISTS, json={"name": "x" * 201, "type": "leads"}, headers=headers
        ).status_code
        == 422  # maxLength 200 in the spec (DECISIONS row 112)
    )
    assert api.client.post(LISTS, json={"type": "leads"}, headers=headers).status_code == 422
    assert api.client.post(LISTS, json={"name": "x", "type": 3}, headers=headers).status_code == 422
    listed = api.client.get(LISTS, headers=headers).json()
    assert [entry["id"] for entry in listed["data"]] == ids  # the refusals wrote nothing


def test_list_lists_is_paginated_and_per_organisation(api: Api) -> None:
    org, other = api.org("a"), api.org("b")
    mine = [writes_list(api, org, f"l{i}") for i in range(3)]
    writes_list(api, other, "theirs")
    headers = bearer(api.key(org, tier="read", scopes=()))
    first = api.client.get(LISTS, params={"limit": 2}, headers=headers).json()
    assert [entry["id"] for entry in first["data"]] == mine[:2]
    assert first["pagination"] == {
        "page": 1, "limit": 2, "total": 3, "has_next": True, "next_cursor": None,
    }  # fmt: skip
    second = api.client.get(LISTS, params={"page": 2, "limit": 2}, headers=headers).json()
    assert [entry["id"] for entry in second["data"]] == mine[2:]
    assert second["pagination"]["has_next"] is False
    assert api.client.get(LISTS, params={"page": 0}, headers=headers).status_code == 422
    read_only = api.client.post(LISTS, json={"name": "x", "type": "leads"}, headers=headers)
    assert read_only.status_code == 403  # creating is tier write


def test_a_narrowed_key_lists_its_lists_and_is_granted_what_it_creates(api: Api) -> None:
    org = api.org()
    granted, hidden = writes_list(api, org, "granted"), writes_list(api, org, "hidden")
    token = api.key(org, tier="write")
    record = api.call(api.services.keys.authenticate, token)
    api.call(writes.restrict_key, api.services.engine, record.id, [granted])
    headers = bearer(token)
    assert [e["id"] for e in api.client.get(LISTS, headers=headers).json()["data"]] == [granted]
    created = api.client.post(LISTS, json={"name": "new", "type": "contacts"}, headers=headers)
    assert created.status_code == 201
    new_id = created.json()["data"]["id"]
    seen = [e["id"] for e in api.client.get(LISTS, headers=headers).json()["data"]]
    assert seen == [granted, new_id] and hidden not in seen
    everyone = bearer(api.key(org))
    assert len(api.client.get(LISTS, headers=everyone).json()["data"]) == 3


def writes_list(api: Api, org: int, name: str, list_type: str = "contacts") -> int:
    return int(api.call(writes.create_list, api.services.engine, org, name, list_type)["id"])
