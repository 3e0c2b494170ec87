"""The filtered fetch as a read on the Reader (issue 29): statements built per call are compiled
once per shape with their values bound (never written into the SQL), the page and the count
read in one hand-over; the column catalogue is reused only while its rows are unchanged, so a
column added by anyone (another process, the admin CLI) is seen by the next request."""

from __future__ import annotations

from typing import Any

from outreach_server.contacts import columns as columns_module
from outreach_server.contacts.columns import load_catalogue, read_catalogue
from outreach_server.contacts.seeding import create_custom_column, create_list, seed_contact
from outreach_server.core.tables import contacts
from outreach_server.enrichment.configs import create_config
from service_support import Api, bearer
from sqlalchemy import and_, func, select

V1 = "/api/v1"
STEPS = [{"provider": "apollo", "credential_source": "system"}]


def _statements(org_id: int, column: str, part: str, ids: list[int], least: float) -> Any:
    where = and_(
        contacts.c.org_id == org_id,
        func.lower(contacts.c.last_name).like(f"%{part}%", escape="\\"),
        contacts.c.id.in_(ids),  # an IN list: expanded per call
        contacts.c.fields[column].as_float() >= least,  # a JSON path: the dialect's processor
    )
    page = select(contacts.c.id, contacts.c.fields).where(where).order_by(contacts.c.id)
    return page, select(func.count()).select_from(contacts).where(where)


async def _through_engine(api: Api, *statements: Any) -> list[list[dict[str, Any]]]:
    async with api.services.engine.connect() as connection:
        return [
            [dict(row._mapping) for row in await connection.execute(statement)]
            for statement in statements
        ]


def test_statements_built_per_call_are_compiled_once_per_shape(api: Api) -> None:
    org, other = api.org("a"), api.org("b")
    mine = int(api.call(create_list, api.services.engine, org, "a", "contacts")["id"])
    theirs = int(api.call(create_list, api.services.engine, other, "b", "contacts")["id"])
    score = str(
        api.call(create_custom_column, api.services.engine, org, "contact", "Score", "number")[
            "column_id"
        ]
    )
    people = [("Lovelace", 10), ("Lovejoy", 20), ("Hopper", 30), ("Loveless", 40)]
    ids = [
        int(
            api.call(
                seed_contact, api.services.engine, org, mine, {"last_name": n, "fields": {score: s}}
            )
        )
        for n, s in people
    ]
    foreign = int(
        api.call(
            seed_contact,
            api.services.engine,
            other,
            theirs,
            {"last_name": "Lovelace", "fields": {}},
        )
    )
    reader = api.services.reader
    shapes_before = len(reader._shapes)
    for part, chosen, least, expected in [
        ("love", [*ids, foreign], 0, [ids[0], ids[1], ids[3]]),
        ("love", ids[:2], 15, [ids[1]]),
        ("hop", ids, 0, [ids[2]]),
        ("love", [foreign], 0, []),  # the other organisation's contact is never read
    ]:
        statements = _statements(org, score, part, chosen, least)
        rows, counted = api.call(reader.scan_many, *statements)
        assert [row["id"] for row in rows] == expected
        assert [row["fields"][score] for row in rows] == [people[ids.index(i)][1] for i in expected]
        assert next(iter(counted[0].values())) == len(expected)
        assert [rows, counted] == api.call(_through_engine, api, *statements)
    # four calls, IN lists of four lengths: one compiled page and one compiled count
    assert len(reader._shapes) == shapes_before + 2
    sql, params, _ = reader._prepare(_statements(org, score, "marker-xyz", ids, 0)[0])
    assert "marker-xyz" not in sql and "%marker-xyz%" in (
        params.values() if isinstance(params, dict) else params
    )


def _definitions(catalogue: Any) -> list[dict[str, Any]]:
    return [column.definition() for column in catalogue.columns]


def test_catalogue_is_kept_while_its_rows_are_unchanged(api: Api) -> None:
    engine, reader = api.services.engine, api.services.reader
    org = api.org("a")
    contacts_list = int(api.call(create_list, engine, org, "people", "contacts")["id"])
    companies_list = int(api.call(create_list, engine, org, "firms", "companies")["id"])
    api.call(seed_contact, engine, org, contacts_list, {"first_name": "Ada", "fields": {}})
    headers = bearer(api.key(org))

    def fetch(columns: list[str], list_id: int | None = None) -> Any:
        body: dict[str, Any] = {"columns": columns}
        if list_id is not None:
            body["list_id"] = list_id
        return api.client.post(f"{V1}/contacts/fetch", json=body, headers=headers)

    first = api.call(read_catalogue, reader, org, "contact")
    assert api.call(read_catalogue, reader, org, "contact") is first  # kept, not made again
    assert fetch(["first_name"]).status_code == 200
    assert fetch(["cc_999999"]).status_code == 422

    # written by another connection, as another process or the admin CLI would: seen at once
    column = api.call(create_custom_column, engine, org, "contact", "Tier", "text")["column_id"]
    answer = fetch(["first_name", column])
    assert answer.status_code == 200 and answer.json()["data"][0][column] is None
    api.call(
        create_config,
        engine,
        org_id=org,
        name="Phone",
        column_id="enriched_phone",
        list_id=contacts_list,
        is_global=False,
        steps=STEPS,
    )
    api.call(
        create_config,
        engine,
        org_id=org,
        name="Size",
        column_id="firm_size",
        list_id=companies_list,
        is_global=False,
        steps=STEPS,
        data_type="integer",
    )
    api.call(
        create_config,
        engine,
        org_id=org,
        name="Everywhere",
        column_id=column,  # never shadows the custom column
        list_id=None,
        is_global=True,
        steps=STEPS,
    )
    assert fetch(["enriched_phone"], contacts_list).status_code == 200
    assert fetch(["firm_size"], contacts_list).status_code == 422  # another list's column

    async def both(entity: str, list_id: int | None) -> tuple[Any, Any]:
        async with engine.connect() as connection:
            loaded = await load_catalogue(connection, org, entity, list_id)
        return loaded, await read_catalogue(reader, org, entity, list_id)

    for entity, list_id in [
        ("contact", None),
        ("company", None),
        ("contact", contacts_list),
        ("company", companies_list),
    ]:
        loaded, read = api.call(both, entity, list_id)
        assert _definitions(read) == _definitions(loaded)
    latest = api.call(read_catalogue, reader, org, "contact")
    assert latest is not first and column in [c.column_id for c in latest.columns]
    assert len(columns_module._kept) <= columns_module.KEPT_CATALOGUES
