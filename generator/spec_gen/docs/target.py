"""Reference docs: Markdown pages (an index, one page per tag, one per guide) and one
self-contained HTML page (`index.html`: inline CSS and JS, nothing fetched, works from
file://). Both are laid out from the same model (`spec_gen.docs`)."""

from __future__ import annotations

import re
from functools import partial

from ..core.naming import module_name
from ..ir import Api
from ..targets import Target
from . import DocsSettings, build_site
from .markup import Anchors, html_blocks, html_text, md_cell, md_text, op_anchors

HTML_PAGE = "index.html"


def render_docs(target: Target, api: Api, settings: DocsSettings) -> dict[str, str]:
    site = build_site(api, settings)
    anchors = Anchors(
        {op.operation_id: module_name(op.tag) for op in api.operations}, op_anchors(api)
    )
    ctx = {**target.context(api), "site": site, "header_md": target.header.lstrip("# ")}

    def markdown(name: str, depth: int, **extra: object) -> str:
        functions = {
            "md_text": partial(md_text, anchors=anchors, depth=depth),
            "md_cell": partial(md_cell, anchors=anchors, depth=depth),
        }
        return tidy_markdown(target.render(name, **ctx, **functions, **extra))

    files = {"README.md": markdown("docs/index.md.j2", 0)}
    for tag in site.tags:
        files[f"{tag.module}.md"] = markdown("docs/tag.md.j2", 0, tag=tag)
    for guide in site.guides:
        files[f"guides/{guide.slug}.md"] = markdown("docs/guide.md.j2", 1, guide=guide)
    files[HTML_PAGE] = target.render(
        "docs/index.html.j2",
        **ctx,
        html_text=partial(html_text, anchors=anchors),
        html_blocks=partial(html_blocks, anchors=anchors),
    )
    return files


def tidy_markdown(text: str) -> str:
    """One blank line between blocks and no trailing spaces, outside code fences."""
    out: list[str] = []
    fenced = False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and not line.startswith("```"):
            line = line.rstrip()
            if not line and (not out or not out[-1]):
                continue
        out.append(line)
    return re.sub(r"\n+\Z", "", "\n".join(out)) + "\n"
