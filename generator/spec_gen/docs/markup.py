"""Inline Markdown as the docs use it, for both outputs.

Text in the model is a small Markdown subset: paragraphs (blank lines), `- ` bullet lines,
code spans, **bold**, *emphasis* and links. A link target is a URL, or a reference to a part
of the docs: `op:<operationId>`, `tag:<module>`, `guide:<slug>`. `md_text` resolves the
references to the Markdown files (relative to the page being written); `html_text` and
`html_blocks` turn the subset into HTML, references becoming anchors of the single page.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache

from markupsafe import Markup

_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINK = re.compile(r"\[((?:[^\]`]|`[^`]*`)+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
_EM = re.compile(r"(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])")


@dataclass(frozen=True)
class Anchors:
    """Where a reference leads: operation id -> tag module (for the Markdown pages)."""

    op_tags: dict[str, str]

    def markdown(self, ref: str, depth: int) -> str:
        up = "../" * depth
        kind, _, name = ref.partition(":")
        if kind == "op":
            return f"{up}{self.op_tags.get(name, 'README')}.md#{name}"
        if kind == "tag":
            return f"{up}{name}.md"
        if kind == "guide":
            return f"{up}guides/{name}.md"
        return ref

    @staticmethod
    def html(ref: str) -> str:
        kind, _, name = ref.partition(":")
        if kind == "op":
            return f"#{name}"
        if kind == "tag":
            return f"#tag-{name}"
        if kind == "guide":
            return f"#guide-{name}"
        return ref


def md_text(text: str, anchors: Anchors, depth: int) -> str:
    """Markdown with the docs references resolved for a page `depth` folders deep."""
    return _LINK.sub(lambda m: f"[{m.group(1)}]({anchors.markdown(m.group(2), depth)})", text)


def md_cell(text: str, anchors: Anchors, depth: int) -> str:
    """Text for one Markdown table cell: on one line, pipes escaped."""
    line = " ".join(md_text(text, anchors, depth).split())
    return line.replace("|", "\\|")


@lru_cache(maxsize=8192)  # the same descriptions and labels come back on many operations
def _inline_html(text: str) -> str:
    """Code spans are set aside first (nothing inside them is markup), then links and emphasis."""
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(f"<code>{html.escape(match.group(2))}</code>")
        return f"\x00{len(spans) - 1}\x00"

    out = html.escape(_CODE.sub(hold, text), quote=True)

    def link(match: re.Match[str]) -> str:
        href = html.escape(Anchors.html(html.unescape(match.group(2))), quote=True)
        return f'<a href="{href}">{match.group(1)}</a>'

    out = _LINK.sub(link, out)
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    out = _EM.sub(r"<em>\1</em>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], out)


def html_text(text: str) -> Markup:
    """One line of inline Markdown as HTML (for table cells, titles, labels)."""
    return Markup(_inline_html(" ".join(text.split())))


def html_blocks(text: str) -> Markup:
    """Paragraphs and bullet lists of Markdown text as HTML."""
    out: list[str] = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in chunk.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline_html(line[2:])}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{_inline_html(' '.join(lines))}</p>")
    return Markup("\n".join(out))
