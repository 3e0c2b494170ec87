"""A schema's own `$schema` naming a dialect jsonschema-rs does not carry (a draft that does
not exist, OpenAPI's own dialect, any URL): checked against JSON Schema 2020-12's
meta-schema, nothing fetched (it was an internal error after trying the network)."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_gen.lint import validate
from spec_helpers import HEAD, line_of, run_in, write


def _spec(dialect: str, schema_type: str) -> str:
    return HEAD + (
        "paths:\n  /a:\n    get:\n      operationId: get_a\n      responses:\n"
        "        '200':\n          description: ok\n          content:\n"
        "            application/json:\n              schema:\n"
        f"                $schema: '{dialect}'\n                type: {schema_type}\n"
    )


@pytest.mark.parametrize(
    "dialect",
    [
        "https://json-schema.org/draft-05/schema#",
        "https://spec.openapis.org/oas/3.1/dialect/base",
        "https://example.invalid/my-dialect",
    ],
)
def test_an_unknown_dialect_is_checked_as_2020_12(tmp_path: Path, dialect: str) -> None:
    write(tmp_path / "openapi.yaml", _spec(dialect, "string"))
    code, out = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 0, out
    text = _spec(dialect, "strin")
    write(tmp_path / "openapi.yaml", text)
    code, out = run_in(tmp_path, "validate", "openapi.yaml")
    assert code == 1, out
    assert f"openapi.yaml:{line_of(text, 'type: strin')}:" in out and "error [schema]" in out


def test_only_bundled_dialects_go_to_jsonschema_rs() -> None:
    bundled = validate._bundled_dialect
    assert bundled({"type": "string"})
    assert bundled({"$schema": "http://json-schema.org/draft-07/schema#"})
    assert bundled({"$schema": "https://json-schema.org/draft/2020-12/schema"})
    assert not bundled({"$schema": "https://json-schema.org/draft-05/schema#"})
    assert not bundled({"$schema": "https://spec.openapis.org/oas/3.1/dialect/base"})
