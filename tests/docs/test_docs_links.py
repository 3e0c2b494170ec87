"""Every link of the generated reference leads somewhere: Markdown links to existing files and
anchors, the HTML page's fragment links to ids of the page, and nothing it loads is external."""

from __future__ import annotations

import re

from docs_support import DOCS

MD_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(text: str) -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', text))


def test_markdown_links_resolve() -> None:
    pages = sorted(DOCS.rglob("*.md"))
    assert len(pages) > 2
    for page in pages:
        text = page.read_text("utf-8")
        for target in MD_LINK.findall(text):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.is_file(), f"{page.name}: {target}"
            if anchor:
                assert anchor in _anchors(linked.read_text("utf-8")), f"{page.name}: {target}"


def test_html_fragments_resolve_and_nothing_is_fetched() -> None:
    page = (DOCS / "index.html").read_text("utf-8")
    ids = set(re.findall(r'\sid="([^"]+)"', page))
    for target in re.findall(r'href="#([^"]*)"', page):
        assert target in ids, target
    assert not re.search(r"<(script|img|iframe)[^>]*\ssrc=", page)
    assert not re.search(r'<link[^>]*href="(?!data:)', page)
    assert "default-src 'none'" in page
