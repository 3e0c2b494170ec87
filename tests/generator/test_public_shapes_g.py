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
  ("Need type annotation"); such an enum is now read as its members' type, with a `models`
  warning (targets/models.py model_ready, test_models_warnings), and its values still pass.
- a parameter schema without `type` but with a scalar default (`page: {default: 1,
  minimum: 1}`, Cloudflare's paging parameters): read as a str with the default 1
  (`page: Annotated[str, Query()] = 1`, mypy --strict failed) and without its bounds. It now
  takes the default's type, and the bounds that type takes.
- a url-encoded body whose Encoding Objects say `style: deepObject` (Stripe's every form
  body: `address[line1]=...`, `expand[0]=...`, `items[0][price]=...`): the encoding was
  not read, the client sent objects as JSON text and arrays as repeated keys, and the
  server read only those. Both now send and read such a field as `name[key][0]=value`
  pairs (an empty segment, `name[]`, is the next index; keys all numbers are an array).
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
    assert output.count("an `enum` with object or array members") == 3, output
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


_DEEP_FORM = """\
import asyncio, json, sys
sys.path[:0] = ["client", "server"]
from api_client import wire
from api_client.models import CreateCustomerRequestForm
from api_server import transport
from api_server.models import CreateCustomerRequestForm as ServerForm
from starlette.requests import Request

media = wire.MediaType(
    "application/x-www-form-urlencoded", "form", model=CreateCustomerRequestForm,
    json_fields=("shipping",), deep_fields=("address", "expand", "metadata"),
)
value = {
    "name": "Ann",
    "address": {"line1": "1 Main", "lines": [{"text": "a", "order": 2}, {"text": "b"}]},
    "expand": ["x", "y"], "metadata": {"k": "v"}, "shipping": {"phone": "1"},
}
sent, _ = wire.Payload(media, CreateCustomerRequestForm.model_validate(value)).encode()


async def read(body):
    async def receive():
        return {"type": "http.request", "body": body, "more_body": False}
    scope = {"type": "http", "method": "POST", "path": "/", "query_string": b"",
             "headers": [(b"content-type", b"application/x-www-form-urlencoded")]}
    form = await transport.read_form(
        Request(scope, receive), ServerForm, lists=("expand",), json_fields=("shipping",),
        deep_fields=("address", "expand", "metadata"),
    )
    return form.model_dump(mode="json", exclude_none=True)

print(json.dumps({
    "sent": sent["content"].decode(),
    "read": asyncio.run(read(sent["content"])),
    "brackets": asyncio.run(read(b"expand[]=a&expand[]=b&metadata=&address[lines][1][text]=z")),
}))
"""


def test_deep_object_form_fields(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "deep_object_form.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out", _DEEP_FORM)
    assert found["sent"] == (
        "name=Ann&address%5Bline1%5D=1+Main"
        "&address%5Blines%5D%5B0%5D%5Btext%5D=a&address%5Blines%5D%5B0%5D%5Border%5D=2"
        "&address%5Blines%5D%5B1%5D%5Btext%5D=b"
        "&expand%5B0%5D=x&expand%5B1%5D=y&metadata%5Bk%5D=v"
        "&shipping=%7B%22phone%22%3A%221%22%7D"
    )
    assert found["read"] == {
        "name": "Ann",
        "address": {"line1": "1 Main", "lines": [{"text": "a", "order": 2}, {"text": "b"}]},
        "expand": ["x", "y"],
        "metadata": {"k": "v"},
        "shipping": {"phone": "1"},
    }
    assert found["brackets"] == {
        "expand": ["a", "b"],
        "metadata": "",
        "address": {"lines": [{"text": "z"}]},
    }
