"""The guide pages, each made from what the spec declares: authentication, errors, rate
limits, pagination, webhooks and environments. A guide with nothing to say is left out."""

from __future__ import annotations

from ..ir import Api
from ..targets.client.resources import ClientOp
from .guide_access import authentication, environments_guide
from .guide_common import GuideMaker
from .guide_errors import errors, rate_limits
from .guide_paging import pagination
from .guide_webhooks import webhooks
from .model import DocsSettings, Guide

MAKERS: tuple[GuideMaker, ...] = (
    authentication,
    errors,
    rate_limits,
    pagination,
    webhooks,
    environments_guide,
)


def guides(api: Api, settings: DocsSettings, views: dict[str, ClientOp]) -> list[Guide]:
    return [g for g in (make(api, settings, views) for make in MAKERS) if g is not None]
