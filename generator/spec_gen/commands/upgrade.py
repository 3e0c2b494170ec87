"""`spec-gen upgrade`: a spec's OpenAPI 3.1 text, as spec-gen reads it.

A single file is upgraded in its round-trip form, so key order, comments and quoting survive;
then only the lines the upgrade changed are carried into the original text (`_keep_layout`),
so indentation, trailing spaces and flow collections written over several lines stay as they
were everywhere else. A multi-file spec is bundled first and written as one document.
"""

from __future__ import annotations

import io
import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from ..document.load import SpecError, bundle, read_yaml
from ..document.upgrade import is_30, upgrade


def _references_other_files(node: Any) -> bool:
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and not ref.startswith("#"):
            return True
        return any(
            _references_other_files(v) for k, v in node.items() if not str(k).startswith("x-")
        )
    if isinstance(node, list):
        return any(_references_other_files(v) for v in node)
    return False


def upgraded_text(path: Path) -> tuple[str, str]:
    """(the 3.1 text, a note for the user or "")."""
    document = read_yaml(path)
    if not isinstance(document, dict):
        raise SpecError(path, 1, 1, "the root document must be a mapping")
    as_json = path.suffix.lower() == ".json"
    note = "" if is_30(document) else f"{path.name} is already OpenAPI {document.get('openapi')}"
    if _references_other_files(document):
        upgraded = bundle(path).document
        note = (note + "; " if note else "") + "written bundled into one document"
        return _dump(upgraded, as_json), note
    if not is_30(document):
        return path.read_text(encoding="utf-8"), note
    if as_json:
        upgrade(document)
        return _dump(document, True), note
    from ruamel.yaml import YAML

    text = path.read_text(encoding="utf-8")
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    tree = yaml.load(text)
    offset = _sequence_offset(text)
    yaml.indent(mapping=_mapping_indent(text), sequence=offset + 2, offset=offset)
    before = io.StringIO()
    yaml.dump(tree, before)  # the same dumper's text of the document as it was
    upgrade(tree)
    out = io.StringIO()
    yaml.dump(tree, out)
    return _keep_layout(text, before.getvalue(), out.getvalue()), note


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _keep_layout(original: str, dumped: str, upgraded: str) -> str:
    """The original text with the lines the upgrade changed replaced.

    `dumped` and `upgraded` come from the same dumper, before and after the upgrade: their
    line diff is the upgrade. `dumped` and `original` differ only in layout; their lines are
    matched by content, ignoring indentation and trailing spaces. Each changed block of
    `dumped` is replaced in `original` between the nearest matched lines around it, its new
    lines shifted to the original's indentation. When the result does not read as the
    upgraded document, the dumper's text is answered whole (its layout normalised)."""
    from difflib import SequenceMatcher

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    old = original.splitlines(keepends=True)
    base = dumped.splitlines(keepends=True)
    new = upgraded.splitlines(keepends=True)
    to_old: dict[int, int] = {}  # a line of `dumped` -> its line in `original`
    matcher = SequenceMatcher(None, [s.strip() for s in base], [s.strip() for s in old], False)
    for block in matcher.get_matching_blocks():
        for k in range(block.size):
            to_old[block.a + k] = block.b + k
    out: list[str] = []
    done = 0  # lines of `original` already copied
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, base, new, False).get_opcodes():
        if tag == "equal":
            continue
        before = max((k for k in to_old if k < i1), default=-1)
        after = min((k for k in to_old if k >= i2), default=len(base))
        start = to_old[before] + 1 if before >= 0 else 0
        end = to_old[after] if after < len(base) else len(old)
        if start < done:
            return upgraded
        out += old[done:start]
        for line in new[j1:j2]:
            out.append(_shifted(line, base, to_old, old, before))
        done = end
    out += old[done:]
    text = "".join(out)
    safe = YAML(typ="safe", pure=True)
    try:
        same = safe.load(text) == safe.load(upgraded)
    except YAMLError:  # unreadable: answer the dumper's text
        same = False
    return text if same else upgraded


def _shifted(
    line: str, base: list[str], to_old: dict[int, int], old: list[str], before: int
) -> str:
    """A new line moved to the original's indentation: that of the nearest matched line above
    with the same indentation in the dumper's text, else of the nearest matched line."""
    if not line.strip():
        return line
    width = _indent(line)
    delta = None
    for k in range(before, -1, -1):
        if k in to_old and base[k].strip():
            if _indent(base[k]) == width:
                delta = _indent(old[to_old[k]]) - width
                break
            if _indent(base[k]) < width and delta is None:
                delta = _indent(old[to_old[k]]) - _indent(base[k])
                if _indent(base[k]) == 0:
                    break
    delta = delta or 0
    if delta >= 0:
        return " " * delta + line
    return line[min(-delta, width) :]


def _mapping_indent(text: str) -> int:
    """The smallest indentation of a nested mapping key (2 when there is none)."""
    found = [len(m.group(1)) for m in re.finditer(r"^( +)[^\s#-]", text, re.MULTILINE)]
    return min(found) if found else 2


def _sequence_offset(text: str) -> int:
    """How far a block sequence's dash sits right of its parent key (0 when not indented)."""
    pattern = r"^( *)[^\s#:-][^:\n]*:[ \t]*\n(?:[ \t]*\n)*( *)- "
    found = Counter(
        max(0, len(m.group(2)) - len(m.group(1))) for m in re.finditer(pattern, text, re.MULTILINE)
    )
    return found.most_common(1)[0][0] if found else 0


def _dump(document: dict[str, Any], as_json: bool) -> str:
    if as_json:
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.width = 4096
    out = io.StringIO()
    yaml.dump(document, out)
    return out.getvalue()
