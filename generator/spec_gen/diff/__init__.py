"""`spec-gen diff`: the changes between two OpenAPI documents, each judged by oasdiff's rules.

Operations are compared by method and full path (the server prefix included), webhooks
by name; schemas after following `$ref`s. The rule ids and levels live in `diff.rules`.

- `document`: reading one document; `operations`, `messages`, `schemas`, `keywords`: the
  comparison, outermost first; `render`: Markdown and JSON; `readme`: docs/diff.md's tables;
  `generated`: what the change does to the generated code; `command`: the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..document.load import bundle
from .document import Doc
from .model import Change, Report
from .operations import Differ
from .render import render_json, render_markdown

__all__ = ["Change", "Report", "diff_documents", "diff_specs", "render_json", "render_markdown"]


def diff_documents(old: dict[str, Any], new: dict[str, Any]) -> list[Change]:
    """Every change from `old` to `new` (bundled documents), in report order."""
    differ = Differ(Doc(old), Doc(new))
    differ.run()
    return sorted(set(differ.changes), key=Change.sort_key)


def diff_specs(old_root: Path, new_root: Path) -> list[Change]:
    """Bundle two root spec files (each may `$ref` others) and compare them."""
    old, new = (bundle(root, inapplicable=False).document for root in (old_root, new_root))
    return diff_documents(old, new)
