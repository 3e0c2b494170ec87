"""The API's routes as one table: a request tries only the routes that can match its path.

Starlette's and FastAPI's routers try every route in order until one matches; with the API's
~45 routes in one list, a request for a late one paid ~45 route tests before its handler
ran. The generated layer's `RouteTable` (`outreach_api.transport`, what its `create_app`
uses) is one entry of the app's route list holding the API's routes, keyed by the literal
segments their paths start with, with the answer of the flat list.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from outreach_api.transport import ROUTE, RouteTable, first_segment
from starlette.routing import BaseRoute

__all__ = ["ROUTE", "RouteTable", "every_route", "first_segment"]


def every_route(routes: Sequence[BaseRoute]) -> Iterator[BaseRoute]:
    """The routes of a route list, those of a `RouteTable` in its place."""
    for route in routes:
        if isinstance(route, RouteTable):
            yield from route.routes
        else:
            yield route
