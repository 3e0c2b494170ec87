"""Reference docs: Markdown pages (an index, one page per tag, one per guide) and one
self-contained HTML page (`index.html`: inline CSS and JS, nothing fetched, works from
file://). Both are laid out from the same model (`spec_gen.docs`)."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

from markupsafe import Markup

from ..core.naming import module_name
from ..ir import Api, Tag
from ..targets import Target
from ..targets.client.facts import status_errors
from ..targets.client.resources import client_views
from ..targets.unit_keys import IrKeys, SchemaClosure, digest, op_links
from ..targets.units import Units, path_item, unit_key
from . import DocsSettings, build_site
from .markup import Anchors, html_blocks, html_text, md_cell, md_text, op_anchors
from .operations import uses_lifecycle

HTML_PAGE = "index.html"


def render_docs(
    target: Target, api: Api, settings: DocsSettings, units: Units | None = None
) -> dict[str, str]:
    """The pages; a tag's page and its section of the HTML page read back from `units` when
    their inputs did not change (its operations' blocks are then not made either)."""
    units = units or Units(None)
    keys: dict[str, str] = {}
    kept: dict[str, tuple[str, str]] = {}  # tag module -> its page and HTML section, kept
    anchors = Anchors(
        {op.operation_id: module_name(op.tag) for op in api.operations}, op_anchors(api)
    )
    if units.enabled:
        # the tag templates read `tag` (its operations' docs: what targets/unit_keys.py
        # names), the anchors and the header
        prints = units.fingerprints(api.document)
        facts = docs_facts(api, settings)
        scope = units.scope_of("docs", target.header, settings, facts, prints.narrow)
        views = client_views(api, set(api.schemas), settings.env_prefix)
        closure = SchemaClosure(api)
        table = settings.schemes(api)  # the credentials of every scheme
        for ir_tag in api.tags:
            pointers = {path_item(op.path) for op in ir_tag.operations}
            own = prints.reach([*pointers, *prints.tag_nodes([ir_tag.name])])
            own += docs_unit(table, ir_tag, views, units.keys, closure, anchors)
            keys[ir_tag.module] = unit_key(scope, ir_tag.module, own)
            page, section = (
                units.kept(keys[ir_tag.module] + "md"),
                units.kept(keys[ir_tag.module] + "html"),
            )
            if page is not None and section is not None:
                kept[ir_tag.module] = (page, section)
    site = build_site(api, settings, light=kept)
    ctx = {**target.context(api), "site": site, "header_md": target.header.lstrip("# ")}

    def markdown(name: str, depth: int, **extra: object) -> str:
        functions = {
            "md_text": partial(md_text, anchors=anchors, depth=depth),
            "md_cell": partial(md_cell, anchors=anchors, depth=depth),
        }
        return tidy_markdown(target.render(name, **ctx, **functions, **extra))

    html = {
        "html_text": partial(html_text, anchors=anchors),
        "html_blocks": partial(html_blocks, anchors=anchors),
    }
    files = {"README.md": markdown("docs/index.md.j2", 0)}
    sections: dict[str, Markup] = {}
    for tag in site.tags:
        if tag.module in kept:
            page, section = kept[tag.module]
            units.count("docs", reused=True)
        else:
            page = markdown("docs/tag.md.j2", 0, tag=tag)
            section = target.render("docs/tag.html.j2", **ctx, **html, tag=tag)
            if units.enabled:
                units.keep(keys[tag.module] + "md", page)
                units.keep(keys[tag.module] + "html", section)
                units.count("docs", reused=False)
        files[f"{tag.module}.md"] = page
        sections[tag.module] = Markup(section)
    for guide in site.guides:
        files[f"guides/{guide.slug}.md"] = markdown("docs/guide.md.j2", 1, guide=guide)
    files[HTML_PAGE] = target.render("docs/index.html.j2", **ctx, **html, tag_html=sections)
    return files


def docs_facts(api: Api, settings: DocsSettings) -> str:
    """What every docs page's layout reads of the whole API."""
    return digest(
        uses_lifecycle(api),
        settings.primary(api),
        settings.base_url(api),
        status_errors(api),
        api.default_security,
    )


def docs_unit(
    table: dict[str, Any],
    tag: Tag,
    views: dict[str, Any],
    keys: IrKeys,
    closure: SchemaClosure,
    anchors: Anchors,
) -> str:
    """The IR-side part of a tag's docs page key (targets/unit_keys.py): its IR and views, the
    credentials of the schemes its operations name (`table`), the anchors of the operations
    it and its texts link to, the model classes its operations reach."""
    ops = tag.operations
    own_views = [views.get(op.operation_id) for op in ops]
    classes, links = keys.reached([*ops, *(v for v in own_views if v is not None)])
    links |= set(op_links(tag.description)) | {op.operation_id for op in ops}
    names = sorted({name for op in ops for alt in op.security for name in alt})
    return digest(
        keys.digest(tag, own_views),
        [(name, table.get(name)) for name in names],
        [(i, anchors.op_tags.get(i), anchors.op_ids.get(i)) for i in sorted(links)],
        closure.of(classes),
    )


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
