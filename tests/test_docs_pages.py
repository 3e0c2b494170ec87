"""The README is a front page and the reference lives in docs/: every page is linked from
the README, every relative link of the README and of the pages leads to a file (and, with a
fragment, to a heading of it), and the README stays short."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
LINK = re.compile(r"\]\(([^)\s]+)\)")
# pages another part of the work provides: linked before they land, checked once they exist
PROVIDED_ELSEWHERE = {DOCS / "own-spec.md"}


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    text = re.sub(r"```.*?```", "", text, flags=re.DOTALL)
    return {_slug(h) for h in re.findall(r"^#+ (.+)$", text, re.MULTILINE)}


def _pages() -> list[Path]:
    return [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]


def test_the_readme_is_a_front_page_linking_every_page() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= 300
    linked = {(ROOT / target.partition("#")[0]).resolve() for target in LINK.findall(readme)}
    pages = sorted(DOCS.glob("*.md"))
    assert len(pages) >= 8
    assert [p.name for p in pages if p.resolve() not in linked] == []


def test_every_relative_link_resolves() -> None:
    for page in _pages():
        text = page.read_text("utf-8")
        for target in LINK.findall(re.sub(r"```.*?```", "", text, flags=re.DOTALL)):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            if linked in PROVIDED_ELSEWHERE and not linked.exists():
                continue
            assert linked.exists(), f"{page.name}: {target}"
            if fragment and linked.suffix == ".md":
                assert fragment in _anchors(linked.read_text("utf-8")), f"{page.name}: {target}"


def test_the_reference_text_moved_whole() -> None:
    """Sentences the README held before the move, one per page, are found in their page."""
    moved = {
        "service.md": "stored only as SHA-256 of the part after the",
        "client.md": "`AsyncClient` has the same namespaces; `await` its methods",
        "cli.md": "Exit status: 0 done; 1 the spec has errors",
        "rule-profiles.md": "`house`: this repository's conventions on top",
        "configuration.md": "Extensions the toolchain reads: `x-tier`, `x-scope`",
        "server.md": "Every model class is named before datamodel-code-generator runs",
        "diff.md": "<!-- diff-rules:begin",
        "reference-docs.md": "`outreach-server admin seed-demo` creates what the examples name",
        "development.md": "`.ci/run` runs `./scripts/test.sh` with `CI=true`",
    }
    for name, sentence in moved.items():
        assert sentence in (DOCS / name).read_text("utf-8"), name
