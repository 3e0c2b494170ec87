"""Docs tests: the docs model built from the project's spec, and demo servers to run examples on.

A server is the real `outreach-server serve` on a free port with its own SQLite database,
seeded by `admin seed-demo` (outreach_client.testing.start_outreach_server), with the rate
limits raised so that running every example in a row is not refused, and offline DNS
answers for the demo addresses (example.com: an MX host for the deliverability checks and a
public address for the webhook target).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from functools import cache
from pathlib import Path

import pytest
from outreach_client.testing import OutreachServer, start_outreach_server
from spec_gen.build import docs_settings
from spec_gen.config import load_config
from spec_gen.docsite import Site, build_site
from spec_gen.ir import build_ir
from spec_gen.load import bundle

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "generated" / "docs"
SERVER_ENV = {
    "OUTREACH_DNS_FIXED": "example.com=mx.example.com;addr:example.com=93.184.215.14",
}
RATE_LIMITS = (1000, 100_000)  # per second, per minute


@cache
def load_site() -> Site:
    """The model generated/docs is rendered from (built from the project's spec)."""
    config = load_config(ROOT)
    api = build_ir(bundle(config.spec).document)
    return build_site(api, docs_settings(config))


@pytest.fixture(scope="session")
def docs_site() -> Site:
    return load_site()


def _server(tmp_path_factory: pytest.TempPathFactory, name: str) -> Iterator[OutreachServer]:
    directory = tmp_path_factory.mktemp(name)
    with start_outreach_server(directory, env=SERVER_ENV, rate_limits=RATE_LIMITS) as server:
        yield server


@pytest.fixture(scope="session")
def demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    """A seeded demo server (the curl examples run against it, /docs is loaded from it)."""
    yield from _server(tmp_path_factory, "demo-server")


@pytest.fixture(scope="session")
def python_demo_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    """A second, fresh demo server for the Python examples (they repeat the curl ones)."""
    yield from _server(tmp_path_factory, "python-demo-server")


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"
