"""The generated client pages the shapes real APIs use, over HTTP, sync and async: a cursor in
the body or a header, the Link header, offset/limit with has-more, page numbers with a page
count, `x-speakeasy-pagination`, `x-fern-pagination` and an `x-pagination` mapping. The server
is written by hand as those APIs behave (it is not the generated one): each list is served in
pages and every request is recorded, so a test sees how many pages the client fetched."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI, Request, Response
from harness import package
from http_server import serve_http

EVENTS = [{"id": f"e{n}"} for n in range(5)]
LOGS = [f"line {n}" for n in range(7)]
REPOS = [{"id": n, "name": f"repo{n}"} for n in range(5)]
CHARGES = [{"id": f"ch{n}", "amount": n * 100} for n in range(5)]
AUDITS = [f"audit {n}" for n in range(5)]


def chunk(items: list[Any], start: int, size: int) -> tuple[list[Any], int | None]:
    end = start + size
    return items[start:end], (end if end < len(items) else None)


def real_api(seen: list[str]) -> FastAPI:
    api = FastAPI()

    @api.middleware("http")
    async def record(request: Request, call_next: Any) -> Any:
        seen.append(f"{request.url.path}?{request.url.query}")
        return await call_next(request)

    @api.get("/events")
    def events(cursor: str = "0", limit: int = 2) -> dict[str, Any]:
        page, after = chunk(EVENTS, int(cursor), limit)
        return {"data": page, "next_cursor": None if after is None else str(after)}

    @api.get("/logs")
    def logs(response: Response, page_token: str = "0") -> list[str]:
        page, after = chunk(LOGS, int(page_token), 3)
        if after is not None:
            response.headers["X-Next-Page-Token"] = str(after)
        return page

    @api.get("/repos")
    def repos(request: Request, response: Response, page: int = 1, per_page: int = 2) -> Any:
        items, after = chunk(REPOS, (page - 1) * per_page, per_page)
        links = [f'<{request.url.include_query_params(page=1)}>; rel="first"']
        if after is not None:  # relative and absolute targets both occur: use the path only
            links.append(f'</repos?page={page + 1}&per_page={per_page}>; rel="next"')
        response.headers["Link"] = ", ".join(links)
        return items

    @api.get("/charges")
    def charges(offset: int = 0, limit: int = 2) -> dict[str, Any]:
        page, after = chunk(CHARGES, offset, limit)
        return {"items": page, "has_more": after is not None}

    @api.get("/orders")
    def orders(page: int = 1, per_page: int = 2) -> dict[str, Any]:
        items, _ = chunk(CHARGES, (page - 1) * per_page, per_page)
        return {"results": items, "meta": {"total_pages": -(-len(CHARGES) // per_page)}}

    @api.get("/invoices")
    def invoices(page: int = 1, per_page: int = 2) -> dict[str, Any]:
        items, _ = chunk(CHARGES, (page - 1) * per_page, per_page)
        return {"invoices": items, "meta": {"total": len(CHARGES)}}

    @api.get("/tickets")
    def tickets(after: str = "0", size: int = 2) -> dict[str, Any]:
        page, nxt = chunk(EVENTS, int(after), size)
        return {"tickets": page, "archived": ["x"], "paging": {"next_after": nxt and str(nxt)}}

    @api.get("/users")
    def users(skip: int = 0, take: int = 2) -> dict[str, Any]:
        page, after = chunk(REPOS, skip, take)
        return {"users": page, "more": after is not None}

    @api.get("/audits")
    def audits(request: Request, at: int = 0) -> dict[str, Any]:
        page, after = chunk(AUDITS, at, 2)
        nxt = None if after is None else str(request.url.include_query_params(at=after))
        return {"entries": page, "links": {"next": nxt}}

    @api.get("/notes")
    def notes() -> dict[str, Any]:
        return {"data": ["a", "b"], "next_cursor": "ignored"}

    return api


@pytest.fixture
def served() -> Iterator[tuple[Any, list[str]]]:
    seen: list[str] = []
    with serve_http(real_api(seen)) as url:
        client = package("pagination", "client").Client(base_url=url)
        yield client, seen
        client.close()


def test_a_cursor_in_the_body_walks_every_page_lazily(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    models = package("pagination", "client").models
    page = client.events.list_events()
    assert [e.id for e in page.data] == ["e0", "e1"]  # the first page only, fetched once
    assert seen == ["/events?"]
    assert page.response.next_cursor == "2" and page.http_response.status_code == 200
    items = list(page)
    assert [e.id for e in items] == ["e0", "e1", "e2", "e3", "e4"]
    assert all(isinstance(e, models.Event) for e in items)
    assert [s.split("?")[1] for s in seen[1:]] == ["cursor=2", "cursor=4"]


def test_stopping_early_fetches_no_further_page(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    for event in client.events.list_events():
        assert event.id == "e0"
        break
    assert len(seen) == 1


def test_a_cursor_in_a_header_and_an_answer_that_is_the_list(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    pages = list(client.logs.list_logs().iter_pages())
    assert [p.data for p in pages] == [LOGS[0:3], LOGS[3:6], LOGS[6:]]
    assert [s.split("?")[1] for s in seen] == ["", "page_token=3", "page_token=6"]


def test_the_link_header_is_followed(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    repos = list(client.repos.list_repos(per_page=2))
    assert [(r.id, r.name) for r in repos] == [(n, f"repo{n}") for n in range(5)]
    assert [s.split("?")[1] for s in seen] == [
        "per_page=2",
        "page=2&per_page=2",
        "page=3&per_page=2",
    ]


def test_offset_limit_with_has_more(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    charges = list(client.charges.list_charges(limit=2))
    assert [c.amount for c in charges] == [0, 100, 200, 300, 400]
    assert [sorted(s.split("?")[1].split("&")) for s in seen] == [
        ["limit=2"],
        ["limit=2", "offset=2"],
        ["limit=2", "offset=4"],
    ]


def test_page_numbers_stop_at_the_page_count(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    assert len(list(client.orders.list_orders(per_page=2))) == 5
    assert len(seen) == 3  # no fourth request for an empty page


def test_page_numbers_stop_at_the_total(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    assert [i.id for i in client.invoices.list_invoices()] == [c["id"] for c in CHARGES]
    assert [s.split("?")[1] for s in seen] == ["", "page=2", "page=3"]  # 3 * 2 >= 5: stop


def test_vendor_extensions_and_a_declared_mapping(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    assert [t.id for t in client.tickets.list_tickets(size=2)] == [e["id"] for e in EVENTS]
    assert [u.id for u in client.users.list_users(take=2)] == [r["id"] for r in REPOS]
    assert list(client.audits.list_audits()) == AUDITS
    assert sum(s.startswith("/tickets") for s in seen) == 3
    assert sum(s.startswith("/users") for s in seen) == 3
    assert sum(s.startswith("/audits") for s in seen) == 3


def test_a_list_declared_unpaged_is_a_plain_answer(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    notes = client.notes.list_notes()
    assert notes.data == ["a", "b"]
    assert len(seen) == 1


def test_a_next_link_to_another_origin_is_not_followed() -> None:
    link_next = package("pagination", "client").pagination.link_next
    header = '<https://a.example/x?page=2>; rel="next", <https://a.example/x>; rel="first"'
    assert link_next(header) == "https://a.example/x?page=2"
    assert link_next('<https://a.example/x>; rel="prev"') is None
    seen: list[str] = []
    with serve_http(real_api(seen)) as url:
        client = package("pagination", "client").Client(base_url=url)
        page = client.repos.list_repos(per_page=2)
        assert page.has_next_page()
        # the same answer, its next link pointing at another host: the client's credentials
        # would go with it, so it is refused rather than followed
        page.http_response.headers["Link"] = '<https://attacker.example/steal>; rel="next"'
        with pytest.raises(ValueError, match="another origin"):
            list(page)
        assert len(seen) == 1
        client.close()


def test_the_async_client_pages_the_same_way(served: tuple[Any, list[str]]) -> None:
    client, seen = served
    base_url = client.base_url

    async def go() -> tuple[list[str], list[int], int, list[str]]:
        aclient = package("pagination", "client").AsyncClient(base_url=base_url)
        events = [e.id async for e in aclient.events.list_events()]
        first = await aclient.repos.list_repos(per_page=2)
        sizes = [len(p.data) async for p in first.iter_pages()]
        pages = [p async for p in aclient.logs.list_logs().iter_pages()]
        async for _ in aclient.charges.list_charges(limit=2):
            break
        await aclient.close()
        return events, sizes, len(pages), seen[-1:]

    events, sizes, log_pages, last = asyncio.run(go())
    assert events == [e["id"] for e in EVENTS]
    assert sizes == [2, 2, 1]
    assert log_pages == 3
    assert last == ["/charges?limit=2"]  # one page fetched: the loop stopped
