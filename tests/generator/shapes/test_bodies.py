"""Request and response bodies of real public documents: media types and media ranges, JSON
without a schema beside text, `content` keys that are no media type, ill-typed media entries,
url-encoded bodies with deepObject encodings.

Each document, under fixtures/shapes/bodies/, is small and hand-written and reproduces a shape
met in real public OpenAPI documents (large public APIs, the test documents of peer tools),
named below or in the test: the build exits 0 (or 1 with located findings) and the output says
what the document meant.

- a string where a Media Type Object or an encoding map belongs (`content: {description:
  ok}`, prism's harness documents): the 3.0 -> 3.1 upgrade, which runs before validation,
  stopped on it (internal error, exit 2). It now skips such nodes; validation refuses them
  with located findings.
- a url-encoded body whose Encoding Objects say `style: deepObject` (Stripe's every form
  body: `address[line1]=...`, `expand[0]=...`, `items[0][price]=...`): the encoding was
  not read, the client sent objects as JSON text and arrays as repeated keys, and the
  server read only those. Both now send and read such a field as `name[key][0]=value`
  pairs (an empty segment, `name[]`, is the next index; keys all numbers are an array).
- a media range with an object schema (`content: {'*/*': {schema: {$ref: Deployment}}}`,
  Kubernetes' every create and replace): a binary body, the schema lost; now JSON.
- `content` keys that are no media type: `examples: {}` written beside `application/json`
  instead of inside it was read as one more media type, and the body silently became
  `TokenRequest | bytes` (any other Content-Type accepted as raw bytes); a media type with
  its parameters after a comma (`application/json, api-version=2.0`) was not JSON, so its
  body was raw bytes and the schema lost. The first is now ignored, the second read as
  `application/json; api-version=2.0`, a `document-repair` warning at each.
- multipart file properties under names that are no Python names (`profile-photo`, a
  shared component schema): the server's model types them `UploadedFile` under their alias
  (the handler gets the filename, type and a stream), the client's keeps `bytes`; a binary
  property of a url-encoded form stays `bytes` (no file there).
"""

from __future__ import annotations

from pathlib import Path

from spec_helpers import SHAPES, build_shape, line_of, lines_warned, run_json


def test_json_without_a_schema_beside_text_is_answered_as_text(tmp_path: Path) -> None:
    """EarthRef's data export: `text/plain: {}` and `application/json: {}`. The handler was
    typed `None | str | AsyncIterable[str]` and the route passed that None-able value to
    `mixed_response` (mypy --strict); with no JSON model it returns text (or bytes)."""
    code, output = build_shape(tmp_path, "bodies/schemaless_json_beside_text.yaml", "--typecheck")
    assert code == 0, output
    api = (tmp_path / "out/server/api_server/interfaces/default.py").read_text(encoding="utf-8")
    assert ") -> str | AsyncIterable[str]:" in api
    assert ") -> bytes | AsyncIterable[bytes]:" in api
    assert "None |" not in api


_RANGE = """
import json, sys
sys.path[:0] = ["client", "server"]
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server
from api_client import Client

seen = {}

class Impl:
    async def create_deployment(self, ctx, body):
        seen["body"] = [type(body).__name__, body.model_dump()]
        return body
    async def put_raw(self, ctx, body):
        seen["raw_in"] = [type(body).__name__, body]
        return {"name": "raw"}

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
client = Client(base_url="http://testserver", http_client=TestClient(app))
made = client.default.create_deployment(name="web", replicas=2)
raw = client.default.put_raw(body=b"\\x00\\x01")
print(json.dumps({
    "made": [type(made).__name__, made.model_dump()],
    "raw": [type(raw).__name__, raw.model_dump()],
    "body": seen["body"],
    "raw_seen": [seen["raw_in"][0], list(seen["raw_in"][1])],
}, default=str))
"""


def test_a_media_range_with_an_object_schema_is_json(tmp_path: Path) -> None:
    """Kubernetes declares every body `content: {'*/*': {schema: {$ref: ...}}}`: read as
    binary (the media range is no JSON type), the client took `body: bytes`, the handler got
    raw bytes and the schema was lost. A media range whose schema describes JSON data is
    sent and read as application/json; one whose schema is a (binary) string stays bytes."""
    code, output = build_shape(tmp_path, "bodies/media_range_bodies.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out", _RANGE)
    assert found["body"] == ["Deployment", {"name": "web", "replicas": 2}]
    assert found["made"] == ["Deployment", {"name": "web", "replicas": 2}]
    assert found["raw_seen"] == ["bytes", [0, 1]]
    assert found["raw"] == ["Deployment", {"name": "raw", "replicas": None}]


def test_content_keys_that_are_no_media_type(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "bodies/content_keys.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    text = (SHAPES / "bodies/content_keys.yaml").read_text()
    warned = lines_warned(output, "document-repair")
    assert warned == [line_of(text, "examples: {}"), line_of(text, "api-version=2.0:")], output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text()
    assert "body: Annotated[TokenRequest, Body()]" in router, router
    assert "body: Annotated[TokenRequest | None, Body()] = None" in router, router
    assert "bytes" not in router, router
    client = (tmp_path / "out/client/api_client/resources/default.py").read_text()
    assert '"application/json; api-version=2.0", "json"' in client, client


def test_ill_typed_media_entries_are_located_findings(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "bodies/ill_typed_media.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (SHAPES / "bodies/ill_typed_media.yaml").read_text()
    media = line_of(text, "text/plain: hello")
    encoding = line_of(text, "encoding: yes")
    assert f"openapi.yaml:{media}:13: error [openapi]" in output, output
    assert f"openapi.yaml:{encoding}:15: error [openapi]" in output, output
    assert "2 error(s)" in output


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
    "superscript": asyncio.run(read(b"metadata[%C2%B2]=v&metadata[1]=w")),
}))
"""


def test_deep_object_form_fields(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "bodies/deep_object_form.yaml", "--typecheck")
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
    # "²" passes str.isdigit() but not int(): a key, not an index (it raised, a 500)
    assert found["superscript"] == {"metadata": {"²": "v", "1": "w"}}


_FILES = """\
import asyncio, json, sys
sys.path[:0] = ["client", "server"]
import typing
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server
from api_client import Client
from api_client.models import CreateProfileRequestMultipart as ClientForm

seen = {}

class Impl:
    async def create_profile(self, ctx, body):
        parts = [body.profile_photo, *body.documents]
        seen["files"] = [[type(p).__name__, p.filename, p.content_type, (await p.read()).decode()]
                         for p in parts]
        seen["fields"] = [body.class_, body.metadata.owner]
        return {"names": [p.filename for p in parts]}
    async def create_token(self, ctx, body):
        seen["token"] = [type(body.assertion).__name__, body.assertion.decode()]
        return {}

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
client = Client(base_url="http://testserver", http_client=TestClient(app))
client.default.create_profile(profile_photo=("me.jpg", b"face", "image/jpeg"), class_="YQ==",
                              documents=[b"one", ("two.txt", b"two")], metadata={"owner": "ann"})
client.default.create_token(assertion=b"jwt")
seen["client_annotation"] = str(typing.get_type_hints(ClientForm)["profile_photo"])
print(json.dumps(seen))
"""


def test_multipart_file_fields_reach_the_server_as_uploaded_files(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "bodies/multipart_file_names.yaml")
    assert code == 0, output  # the feature fixture `uploads` is the one mypy --strict checks
    found = run_json(tmp_path / "out", _FILES)
    assert found["files"] == [
        ["UploadedFile", "me.jpg", "image/jpeg", "face"],
        ["UploadedFile", "documents1", "application/octet-stream", "one"],
        ["UploadedFile", "two.txt", "application/octet-stream", "two"],
    ]
    assert found["fields"] == ["YQ==", "ann"]
    assert found["token"] == ["bytes", "jwt"]
    assert "bytes" in found["client_annotation"]
