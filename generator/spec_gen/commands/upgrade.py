"""`spec-gen upgrade`: a spec's OpenAPI 3.1 text, as spec-gen reads it.

A single file is upgraded in its round-trip form, so key order, comments, quoting and
indentation survive; a multi-file spec is bundled first and written as one document.
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
    upgrade(tree)
    offset = _sequence_offset(text)
    yaml.indent(mapping=_mapping_indent(text), sequence=offset + 2, offset=offset)
    out = io.StringIO()
    yaml.dump(tree, out)
    return out.getvalue(), note


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
