"""A report as Markdown (a PR comment) or JSON (for bots)."""

from __future__ import annotations

import json
from typing import Any

from .model import Report
from .rules import LEVELS, Level

GROUPS: dict[Level, str] = {
    "breaking": "Breaking",
    "warning": "Warnings",
    "non-breaking": "Non-breaking",
}


def cell(text: str) -> str:
    """Table-safe: GitHub reads `\\|` as a pipe even inside code spans."""
    return text.replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report) -> str:
    counts = ", ".join(f"{report.count(level)} {GROUPS[level].lower()}" for level in LEVELS)
    lines = [f"## API changes: {counts}", "", f"Comparing `{report.old}` with `{report.new}`."]
    if not report.changes:
        lines += ["", "No changes to the API."]
    view = report.generated
    for level in LEVELS:
        group = [c for c in report.changes if c.level == level]
        if not group:
            continue
        lines += ["", f"### {GROUPS[level]} ({len(group)})", ""]
        if view is None:
            lines += ["| Operation | Rule | Change |", "|---|---|---|"]
            lines += [f"| `{cell(c.operation)}` | `{c.rule}` | {cell(c.message)} |" for c in group]
            continue
        for change in group:
            lines += [f"- `{change.operation}` `{change.rule}`: {change.message}"]
            lines += [f"  - {line}" for line in view.markdown_for(change)]
    if view is not None:
        lines += ["", *view.markdown_summary()]
    return "\n".join(lines) + "\n"


def render_json(report: Report) -> str:
    view = report.generated
    changes: list[dict[str, Any]] = []
    for change in report.changes:
        entry: dict[str, Any] = dict(change.as_json())
        if view is not None:
            entry["generated"] = view.json_for(change)
        changes.append(entry)
    payload: dict[str, Any] = {
        "old": report.old,
        "new": report.new,
        "summary": {level: report.count(level) for level in LEVELS},
        "changes": changes,
    }
    if view is not None:
        payload["generated"] = view.json_summary()
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
