"""Validation: the document's structure (openapi-spec-validator's OpenAPI 3.1 schema, or 3.2's
for a 3.2 document), each schema against JSON Schema's meta-schema, then the rules of the
configured profile.

Every finding names the node it is about (a JSON pointer, from the validator's own path,
never from searching for an equal value); `locate_findings` turns pointers into
file:line:column through the bundle's source map, sorted by file and position.
"""

from __future__ import annotations

import importlib.util
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..core.lint_rules import Rule
from ..core.where import at
from ..document.load import Bundle, SourceMap
from ..document.openapi import METHODS
from ..document.pointer import join_pointer
from ..document.walk import is_32, schema_roots, typed_nodes
from .findings import ERROR, WARNING, Finding, RawFinding
from .profiles import Ruleset, ruleset
from .rules_core import CORE_CHECKS
from .rules_house import house_findings

__all__ = [
    "Finding",
    "RawFinding",
    "locate_findings",
    "openapi_findings",
    "repair_findings",
    "rule_findings",
    "validate_bundle",
]


def _message(error: Any) -> tuple[list[Any], str]:
    """The most specific (path, message) of a jsonschema-style error."""
    context = getattr(error, "context", None)
    if context:
        from jsonschema.exceptions import best_match

        best = best_match(context)
        if best is not None:
            return list(best.absolute_path), str(best.message).strip().splitlines()[0]
    return list(error.absolute_path), str(error.message).strip().splitlines()[0]


# a key of components/schemas (parameters, ...) outside OpenAPI's `^[a-zA-Z0-9._-]+$`:
# `Page«User»`, `Mixed Enum` (generated from generic or display names); its $refs work
COMPONENT_NAME = re.compile(r'^("(?:[^"\\]|\\.)*") does not match "\^\[a-zA-Z0-9\._-\]\+\$"$')
# an operation's Responses Object (its keys are status codes, ranges and `default`)
RESPONSES = re.compile(rf"/(?:{'|'.join((*METHODS, 'query'))})/responses$")  # 3.2: QUERY
# a parameter's location Swagger 2.0 had and OpenAPI 3 writes as a request body
SWAGGER_IN = re.compile(r"""^["'](body|formData)["'] is not one of """)
STRAY = re.compile(
    r"^(?:Unevaluated|Additional) properties are not allowed \((.*) (?:was|were) unexpected\)"
)


def _swagger(document: dict[str, Any]) -> bool:
    return "openapi" not in document and "swagger" in document


def openapi_findings(document: dict[str, Any]) -> list[RawFinding]:
    """Structure (the OpenAPI 3.1 schema) and schema meta-validation, each at its own node.

    A key the object does not define (a stray keyword) is a warning: it is ignored, as other
    generators do; `--strict` makes it an error.
    """
    if _swagger(document):  # one finding says it all
        version = document["swagger"]
        return [
            RawFinding(
                "/swagger",
                Rule.OPENAPI,
                f"a Swagger {version} (OpenAPI 2) document: spec-gen reads OpenAPI 3.0, 3.1 "
                "and 3.2; convert it first (for instance `npx swagger2openapi IN -o OUT.yaml`)",
            )
        ]
    errors = [(join_pointer("", *path), message) for path, message in _structure_errors(document)]
    errors = _callback_extensions_allowed(document, errors)
    out = []
    for pointer, message in errors:
        named = COMPONENT_NAME.match(message)
        if named and re.fullmatch(r"/components/[^/]+", pointer):
            name = json.loads(named.group(1))
            out.append(
                RawFinding(
                    join_pointer(pointer, name),
                    Rule.COMPONENT_NAME,
                    f"component name {name!r} has characters a component name may not have "
                    "(letters, digits, `.`, `-`, `_`): kept as written",
                    WARNING,
                )
            )
            continue
        stray = STRAY.match(message)
        if pointer == "/openapi" and "does not match" in message:
            version = json.dumps(document.get("openapi"))
            message = f"OpenAPI {version} is not a version spec-gen reads (3.0.x, 3.1.x and 3.2.x)"
        swagger = SWAGGER_IN.match(message) if pointer.endswith("/in") else None
        if swagger:
            forms = " (`multipart/form-data` or `application/x-www-form-urlencoded`)"
            message = (
                f"`in: {swagger.group(1)}` is Swagger 2.0's: OpenAPI 3 writes this parameter "
                f"in the operation's `requestBody`{forms if swagger.group(1) == 'formData' else ''}"
            )
        answers = RESPONSES.search(pointer) is not None
        if answers and message == '"default" is a required property':
            message = (
                "no answer: none of the keys is a status code (`200`), a range (`2XX`) or `default`"
            )
        if stray is None:
            out.append(RawFinding(pointer, Rule.OPENAPI, message))
            continue
        for key in re.findall(r"'((?:[^'\\]|\\.)*)'", stray.group(1)):
            at = join_pointer(pointer, key)
            if any(p == at or p.startswith(at + "/") for p, _ in errors):
                continue  # not stray: the key is there but its value is wrong (reported)
            said = (
                f"{key!r} is not a status code (`200`), a range (`2XX`) or `default`: this "
                "answer is ignored"
                if answers
                else f"{key!r} is not a field here; it is ignored"
            )
            out.append(RawFinding(at, Rule.STRAY_KEYWORD, said, WARNING))
    if any(f.severity == ERROR for f in out):
        return out
    return out + schema_meta_findings(document)


def _callback_extensions_allowed(
    document: dict[str, Any], errors: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """Without the errors about a Callback Object's `x-` extensions: OpenAPI says a Callback
    Object MAY be extended, but the 3.1 schema reads every key of it as a path item
    expression (`x-internal: true` was refused: 'true is not of type "object"')."""
    if not any("/callbacks/" in pointer and "/x-" in pointer for pointer, _ in errors):
        return errors
    kinds = typed_nodes(document, schemas=False)[0]
    callbacks = {here for here, kind in kinds.items() if kind == "Callback"}

    def extension_of_callback(pointer: str) -> bool:
        parts = pointer.split("/")
        return any(
            parts[i].startswith("x-") and "/".join(parts[:i]) in callbacks
            for i in range(1, len(parts))
        )

    return [(p, m) for p, m in errors if not extension_of_callback(p)]


def _structure_errors(document: dict[str, Any]) -> list[tuple[list[Any], str]]:
    """(path, message) of each error against openapi-spec-validator's OpenAPI 3.1 schema.

    The schema file is read from the package's resources and checked with jsonschema-rs
    directly: importing openapi_spec_validator costs more than validating a large document.
    """
    version = "3.2" if is_32(document) else "3.1"
    try:
        import jsonschema_rs
    except ImportError:  # the pure-Python path, through the library
        from openapi_spec_validator.schemas import (
            openapi_v31_schema_validator,
            openapi_v32_schema_validator,
        )

        python = openapi_v32_schema_validator if version == "3.2" else openapi_v31_schema_validator
        return [_message(e) for e in python.iter_errors(document)]
    validator = _oas_validator(jsonschema_rs, version)
    return [
        (list(e.instance_path), str(e.message).strip().splitlines()[0])
        for e in validator.iter_errors(document)
    ]


_VALIDATORS: dict[str, Any] = {}


def _oas_validator(jsonschema_rs: Any, version: str) -> Any:
    if version not in _VALIDATORS:
        package = importlib.util.find_spec("openapi_spec_validator")
        if package is None or package.origin is None:
            raise RuntimeError("openapi-spec-validator is not installed")
        schema_file = (
            Path(package.origin).parent / "resources" / "schemas" / f"v{version}" / "schema.json"
        )
        schema = json.loads(schema_file.read_text(encoding="utf-8"))
        _VALIDATORS[version] = jsonschema_rs.validator_cls_for(schema)(schema)
    return _VALIDATORS[version]


def schema_meta_findings(document: dict[str, Any]) -> list[RawFinding]:
    """Each schema against JSON Schema 2020-12's meta-schema (jsonschema-rs says whether;
    the Python jsonschema, loaded only then, says where)."""
    rs_meta: Any = None
    try:
        from jsonschema_rs import meta as rs_meta
    except ImportError:
        pass
    out = []
    meta: Any = None
    for pointer, schema in schema_roots(document):
        if isinstance(schema, bool) or (
            rs_meta is not None
            and isinstance(schema, dict)
            and _bundled_dialect(schema)
            and rs_meta.is_valid(schema)
        ):
            continue
        if meta is None:
            from jsonschema import Draft202012Validator

            meta = Draft202012Validator(Draft202012Validator.META_SCHEMA)
        for error in meta.iter_errors(schema):
            path, message = _message(error)
            out.append(RawFinding(join_pointer(pointer, *path), Rule.SCHEMA, message))
    return out


# the `$schema` dialects jsonschema-rs carries; any other it would fetch from the network
_BUNDLED_DIALECT = re.compile(
    r"https?://json-schema\.org/(?:draft-0[467]/|draft/2019-09/|draft/2020-12/)?schema#?"
)


def _bundled_dialect(schema: dict[str, Any]) -> bool:
    """Whether jsonschema-rs checks `schema` without fetching anything: no `$schema`, or a
    JSON Schema draft it carries. Any other (OpenAPI's own dialect, a custom URL) goes to
    the Python check against 2020-12's meta-schema, OpenAPI 3.1's default dialect."""
    dialect = schema.get("$schema")
    return dialect is None or (
        isinstance(dialect, str) and bool(_BUNDLED_DIALECT.fullmatch(dialect))
    )


def rule_findings(document: dict[str, Any], rules: Ruleset | None = None) -> list[RawFinding]:
    """The profile's rules, each finding at the severity the profile gives its rule."""
    rules = rules or ruleset(None)
    raw: list[RawFinding] = []
    with at(""):
        for check in CORE_CHECKS:
            raw.extend(check(document))
        if rules.house:
            raw.extend(house_findings(document, rules.options))
    return apply_profile(raw, rules)


def apply_profile(raw: list[RawFinding], rules: Ruleset) -> list[RawFinding]:
    """Each finding at its rule's severity in the profile; `off` rules dropped."""
    out = []
    for finding in raw:
        severity = rules.severity(finding.rule)
        if severity != "off":
            level = WARNING if severity == "warn" else ERROR
            out.append(RawFinding(finding.pointer, finding.rule, finding.message, level))
    return out


def bundle_findings(bundle: Bundle) -> list[Finding]:
    """References the bundler could not follow, at the `$ref` in the file that has it."""
    source_map = SourceMap(bundle)
    out = []
    for file, pointer, message in bundle.problems:
        line, column = source_map.locate_in_file(file, join_pointer(pointer, "$ref"))
        out.append(Finding(str(file), line, column, Rule.REF, message))
    return out


def locate_findings(
    bundle: Bundle,
    raw: list[RawFinding],
    relative_to: Path,
    extra: list[Finding] | None = None,
    known: Mapping[str, tuple[Path, int, int]] | None = None,
) -> list[Finding]:
    """The findings at file:line:column (`known`: pointers already looked up, build/located.py)."""
    source_map = SourceMap(bundle)
    located: set[Finding] = set()
    known = known or {}
    for finding in raw:
        position = known.get(finding.pointer)
        file, line, column = position or source_map.locate(finding.pointer)
        where = f" (at {finding.pointer})" if finding.pointer else ""
        located.add(
            Finding(
                str(file), line, column, finding.rule, finding.message + where, finding.severity
            )
        )
    located.update(extra or [])
    names: dict[str, str] = {}  # a file's name relative to `relative_to`, once per file
    for name in {found.file for found in located}:
        try:
            names[name] = str(Path(name).relative_to(relative_to))
        except ValueError:
            names[name] = name
    return sorted(
        {Finding(names[f.file], f.line, f.column, f.rule, f.message, f.severity) for f in located}
    )


def repair_findings(bundle: Bundle) -> list[RawFinding]:
    """What the loader repaired in the schemas (repair.py), each at its node; none in a
    Swagger 2 document (its one finding says it all: hundreds of 3.0 repairs of a document
    that is not 3.0 would bury it)."""
    if _swagger(bundle.document):
        return []
    return [RawFinding(pointer, rule, text) for pointer, rule, text in bundle.repairs]


def validate_bundle(bundle: Bundle, rules: Ruleset | None = None) -> list[RawFinding]:
    """Every raw finding: the validators' and the profile's, merged (errors and warnings)."""
    rules = rules or ruleset(None)
    raw = apply_profile(repair_findings(bundle) + openapi_findings(bundle.document), rules)
    try:
        raw += rule_findings(bundle.document, rules)
    except Exception:
        if not raw:  # a document the validator accepts must never crash a rule
            raise
    return raw
