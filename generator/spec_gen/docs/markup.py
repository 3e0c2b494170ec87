"""Inline Markdown as the docs use it, for both outputs.

Text in the model is a small Markdown subset: paragraphs (blank lines), `- ` bullet lines,
code spans, **bold**, *emphasis* and links. A link target is a URL, or a reference to a part
of the docs: `op:<operationId>` (percent-encoded: `op_ref`), `tag:<module>`, `guide:<slug>`.
`md_text` resolves the references to the Markdown files (relative to the page being written);
`html_text` and `html_blocks` turn the subset into HTML, references becoming anchors of the
single page. An operation's anchor is its operationId when that is a plain name, else a slug of
it, unique in the site (`op_anchors`).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import quote, unquote

from markupsafe import Markup

from ..core.naming import unique
from ..ir import Api

_CODE = re.compile(r"(`+)(.+?)\1", re.DOTALL)
_LINK = re.compile(r"\[((?:[^\]`]|`[^`]*`)+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(.+?)\*\*", re.DOTALL)
_EM = re.compile(r"(?<![\w*])\*(?!\s)([^*]+?)(?<!\s)\*(?![\w*])")


# ids the HTML page uses for itself (index.html.j2, overview headings): no operation takes them
PAGE_IDS = frozenset(
    {"sidebar", "search", "search-status", "no-match", "content", "overview"}
    | {"guides", "tags", "operations"}
)
_PLAIN_ANCHOR = re.compile(r"[A-Za-z][A-Za-z0-9_.-]*")


def op_ref(operation_id: str) -> str:
    """The link target of an operation in docs text (spaces and brackets percent-encoded)."""
    return "op:" + quote(operation_id, safe="")


def op_anchors(api: Api) -> dict[str, str]:
    """operationId -> its anchor: the operationId itself when it is a plain name (a letter,
    then letters, digits, `_`, `.`, `-`), else a slug of it (`find pet by id` ->
    `find-pet-by-id`); a slug or name already taken (another operation, a page id, a tag or
    guide section) gets `-2`, `-3`..."""
    ids = [op.operation_id for op in api.operations]
    kept = {i for i in ids if _keeps_its_id(i)}
    taken = set(PAGE_IDS) | kept
    out: dict[str, str] = {}
    for operation_id in ids:
        if operation_id in kept:
            out[operation_id] = operation_id
            continue
        base = "-".join(re.findall(r"[A-Za-z0-9_]+", operation_id)) or "operation"
        if not _keeps_its_id(base):
            base = "op-" + base
        out[operation_id] = unique(base, taken, separator="-")
    return out


def _keeps_its_id(operation_id: str) -> bool:
    return (
        _PLAIN_ANCHOR.fullmatch(operation_id) is not None
        and operation_id not in PAGE_IDS
        and not operation_id.startswith(("tag-", "guide-"))
    )


@dataclass(frozen=True, eq=False)  # hashed by identity: a key of the HTML cache below
class Anchors:
    """Where a reference leads: operationId -> tag module (for the Markdown pages) and
    operationId -> anchor (`op_anchors`)."""

    op_tags: dict[str, str]
    op_ids: dict[str, str]

    def markdown(self, ref: str, depth: int) -> str:
        up = "../" * depth
        kind, _, name = ref.partition(":")
        if kind == "op":
            operation_id = unquote(name)
            anchor = self.op_ids.get(operation_id, operation_id)
            return f"{up}{self.op_tags.get(operation_id, 'README')}.md#{anchor}"
        if kind == "tag":
            return f"{up}{name}.md"
        if kind == "guide":
            return f"{up}guides/{name}.md"
        return ref

    def html(self, ref: str) -> str:
        kind, _, name = ref.partition(":")
        if kind == "op":
            operation_id = unquote(name)
            return f"#{self.op_ids.get(operation_id, operation_id)}"
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
def _inline_html(text: str, anchors: Anchors) -> str:
    """Code spans are set aside first (nothing inside them is markup), then links and emphasis."""
    spans: list[str] = []

    def hold(match: re.Match[str]) -> str:
        spans.append(f"<code>{html.escape(match.group(2))}</code>")
        return f"\x00{len(spans) - 1}\x00"

    out = html.escape(_CODE.sub(hold, text), quote=True)

    def link(match: re.Match[str]) -> str:
        href = html.escape(anchors.html(html.unescape(match.group(2))), quote=True)
        return f'<a href="{href}">{match.group(1)}</a>'

    out = _LINK.sub(link, out)
    out = _BOLD.sub(r"<strong>\1</strong>", out)
    out = _EM.sub(r"<em>\1</em>", out)
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], out)


def html_text(text: str, anchors: Anchors) -> Markup:
    """One line of inline Markdown as HTML (for table cells, titles, labels)."""
    return Markup(_inline_html(" ".join(text.split()), anchors))


def html_blocks(text: str, anchors: Anchors) -> Markup:
    """Paragraphs and bullet lists of Markdown text as HTML."""
    out: list[str] = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        lines = [line.strip() for line in chunk.splitlines() if line.strip()]
        if not lines:
            continue
        if all(line.startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline_html(line[2:], anchors)}</li>" for line in lines)
            out.append(f"<ul>{items}</ul>")
        else:
            out.append(f"<p>{_inline_html(' '.join(lines), anchors)}</p>")
    return Markup("\n".join(out))
