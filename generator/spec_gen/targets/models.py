"""Pydantic v2 models from the IR's schemas, through datamodel-code-generator."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from ..ir import Api

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
}


def _is_primitive(schema: Any) -> bool:
    if not isinstance(schema, dict) or any(
        k in schema
        for k in ("$ref", "enum", "const", "oneOf", "anyOf", "allOf", "properties", "items")
    ):
        return False
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    return all(k in ("string", "integer", "number", "boolean", "null") for k in kinds)


def inline_primitive_refs(node: Any, schemas: dict[str, Any]) -> Any:
    """Replace references to constrained primitives (a timestamp pattern, say) by their
    definition, so fields read `str` with the constraint rather than a wrapper class."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/components/schemas/"):
            target = schemas.get(ref.rsplit("/", 1)[-1])
            if isinstance(target, dict) and _is_primitive(target):
                siblings = {k: v for k, v in node.items() if k != "$ref"}
                return {**target, **siblings}
        return {k: inline_primitive_refs(v, schemas) for k, v in node.items()}
    if isinstance(node, list):
        return [inline_primitive_refs(v, schemas) for v in node]
    return node


def models_document(api: Api) -> dict[str, Any]:
    """A minimal OpenAPI document holding only the schemas to turn into models."""
    return {
        "openapi": "3.1.0",
        "info": {"title": api.title or "API", "version": api.version or "0"},
        "paths": {},
        "components": {"schemas": inline_primitive_refs(api.schemas, api.schemas)},
    }


def generate_models(document: dict[str, Any], header: str, cache_dir: Path | None) -> str:
    """The models module source; reused from the cache when the schemas are unchanged."""
    key = hashlib.sha256(
        json.dumps([document, OPTIONS, header], sort_keys=True).encode()
    ).hexdigest()[:32]
    cached = cache_dir / f"models-{key}.py" if cache_dir else None
    if cached is not None and cached.is_file():
        return cached.read_text(encoding="utf-8")
    source = _run_datamodel_codegen(document, header)
    if cached is not None:
        cached.parent.mkdir(parents=True, exist_ok=True)
        for old in cached.parent.glob("models-*.py"):
            old.unlink()
        cached.write_text(source, encoding="utf-8")
    return source


def _run_datamodel_codegen(document: dict[str, Any], header: str) -> str:
    from datamodel_code_generator import (  # type: ignore[attr-defined]
        DataModelType,
        InputFileType,
        PythonVersion,
        generate,
    )

    if not document["components"]["schemas"]:  # datamodel-codegen refuses an empty input
        return f"{header}\n\nfrom __future__ import annotations\n"
    source = generate(
        document,
        input_file_type=InputFileType.OpenAPI,
        output_model_type=DataModelType.PydanticV2BaseModel,
        target_python_version=PythonVersion.PY_311,
        formatters=[],
        custom_file_header=header,
        **OPTIONS,
    )
    assert isinstance(source, str)
    return source


def model_names(source: str) -> set[str]:
    return set(re.findall(r"^class (\w+)\(", source, re.MULTILINE))
