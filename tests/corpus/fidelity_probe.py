"""Round-trip fidelity of one built document's models: run as a script, prints a JSON report.

    python fidelity_probe.py SPEC OUTPUT SERVER_PACKAGE CLIENT_PACKAGE

Every example the document carries (of an answer's or a body's JSON media type, of a parameter,
of a component schema) that is valid against its schema (jsonschema, Draft 2020-12, formats
asserted) is validated into the generated type, the server's and the client's, from its JSON
text, and dumped back (`mode="json"`, `by_alias=True`, `exclude_unset=True`). The dump must
equal the example, numbers by type too (`5` is not `5.0`). The server leaves undeclared fields
out of what it sends (deliberate): there, an answer missing only such keys counts as kept, and
is counted apart. An example the schema refuses is the document's fault: counted, not measured.

Run in its own process (by tests/corpus/test_fidelity.py), as the generated packages of many
documents would otherwise share one interpreter.
"""

from __future__ import annotations

import builtins
import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from spec_gen.document.load import bundle
from spec_gen.ir import build_ir

_OPERATIONS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")


def _deref(document: Any, node: Any, depth: int = 0) -> Any:
    """A local `$ref` followed (the bundled document holds every part)."""
    while isinstance(node, dict) and isinstance(node.get("$ref"), str) and depth < 20:
        ref = node["$ref"]
        if not ref.startswith("#/"):
            return None
        target: Any = document
        for token in ref[2:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(target, dict) and token in target:
                target = target[token]
            elif isinstance(target, list) and token.isdigit() and int(token) < len(target):
                target = target[int(token)]
            else:
                return None
        node, depth = target, depth + 1
    return node


def _examples(document: Any, holder: Any) -> Iterator[tuple[str, Any]]:
    """(name, value) of a media type's or parameter's `example` and `examples`."""
    holder = _deref(document, holder)
    if not isinstance(holder, dict):
        return
    if "example" in holder:
        yield "example", holder["example"]
    examples = holder.get("examples")
    if isinstance(examples, dict):
        for name, example in examples.items():
            example = _deref(document, example)
            if isinstance(example, dict) and "value" in example:
                yield f"examples/{name}", example["value"]


def cases(spec: Path) -> tuple[Any, list[dict[str, Any]]]:
    """The IR's schemas, and each example: where, its value, its schema, its Python type."""
    spec_bundle = bundle(spec)
    document = spec_bundle.document
    api = build_ir(document)
    found: list[dict[str, Any]] = []
    paths = document.get("paths") or {}
    for op in api.operations:
        raw = _deref(document, paths.get(op.path)) if isinstance(paths, dict) else None
        raw_op = _deref(document, raw.get(op.method)) if isinstance(raw, dict) else None
        if not isinstance(raw_op, dict):
            continue
        where = f"{op.method.upper()} {op.path}"
        responses = _deref(document, raw_op.get("responses")) or {}
        for response in op.responses:
            raw_response = _deref(document, responses.get(response.status))
            if raw_response is None and response.status.isdigit():
                raw_response = _deref(document, responses.get(int(response.status)))
            content = (raw_response or {}).get("content") or {}
            for media in response.media:
                if media.kind != "json" or not media.model:
                    continue
                for name, value in _examples(document, content.get(media.content_type)):
                    found.append(
                        {
                            "where": f"{where} {response.status} {media.content_type} {name}",
                            "kind": "answer",
                            "value": value,
                            "schema": media.schema,
                            "type": media.model,
                        }
                    )
        body = _deref(document, raw_op.get("requestBody"))
        if op.body is not None and isinstance(body, dict):
            content = body.get("content") or {}
            for media in op.body.media:
                if media.kind != "json" or not media.model:
                    continue
                for name, value in _examples(document, content.get(media.content_type)):
                    found.append(
                        {
                            "where": f"{where} body {media.content_type} {name}",
                            "kind": "body",
                            "value": value,
                            "schema": media.schema,
                            "type": media.model,
                        }
                    )
        raw_params = [_deref(document, p) for p in (raw_op.get("parameters") or [])]
        raw_params += [_deref(document, p) for p in (raw.get("parameters") or [])]
        for param in op.params:
            match = next(
                (
                    p
                    for p in raw_params
                    if isinstance(p, dict)
                    and p.get("name") == param.name
                    and p.get("in") == param.location
                ),
                None,
            )
            for name, value in _examples(document, match):
                found.append(
                    {
                        "where": f"{where} {param.location} {param.name} {name}",
                        "kind": "parameter",
                        "value": value,
                        "schema": param.schema,
                        "type": param.annotation,
                    }
                )
    for cls, schema in api.schemas.items():
        if not isinstance(schema, dict):
            continue
        values: list[tuple[str, Any]] = []
        if "example" in schema:
            values.append(("example", schema["example"]))
        if isinstance(schema.get("examples"), list):
            values += [(f"examples/{i}", v) for i, v in enumerate(schema["examples"])]
        for name, value in values:
            found.append(
                {
                    "where": f"{api.schema_pointers.get(cls, cls)} {name}",
                    "kind": "schema",
                    "value": value,
                    "schema": {"$ref": f"#/components/schemas/{cls}"},
                    "type": cls,
                }
            )
    return api, found


class SchemaCheck:
    """jsonschema (Draft 2020-12, formats asserted) over the IR's schemas, whose refs read
    `#/components/schemas/<Class>`; each example's schema goes under `$defs`."""

    def __init__(self, api: Any, schemas: list[Any]) -> None:
        from jsonschema import Draft202012Validator, FormatChecker
        from referencing import Registry, Resource
        from referencing.jsonschema import DRAFT202012

        root = {
            "components": {"schemas": api.schemas},
            "$defs": {str(i): schema for i, schema in enumerate(schemas)},
        }
        registry: Any = Registry().with_resource(  # type: ignore[call-arg]
            "urn:doc", Resource.from_contents(root, default_specification=DRAFT202012)
        )
        self.validators = [
            Draft202012Validator(
                {"$ref": f"urn:doc#/$defs/{i}"}, registry=registry, format_checker=FormatChecker()
            )
            for i in range(len(schemas))
        ]

    def error(self, index: int, value: Any) -> str | None:
        """None when the value is valid against the index-th schema, else the first error."""
        try:
            error = next(iter(self.validators[index].iter_errors(value)), None)
        except Exception as exc:  # noqa: BLE001  (a schema jsonschema cannot read)
            return f"schema unreadable: {type(exc).__name__}: {exc}"[:300]
        if error is None:
            return None
        return f"{'/'.join(map(str, error.path))}: {error.message}"[:300]


def same(a: Any, b: Any) -> bool:
    """Equal as JSON data, numbers by type too (`5` is not `5.0`, `True` is not `1`)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def only_left_out(sent: Any, back: Any) -> bool:
    """`back` is `sent` with some object keys left out (the server's undeclared fields)."""
    if isinstance(sent, dict) and isinstance(back, dict):
        return back.keys() <= sent.keys() and all(only_left_out(sent[k], back[k]) for k in back)
    if isinstance(sent, list) and isinstance(back, list):
        return len(sent) == len(back) and all(
            only_left_out(x, y) for x, y in zip(sent, back, strict=True)
        )
    return same(sent, back)


class _Names(dict[str, Any]):
    """A namespace reading model classes from a module on first use."""

    def __init__(self, module: Any) -> None:
        super().__init__()
        self.module = module

    def __missing__(self, key: str) -> Any:
        if hasattr(builtins, key):
            return getattr(builtins, key)
        try:
            return getattr(self.module, key)
        except AttributeError:
            return getattr(importlib.import_module("typing"), key)


def round_trip(names: _Names, text: str, value: Any) -> dict[str, Any]:
    from pydantic import TypeAdapter

    try:
        adapter: Any = TypeAdapter(eval(text, {"__builtins__": {}}, names))
    except Exception as exc:  # noqa: BLE001  (a type the probe cannot read)
        return {"accepted": False, "error": f"type {text}: {type(exc).__name__}: {exc}"[:400]}
    try:
        model = adapter.validate_json(json.dumps(value))
    except Exception as exc:  # noqa: BLE001  (ValidationError, or a model's own error)
        return {"accepted": False, "error": " ".join(str(exc).split())[:400]}
    back = adapter.dump_python(model, mode="json", by_alias=True, exclude_unset=True)
    return {"accepted": True, "back": back}


def main() -> None:
    spec, output, server_package, client_package = sys.argv[1:5]
    api, found = cases(Path(spec))
    sys.path[:0] = [str(Path(output) / "server"), str(Path(output) / "client")]
    server = _Names(importlib.import_module(f"{server_package}.models"))
    client = _Names(importlib.import_module(f"{client_package}.models"))
    report: dict[str, Any] = {"examples": len(found), "invalid": [], "server": {}, "client": {}}
    for side in ("server", "client"):
        report[side] = {"accepted": 0, "unchanged": 0, "left_out": 0, "differences": []}
    valid = 0
    check = SchemaCheck(api, [case["schema"] for case in found])
    for index, case in enumerate(found):
        value = case["value"]
        try:
            json.dumps(value)
        except (TypeError, ValueError):
            report["invalid"].append([case["where"], "not JSON data"])
            continue
        error = check.error(index, value)
        if error is not None:
            report["invalid"].append([case["where"], error])
            continue
        valid += 1
        for side, names in (("server", server), ("client", client)):
            counts = report[side]
            done = round_trip(names, case["type"], value)
            if not done["accepted"]:
                counts["differences"].append([case["where"], "refused", done["error"]])
                continue
            counts["accepted"] += 1
            back = done["back"]
            if same(value, back):
                counts["unchanged"] += 1
            elif side == "server" and only_left_out(value, back):
                counts["unchanged"] += 1
                counts["left_out"] += 1
            else:
                counts["differences"].append(
                    [case["where"], "changed", _first_difference(value, back)]
                )
    report["valid"] = valid
    print(json.dumps(report))


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in b:
                return f"{path}/{key}: dropped"
            if key not in a:
                return f"{path}/{key}: added {json.dumps(b[key])[:80]}"
            if not same(a[key], b[key]):
                return _first_difference(a[key], b[key], f"{path}/{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if not same(x, y):
                return _first_difference(x, y, f"{path}/{i}")
    return f"{path or '/'}: {json.dumps(a)[:100]} -> {json.dumps(b)[:100]}"


if __name__ == "__main__":
    main()
