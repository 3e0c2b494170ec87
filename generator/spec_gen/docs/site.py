"""`build_site`: the IR and the docs settings to a `Site` (reference pages and guides).

It sits above `model` (the page blocks and per-operation docs) and `guides` (which builds on
`model`), so neither of those imports the other in a circle.
"""

from __future__ import annotations

from collections.abc import Container

from ..core.naming import module_name
from ..ir import Api
from ..targets.client.resources import client_views
from .guides import guides as make_guides
from .markup import op_anchors
from .model import DocsSettings, OperationDoc, Site, TagDoc
from .operations import operation_doc, overview


def build_site(api: Api, settings: DocsSettings, light: Container[str] = ()) -> Site:
    """The site; the operations of the tags whose module is in `light` without their badges
    and blocks (their pages are not rendered again: `render_docs` reads them back)."""
    known = set(api.schemas)
    views = client_views(api, known, settings.env_prefix)
    anchors = op_anchors(api)
    tags = [
        TagDoc(
            tag.name,
            tag.module,
            " ".join(tag.description.split()),
            [
                OperationDoc(op, module_name(op.tag), [], [], anchors[op.operation_id])
                if tag.module in light
                else operation_doc(
                    api, op, views[op.operation_id], settings, anchors[op.operation_id]
                )
                for op in tag.operations
            ],
        )
        for tag in api.tags
    ]
    guides = make_guides(api, settings, views)
    return Site(
        title=api.title,
        version=api.version,
        description=api.description.strip(),
        overview=overview(api, guides, tags),
        guides=guides,
        tags=tags,
        settings=settings,
        api=api,
        views=views,
    )
