"""Shapes met in the test documents of peer tools (sixth round), each in a small hand-written
spec: the build exits 0 and the output says what the document meant.

- `format: email` on a schema without `type: string` (`email: {format: email}`, as in
  kin-openapi's callback documents), or inside an example's data: the dependency lists were
  chosen from the schemas' text (`pydantic[email]`), datamodel-code-generator wrote no
  EmailStr (the value may be any JSON value), and the build stopped with an internal error
  ("email fields: the models and the dependency list disagree", exit 2). The packages'
  pydantic requirement now follows the models.
- an object schema with an `enum` of objects (`type: object, enum: [{status: active}, ...]`,
  kin-openapi's any_fields document): datamodel-code-generator writes a model class, the
  client read it as an enum class (`Preset(response.json())`) and failed mypy --strict
  ("Too many arguments"). Such a schema is no enum class to the IR any more.
- specification extensions (`x-...`) in the Paths Object or a Responses Object (also skipped
  in a Callback Object; swagger-parser's extensions documents): read as a path or a status,
  an internal error (`'str' object has no attribute 'get'`, exit 2). They are skipped.
- a string where a Media Type Object or an encoding map belongs (`content: {description:
  ok}`, prism's harness documents): the 3.0 -> 3.1 upgrade, which runs before validation,
  stopped on it (internal error, exit 2). It now skips such nodes; validation refuses them
  with located findings.
- a named free-form object (`Meta: {type: object}`): a class without fields, so every
  member of a body or answer of it was dropped (pydantic ignores extra keys); its class now
  allows them.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import line_of, run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_f"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def _requirements(tmp_path: Path) -> list[str]:
    out = tmp_path / "out"
    return [
        line
        for part in ("server", "client")
        for line in (out / part / "pyproject.toml").read_text().splitlines()
        if line.startswith("dependencies")
    ]


def test_an_untyped_email_format_needs_no_email_extra(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "untyped_email_format.yaml")
    assert code == 0, output
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "contact: Any | None = None" in models
    assert "EmailStr" not in models
    requirements = _requirements(tmp_path)
    assert len(requirements) == 2
    assert all('"pydantic>=2.7,<3"' in line for line in requirements), requirements


def test_a_string_email_format_is_checked_text_without_the_email_extra(tmp_path: Path) -> None:
    """An email address is kept as written (EmailStr normalised it): formats.EmailText checks
    its shape, and the packages need no email-validator (docs/models.md)."""
    code, output = _build(tmp_path, "typed_email_format.yaml")
    assert code == 0, output
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "contact: EmailText | None = None" in models
    requirements = _requirements(tmp_path)
    assert len(requirements) == 2
    assert all('"pydantic>=2.7,<3"' in line for line in requirements), requirements


def test_object_enums_are_models_to_the_client(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "object_enums.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    text = resources.read_text()
    assert "Preset.model_validate_json(response.content)" in text
    assert "Preset(response.json())" not in text


def test_extension_keys_of_paths_responses_and_callbacks_are_no_entries(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "extension_keys.yaml")
    assert code == 0, output
    assert "1 routes mounted" in output
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    text = resources.read_text()
    assert "def place_order(" in text
    assert "PlaceOrderResponse.model_validate_json(response.content)" in text
    webhooks = (tmp_path / "out" / "server" / "api_server" / "webhooks.py").read_text()
    assert "shipped" in webhooks.lower()


def test_ill_typed_media_entries_are_located_findings(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "ill_typed_media.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (FIXTURES / "ill_typed_media.yaml").read_text()
    media = line_of(text, "text/plain: hello")
    encoding = line_of(text, "encoding: yes")
    assert f"openapi.yaml:{media}:13: error [openapi]" in output, output
    assert f"openapi.yaml:{encoding}:15: error [openapi]" in output, output
    assert "2 error(s)" in output


_FREE_FORM = """\
import json
from api_server.models import Holder, Meta

meta = Meta.model_validate({"a": 1, "b": {"c": [True]}})
holder = Holder.model_validate({"named": {"x": "y"}, "meta": {"z": 2}})
print(json.dumps({"meta": meta.model_dump(), "holder": holder.model_dump(exclude_none=True)}))
"""


def test_a_named_free_form_object_keeps_its_members(tmp_path: Path) -> None:
    """A component `type: object` with nothing saying what its members are (any are valid)
    was a class without fields: pydantic ignores extra keys, so a body of it reached the
    handler empty and an answer of it came back `{}`. It now keeps every member."""
    code, output = _build(tmp_path, "free_form_object.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out" / "server", _FREE_FORM)
    assert found == {
        "meta": {"a": 1, "b": {"c": [True]}},
        "holder": {"meta": {"z": 2}, "named": {"x": "y"}},
    }, found
