"""The API's routes as one table: a request tries only the routes that can match its path.

Starlette's and FastAPI's routers try every route in order until one matches; with the API's
~45 routes in one list, a request for a late one paid ~45 route tests before its handler
ran. `RouteTable` is one entry of the app's route list holding the API's routes, keyed by
the first segment of their path: a request tries, in their original order, only the routes
of its own first segment and those that could match any (a parameter in the first segment).
The answer is the one the flat list gives: the first route matching in full wins, else the
first matching the path but not the method (405), else none; a path with a newline (which
`$` in a route's expression tolerates at the end) tries every route.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from starlette.datastructures import URLPath
from starlette.routing import BaseRoute, Match, NoMatchFound
from starlette.types import Receive, Scope, Send

ROUTE = "route"  # the matched route, in the child scope (as FastAPI's APIRoute records it)


def first_segment(route: BaseRoute) -> str | None:
    """The literal first path segment every path this route matches has, or None if any."""
    path_format = getattr(route, "path_format", None)
    if not isinstance(path_format, str) or not path_format.startswith("/"):
        return None
    literal = path_format.partition("{")[0][1:]
    if "/" in literal:
        return literal.partition("/")[0]
    return literal if "{" not in path_format else None


class RouteTable(BaseRoute):
    """Routes in order, looked up by the first segment of the request's path."""

    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        self.routes = list(routes)
        keyed = [(first_segment(route), route) for route in self.routes]
        self._anywhere = tuple(route for key, route in keyed if key is None)
        self._by_segment = {
            segment: tuple(route for key, route in keyed if key in (None, segment))
            for segment in {key for key, _ in keyed if key is not None}
        }

    def candidates(self, scope: Scope) -> Sequence[BaseRoute]:
        if scope["type"] != "http" or scope.get("root_path"):
            return self.routes
        path: str = scope["path"]
        if "\n" in path:
            return self.routes
        return self._by_segment.get(path[1:].partition("/")[0], self._anywhere)

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        partial: Scope | None = None
        for route in self.candidates(scope):
            match, child_scope = route.matches(scope)
            if match == Match.FULL:
                child_scope[ROUTE] = route
                return match, child_scope
            if match == Match.PARTIAL and partial is None:
                partial = {**child_scope, ROUTE: route}
        if partial is not None:
            return Match.PARTIAL, partial
        return Match.NONE, {}

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        route: BaseRoute = scope[ROUTE]
        await route.handle(scope, receive, send)

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        for route in self.routes:
            try:
                return route.url_path_for(name, **path_params)
            except NoMatchFound:
                continue
        raise NoMatchFound(name, path_params)


def every_route(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """The routes of a route list, those of a `RouteTable` in its place."""
    for route in routes:
        if isinstance(route, RouteTable):
            yield from route.routes
        else:
            yield route
