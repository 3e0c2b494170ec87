"""Shapes met in large public OpenAPI documents, each in a small hand-written spec: the build
exits 0 (or 1 with located findings) and the output says what the document meant.

- maps of data left empty (`components:` with `schemas:` and nothing under it, a media
  type's `examples:` with no example): YAML reads each as null, and the document was refused
  (`openapi` error, null is not of type "object") while every other OpenAPI field set to
  null is read as absent. A map of schemas, examples or links set to null is now read as
  absent too, a `null-field` warning at it; a null example, default or value stays data.
- a composition listing no schema (`paginate: {anyOf: []}`, as a generator writes a union
  it knows no member of): the meta-schema wants at least one branch, and the whole document
  was refused by one `schema` error. The empty `allOf`/`anyOf`/`oneOf` is now dropped, a
  `schema-repair` warning at it (`--strict` refuses): the property accepts any value, the
  siblings of the empty list still apply.
- `content` keys that are no media type: `examples: {}` written beside `application/json`
  instead of inside it was read as one more media type, and the body silently became
  `TokenRequest | bytes` (any other Content-Type accepted as raw bytes); a media type with
  its parameters after a comma (`application/json, api-version=2.0`) was not JSON, so its
  body was raw bytes and the schema lost. The first is now ignored, the second read as
  `application/json; api-version=2.0`, a `document-repair` warning at each.
- a `$ref` with the `type` its target has beside it (`items: {type: object, $ref: File}`,
  3.1 applies both): datamodel-code-generator made a copy of the referenced class for it
  (`Datum1`, the fields of `File`), while the client's unwrapped answer (`.data`) was
  typed `list[File]`, and mypy --strict refused the client. The redundant `type` is now
  left out of what the models are made from: the field is `list[File]`; a `type` the
  target does not have (a contradiction) is kept.
- (met while checking the above) `build --strict` right after a `build` of the same document
  that had warnings: the no-op rebuild answered "nothing changed", exit 0, and the warnings
  `--strict` refuses were never looked at. The build's record now keeps its warnings, and a
  strict rebuild of a document that had some builds again (and refuses them); the test is
  test_public_shapes_l's, which met the same bug.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import line_of, run_in

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_k"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_an_empty_map_of_schemas_or_examples_is_read_as_absent(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "empty_component_maps.yaml")
    assert code == 0, output
    assert "[openapi]" not in output, output
    text = (FIXTURES / "empty_component_maps.yaml").read_text()
    warned = sorted(
        int(line.split(":")[1]) for line in output.splitlines() if "[null-field]" in line
    )
    needles = ["examples:", "  schemas:", "  links:"]
    assert warned == sorted(line_of(text, n) for n in needles), output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "total: int | None = None" in models, models


def _lines_warned(output: str, rule: str) -> list[int]:
    """The source lines of the findings of `rule`, in order."""
    return sorted(int(line.split(":")[1]) for line in output.splitlines() if f"[{rule}]" in line)


def test_an_empty_any_of_is_dropped_with_a_warning(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "empty_any_of.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (FIXTURES / "empty_any_of.yaml").read_text()
    warned = _lines_warned(output, "schema-repair")
    assert warned == [line_of(text, "anyOf: []"), line_of(text, "allOf: []")], output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "paginate: Any | None = None" in models, models
    assert "after: int | None = None" in models, models
    (tmp_path / "strict").mkdir()
    strict, output = _build(tmp_path / "strict", "empty_any_of.yaml", "--strict")
    assert strict == 1 and "[schema-repair]" in output, output


def test_content_keys_that_are_no_media_type(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "content_keys.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (FIXTURES / "content_keys.yaml").read_text()
    warned = _lines_warned(output, "document-repair")
    assert warned == [line_of(text, "examples: {}"), line_of(text, "api-version=2.0:")], output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text()
    assert "body: Annotated[TokenRequest, Body()]" in router, router
    assert "body: Annotated[TokenRequest | None, Body()] = None" in router, router
    assert "bytes" not in router, router
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text()
    assert '"application/json; api-version=2.0", "json"' in client, client


def test_a_type_beside_a_ref_that_says_the_same_makes_no_copy(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "typed_ref.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    models = (tmp_path / "out/server/api_server/models.py").read_text()
    assert "data: list[Document]" in models, models
    assert "latest: Document | None = None" in models, models
    assert models.count("name: str") == 1, models  # no copy of Document
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text()
    assert "-> builtins.list[Document]:" in client, client
