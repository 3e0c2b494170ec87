"""The API's route table answers as the flat route list it replaces (app/routing.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from outreach_api import OPERATIONS
from outreach_server import Settings, create_app
from outreach_server.app.routing import RouteTable, first_segment
from starlette.routing import BaseRoute, Match

METHODS = ("GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS")


def flat_answer(routes: list[BaseRoute], scope: dict[str, object]) -> tuple[Match, object]:
    """What a router's loop over `routes` picks: the first full match, else the first partial."""
    partial = None
    for route in routes:
        match, _ = route.matches(dict(scope))
        if match == Match.FULL:
            return match, route
        if match == Match.PARTIAL and partial is None:
            partial = route
    return (Match.PARTIAL, partial) if partial is not None else (Match.NONE, None)


def table_answer(table: RouteTable, scope: dict[str, object]) -> tuple[Match, object]:
    match, child_scope = table.matches(dict(scope))
    return match, child_scope.get("route")


def http_scope(method: str, path: str, root_path: str = "") -> dict[str, object]:
    return {"type": "http", "method": method, "path": path, "root_path": root_path}


@pytest.fixture(scope="module")
def table(tmp_path_factory: pytest.TempPathFactory) -> RouteTable:
    database: Path = tmp_path_factory.mktemp("routes") / "db.sqlite3"
    app = create_app(Settings(database_url=f"sqlite+aiosqlite:///{database}"))
    tables = [route for route in app.router.routes if isinstance(route, RouteTable)]
    assert len(tables) == 1
    assert len(tables[0].routes) == len(OPERATIONS)
    return tables[0]


def paths_to_try() -> list[str]:
    paths = set()
    for operation in OPERATIONS.values():
        template = operation.path
        paths.add(re.sub(r"{[^}]+}", "1", template))
        paths.add(re.sub(r"{[^}]+}", "x y", template))
        paths.add(re.sub(r"{[^}]+}", "1", template) + "/")
        paths.add(re.sub(r"{[^}]+}", "1", template) + "\n")
        paths.add(template.rsplit("/", 1)[0] or "/")
    paths |= {"/", "", "/v1", "/v1/", "/api", "/api/v1", "/nowhere", "/healthz", "//v1/api-keys"}
    paths |= {"/api/v1/nothing/here", "/api/v1/contacts/fetch/more", "/api//v1/contacts"}
    return sorted(paths)


def test_the_table_picks_the_route_the_flat_list_picks(table: RouteTable) -> None:
    seen = {Match.FULL: 0, Match.PARTIAL: 0, Match.NONE: 0}
    for method in METHODS:
        for path in paths_to_try():
            scope = http_scope(method, path)
            answer = table_answer(table, scope)
            assert answer == flat_answer(table.routes, scope), (method, path)
            seen[answer[0]] += 1
    # the comparison saw every kind of answer, not only misses
    assert seen[Match.FULL] >= len(OPERATIONS)
    assert seen[Match.PARTIAL] > 0
    assert seen[Match.NONE] > 0


def test_a_root_path_or_a_newline_tries_every_route(table: RouteTable) -> None:
    scope = http_scope("GET", "/prefix/v1/api-keys", root_path="/prefix")
    assert table.candidates(scope) == table.routes
    assert table_answer(table, scope) == flat_answer(table.routes, scope)
    assert table_answer(table, scope)[0] == Match.FULL
    assert table.candidates(http_scope("GET", "/v1/api-keys\n")) == table.routes


def test_routes_are_keyed_by_their_literal_leading_segments(table: RouteTable) -> None:
    keys = {first_segment(route) for route in table.routes}
    assert keys == {"v1", "api"}
    assert len(table.candidates(http_scope("GET", "/v1/api-keys"))) < len(table.routes)
    # under /api/v1/ (most routes): only those of the path's own leading segments
    fetch = table.candidates(http_scope("POST", "/api/v1/contacts/fetch"))
    assert 0 < len(fetch) < 10
    assert all(getattr(route, "path", "").startswith("/api/v1/contacts") for route in fetch)
    assert table.candidates(http_scope("GET", "/api/v1/nothing/here")) == ()
