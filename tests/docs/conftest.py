"""Docs tests: the docs model, and demo servers to run the examples on and load /docs from.

A server is the real `outreach-server serve` on a free port with its own SQLite database,
seeded by `admin seed-demo` (outreach_client.testing.start_outreach_server), with the rate
limits raised so that running every example in a row is not refused, and offline DNS
answers for the demo addresses (example.com: an MX host for the deliverability checks and a
public address for the webhook target).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from docs_support import load_site
from outreach_client.testing import OutreachServer, start_outreach_server
from spec_gen.docs import Site

SERVER_ENV = {
    "OUTREACH_DNS_FIXED": "example.com=mx.example.com;addr:example.com=93.184.215.14",
    "OUTREACH_RATE_LIMIT_PER_SECOND": "1000",
    "OUTREACH_RATE_LIMIT_PER_MINUTE": "100000",
}


@pytest.fixture(scope="session")
def docs_site() -> Site:
    return load_site()


def _server(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[OutreachServer]:
    directory = tmp_path_factory.mktemp(name)
    with start_outreach_server(directory, env=SERVER_ENV) as server:
        yield server


@pytest.fixture(scope="session")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    """A seeded demo server (the curl examples run against it, /docs is loaded from it)."""
    yield from _server(tmp_path_factory, "demo-server")


@pytest.fixture(scope="session")
def python_demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    """A second, fresh demo server for the Python examples (they repeat the curl ones)."""
    yield from _server(tmp_path_factory, "python-demo-server")
