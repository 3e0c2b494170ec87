"""Docs tests' helpers: the docs model of the project's spec, and where the output lives."""

from __future__ import annotations

import os
from functools import cache
from pathlib import Path

from spec_gen.build.target_settings import docs_settings
from spec_gen.core.config import load_config
from spec_gen.docs import Site, build_site
from spec_gen.document.load import bundle
from spec_gen.ir import build_ir

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "generated" / "docs"


@cache
def load_site() -> Site:
    """The model generated/docs is rendered from (built from the project's spec)."""
    config = load_config(ROOT)
    api = build_ir(bundle(config.spec).document)
    return build_site(api, docs_settings(config))


def in_ci() -> bool:
    return os.environ.get("CI", "").lower() == "true"
