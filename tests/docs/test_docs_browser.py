"""The HTML reference page in headless Chromium: it loads offline without console errors, its
sidebar navigates, its search box filters the operations, and the server serves it at /docs.

Chromium is driven through chromedriver's W3C WebDriver HTTP protocol (chromium_webdriver.py).
Without /usr/bin/chromedriver and Chromium these tests skip, except under CI=true, where they
fail. Screenshots go to the test's tmp directory and to tests/docs/artifacts/ (ignored by git).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from chromium_webdriver import Session, available, browser, chromedriver
from docs_support import DOCS, ROOT, in_ci
from outreach_client.testing import OutreachServer
from spec_gen.docs import Site

PAGE = DOCS / "index.html"
ARTIFACTS = Path(__file__).parent / "artifacts"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

VISIBLE_NAV_OPS = """
return Array.from(document.querySelectorAll('#sidebar .nav-op'))
  .filter(li => li.offsetParent !== null)
  .map(li => li.querySelector('a').getAttribute('href').slice(1));
"""
VISIBLE_ARTICLES = """
return Array.from(document.querySelectorAll('article.operation'))
  .filter(a => a.offsetParent !== null).map(a => a.id);
"""
TOP_OF = "const e = document.getElementById(arguments[0]); return e.getBoundingClientRect().top;"


@pytest.fixture(scope="module")
def driver() -> Iterator[object]:
    if not available():
        reason = "headless Chromium needs /usr/bin/chromedriver and chromium (apt-get install chromium chromium-driver)"
        if in_ci():
            pytest.fail(reason)
        pytest.skip(reason)
    with chromedriver() as http:
        yield http


@pytest.fixture
def page(driver: object) -> Iterator[Session]:
    with browser(driver) as session:  # type: ignore[arg-type]
        session.get(PAGE.as_uri())
        session.wait_for("return document.readyState === 'complete'")
        yield session


def _problems(session: Session) -> list[dict[str, object]]:
    """Console errors and warnings, uncaught exceptions, failed loads (CSP refusals too)."""
    return [e for e in session.browser_log() if e.get("level") in ("SEVERE", "WARNING")]


def _screenshot(session: Session, tmp_path: Path, name: str) -> Path:
    png = session.screenshot()
    assert png.startswith(PNG_SIGNATURE)
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / name).write_bytes(png)
    path = tmp_path / name
    path.write_bytes(png)
    print(f"screenshot: {path} (and {ARTIFACTS / name})")
    return path


def test_page_loads_from_file_without_console_errors(
    page: Session, docs_site: Site, tmp_path: Path
) -> None:
    assert page.execute("return location.protocol") == "file:"
    assert page.execute("return document.title").startswith(docs_site.title)
    counts = page.execute(
        "return [document.querySelectorAll('#sidebar .nav-op').length,"
        " document.querySelectorAll('article.operation').length,"
        " document.querySelectorAll('section.guide').length,"
        " document.querySelectorAll('link[href^=http], script[src], img[src^=http]').length]"
    )
    assert counts == [
        len(docs_site.operations),
        len(docs_site.operations),
        len(docs_site.guides),
        0,
    ]
    page.execute("window.scrollTo(0, 0)")
    assert _problems(page) == []
    _screenshot(page, tmp_path, "docs-overview.png")


def test_console_problems_are_seen(page: Session) -> None:
    """The collector the other tests rely on: a console error and an uncaught one show up."""
    assert _problems(page) == []
    page.execute("console.error('planted'); setTimeout(function () { missing_function(); }, 0)")
    messages = [str(e["message"]) for e in _wait_for_problems(page, 2)]
    assert any("planted" in m for m in messages), messages
    assert any("missing_function" in m for m in messages), messages


def _wait_for_problems(session: Session, count: int) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for _ in range(50):
        found += _problems(session)
        if len(found) >= count:
            break
        time.sleep(0.05)
    return found


def test_sidebar_navigates_to_tags_and_operations(
    page: Session, docs_site: Site, tmp_path: Path
) -> None:
    tag = docs_site.tags[-1]
    page.click(page.find(f'#sidebar a.nav-tag-link[href="#{tag.anchor}"]'))
    assert page.wait_for("return location.hash === arguments[0]", f"#{tag.anchor}")
    assert 0 <= page.execute(TOP_OF, tag.anchor) < 40
    op = docs_site.tags[1].operations[-1]
    link = page.find(f'#sidebar .nav-op a[href="#{op.anchor}"]')
    page.click(link)
    assert page.wait_for("return location.hash === arguments[0]", f"#{op.anchor}")
    assert 0 <= page.execute(TOP_OF, op.anchor) < 40
    assert (
        page.execute("return document.querySelector('#sidebar a.current').getAttribute('href')")
        == f"#{op.anchor}"
    )
    title = page.execute(
        "return document.getElementById(arguments[0]).querySelector('.path').textContent",
        op.anchor,
    )
    assert title == op.op.full_path
    page.click(page.find('#sidebar a[href="#guide-errors"]'))
    assert 0 <= page.execute(TOP_OF, "guide-errors") < 40
    assert _problems(page) == []
    _screenshot(page, tmp_path, "docs-errors-guide.png")


@pytest.mark.parametrize("query", ["api-keys", "Webhook", "list_suppressions", "POST contacts"])
def test_search_filters_operations(
    page: Session, docs_site: Site, query: str, tmp_path: Path
) -> None:
    box = page.find("#search")
    page.type(box, query)
    terms = query.lower().split()
    expected = [d.anchor for d in docs_site.operations if all(t in d.search for t in terms)]
    assert expected, query
    assert page.wait_for(
        "return document.querySelectorAll('#sidebar .nav-op:not([hidden])').length === arguments[0]",
        len(expected),
    )
    assert page.execute(VISIBLE_NAV_OPS) == expected
    assert page.execute(VISIBLE_ARTICLES) == expected
    status = page.execute("return document.getElementById('search-status').textContent")
    assert status == f"{len(expected)} of {len(docs_site.operations)} operations"
    if query == "api-keys":
        _screenshot(page, tmp_path, "docs-search.png")
    page.clear(box)
    page.type(box, "no-such-operation-anywhere")
    assert page.wait_for("return !document.getElementById('no-match').hidden")
    assert page.execute(VISIBLE_NAV_OPS) == []
    page.clear(box)
    page.execute("document.getElementById('search').dispatchEvent(new Event('input'))")
    assert len(page.execute(VISIBLE_NAV_OPS)) == len(docs_site.operations)
    assert _problems(page) == []


def test_server_serves_the_page_at_docs(demo_server: OutreachServer) -> None:
    answer = httpx.get(f"{demo_server.origin}/docs", timeout=10)
    assert answer.status_code == 200
    assert answer.headers["content-type"].startswith("text/html")
    # the generated page, its examples calling the address served (outreach_server.app)
    from urllib.parse import urlsplit

    from outreach_server.app import served_docs

    where = urlsplit(demo_server.origin)
    assert where.hostname is not None and where.port is not None
    expected = served_docs(where.hostname, where.port, PAGE.read_bytes())
    assert answer.content == expected
    assert f"{demo_server.origin}/api/v1".encode() in answer.content


def test_served_page_works_in_the_browser(
    driver: object, demo_server: OutreachServer, tmp_path: Path
) -> None:
    with browser(driver) as session:  # type: ignore[arg-type]
        session.get(f"{demo_server.origin}/docs#create_webhook")
        session.wait_for("return document.readyState === 'complete'")
        assert session.execute("return location.pathname") == "/docs"
        assert 0 <= session.execute(TOP_OF, "create_webhook") < 40
        assert _problems(session) == []
        _screenshot(session, tmp_path, "docs-served.png")


def test_server_still_serves_the_bundled_spec(demo_server: OutreachServer) -> None:
    answer = httpx.get(f"{demo_server.origin}/openapi.json", timeout=10)
    assert answer.status_code == 200
    bundled = ROOT / "generated" / "server" / "outreach_api" / "openapi.json"
    assert answer.json() == json.loads(bundled.read_text("utf-8"))
