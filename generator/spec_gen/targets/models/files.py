"""The server's models: the file fields of a multipart body typed as the API layer's
`transport.UploadedFile` (its filename, content type, size and a stream of the part, spooled
to disk), not `bytes`. The client's models keep `bytes` (it sends files, it never receives
them): they are split from the module as datamodel-code-generator wrote it, before this."""

from __future__ import annotations

import ast
import re

from ...ir import Api

UPLOAD_TYPE = "UploadedFile"
_IMPORT = f"from .transport import {UPLOAD_TYPE}\n"
_FUTURE = re.compile(r"^from __future__ import [^\n]*\n", re.MULTILINE)
_TOP_LEVEL = re.compile(r"^\S", re.MULTILINE)


def file_fields(api: Api) -> dict[str, frozenset[str]]:
    """Each multipart body's model class -> the wire names of its file properties."""
    out: dict[str, set[str]] = {}
    for op in api.operations:
        for media in op.body.media if op.body else ():
            names = {f.name for f in media.fields if f.is_file}
            if media.kind == "multipart" and media.model and names:
                out.setdefault(media.model, set()).update(names)
    return {model: frozenset(names) for model, names in out.items()}


def uploads_typed(source: str, api: Api) -> str:
    """`source` (the models module) with every file field's `bytes` as `UploadedFile`.

    Only the classes of multipart bodies are parsed, each on its own (a whole large module
    costs some 0.2 s to parse), and only a module that has one imports the type."""
    fields = file_fields(api)
    if not fields:
        return source
    classes: list[tuple[int, int, str]] = []  # (start, end, the class typed)
    for model, names in fields.items():
        start = _class_start(source, model)
        if start < 0:  # no class of that name: left as it is
            continue
        following = _TOP_LEVEL.search(source, start + 1)
        end = following.start() if following else len(source)
        typed = _class_typed(source[start:end], names)
        if typed is not None:
            classes.append((start, end, typed))
    if not classes:
        return source
    future = _FUTURE.search(source)
    at = future.end() if future else 0
    pieces, done = [source[:at], _IMPORT], at  # the import: ruff puts it in its place
    for start, end, typed in sorted(classes):
        pieces += [source[done:start], typed]
        done = end
    return "".join([*pieces, source[done:]])


def _class_start(source: str, model: str) -> int:
    """Where `class <model>(` or `class <model>:` starts at a line's start, else -1 (found
    by `str.find`: a multi-line regular expression takes ~10 ms on a large module)."""
    for opening in ("(", ":"):
        at = source.find(f"\nclass {model}{opening}")
        if at >= 0:
            return at + 1
    return -1


def _class_typed(text: str, names: frozenset[str]) -> str | None:
    """One class's text with `bytes` replaced in the annotations of the fields `names` (by
    wire name: the field's alias, else its name); None when it has none."""
    try:
        tree = ast.parse(text)
    except SyntaxError:  # the import probe reports it
        return None
    edits: list[tuple[int, int, int]] = []  # (line, start column, end column)
    for node in tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else ():
        if not isinstance(node, ast.AnnAssign) or not isinstance(node.target, ast.Name):
            continue
        if _wire_name(node) not in names:
            continue
        edits += [
            (n.lineno, n.col_offset, n.end_col_offset or 0)
            for n in ast.walk(node.annotation)
            if isinstance(n, ast.Name) and n.id == "bytes" and n.lineno == n.end_lineno
        ]
    if not edits:
        return None
    lines = text.splitlines(keepends=True)
    for line, start, end in sorted(edits, reverse=True):  # columns in UTF-8 bytes
        raw = lines[line - 1].encode()
        lines[line - 1] = (raw[:start] + UPLOAD_TYPE.encode() + raw[end:]).decode()
    return "".join(lines)


def _wire_name(node: ast.AnnAssign) -> str:
    """The field's alias (`Field(alias=...)` in its annotation or as its default), else its name."""
    assert isinstance(node.target, ast.Name)
    for part in (node.annotation, node.value):
        for call in ast.walk(part) if part is not None else ():
            if isinstance(call, ast.Call) and getattr(call.func, "id", "") == "Field":
                for keyword in call.keywords:
                    if keyword.arg == "alias" and isinstance(keyword.value, ast.Constant):
                        return str(keyword.value.value)
    return node.target.id
