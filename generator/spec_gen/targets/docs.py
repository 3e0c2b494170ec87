"""Markdown reference: an index and one page per tag."""

from __future__ import annotations

from ..ir import Api
from . import Target


def render_docs(target: Target, api: Api) -> dict[str, str]:
    ctx = {**target.context(api), "header_md": target.header.lstrip("# ")}
    files = {"README.md": target.render("docs/index.md.j2", **ctx)}
    for tag in api.tags:
        files[f"{tag.module}.md"] = target.render("docs/tag.md.j2", **ctx, tag=tag)
    return files
