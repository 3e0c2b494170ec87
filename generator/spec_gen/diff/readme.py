"""The rule tables of docs/diff.md, generated from `diff.rules` (a test checks the page for
them)."""

from __future__ import annotations

from .rules import CONSTRAINT_CHECKS, DEPARTURES, OPERATION_RULES, RULES, SCHEMA_CHECKS, B, N, W

BEGIN = "<!-- diff-rules:begin (generated from generator/spec_gen/diff/rules.py) -->"
END = "<!-- diff-rules:end -->"


def rules_markdown() -> str:
    """The departures table, then every rule and its level, as docs/diff.md lists them."""
    lines = [
        "Levels that depart from oasdiff's (every other id has oasdiff's level):",
        "",
        "| Rule | Here | oasdiff | Why |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `{d.rule}` | {RULES[d.rule].level} | {d.oasdiff} | {d.reason} |" for d in DEPARTURES
    ]
    lines += [
        "",
        "<details><summary>Every rule and its level</summary>",
        "",
        "| Rule | Level | Change |",
        "|---|---|---|",
    ]
    lines += [f"| `{r.id}` | {r.level} | {r.description} |" for r in OPERATION_RULES]
    lines += [
        "",
        (
            "Schema checks apply to parameters (`request-parameter-*` at the top,"
            " `request-parameter-property-*` inside), request bodies"
            " (`request-body-*` at the top, `request-property-*` inside), response bodies of"
            " every status (`response-body-*`, `response-property-*`) and response headers"
            " (`response-header-*`), following `$ref`s, nested objects, array items,"
            " `additionalProperties`, `not`, `allOf`, `oneOf`, `anyOf` and the 2020-12"
            " sub-schema keywords. A rule named above wins over its family's level here."
        ),
        "",
        "| Check | Request | Response | Change |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| `*-{c.suffix}` | {c.request or '-'} | {c.response or '-'} | {c.description} |"
        for c in SCHEMA_CHECKS
    ]
    for request, response, what in ((B, N, "narrowed"), (N, B, "widened"), (W, N, "added")):
        suffixes = ", ".join(
            f"`*-{c.suffix}`"
            for c in CONSTRAINT_CHECKS
            if c.request == request and c.response == response
        )
        lines.append(f"| {suffixes} | {request} | {response} | a bound {what} |")
    lines += ["", "</details>"]
    return "\n".join(lines) + "\n"


def readme_section(readme: str) -> str:
    """The text between the page's markers (what `rules_markdown` must equal)."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[start:end].strip("\n") + "\n"


def refresh(readme: str) -> str:
    """The page's text with the section between the markers regenerated."""
    start, end = readme.index(BEGIN) + len(BEGIN), readme.index(END)
    return readme[:start] + "\n" + rules_markdown() + readme[end:]


if __name__ == "__main__":  # python -m spec_gen.diff.readme docs/diff.md
    import sys
    from pathlib import Path

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/diff.md")
    target.write_text(refresh(target.read_text(encoding="utf-8")), encoding="utf-8")
