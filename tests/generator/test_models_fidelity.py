"""Models that keep the data (issue 27, docs/models.md): string formats are `str` types that
check their text and keep it, numbers keep their type, the client's models keep the fields a
schema does not declare (unless `additionalProperties: false`), and no schema class takes a
name the client's runtime uses."""

from __future__ import annotations

import ast
import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError
from spec_gen.core.config import PACKAGED_TEMPLATES
from spec_gen.core.naming import IMPORTED
from spec_gen.targets.client.models import split_models
from spec_gen.targets.models import formats
from spec_gen.targets.models.kept import TEXT_TYPE_NAMES, package_files
from spec_gen.targets.models.run import run_datamodel_codegen
from spec_gen.targets.render import render

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("DateTimeText", "2019-10-29T07:34:24.202Z"),
        ("DateTimeText", "2021-02-10T17:06:19.807834070Z"),  # nanoseconds kept
        ("DateTimeText", "2021-02-10T17:06:19+00:00"),  # the offset as written
        ("DateTimeText", "2016-12-31T23:59:60Z"),  # a leap second
        ("DateText", "2024-02-29"),
        ("TimeText", "07:34:24.5+02:00"),
        ("DurationText", "P1DT2H"),
        ("UriText", "https://example.com"),  # no trailing slash added
        ("UriText", "https://EXAMPLE.com/a%2Fb?x=1#f"),
        ("UuidText", "3F2504E0-4F89-11D3-9A0C-0305E82C3301"),  # upper case kept
        ("IPv6Text", "2001:DB8:0:0::1"),  # not compressed
        ("EmailText", "Someone@Example.COM"),  # not normalised
        ("DecimalText", "1.50E+3"),
        ("Base64Text", "aGVsbG8="),
    ],
)
def test_a_string_format_keeps_its_text(kind: str, text: str) -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(getattr(formats, kind))
    value = adapter.validate_json(json.dumps(text))
    assert value == text
    assert adapter.dump_python(value, mode="json") == text


@pytest.mark.parametrize(
    ("kind", "text"),
    [
        ("DateTimeText", "2021-02-30T00:00:00Z"),  # no such day
        ("DateTimeText", "2021-02-10T17:06:19"),  # no offset
        ("DateTimeText", "yesterday"),
        ("DateText", "2023-02-29"),
        ("TimeText", "25:00"),
        ("DurationText", "P"),
        ("UriText", "no scheme here"),
        ("UuidText", "3F2504E0-4F89"),
        ("IPv4Text", "256.1.1.1"),
        ("EmailText", "nobody"),
        ("DecimalText", "NaN"),
    ],
)
def test_a_string_format_refuses_what_it_is_not(kind: str, text: str) -> None:
    with pytest.raises(ValidationError, match="not "):
        TypeAdapter(getattr(formats, kind)).validate_python(text)


def test_a_password_is_hidden_from_repr_and_kept_in_json() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(formats.SecretText)
    value = adapter.validate_python("s3cret")
    assert "s3cret" not in repr(value) and "s3cret" not in str(value)
    assert adapter.dump_python(value, mode="json") == "s3cret"


def test_the_format_types_are_names_no_schema_class_takes() -> None:
    assert TEXT_TYPE_NAMES <= IMPORTED
    assert TEXT_TYPE_NAMES <= set(dir(formats))


_DOCUMENT: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "t", "version": "1"},
    "paths": {},
    "components": {
        "schemas": {
            "Event": {
                "type": "object",
                "required": ["at"],
                "properties": {
                    "at": {"type": "string", "format": "date-time"},
                    "link": {"type": "string", "format": "uri"},
                    "id": {"type": "string", "format": "uuid"},
                    "price": {"type": "number", "minimum": 0},
                    "amount": {"type": "number", "format": "decimal"},
                    "scores": {"type": "array", "items": {"type": "number"}},
                    "count": {"type": "integer", "format": "int64"},
                },
            },
            "Code": {"type": "number", "enum": [1, 2.5]},
            "Closed": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"name": {"type": "string"}},
            },
        }
    },
}
_EVENT = {
    "at": "2019-10-29T07:34:24.202Z",
    "link": "https://example.com",
    "id": "3F2504E0-4F89-11D3-9A0C-0305E82C3301",
    "price": 50,
    "amount": 0.1,
    "scores": [1, 2.5],
    "count": 12345678901234567890123,
}


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The document's models as the server (one module) and the client (split, open base)
    hold them, in packages of their own."""
    root = tmp_path_factory.mktemp("fidelity")
    source, _, _ = run_datamodel_codegen(_DOCUMENT, "# generated")
    extra = package_files(source, "# generated", "fid_api", "fid_client")
    for path, text in extra.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    (root / "server/fid_api/__init__.py").write_text("", encoding="utf-8")
    (root / "server/fid_api/models.py").write_text(source, encoding="utf-8")
    modules, homes = split_models(source, {"op": ["Event", "Closed", "Code"]})
    (root / "client/fid_client/models").mkdir(parents=True)
    (root / "client/fid_client/__init__.py").write_text("", encoding="utf-8")
    # the client's open enums (the split models' enums import it), as the client target writes it
    enums = render(PACKAGED_TEMPLATES, "client/_enums.py.j2", header="# generated", package="fid")
    (root / "client/fid_client/_enums.py").write_text(enums, encoding="utf-8")
    (root / "client/fid_client/models/__init__.py").write_text(
        "".join(f"from .{module} import {name}\n" for name, module in homes.items()),
        encoding="utf-8",
    )
    for module, text in modules.items():
        (root / f"client/fid_client/models/{module}.py").write_text(text, encoding="utf-8")
    sys.path[:0] = [str(root / "server"), str(root / "client")]
    try:
        return {
            "source": source,
            "server": importlib.import_module("fid_api.models"),
            "client": importlib.import_module("fid_client.models"),
        }
    finally:
        del sys.path[:2]


@pytest.mark.parametrize("side", ["server", "client"])
def test_a_model_dumps_back_what_it_read(packages: dict[str, Any], side: str) -> None:
    event = packages[side].Event.model_validate_json(json.dumps(_EVENT))
    back = event.model_dump(mode="json", by_alias=True, exclude_unset=True)
    assert back == _EVENT
    assert type(back["price"]) is int and type(back["amount"]) is float  # 50 is not 50.0
    assert back["scores"] == [1, 2.5] and type(back["scores"][0]) is int
    # a number enum (no `float` mixin) keeps each value's type
    assert packages[side].Code(2.5).value == 2.5 and type(packages[side].Code(1).value) is int


def test_the_models_name_no_type_that_rewrites_text(packages: dict[str, Any]) -> None:
    tree = ast.parse(packages["source"])
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not names & {"AwareDatetime", "AnyUrl", "UUID", "Decimal"}
    assert not re.search(r"(?<!int \| )\bfloat\b", packages["source"])  # always `int | float`


def test_the_client_keeps_undeclared_fields(packages: dict[str, Any]) -> None:
    client, server = packages["client"], packages["server"]
    sent = {**_EVENT, "added_later": {"nested": [1, "x"]}}
    event = client.Event.model_validate_json(json.dumps(sent))
    assert event.model_extra == {"added_later": {"nested": [1, "x"]}}
    assert event.added_later == {"nested": [1, "x"]}
    assert event.model_dump(mode="json", exclude_unset=True) == sent
    # the server leaves them out of what it sends (deliberate)
    assert "added_later" not in server.Event.model_validate(sent).model_dump()


def test_additional_properties_false_stays_strict_in_the_client(packages: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match="added_later"):
        packages["client"].Closed.model_validate({"name": "a", "added_later": 1})
    assert issubclass(packages["client"].Closed, BaseModel)


def _runtime_names(package: Path) -> set[str]:
    """Every name a client module that imports the models defines or imports beside them."""
    found: set[str] = set()
    for path in sorted(package.rglob("*.py")):
        if "models" in path.relative_to(package).parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(
            isinstance(n, ast.ImportFrom) and n.module and n.module.endswith("models")
            for n in ast.walk(tree)
        ):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and not (node.module or "").endswith("models"):
                found |= {alias.asname or alias.name for alias in node.names}
        for node in tree.body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                found.add(node.name)
            elif isinstance(node, ast.Assign):
                found |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return found


def test_no_schema_class_takes_a_name_of_the_clients_runtime() -> None:
    """The names the generated client's modules use beside its models are kept off schema
    classes (a schema named `Stream` once shadowed the client's own)."""
    package = ROOT / "generated/client/outreach_client"
    resources = {
        name
        for name in _runtime_names(package)
        if name.endswith(("Resource", "ResourceWithRawResponse"))
    }
    wanted = {
        name
        for name in _runtime_names(package) - resources
        if name[:1].isupper() and not name.endswith("Server")
    }
    assert wanted <= IMPORTED, sorted(wanted - IMPORTED)
    assert {"Stream", "AsyncStream", "Client", "APIResponse"} <= IMPORTED


def test_a_schema_named_like_the_clients_stream_gets_another_class_name() -> None:
    from spec_gen.ir import build_ir

    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {},
        "components": {
            "schemas": {
                "Stream": {"type": "object", "properties": {"id": {"type": "string"}}},
                "Client": {"type": "object", "properties": {"id": {"type": "string"}}},
            }
        },
    }
    api = build_ir(document)
    assert not {"Stream", "Client"} & set(api.schemas)
    assert set(api.schema_pointers.values()) == {
        "/components/schemas/Stream",
        "/components/schemas/Client",
    }
