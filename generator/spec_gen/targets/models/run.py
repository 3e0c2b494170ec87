"""Running datamodel-code-generator: its options, the warm-up run in the models worker,
the run itself (its warnings kept as notes, its refusal as `ModelsRefused`) and the
cache of its answers by content hash."""

from __future__ import annotations

import hashlib
import re
import warnings
from pathlib import Path
from typing import Any

from ...core.memory import collector_paused
from ...core.timings import stage
from .fix import post_processed
from .keywords import allof_overrides, union_member_overrides
from .refused import ModelsRefused

OPTIONS: dict[str, Any] = {
    "disable_timestamp": True,
    "use_annotated": True,
    "field_constraints": True,
    "use_standard_collections": True,
    "use_union_operator": True,
    "use_subclass_enum": True,
    "use_schema_description": True,
    "use_field_description": True,
    "strict_nullable": True,
    "use_double_quotes": True,
    "capitalise_enum_members": True,
    "set_default_enum_member": True,
    "snake_case_field": True,  # attributes snake_case, aliases keep the wire names
    # a `number` is a number whatever its format: `Decimal` would dump as a JSON string
    "type_mappings": ["number+decimal=double"],
}


_WARM_UP: dict[str, Any] = {
    "openapi": "3.1.0",
    "info": {"title": "warm-up", "version": "0"},
    "paths": {},
    "components": {
        "schemas": {
            "Kind": {"type": "string", "enum": ["a", "b"], "description": "An enum."},
            "Item": {
                "type": "object",
                "description": "An object.",
                "required": ["id"],
                "properties": {
                    "id": {"type": "string", "format": "uuid", "description": "A field."},
                    "at": {"type": ["string", "null"], "format": "date-time"},
                    "size": {"type": "integer", "minimum": 0, "default": 1},
                    "kind": {"$ref": "#/components/schemas/Kind"},
                    "tags": {"type": "array", "items": {"type": "string"}},
                    "extra": {"type": "object", "additionalProperties": {"type": "number"}},
                    "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
                },
            },
        }
    },
}


def warm_up() -> None:
    """Import datamodel-code-generator and run it once on a small document, in the worker
    that will generate the models: its first run costs ~0.5 s of imports and template
    compiling, paid this way while the spec is still being read."""
    with stage("models: warm-up"):
        run_datamodel_codegen(_WARM_UP, "#", "models: warm-up run")


def made_by() -> list[str]:
    """What a models module depends on beyond its document, header and OPTIONS: the tool's
    version and the sources of the modules that shape it (build/cache.py keys on it)."""
    from importlib.metadata import version

    here = Path(__file__).parent
    return [version("datamodel-code-generator")] + [
        hashlib.sha256((here / name).read_bytes()).hexdigest()
        for name in ("run.py", "fix.py", "depth.py", "kept.py", "formats.py", "pieces.py")
    ]


def run_datamodel_codegen(
    document: dict[str, Any], header: str, label: str = "models: generate"
) -> tuple[str, list[str], int]:
    with stage("models: import datamodel-code-generator"):
        from datamodel_code_generator import (  # type: ignore[attr-defined]
            DataModelType,
            InputFileType,
            PythonVersion,
            generate,
        )

    if not document["components"]["schemas"]:  # datamodel-codegen refuses an empty input
        return f"{header}\n\nfrom __future__ import annotations\n", [], 0
    # its Python warnings are findings of the `models` rule, located at the class they name
    # (see warning_notes); none is printed raw on stderr
    with stage(label), collector_paused(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            source = generate(
                document,
                input_file_type=InputFileType.OpenAPI,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_311,
                formatters=[],
                custom_file_header=header,
                **OPTIONS,
            )
        except Exception as exc:
            refused = _refusal(exc)
            if refused is None:
                raise
            raise refused from None
    assert isinstance(source, str)
    source, depth = post_processed(source)
    note = module_note(document["components"]["schemas"])
    if note:
        first, _, rest = source.partition("\n")
        source = f"{first}\n{note}\n{rest}"
    return source, warning_notes(caught), depth


def module_note(schemas: dict[str, Any]) -> str:
    """The comment lines below the models module's header: why mypy's `assignment` errors
    are off in it, when they are."""
    why = (
        "allOf members redeclare fields of the class they extend"
        if allof_overrides(schemas)
        else "oneOf/anyOf members narrow fields the schema itself declares"
        if union_member_overrides(schemas)
        else "a union's default is its JSON value (pydantic validates it), or sits on each member"
        if union_defaults(schemas)
        else ""
    )
    return f'# {why}:\n# mypy: disable-error-code="assignment"' if why else ""


def _refusal(exc: Exception) -> ModelsRefused | None:
    if type(exc).__name__ != "SchemaParseError":
        return None
    paths = [str(p) for p in getattr(exc, "path", None) or [] if str(p).startswith("#/")]
    path = paths[0][1:] if paths else "/components/schemas"
    reason = " ".join(str(exc).split())
    reason = re.sub(r"^Error at schema path '[^']*': ", "", reason)
    return ModelsRefused(path, reason)


def refusal_pointer(path: str, pointers: dict[str, str]) -> str:
    """The document's pointer of a models-document path (`/components/schemas/<Class>/...`:
    the class's own schema, wherever the IR found it, then the rest of the path)."""
    parts = path.split("/")
    if len(parts) >= 4 and parts[1:3] == ["components", "schemas"] and parts[3] in pointers:
        return "/".join([pointers[parts[3]], *parts[4:]])
    return path


# a `format` it has no type for: the schema's own type is used, as the spec says (formats
# are open-ended: `currency`, `uint64`, ...); nothing is lost, nothing to warn about
_UNKNOWN_FORMAT = re.compile(r"format of .* not understood for ")


def warning_notes(caught: list[warnings.WarningMessage]) -> list[str]:
    """datamodel-code-generator's warnings as one line each, in order, each once; its advice
    about its own command-line options (`use --strict-refs ...`) and unknown formats left
    out."""
    out: list[str] = []
    for warning in caught:
        text = " ".join(str(warning.message).split())
        if _UNKNOWN_FORMAT.match(text):
            continue
        text = re.sub(r"[;,]? *(?:use|pass|set) --[\w-]+.*$", "", text).rstrip(" .;,")
        if text and text not in out:
            out.append(text)
    return out


def union_defaults(node: Any) -> bool:
    """Whether a oneOf/anyOf schema has a `default`: datamodel-code-generator writes it as the
    raw value of a field typed with the union's class (`batch_size: BatchSize = "auto"`,
    pydantic validates it: `validate_default=True`) and copies it onto the members' classes
    (`class BatchSize2(RootModel[int]): root: int = "auto"`); mypy reports each assignment."""
    if isinstance(node, list):
        return any(union_defaults(v) for v in node)
    if not isinstance(node, dict):
        return False
    if "default" in node and ("oneOf" in node or "anyOf" in node):
        return True
    return any(union_defaults(v) for k, v in node.items() if k not in ("default", "example"))
