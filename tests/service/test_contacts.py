"""Contacts and companies (sections 2, 4, 5 and 7 of the document), through HTTP.

Every test runs on SQLite and on PostgreSQL. Fixtures are seeded with the store's
operator helpers (what the admin commands run); everything under test goes through the API.
"""

from __future__ import annotations

import json
import time
from typing import Any

import pytest
from outreach_server.contacts import seeding as writes
from outreach_server.contacts.tables import list_memberships, sequence_enrollments
from outreach_server.core.tables import contacts
from service_support import Api, bearer, outreach_cli
from sqlalchemy import insert, select, text, update
from sqlalchemy.exc import DBAPIError

V1 = "/api/v1"
READ_WRITE = ("contacts:read", "contacts:write")


# -- helpers ---------------------------------------------------------------------------------


def make_list(api: Api, org: int, name: str = "list", list_type: str = "contacts") -> int:
    record = api.call(writes.create_list, api.services.engine, org, name, list_type)
    return int(record["id"])


def make_contact(api: Api, org: int, list_id: int, **values: Any) -> int:
    return int(api.call(writes.seed_contact, api.services.engine, org, list_id, values))


def make_company(api: Api, org: int, list_id: int, name: str, domain: str | None = None) -> int:
    return int(api.call(writes.seed_company, api.services.engine, org, list_id, name, domain))


def make_column(
    api: Api, org: int, name: str, column_type: str = "text", entity: str = "contact"
) -> str:
    created = api.call(
        writes.create_custom_column, api.services.engine, org, entity, name, column_type
    )
    return str(created["column_id"])


def execute(api: Api, statement: Any, params: dict[str, Any] | None = None) -> None:
    async def run() -> None:
        async with api.services.engine.begin() as connection:
            await connection.execute(statement, params or {})

    api.call(run)


def rows(api: Api, statement: Any) -> list[Any]:
    async def run() -> list[Any]:
        async with api.services.engine.connect() as connection:
            return list(await connection.execute(statement))

    return list(api.call(run))


def key_id(api: Api, token: str) -> str:
    record = api.call(api.services.keys.authenticate, token)
    return str(record.id)


def backend(api: Api) -> str:
    return api.services.engine.dialect.name


class Org:
    """An organisation with a full key, a list of contacts and a few contacts."""

    def __init__(self, api: Api, name: str = "org") -> None:
        self.api = api
        self.id = api.org(name)
        self.headers = bearer(api.key(self.id))
        self.list_id = make_list(api, self.id, f"{name} contacts")

    def get(self, path: str, **params: Any) -> Any:
        return self.api.client.get(V1 + path, params=params, headers=self.headers)

    def post(self, path: str, body: Any, **params: Any) -> Any:
        return self.api.client.post(V1 + path, json=body, params=params, headers=self.headers)

    def contact(self, **values: Any) -> int:
        list_id = values.pop("list_id", self.list_id)
        return make_contact(self.api, self.id, list_id, **values)


def data(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.text
    return response.json()["data"]


def detail(response: Any, status: int) -> Any:
    assert response.status_code == status, response.text
    return response.json()["detail"]


def locs(response: Any) -> list[list[Any]]:
    assert response.status_code == 422, response.text
    return [item["loc"] for item in response.json()["detail"]]


# -- records ---------------------------------------------------------------------------------


def test_create_contact_needs_a_list_of_the_organisation(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    companies_list = make_list(api, org.id, "firms", "companies")
    assert detail(org.post("/contacts", {"email": "x@example.com"}), 400) == (
        "list_id is required when creating contacts"
    )
    for list_id in (other.list_id, 999_999, 2**40):
        assert detail(org.post("/contacts", {"list_id": list_id}), 404) == "List not found"
    assert detail(org.post("/contacts", {"list_id": companies_list}), 400) == (
        "The list holds companies, not contacts"
    )
    assert "Unknown field 'shoe_size'" in detail(
        org.post("/contacts", {"list_id": org.list_id, "shoe_size": 44}), 400
    )
    assert "Field 'phone' is read-only" in detail(
        org.post("/contacts", {"list_id": org.list_id, "phone": "+15550100"}), 400
    )
    assert "email takes a string" in detail(
        org.post("/contacts", {"list_id": org.list_id, "email": 7}), 400
    )
    assert "longer than 200" in detail(
        org.post("/contacts", {"list_id": org.list_id, "first_name": "x" * 201}), 400
    )
    era = make_column(api, org.id, "Era")
    created = data(
        org.post(
            "/contacts",
            {"list_id": org.list_id, "email": "ada@example.com", "first_name": "Ada", era: "1840s"},
        ),
        201,
    )
    assert isinstance(created["id"], int) and created["list_id"] == org.list_id
    assert created["email"] == "ada@example.com" and created["fields"] == {era: "1840s"}
    assert created["phone"] is None and created["linkedin_url"] is None
    assert data(org.get(f"/contacts/{created['id']}")) == created
    total = rows(api, select(contacts.c.id))
    assert len(total) == 1  # the refused requests wrote nothing
    nested = data(org.post("/contacts", {"list_id": org.list_id, "fields": {era: "1950s"}}), 201)
    assert nested["fields"] == {era: "1950s"}  # custom values also as records show them


def test_get_contact_is_404_for_unknown_and_foreign_ids(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    foreign = other.contact(email="b@example.com")
    for contact_id in (foreign, 999_999, 2**40):
        assert detail(org.get(f"/contacts/{contact_id}"), 404) == "Contact not found"
    assert data(other.get(f"/contacts/{foreign}"))["email"] == "b@example.com"


def test_list_contacts_is_paginated_and_per_organisation(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    mine = [org.contact(email=f"{i}@a.example") for i in range(3)]
    other.contact(email="x@b.example")
    first = org.get("/contacts", limit=2)
    assert first.status_code == 200
    body = first.json()
    assert [c["id"] for c in body["data"]] == mine[:2]
    assert body["pagination"] == {
        "page": 1, "limit": 2, "total": 3, "has_next": True, "next_cursor": None,
    }  # fmt: skip
    second = org.get("/contacts", page=2, limit=2).json()
    assert [c["id"] for c in second["data"]] == mine[2:] and not second["pagination"]["has_next"]
    far = org.get("/contacts", page=1_000_000, limit=200).json()
    assert far["data"] == [] and far["pagination"]["total"] == 3
    assert org.get("/contacts", page=1_000_001).status_code == 422  # DECISIONS row 110
    assert org.get("/contacts", limit=201).status_code == 422


def test_withheld_fields_read_as_null_until_unlocked(api: Api) -> None:
    org = Org(api)
    contact_id = org.contact(
        email="ada@example.com", phone="+15550100", linkedin_url="https://linkedin.com/in/ada"
    )
    record = data(org.get(f"/contacts/{contact_id}"))
    assert record["phone"] is None and record["linkedin_url"] is None
    fetch = {"columns": ["phone", "linkedin_url"], "filter_model": {}}
    assert data(org.post("/contacts/fetch", fetch)) == [
        {"id": contact_id, "phone": None, "linkedin_url": None}
    ]
    probe = {"columns": [], "filter_model": {"phone": {"filterType": "text", "type": "startsWith", "filter": "+1555"}}}  # fmt: skip
    assert data(org.post("/contacts/fetch", probe)) == []  # a filter cannot reveal them either
    values = data(
        org.post("/contacts/column-values", {"list_id": org.list_id, "record_id": contact_id})
    )
    assert values["phone"] is None and values["linkedin_url"] is None

    execute(
        api,
        update(contacts).where(contacts.c.id == contact_id).values(unlocked_at=int(time.time())),
    )
    record = data(org.get(f"/contacts/{contact_id}"))
    assert record["phone"] == "+15550100"
    assert record["linkedin_url"] == "https://linkedin.com/in/ada"
    assert data(org.post("/contacts/fetch", probe)) == [{"id": contact_id}]
    values = data(
        org.post("/contacts/column-values", {"list_id": org.list_id, "record_id": contact_id})
    )
    assert values["phone"] == "+15550100"


# -- schema reads ----------------------------------------------------------------------------


def add_enrichment_config(
    api: Api, org: int, list_id: int | None, column_id: str, name: str
) -> None:
    from outreach_server.enrichment.tables import waterfall_configs

    execute(
        api,
        insert(waterfall_configs).values(
            org_id=org,
            name=name,
            column_id=column_id,
            list_id=list_id,
            is_global=list_id is None,
            is_active=True,
            data_type="text",
            field_to_enrich=None,
            steps=[],
            created_at=int(time.time()),
        ),
    )


def test_column_definitions_include_base_custom_and_enrichment_columns(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    era = make_column(api, org.id, "Era")
    make_column(api, org.id, "Headcount", "number", entity="company")
    make_column(api, other.id, "Not mine")
    add_enrichment_config(api, org.id, org.list_id, "work_email", "Work email")
    firms = make_list(api, org.id, "firms", "companies")

    columns = {c["column_id"]: c for c in data(org.get("/contacts/column-definitions"))}
    assert columns["email"] == {
        "column_id": "email", "type": "text", "display_name": "Email", "source": "base",
        "writable": True, "withheld": False,
    }  # fmt: skip
    assert columns["phone"]["withheld"] is True and columns["id"]["type"] == "number"
    assert columns[era]["source"] == "custom" and columns[era]["display_name"] == "Era"
    assert columns["work_email"]["source"] == "enrichment"
    assert "Not mine" not in {c["display_name"] for c in columns.values()}

    of_list = {
        c["column_id"] for c in data(org.get("/contacts/column-definitions", list_id=org.list_id))
    }
    assert {"email", era, "work_email"} <= of_list
    company = {
        c["column_id"]: c for c in data(org.get("/contacts/column-definitions", list_id=firms))
    }
    assert {"name", "domain"} <= set(company) and "email" not in company
    assert [c["display_name"] for c in company.values() if c["source"] == "custom"] == ["Headcount"]
    assert (
        detail(org.get("/contacts/column-definitions", list_id=other.list_id), 404)
        == "List not found"
    )

    names = data(org.get("/contacts/column-names", list_id=firms))
    assert all(isinstance(n, str) for n in names) and "name" in names and "email" not in names
    assert era in data(org.get("/contacts/column-names"))


def test_custom_column_definitions_take_contact_or_company_only(api: Api) -> None:
    org = Org(api)
    era = make_column(api, org.id, "Era")
    size = make_column(api, org.id, "Headcount", "number", entity="company")
    add_enrichment_config(api, org.id, None, "work_email", "Work email")
    assert data(org.get("/contacts/custom-column-definitions")) == [
        {"column_id": era, "name": "Era"}
    ]
    assert data(org.get("/contacts/custom-column-definitions", entity_type="company")) == [
        {"column_id": size, "name": "Headcount"}
    ]
    for path in ("/contacts/custom-column-definitions", "/contacts/searchable-fields"):
        assert detail(org.get(path, entity_type="deal"), 400) == (
            "Invalid entity_type 'deal': use contact or company"
        )
    # GET /contacts/columns: only the custom columns (no base, no enrichment)
    assert data(org.get("/contacts/columns")) == [{"column_id": era, "name": "Era"}]


def test_base_columns_and_form_fields(api: Api) -> None:
    org = Org(api)
    firms = make_list(api, org.id, "firms", "companies")
    era = make_column(api, org.id, "Era")
    assert org.get("/contacts/base-columns").status_code == 422  # list_id is required
    base = {c["name"]: c for c in data(org.get("/contacts/base-columns", list_id=org.list_id))}
    assert {"id", "list_id", "email", "phone", "linkedin_url", "unlocked_at"} <= set(base)
    assert "org_id" not in base and era not in base and base["phone"]["withheld"] is True
    assert {c["name"] for c in data(org.get("/contacts/base-columns", list_id=firms))} >= {
        "name", "domain",
    }  # fmt: skip
    assert detail(org.get("/contacts/base-columns", list_id=999_999), 404) == "List not found"

    groups = data(org.get("/contacts/form-fields"))["groups"]
    assert groups[0] == {"label": "List", "required": True, "fields": ["list_id"]}
    assert all(isinstance(g["required"], bool) and g["fields"] for g in groups)
    assert {"label": "Custom fields", "required": False, "fields": [era]} in groups
    company_groups = data(org.get("/contacts/form-fields", list_id=firms))["groups"]
    assert company_groups[0] == {"label": "Company", "required": True, "fields": ["name"]}


def tiers(org: Org, entity: str = "contact") -> dict[str, str]:
    fields = data(org.get("/contacts/searchable-fields", entity_type=entity))
    return {f["name"]: f["tier"] for f in fields}


def test_searchable_field_tiers_follow_the_real_indexes(api: Api) -> None:
    org = Org(api)
    era = make_column(api, org.id, "Era")
    fields = {f["name"]: f for f in data(org.get("/contacts/searchable-fields"))}
    assert fields["last_name"]["operators"][:3] == ["equals", "notEqual", "contains"]
    assert "inRange" in fields["created_at"]["operators"]
    assert "inRange" not in fields["last_name"]["operators"]
    before = tiers(org)
    assert before["id"] == "fast" and before["list_id"] == "fast"  # primary key, (org_id, list_id)
    assert before["job_title"] == before["last_name"] == before[era] == "full_scan"
    assert before["phone"] == "full_scan"
    assert tiers(org, "company")["list_id"] == "fast"

    execute(api, text("CREATE INDEX ix_test_job_title ON contacts (org_id, job_title)"))
    execute(api, text("CREATE INDEX ix_test_lower_last ON contacts (lower(last_name))"))
    if backend(api) == "postgresql":
        execute(api, text(f"CREATE INDEX ix_test_era ON contacts ((fields ->> '{era}'))"))
    else:
        execute(
            api, text(f"CREATE INDEX ix_test_era ON contacts (json_extract(fields, '$.{era}'))")
        )
    after = tiers(org)
    assert after["job_title"] == after["last_name"] == after[era] == "fast"
    assert after["first_name"] == "full_scan" and after["email"] == "full_scan"

    if backend(api) == "postgresql":
        try:
            execute(api, text("CREATE EXTENSION IF NOT EXISTS pg_trgm"))
        except DBAPIError as exc:  # the extension is not installed on this server
            pytest.skip(f"pg_trgm unavailable: {exc}")
        for statement in (
            "CREATE INDEX ix_test_trgm ON contacts USING gin (company_name gin_trgm_ops)",
            "CREATE INDEX ix_test_trgm_lower ON contacts USING gin (lower(email) gin_trgm_ops)",
        ):
            execute(api, text(statement))
        trigram = tiers(org)
        assert trigram["company_name"] == trigram["email"] == "text_search"
        assert trigram["job_title"] == "fast"  # a B-tree index wins over none


def test_dashboard_stats_count_only_what_the_key_sees(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    second = make_list(api, org.id, "second")
    org.contact(email="a@a.example")
    org.contact(email="b@a.example")
    org.contact(email="c@a.example", list_id=second)
    other.contact(email="x@b.example")
    execute(
        api,
        update(contacts)
        .where(contacts.c.email == "a@a.example")
        .values(owner_id="u1", email_status="valid"),
    )

    stats = data(org.get("/contacts/dashboard-stats"))
    assert stats["total"] == 3 and stats["assigned"] == 1 and stats["unassigned"] == 2
    assert stats["by_email_status"] == {"unverified": 2, "valid": 1}
    assert stats["by_list"] == [
        {"list_id": org.list_id, "contacts": 2}, {"list_id": second, "contacts": 1},
    ]  # fmt: skip
    assert stats["by_owner"] == [{"owner_id": "u1", "contacts": 1}]
    assert stats["created_last_7_days"] == 3 and stats["narrowed"] is False
    assert data(other.get("/contacts/dashboard-stats"))["total"] == 1

    # a key narrowed to one list sees narrower totals
    token = api.key(org.id)
    api.call(writes.restrict_key, api.services.engine, key_id(api, token), [second])
    narrowed = api.client.get(f"{V1}/contacts/dashboard-stats", headers=bearer(token)).json()[
        "data"
    ]
    assert narrowed["total"] == 1 and narrowed["narrowed"] is True
    assert narrowed["by_list"] == [{"list_id": second, "contacts": 1}]

    no_read = bearer(api.key(org.id, scopes=("contacts:write",)))
    assert api.client.get(f"{V1}/contacts/dashboard-stats", headers=no_read).status_code == 403


# -- reads through POST ----------------------------------------------------------------------


def test_fetch_filters_sorts_and_pages_named_columns(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    score = make_column(api, org.id, "Score", "number")
    people = [
        ("Ada", "Lovelace", 10),
        ("Alan", "Turing", 20),
        ("Grace", "Hopper", 30),
        ("Tim", "Lovejoy", 40),
    ]
    ids = [
        org.contact(first_name=f, last_name=l, email=f"{f.lower()}@a.example", fields={score: s})
        for f, l, s in people
    ]
    other.contact(first_name="Ada", last_name="Lovelace", email="ada@b.example")
    body: dict[str, Any] = {
        "columns": ["first_name", score],
        "filter_model": {
            "last_name": {"filterType": "text", "type": "contains", "filter": "LOVE"},
            score: {"filterType": "number", "type": "inRange", "filter": 5, "filterTo": 45},
        },
        "sort_model": [{"colId": score, "sort": "desc"}],
    }
    response = org.post("/contacts/fetch", body, limit=1)
    page = response.json()
    assert page["data"] == [{"id": ids[3], "first_name": "Tim", score: 40}]
    assert page["pagination"]["total"] == 2 and page["pagination"]["has_next"] is True
    assert [c["id"] for c in data(org.post("/contacts/fetch", body, page=2, limit=1))] == [ids[0]]
    body["filter_model"]["created_at"] = {
        "filterType": "number",
        "type": "greaterThan",
        "filter": 0,
    }
    assert len(data(org.post("/contacts/fetch", body))) == 2
    everyone = data(org.post("/contacts/fetch", {"columns": ["email"]}))
    assert [c["email"] for c in everyone] == [f"{p[0].lower()}@a.example" for p in people]

    second = make_list(api, org.id, "second")
    moved = org.contact(first_name="Zed", list_id=second)
    assert [
        c["id"] for c in data(org.post("/contacts/fetch", {"columns": [], "list_id": second}))
    ] == [moved]
    assert (
        detail(org.post("/contacts/fetch", {"columns": [], "list_id": other.list_id}), 404)
        == "List not found"
    )


def test_fetch_refuses_bad_filters_with_422(api: Api) -> None:
    org = Org(api)
    org.contact(last_name="Lovelace")
    cases: list[tuple[dict[str, Any], list[Any]]] = [
        ({"nope": {"filterType": "text", "type": "contains", "filter": "x"}}, ["body", "filter_model", "nope"]),
        ({"last_name": {"filterType": "text", "type": "like", "filter": "x"}}, ["body", "filter_model", "last_name", "type"]),
        ({"last_name": {"filterType": "number", "type": "equals", "filter": 1}}, ["body", "filter_model", "last_name", "filterType"]),
        ({"id": {"filterType": "number", "type": "equals", "filter": "one"}}, ["body", "filter_model", "id", "filter"]),
        ({"id": {"filterType": "number", "type": "inRange", "filter": 1, "filterTo": 2**70}}, ["body", "filter_model", "id", "filterTo"]),
        ({"last_name": "Lovelace"}, ["body", "filter_model", "last_name"]),
    ]  # fmt: skip
    for model, loc in cases:
        assert locs(org.post("/contacts/fetch", {"columns": [], "filter_model": model})) == [loc]
    assert locs(org.post("/contacts/fetch", {"columns": ["nope"]})) == [["body", "columns", 0]]
    assert locs(
        org.post("/contacts/fetch", {"columns": [], "sort_model": [{"colId": "nope"}]})
    ) == [["body", "sort_model", 0, "colId"]]
    assert org.post("/contacts/fetch", {"columns": [], "filter_model": []}).status_code == 422
    assert org.post("/contacts/fetch", {"filter_model": {}}).status_code == 422  # columns required
    big = {"id": {"filterType": "number", "type": "inRange", "filter": 1, "filterTo": 2**40}}
    assert data(org.post("/contacts/fetch", {"columns": [], "filter_model": big})) != []


def test_fetch_is_a_read_even_by_post(api: Api) -> None:
    org = Org(api)
    org.contact(email="a@example.com")
    reader = bearer(api.key(org.id, tier="read", scopes=("contacts:read",)))
    response = api.client.post(f"{V1}/contacts/fetch", json={"columns": ["email"]}, headers=reader)
    assert response.status_code == 200
    refused = api.client.post(
        f"{V1}/contacts/bulk-update", json=[{"id": 1, "email": "x"}], headers=reader
    )
    assert refused.status_code == 403


def test_profile_pictures_answer_only_allow_listed_photos(api: Api) -> None:
    org = Org(api)
    api.call(
        writes.allow_photo,
        api.services.engine,
        "https://www.linkedin.com/in/Ada/",
        "https://img.example/ada.jpg",
    )
    asked = [
        "https://linkedin.com/in/ada",
        "linkedin.com/in/ADA?trk=x",
        "https://linkedin.com/in/nobody",
        "",
        "::::",
    ]
    photos = data(org.post("/contacts/profile-pictures", {"linkedin_urls": asked}))
    assert photos == {
        "https://linkedin.com/in/ada": "https://img.example/ada.jpg",
        "linkedin.com/in/ADA?trk=x": "https://img.example/ada.jpg",
    }
    assert data(org.post("/contacts/profile-pictures", {"linkedin_urls": []})) == {}
    assert (
        data(
            org.post(
                "/contacts/profile-pictures",
                {"linkedin_urls": ["https://linkedin.com/in/x"] * 1000},
            )
        )
        == {}
    )
    too_many = {"linkedin_urls": ["https://linkedin.com/in/x"] * 1001}  # maxItems (row 114)
    assert org.post("/contacts/profile-pictures", too_many).status_code == 422


def test_column_values_of_a_contact_or_a_company(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    era = make_column(api, org.id, "Era")
    size = make_column(api, org.id, "Headcount", "number", entity="company")
    firms = make_list(api, org.id, "firms", "companies")
    other_firms = make_list(api, other.id, "firms", "companies")
    contact_id = org.contact(email="ada@example.com", fields={era: "1840s"})
    company_id = make_company(api, org.id, firms, "Engines", "engines.example")
    foreign_company = make_company(api, other.id, other_firms, "Theirs")

    values = data(
        org.post("/contacts/column-values", {"list_id": org.list_id, "record_id": contact_id})
    )
    assert (
        values["id"] == contact_id
        and values["email"] == "ada@example.com"
        and values[era] == "1840s"
    )
    company = data(org.post("/contacts/column-values", {"list_id": firms, "record_id": company_id}))
    assert company == {
        "id": company_id, "list_id": firms, "name": "Engines", "domain": "engines.example",
        "created_at": company["created_at"], "updated_at": company["updated_at"], size: None,
    }  # fmt: skip
    elsewhere = make_company(api, org.id, make_list(api, org.id, "more firms", "companies"), "Else")
    for record_id in (foreign_company, elsewhere, 2**40):
        assert (
            detail(
                org.post("/contacts/column-values", {"list_id": firms, "record_id": record_id}), 404
            )
            == "Company not found"
        )
    second = make_list(api, org.id, "second")
    assert (
        detail(
            org.post("/contacts/column-values", {"list_id": second, "record_id": contact_id}), 404
        )
        == "Contact not found"
    )
    assert (
        detail(
            org.post(
                "/contacts/column-values", {"list_id": other_firms, "record_id": foreign_company}
            ),
            404,
        )
        == "List not found"
    )
    assert org.post("/contacts/column-values", {"list_id": firms}).status_code == 422


# -- writes ----------------------------------------------------------------------------------


def emails(api: Api) -> dict[int, Any]:
    return {row.id: row.email for row in rows(api, select(contacts.c.id, contacts.c.email))}


def test_bulk_update_authorises_the_whole_batch_first(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    mine = org.contact(email="a@a.example")
    foreign = other.contact(email="x@b.example")
    before = emails(api)
    for batch in (
        [{"id": mine, "email": "new@a.example"}, {"id": foreign, "email": "stolen@b.example"}],
        [{"id": mine, "email": "new@a.example"}, {"id": 999_999, "email": "y@a.example"}],
        [{"id": mine, "email": "new@a.example"}, {"id": 2**40, "email": "y@a.example"}],
    ):
        message = detail(org.post("/contacts/bulk-update", batch), 403)
        assert message == f"Contacts not writable by this API key: {batch[1]['id']}"
    assert emails(api) == before  # nothing written

    assert org.post("/contacts/bulk-update", []).status_code == 422
    assert locs(
        org.post("/contacts/bulk-update", [{"id": mine, "email": "a"}, {"id": mine, "email": "b"}])
    ) == [["body", 1, "id"]]
    assert org.post("/contacts/bulk-update", [{"email": "no id"}]).status_code == 422
    assert emails(api) == before


def test_bulk_update_reports_failures_per_contact(api: Api) -> None:
    org = Org(api)
    other = Org(api, "b")
    era, score = make_column(api, org.id, "Era"), make_column(api, org.id, "Score", "number")
    firms = make_list(api, org.id, "firms", "companies")
    company = make_company(api, org.id, firms, "Engines")
    a, b, c, d, e, f, g, h, i = (
        org.contact(email=f"{n}@a.example", fields={era: "old", score: 1}) for n in range(9)
    )
    second = make_list(api, org.id, "second")
    batch = [
        {"id": a, "email": "ada@a.example", score: 2.5, "company_id": company},
        {"id": b, "shoe_size": 44},
        {"id": c, "email": 12},
        {"id": d},
        {"id": e, "list_id": other.list_id, "phone": "+1"},
        {"id": f, "list_id": second, era: None},
        {"id": g, "fields": {score: 7}},
        {"id": h, "fields": {"email": "x@a.example"}},
        {"id": i, "fields": {}},
    ]
    result = data(org.post("/contacts/bulk-update", batch))
    assert result["updated"] == 3 and result["failed"] == 6
    errors = {item["id"]: item["detail"] for item in result["errors"]}
    assert (
        errors[h] == "Field 'email' is not a custom column" and errors[i] == "No fields to update"
    )
    assert data(org.get(f"/contacts/{g}"))["fields"] == {era: "old", score: 7}
    assert errors[b] == "Unknown field 'shoe_size'"
    assert errors[c] == "email takes a string"
    assert errors[d] == "No fields to update"
    assert "list_id: List not found" in errors[e] and "Field 'phone' is read-only" in errors[e]
    first = data(org.get(f"/contacts/{a}"))
    assert first["email"] == "ada@a.example" and first["company_id"] == company
    assert first["fields"] == {era: "old", score: 2.5}  # merged, not replaced
    assert data(org.get(f"/contacts/{f}"))["list_id"] == second
    assert data(org.get(f"/contacts/{f}"))["fields"].get(era) is None
    assert data(org.get(f"/contacts/{b}"))["email"] == "1@a.example"  # failed: untouched


def test_assign_owner_selects_server_side_and_null_unassigns(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    ids = [org.contact(last_name=n) for n in ("Lovelace", "Lovejoy", "Turing")]
    theirs = other.contact(last_name="Lovelace")
    by_filter = {
        "owner_id": "u1",
        "filter_model": {
            "last_name": {"filterType": "text", "type": "startsWith", "filter": "love"}
        },
    }
    assert data(org.post("/contacts/assign-owner", by_filter))["updated"] == 2
    owners = {r.id: r.owner_id for r in rows(api, select(contacts.c.id, contacts.c.owner_id))}
    assert [owners[i] for i in ids] == ["u1", "u1", None] and owners[theirs] is None
    assert (
        data(org.post("/contacts/assign-owner", {"owner_id": "u2", "contact_ids": [ids[2]]}))[
            "updated"
        ]
        == 1
    )
    everyone = data(org.post("/contacts/assign-owner", {"owner_id": None, "filter_model": {}}))
    assert everyone["updated"] == 3
    owners = {r.id: r.owner_id for r in rows(api, select(contacts.c.id, contacts.c.owner_id))}
    assert [owners[i] for i in ids] == [None, None, None]

    execute(api, update(contacts).where(contacts.c.id == theirs).values(owner_id="theirs"))
    assert detail(
        org.post("/contacts/assign-owner", {"owner_id": "u3", "contact_ids": [ids[0], theirs]}), 403
    ).endswith(str(theirs))
    owners = {r.id: r.owner_id for r in rows(api, select(contacts.c.id, contacts.c.owner_id))}
    assert owners[ids[0]] is None and owners[theirs] == "theirs"
    assert detail(org.post("/contacts/assign-owner", {"owner_id": "u3"}), 400) == (
        "A selection is required: contact_ids or filter_model"
    )
    assert "longer than 100" in detail(
        org.post("/contacts/assign-owner", {"owner_id": "x" * 101, "filter_model": {}}), 400
    )
    assert locs(
        org.post("/contacts/assign-owner", {"owner_id": "u", "filter_model": {"nope": {}}})
    ) == [["body", "filter_model", "nope"]]
    assert (
        org.post("/contacts/assign-owner", {"owner_id": 5, "filter_model": {}}).status_code == 422
    )


def members(api: Api, list_id: int) -> list[int]:
    query = select(list_memberships.c.contact_id).where(list_memberships.c.list_id == list_id)
    return sorted(r.contact_id for r in rows(api, query))


def suppress(
    api: Api, org: int, contact_id: int, channel: str = "all", active: bool = True
) -> None:
    from outreach_server.ledger.tables import suppressions

    execute(
        api,
        insert(suppressions).values(
            org_id=org, contact_id=contact_id, channel=channel, category="org_initiated",
            active=active, created_at=int(time.time()), created_by="test",
        ),
    )  # fmt: skip


def test_merge_filtered_asks_for_a_decision_and_never_adds_blocked_contacts(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    target = make_list(api, org.id, "target")
    holder = org.contact(email="dup@a.example", list_id=target)
    plain = org.contact(email="one@a.example", last_name="Keep")
    dup = org.contact(email="DUP@a.example", last_name="Keep")
    blocked = org.contact(email="blocked@a.example", last_name="Keep")
    email_only = org.contact(email="two@a.example", last_name="Keep")
    not_matching = org.contact(email="three@a.example", last_name="Other")
    other.contact(email="x@b.example", last_name="Keep")
    suppress(api, org.id, blocked)
    suppress(api, org.id, email_only, channel="email")  # only channel all blocks
    keep = {"last_name": {"filterType": "text", "type": "equals", "filter": "keep"}}
    body: dict[str, Any] = {"target_list_id": target, "filter_model": keep}

    message = detail(org.post("/contacts/merge-filtered", body), 409)
    assert message.startswith("1 contacts need a decision") and str(dup) in message
    assert members(api, target) == []  # nothing added before the decision

    skipped = data(org.post("/contacts/merge-filtered", {**body, "conflict_resolution": "skip"}))
    assert skipped["added"] == 2 and skipped["blocked"] == 1 and skipped["conflicts_skipped"] == 1
    assert members(api, target) == sorted([plain, email_only])
    again = data(org.post("/contacts/merge-filtered", {**body, "conflict_resolution": "add"}))
    assert again["added"] == 1 and again["already_in_list"] == 2 and again["blocked"] == 1
    assert members(api, target) == sorted([plain, dup, email_only])  # nobody twice, none merged
    assert blocked not in members(api, target) and not_matching not in members(api, target)
    assert data(org.post("/contacts/merge-filtered", body))["added"] == 0  # no conflict left
    listed = data(org.post("/contacts/fetch", {"columns": [], "list_id": target}))
    assert sorted(c["id"] for c in listed) == sorted([holder, plain, dup, email_only])
    assert len(rows(api, select(contacts.c.id))) == 7  # no contact created or merged


def test_merge_filtered_query_filter_and_refusals(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    target = make_list(api, org.id, "target")
    firms = make_list(api, org.id, "firms", "companies")
    a = org.contact(last_name="Alpha")
    org.contact(last_name="Beta")
    query = json.dumps({"last_name": {"filterType": "text", "type": "equals", "filter": "alpha"}})
    body = {"target_list_id": target, "filter_model": {}}
    added = data(
        org.post("/contacts/merge-filtered", body, filterModel=query, sortModel='[{"colId": "id"}]')
    )
    assert added["added"] == 1 and members(api, target) == [a]
    assert locs(org.post("/contacts/merge-filtered", body, filterModel="{not json")) == [
        ["query", "filterModel"]
    ]
    assert locs(org.post("/contacts/merge-filtered", body, filterModel='{"x": {}}')) == [
        ["query", "filterModel", "x"]
    ]
    assert locs(org.post("/contacts/merge-filtered", body, sortModel='[{"colId": "x"}]')) == [
        ["query", "sortModel", 0, "colId"]
    ]
    assert (
        org.post("/contacts/merge-filtered", {**body, "conflict_resolution": "merge"}).status_code
        == 422
    )
    assert org.post("/contacts/merge-filtered", {"target_list_id": target}).status_code == 422
    for list_id in (other.list_id, 999_999):
        assert (
            detail(org.post("/contacts/merge-filtered", {**body, "target_list_id": list_id}), 404)
            == "List not found"
        )
    assert detail(org.post("/contacts/merge-filtered", {**body, "target_list_id": firms}), 400) == (
        "The list holds companies, not contacts"
    )
    assert (
        detail(org.post("/contacts/merge-filtered", {**body, "source_list_id": other.list_id}), 404)
        == "List not found"
    )
    assert members(api, target) == [a]


def active_enrollments(api: Api) -> list[tuple[int, int]]:
    query = select(sequence_enrollments.c.contact_id, sequence_enrollments.c.sequence_id).where(
        sequence_enrollments.c.withdrawn_at.is_(None)
    )
    return sorted((r.contact_id, r.sequence_id) for r in rows(api, query))


def test_withdraw_from_one_sequence_or_all(api: Api) -> None:
    org, other = Org(api, "a"), Org(api, "b")
    a, b = org.contact(email="a@a.example"), org.contact(email="b@a.example")
    theirs = other.contact(email="x@b.example")
    for contact_id, sequence_id in ((a, 1), (a, 2), (b, 1), (theirs, 1)):
        api.call(
            writes.enroll,
            api.services.engine,
            org.id if contact_id != theirs else other.id,
            sequence_id,
            contact_id,
        )

    one = data(
        org.post("/contacts/withdraw-from-sequences", {"contact_ids": [a, b], "sequence_id": 1})
    )
    assert one["withdrawn"] == 2 and one["enrollments_withdrawn"] == 2
    assert active_enrollments(api) == [(a, 2), (theirs, 1)]
    everything = {"contact_ids": [a], "sequence_id": 99, "remove_all": True}
    assert (
        data(org.post("/contacts/withdraw-from-sequences", everything))["enrollments_withdrawn"]
        == 1
    )
    assert active_enrollments(api) == [(theirs, 1)]

    assert detail(org.post("/contacts/withdraw-from-sequences", {"contact_ids": [a]}), 400) == (
        "sequence_id is required unless remove_all is true"
    )
    assert detail(
        org.post(
            "/contacts/withdraw-from-sequences", {"contact_ids": [theirs], "remove_all": True}
        ),
        403,
    ).endswith(str(theirs))
    assert active_enrollments(api) == [(theirs, 1)]
    assert org.post("/contacts/withdraw-from-sequences", {"contact_ids": []}).status_code == 422
    nothing = {"contact_ids": [a], "sequence_id": 2**40}
    assert data(org.post("/contacts/withdraw-from-sequences", nothing))["withdrawn"] == 0


def test_a_narrowed_key_sees_and_writes_only_its_lists(api: Api) -> None:
    org = Org(api)
    granted = make_list(api, org.id, "granted")
    visible = org.contact(email="v@a.example", list_id=granted)
    hidden = org.contact(email="h@a.example")
    execute(
        api,
        insert(list_memberships).values(
            list_id=granted, contact_id=org.contact(email="m@a.example"), org_id=org.id, added_at=0
        ),
    )
    token = api.key(org.id)
    api.call(writes.restrict_key, api.services.engine, key_id(api, token), [granted])
    narrowed = bearer(token)

    listed = api.client.get(f"{V1}/contacts", headers=narrowed).json()
    assert listed["pagination"]["total"] == 2 and hidden not in [c["id"] for c in listed["data"]]
    assert api.client.get(f"{V1}/contacts/{hidden}", headers=narrowed).status_code == 404
    assert api.client.get(f"{V1}/contacts/{visible}", headers=narrowed).status_code == 200
    refused = api.client.post(
        f"{V1}/contacts/bulk-update",
        json=[{"id": visible, "first_name": "V"}, {"id": hidden, "first_name": "H"}],
        headers=narrowed,
    )
    assert refused.status_code == 403 and str(hidden) in refused.json()["detail"]
    owners = api.client.post(
        f"{V1}/contacts/assign-owner", json={"owner_id": "me", "filter_model": {}}, headers=narrowed
    )
    assert owners.json()["data"]["updated"] == 2
    assert (
        api.client.post(
            f"{V1}/contacts", json={"list_id": org.list_id}, headers=narrowed
        ).status_code
        == 404
    )
    lists_seen = api.client.get(f"{V1}/lists", headers=narrowed).json()["data"]
    assert [entry["id"] for entry in lists_seen] == [granted]


def test_admin_commands_print_one_json_object(tmp_path: Any, database_url: str) -> None:
    def cli(*args: str, ok: bool = True) -> dict[str, Any]:
        done = outreach_cli("admin", *args, database_url=database_url)
        if not ok:
            assert done.returncode != 0 and done.stdout == "" and "Traceback" not in done.stderr
            return {}
        assert done.returncode == 0, done.stderr
        (line,) = done.stdout.strip().splitlines()
        return dict(json.loads(line))

    assert outreach_cli("migrate", database_url=database_url).returncode == 0
    org = str(cli("create-org", "Cli")["org_id"])
    listed = cli("create-list", "--org-id", org, "--name", "People")
    assert listed["type"] == "contacts" and isinstance(listed["list_id"], int)
    firms = cli("create-list", "--org-id", org, "--name", "Firms", "--type", "companies")["list_id"]
    contact = cli(
        "create-contact", "--org-id", org, "--list-id", str(listed["list_id"]), "--email", "a@example.com",
        "--first-name", "Ada", "--last-name", "Lovelace", "--phone", "+1555", "--linkedin-url",
        "https://linkedin.com/in/ada", "--company-name", "Engines",
    )  # fmt: skip
    assert isinstance(contact["contact_id"], int)
    company = cli(
        "create-company",
        "--org-id",
        org,
        "--list-id",
        str(firms),
        "--name",
        "Engines",
        "--domain",
        "engines.example",
    )
    assert isinstance(company["company_id"], int)
    column = cli(
        "create-custom-column",
        "--org-id",
        org,
        "--entity-type",
        "contact",
        "--name",
        "Era",
        "--type",
        "number",
    )
    assert column["column_id"] == f"cc_{column['custom_column_id']}"
    photo = cli(
        "allow-photo",
        "--linkedin-url",
        "https://www.linkedin.com/in/Ada/",
        "--photo-url",
        "https://img.example/a.jpg",
    )
    assert photo == {
        "linkedin_url": "linkedin.com/in/ada",
        "photo_url": "https://img.example/a.jpg",
    }
    enrolled = cli(
        "enroll", "--org-id", org, "--sequence-id", "7", "--contact-id", str(contact["contact_id"])
    )
    assert isinstance(enrolled["enrollment_id"], int)
    again = cli(
        "enroll", "--org-id", org, "--sequence-id", "7", "--contact-id", str(contact["contact_id"])
    )
    assert again["enrollment_id"] == enrolled["enrollment_id"]
    key = cli("create-key", "--org-id", org)
    narrowed = cli(
        "restrict-key", "--key-id", key["api_key_id"], "--list-id", str(listed["list_id"])
    )
    assert narrowed == {"api_key_id": key["api_key_id"], "list_ids": [listed["list_id"]]}

    cli("create-list", "--org-id", org, "--name", "X", "--type", "friends", ok=False)
    cli("create-contact", "--org-id", org, "--list-id", str(firms), ok=False)
    cli(
        "create-company",
        "--org-id",
        org,
        "--list-id",
        str(listed["list_id"]),
        "--name",
        "X",
        ok=False,
    )
    cli(
        "create-custom-column",
        "--org-id",
        org,
        "--entity-type",
        "contact",
        "--name",
        "Era",
        ok=False,
    )
    cli("create-custom-column", "--org-id", org, "--entity-type", "deal", "--name", "Y", ok=False)
    cli("enroll", "--org-id", org, "--sequence-id", "7", "--contact-id", "999999", ok=False)
    cli("create-list", "--org-id", "999999", "--name", "X", ok=False)
