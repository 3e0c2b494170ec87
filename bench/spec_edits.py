"""The spec edits bench/build_speed.py times a rebuild after, for any OpenAPI document.

Each edit is what a team does to its spec between two builds, made on the first operation
or schema that has what the edit needs (so any document works); edit number N (1, 2, ...):

  description  the first operation's description gets " (edited N)" appended
  operation    the first operation copied to `<its path>/bench-added-N` (same parameters,
               operationId suffixed, no `x-client-*` naming of its own): an operation added
  field        a string field `bench_added_N` added to the first object schema with properties
  rename       the first component schema that other schemas or operations `$ref` (and that
               nothing names otherwise, e.g. a discriminator mapping) renamed `<Name>RenamedN`,
               every `$ref` to it too

`edited(document, kind, count)` returns a copy with edits 1 ... count made (count 0: the
document itself). The bench builds edit count N after the build of count N-1, so every timed
rebuild follows one edit the build cache has never seen (an edit undone would find its output
cached: not what a team editing forward meets).
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

EDITS = ("description", "operation", "field", "rename")
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
SCHEMAS = "#/components/schemas/"


def _first_operation(document: dict[str, Any]) -> tuple[str, str]:
    for path, item in (document.get("paths") or {}).items():
        if not isinstance(item, dict) or "$ref" in item:
            continue
        for method in METHODS:
            if isinstance(item.get(method), dict):
                return path, method
    raise ValueError("no operation to edit")


def _description(document: dict[str, Any], n: int) -> None:
    path, method = _first_operation(document)
    operation = document["paths"][path][method]
    operation["description"] = (operation.get("description") or "") + f" (edited {n})"


def _operation(document: dict[str, Any], n: int) -> None:
    path, method = _first_operation(document)
    item = document["paths"][path]
    added = {k: v for k, v in copy.deepcopy(item[method]).items() if not k.startswith("x-client")}
    name = added.get("operationId")
    if isinstance(name, str):
        suffix = f"_bench_added_{n}" if name == name.lower() else f"BenchAdded{n}"
        added["operationId"] = name + suffix
    new_item: dict[str, Any] = {method: added}
    if "parameters" in item:
        new_item["parameters"] = copy.deepcopy(item["parameters"])
    document["paths"][path.rstrip("/") + f"/bench-added-{n}"] = new_item


def _field(document: dict[str, Any], n: int) -> None:
    for schema in (document.get("components", {}).get("schemas") or {}).values():
        fields = schema.get("properties") if isinstance(schema, dict) else None
        if isinstance(fields, dict) and schema.get("type", "object") == "object":
            fields[f"bench_added_{n}"] = {"type": "string", "description": "Added by the bench."}
            return
    raise ValueError("no object schema with properties to edit")


def _rename(document: dict[str, Any], n: int) -> dict[str, Any]:
    text = json.dumps(document)
    schemas = document.get("components", {}).get("schemas") or {}
    for name in schemas:
        new = f"{name}Renamed{n}"
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", name) or new in schemas:
            continue
        ref = json.dumps(SCHEMAS + name)
        if text.count(ref) and text.count(json.dumps(name)) == 1:  # only as its own key
            renamed = json.loads(text.replace(ref, json.dumps(SCHEMAS + new)))
            old = renamed["components"]["schemas"]
            renamed["components"]["schemas"] = {
                (new if key == name else key): value for key, value in old.items()
            }
            return renamed
    raise ValueError("no referenced schema to rename")


def edited(document: dict[str, Any], kind: str, count: int = 1) -> dict[str, Any]:
    """A copy of `document` with edits 1 ... `count` of `kind` (one of EDITS) made; a rename
    renames the same schema each time, to a new name (so edit N undoes nothing of N-1)."""
    if kind == "rename":
        return _rename(document, count) if count else copy.deepcopy(document)
    out = copy.deepcopy(document)
    edit = {"description": _description, "operation": _operation, "field": _field}[kind]
    for n in range(1, count + 1):
        edit(out, n)
    return out
