"""The filtered fetch as a read on the Reader (issue 29): statements built per call are compiled
once per shape with their values bound (never written into the SQL), the page and the count
read in one hand-over; the column catalogue is reused only while its rows are unchanged, so a
column added by anyone (another process, the admin CLI) is seen by the next request."""

from __future__ import annotations

from typing import Any

from outreach_server.contacts import columns as columns_module
from outreach_server.contacts.columns import load_catalogue, read_catalogue
from outreach_server.contacts.reads import fetch
from outreach_server.contacts.seeding import create_custom_column, create_list, seed_contact
from outreach_server.contacts.store import MAX_OFFSET, ContactScope, select_matching
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
    if reader._sqlite_path is not None:  # nothing committed since: not even read again
        read_all = reader.all
        reads: list[Any] = []

        async def counting(statement: Any, **params: Any) -> Any:
            reads.append(statement)
            return await read_all(statement, **params)

        reader.all = counting  # type: ignore[method-assign]
        try:
            assert api.call(read_catalogue, reader, org, "contact") is first
            assert reads == []
            # any commit (here of a contact) and it is read again: the same rows, kept
            api.call(seed_contact, engine, org, contacts_list, {"first_name": "Bo", "fields": {}})
            assert api.call(read_catalogue, reader, org, "contact") is first
            assert len(reads) == 1
        finally:
            del reader.all
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


async def _plain_fetch(
    api: Api, scope: ContactScope, columns: list[str], list_id: int | None, model: Any, sort: Any
) -> tuple[list[dict[str, Any]], int]:
    """The fetch as every other selection is read: select_matching's statements, built with
    their values, through the engine."""
    async with api.services.engine.connect() as connection:
        matching = await select_matching(
            connection, scope, list_id=list_id, filter_model=model, sort_model=sort
        )
        needed = [contacts.c.id, contacts.c.first_name, contacts.c.last_name, contacts.c.fields]
        page = matching.select(*needed).limit(50).offset(0)
        rows = [dict(row._mapping) for row in await connection.execute(page)]
        total = await connection.scalar(matching.count())
    catalogue = matching.catalogue
    named = [row for row in rows]
    return [
        {"id": row["id"], **{c: _value(row, catalogue, c) for c in columns}} for row in named
    ], int(total or 0)


def _value(row: dict[str, Any], catalogue: Any, column_id: str) -> Any:
    column = catalogue.get(column_id)
    if column.db_column is not None:
        return row[column.db_column]
    return (row["fields"] or {}).get(column_id)


def test_fetch_binds_each_calls_values_into_the_statements_of_its_shape(api: Api) -> None:
    """The filter plan: one compiled page and count per shape of filter and sort, each call's
    values (the organisation, the list, the filter's values) bound; the rows and totals those
    of the plain path, for every kind of filter, in two organisations and for a narrowed key."""
    engine, reader = api.services.engine, api.services.reader
    org, other = api.org("a"), api.org("b")
    mine = int(api.call(create_list, engine, org, "a", "contacts")["id"])
    second = int(api.call(create_list, engine, org, "a2", "contacts")["id"])
    theirs = int(api.call(create_list, engine, other, "b", "contacts")["id"])
    made = api.call(create_custom_column, engine, org, "contact", "Score", "number")
    score = str(made["column_id"])
    people = [
        ("Ada", "Lovelace", 10),
        ("Bea", "Lovejoy", 20.5),
        ("Cy", "Hopper", 30),
        ("Di", "Love_less", 40),
        ("Ed", None, None),
    ]
    for index, (first, last, value) in enumerate(people):
        values = {
            "first_name": first,
            "last_name": last,
            "fields": {} if value is None else {score: value},
        }
        api.call(seed_contact, engine, org, mine if index % 2 == 0 else second, values)
    zed = {"first_name": "Zed", "last_name": "Lovelace", "fields": {}}
    api.call(seed_contact, engine, other, theirs, zed)
    columns = ["first_name", "last_name", score]

    def text(op: str, v: str) -> dict[str, Any]:
        return {"last_name": {"filterType": "text", "type": op, "filter": v}}

    def number(op: str, v: float, to: float | None = None) -> dict[str, Any]:
        bound = {} if to is None else {"filterTo": to}
        return {score: {"filterType": "number", "type": op, "filter": v, **bound}}

    either = [{"type": "startsWith", "filter": "hop"}, {"type": "endsWith", "filter": "joy"}]
    models: list[Any] = [
        None,
        text("contains", "love"),
        text("contains", "hop"),
        text("contains", "_"),
        text("notContains", "love"),
        text("equals", "LOVELACE"),
        text("notEqual", "lovelace"),
        text("startsWith", "lo"),
        text("endsWith", "ss"),
        text("blank", ""),
        text("notBlank", ""),
        number("greaterThan", 15),
        number("lessThanOrEqual", 20.5),
        number("equals", 30),
        number("inRange", 10, 30),
        number("inRange", 10.5, 30.5),
        number("inRange", 0, 20.5),
        number("notEqual", 10),
        number("blank", 0),
        {
            "last_name": {"filterType": "text", "operator": "OR", "conditions": either},
            score: {"filterType": "number", "type": "greaterThan", "filter": 5},
        },
        {"last_name": {"filterType": "set", "values": ["Lovelace", None]}},  # an IN list
    ]
    sorts: list[Any] = [[{"colId": score, "sort": "desc"}], [{"colId": "last_name"}]]
    narrowed = ContactScope(org, frozenset({second}))

    def of(scope: ContactScope) -> list[str]:  # the other organisation has no Score column
        return columns if scope.org_id == org else columns[:2]

    scopes = [(ContactScope(org), None), (ContactScope(org), mine), (narrowed, None)]
    scopes.append((ContactScope(other), None))
    cases = [
        (scope, list_id, model, None)
        for scope, list_id in scopes
        for model in models
        if scope.org_id == org or score not in (model or {})
    ]
    cases += [(ContactScope(org), None, model, sort) for model in models[:3] for sort in sorts]
    planned_before = len(reader._planned)
    for scope, list_id, model, sort in cases:
        got = api.call(
            fetch,
            reader,
            scope,
            columns=of(scope),
            list_id=list_id,
            filter_model=model,
            sort_model=sort,
            offset=0,
            limit=50,
        )
        want = api.call(_plain_fetch, api, scope, of(scope), list_id, model, sort)
        if sort is None:  # by id: the same order
            assert got == want, (scope, list_id, model)
        else:  # rows tied on the sorted column: by id, as both paths sort
            assert [r["id"] for r in got[0]] == [r["id"] for r in want[0]], (model, sort)
            assert got[1] == want[1]
    # the other organisation reads only its own contact, whatever shape it shares
    other_rows = api.call(
        fetch,
        reader,
        ContactScope(other),
        columns=columns[:2],
        list_id=None,
        filter_model=text("contains", "love"),
        sort_model=None,
        offset=0,
        limit=50,
    )
    assert [r["first_name"] for r in other_rows[0]] == ["Zed"]
    # by shape, not by values: e.g. "contains" with three values is one entry
    assert len(reader._planned) > planned_before
    assert len(reader._planned) - planned_before < len(cases) - 5
    sql = [str(compiled) for _, entry, _ in reader._planned.values() for compiled, _ in entry]
    assert not any("love" in text.lower() for text in sql)  # every value bound
    if reader._sqlite_path is not None:  # values bound in a dict, no IN list: no SQLAlchemy
        binders = [b for _, _, found in reader._planned.values() for b in found]
        assert any(b is not None for b in binders) and any(b is None for b in binders)


def test_a_page_past_every_row_and_an_offset_beyond_the_bound(api: Api) -> None:
    engine, reader = api.services.engine, api.services.reader
    org = api.org("a")
    mine = int(api.call(create_list, engine, org, "a", "contacts")["id"])
    for name in ("Ada", "Bea", "Cy"):
        api.call(seed_contact, engine, org, mine, {"first_name": name, "fields": {}})
    scope = ContactScope(org)

    def page(offset: int, limit: int) -> Any:
        return api.call(fetch, reader, scope, columns=["first_name"], list_id=None,
                        filter_model=None, sort_model=None, offset=offset, limit=limit)  # fmt: skip

    assert [r["first_name"] for r in page(0, 2)[0]] == ["Ada", "Bea"]
    assert [r["first_name"] for r in page(2, 2)[0]] == ["Cy"]  # same shape, other bounds
    assert page(10, 2) == ([], 3)
    assert page(MAX_OFFSET + 1, 2) == ([], 3)
    # the count is read only when the page does not say the total (full, or empty past 0)
    reads: list[Any] = []
    scan_planned = reader.scan_planned

    async def counting(key: Any, *args: Any) -> Any:
        reads.append(key[-1])
        return await scan_planned(key, *args)

    reader.scan_planned = counting  # type: ignore[method-assign]
    try:
        for offset, limit in ((0, 2), (2, 2), (0, 3), (0, 4), (3, 2), (10, 2)):
            reads.clear()
            rows, total = page(offset, limit)
            assert total == 3 and len(rows) == max(0, min(limit, 3 - offset))
            assert reads == (["page"] if 0 < len(rows) < limit else ["page", "count"])
    finally:
        del reader.scan_planned
