"""Shapes met in large public API descriptions (seventh round: Cloudflare, Discord, Linode,
Stripe, Asana, Sentry, ...), each in a small hand-written spec: the build exits 0 and the
output says what the document meant.

- an answer whose schema is an allOf of a class without fields of its own and an enum
  (`allOf: [{$ref: Envelope}, {$ref: Level}]`, Cloudflare's origin post-quantum setting):
  datamodel-code-generator writes it as an enum class, the IR took it for a model, so the
  client called `model_validate_json` on it and the strict contract listed it as a
  `type[BaseModel]` (mypy --strict failed; at run time an AttributeError). Any error answer
  that is an enum class did the same in the contract. The enum classes are now the ones
  the models module declares, and the contract validates an enum error body through a
  `RootModel` of its class.
- an enum member that is or holds an empty array or object (`errors: {enum: [[]]}`,
  Cloudflare's rulesets answers): written `LIST___ = []`, which mypy --strict refuses
  ("Need type annotation"); the member's line now tells mypy to let it be.
- a parameter schema without `type` but with a scalar default (`page: {default: 1,
  minimum: 1}`, Cloudflare's paging parameters): read as a str with the default 1
  (`page: Annotated[str, Query()] = 1`, mypy --strict failed) and without its bounds. It now
  takes the default's type, and the bounds that type takes.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from spec_helpers import run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_g"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


_CONTRACT = """\
import json
from api_server.contract import contract_violation

print(json.dumps({
    "404 low": contract_violation("getLevel", 404, b'"low"'),
    "404 mid": contract_violation("getLevel", 404, b'"mid"'),
    "400 high": contract_violation("getLevel", 400, b'"high"'),
}))
"""


def test_enum_classes_follow_the_models(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "enum_answers.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    out = tmp_path / "out"
    models = (out / "server" / "api_server" / "models.py").read_text()
    assert "class GetLevelResponse(StrEnum):" in models
    resources = (out / "client" / "api_client" / "resources" / "default.py").read_text()
    assert "GetLevelResponse(response.json())" in resources
    assert "GetLevelResponse.model_validate_json" not in resources
    contract = (out / "server" / "api_server" / "contract.py").read_text()
    assert '"404": RootModel[_models.Level],' in contract
    found = run_json(out / "server", _CONTRACT)
    assert found["404 low"] is None
    assert found["400 high"] is None
    assert found["404 mid"].startswith("error body does not match RootModel[Level]"), found


_EMPTY = """\
import json
from api_server.models import GetStatusResponse

answer = GetStatusResponse.model_validate({"errors": [], "nested": {}, "mixed": {"a": []}})
print(answer.model_dump_json())
"""


def test_empty_containers_in_enums_type_check(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "empty_enum_values.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out" / "server", _EMPTY)
    assert found == {"errors": [], "nested": {}, "mixed": {"a": []}}


def test_untyped_parameters_take_their_default_type(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "untyped_parameter_defaults.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    router = (tmp_path / "out" / "server" / "api_server" / "routers" / "default.py").read_text()
    assert "page: Annotated[int, Query(ge=1)] = 1," in router
    assert "ratio: Annotated[float, Query()] = 0.5," in router
    assert "exact: Annotated[bool, Query()] = True," in router
    assert 'x_mode: Annotated[str, Header(alias="X-Mode")] = "fast",' in router
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    assert "page: int | None = None," in resources.read_text()
