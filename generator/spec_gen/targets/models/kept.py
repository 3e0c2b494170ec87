"""Models that keep the data as it came: the types datamodel-code-generator gives string
formats, which rewrite their text (`datetime`: `.202Z` -> `.202000Z`; `AnyUrl`: a trailing
slash; `UUID`: lower case; `SecretStr`: `**********` in JSON), replaced by the `str` types of
formats.py, which check the text and keep it; and `float` by `int | float`, which keeps an
integer an integer (`50` stays `50`, not `50.0`). See docs/models.md."""

from __future__ import annotations

import ast
from pathlib import Path

# (module, name) of a type datamodel-code-generator writes -> the type of formats.py
TEXT_TYPES: dict[tuple[str, str], str] = {
    ("pydantic", "AwareDatetime"): "DateTimeText",
    ("pydantic", "NaiveDatetime"): "DateTimeText",
    ("datetime", "datetime"): "DateTimeText",
    ("datetime", "date"): "DateText",
    ("datetime", "time"): "TimeText",
    ("datetime", "timedelta"): "DurationText",
    ("pydantic", "AnyUrl"): "UriText",
    ("pydantic", "AnyHttpUrl"): "UriText",
    ("pydantic", "HttpUrl"): "UriText",
    ("pydantic", "EmailStr"): "EmailText",
    ("uuid", "UUID"): "UuidText",
    ("pydantic", "UUID1"): "UuidText",
    ("pydantic", "UUID3"): "UuidText",
    ("pydantic", "UUID4"): "UuidText",
    ("pydantic", "UUID5"): "UuidText",
    ("ipaddress", "IPv4Address"): "IPv4Text",
    ("ipaddress", "IPv6Address"): "IPv6Text",
    ("pydantic", "Base64Str"): "Base64Text",
    ("decimal", "Decimal"): "DecimalText",
    ("pydantic", "SecretStr"): "SecretText",
}
# the names a models module may import from formats.py (core/naming.py keeps classes off them)
TEXT_TYPE_NAMES = frozenset(TEXT_TYPES.values())
MODULE = "_formats"  # formats.py, as the generated packages hold it
NUMBER = "int | float"

# an edit of the module's text, as fix.py makes them: (line, column, end line, end column,
# new text), columns in UTF-8 bytes
_Edit = tuple[int, int, int, int, str]


def kept_edits(tree: ast.Module) -> tuple[list[_Edit], set[str]]:
    """The edits that make the module's models keep their data, and the names of formats.py
    they use (none: formats.py is not needed)."""
    calls = {node.func for node in ast.walk(tree) if isinstance(node, ast.Call)}
    # `float("inf")`, `Decimal("1")`: a value, not a type; its import stays
    called = {func.id for func in calls if isinstance(func, ast.Name)}
    imported: dict[str, str] = {}  # local name -> text type
    last_import = 0
    edits: list[_Edit] = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            kept = [
                a
                for a in node.names
                if (node.module, a.name) not in TEXT_TYPES or (a.asname or a.name) in called
            ]
            for alias in node.names:
                if alias not in kept:
                    imported[alias.asname or alias.name] = TEXT_TYPES[node.module, alias.name]
            if len(kept) < len(node.names):  # the import without the types replaced
                names = ", ".join(
                    a.name if a.asname is None else f"{a.name} as {a.asname}" for a in kept
                )
                end = node.end_lineno or node.lineno
                if kept:
                    text = f"from {node.module} import {names}"
                    edits.append(
                        (node.lineno, node.col_offset, end, node.end_col_offset or 0, text)
                    )
                else:  # the whole line goes
                    edits.append((node.lineno, 0, end + 1, 0, ""))
        if isinstance(node, ast.Import | ast.ImportFrom):
            last_import = node.end_lineno or node.lineno
    used: set[str] = set()
    for node in tree.body:  # `class Code(float, Enum)`: `Enum` alone keeps `400` an int
        if (
            isinstance(node, ast.ClassDef)
            and [b.id for b in node.bases if isinstance(b, ast.Name)] == ["float", "Enum"]
            and len(node.bases) == 2
        ):
            first, second = node.bases
            edits.append((first.lineno, first.col_offset, second.lineno, second.col_offset, ""))
    # any other class's bases stay as written
    bases = {
        base for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for base in node.bases
    }
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            continue
        for name in ast.walk(node):
            if not isinstance(name, ast.Name) or name in calls or name in bases:
                continue
            if not isinstance(name.ctx, ast.Load):  # a field named `date`, say
                continue
            if name.id in imported:
                new = imported[name.id]
                used.add(new)
            elif name.id == "float":
                new = NUMBER
            else:
                continue
            line, end = name.lineno, name.end_lineno or name.lineno
            edits.append((line, name.col_offset, end, name.end_col_offset or 0, new))
    if used:  # the import, after the module's last one (ruff sorts it)
        names = ", ".join(sorted(used))
        edits.append((last_import + 1, 0, last_import + 1, 0, f"from .{MODULE} import {names}\n"))
    return edits, used


OPEN_BASE = "_model"  # the client's base of its models, at the package's root

_OPEN_BASE_SOURCE = '''"""The base of the client's models: the fields of an answer its schema does not declare are
kept and reachable (`model_extra`, attribute access, `model_dump()`), as JSON Schema allows
them; a schema with `additionalProperties: false` says `extra="forbid"` on its own class."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel as PydanticBaseModel
from pydantic import ConfigDict, ModelWrapValidatorHandler, model_validator


class BaseModel(PydanticBaseModel):
    model_config = ConfigDict(extra="allow")


class AliasedModel(BaseModel):
    """The base of a class with a field read under another name than its attribute's
    (`Name` into `name`): an undeclared key spelled as that attribute (`name`) is kept as an
    extra under its name and leaves the field unset (pydantic counts every extra key as a set
    field, so the field would dump as `Name: null`)."""

    @model_validator(mode="wrap")
    @classmethod
    def _extras_apart(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        model = handler(data)
        extra = model.__pydantic_extra__
        if extra and isinstance(data, dict):
            fields = type(model).__pydantic_fields__
            for key in extra.keys() & fields.keys():
                if fields[key].alias not in data:
                    model.__pydantic_fields_set__.discard(key)
        return model
'''


def package_files(models_source: str, header: str, server: str, client: str) -> dict[str, str]:
    """The modules the models import beside pydantic, by output path: formats.py as
    `_formats.py` in both packages when a string format is kept; the client's open base."""
    files = {f"client/{client}/{OPEN_BASE}.py": f"{header}\n{_OPEN_BASE_SOURCE}"}
    if f"from .{MODULE} import" in models_source:
        text = (Path(__file__).parent / "formats.py").read_text(encoding="utf-8")
        for package in (f"server/{server}", f"client/{client}"):
            files[f"{package}/{MODULE}.py"] = f"{header}\n{text}"
    return files
