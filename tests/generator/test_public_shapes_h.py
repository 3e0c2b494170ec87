"""Shapes met in large public documents (eighth round: Kubernetes, Spotify, Mastodon, HubSpot,
PayPal, Adyen, Apideck, Svix, Clerk, Supabase, LaunchDarkly), each in a small hand-written
spec: the build exits 0 and the output says what the document meant.

- a long cycle of classes (HubSpot's property expressions: some 75 operators, each taking
  any operator as input): pydantic builds the classes of a cycle one inside the other when
  the last of them is created, about 25 Python frames each, and beyond some 40 classes the
  default recursion limit was exceeded: RecursionError on import, so the build stopped
  ("generated code does not import or mount", exit 2). A models module (the server's, each
  of the client's) whose classes need it now raises the recursion limit at its top, by
  enough frames for its longest chain of classes built inline (never lowering it).
- and the import probe hung on it: a probe whose first package failed with a long
  traceback (a RecursionError's runs to some 100 KB) blocked writing it to stderr while the
  build, waiting for its writer thread to send the second package, read nothing: the build
  never ended. The probes' output is now read while the writer writes.
- a media range with an object schema (`content: {'*/*': {schema: {$ref: Deployment}}}`,
  Kubernetes' every create and replace): a binary body, the schema lost; now JSON.
"""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from spec_gen.build.verify import GeneratedCodeBroken, Verifier
from spec_gen.targets.models.depth import build_depth
from spec_helpers import run_in, run_json

FIXTURES = Path(__file__).parent / "fixtures" / "public_shapes_h"


def _build(tmp_path: Path, fixture: str, *extra: str) -> tuple[int, str]:
    shutil.copy(FIXTURES / fixture, tmp_path / "openapi.yaml")
    return run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out", *extra)


def test_a_long_cycle_of_classes_builds_imports_and_validates(tmp_path: Path) -> None:
    code, output = _build(tmp_path, "operator_cycle.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    out = tmp_path / "out"
    server_models = (out / "server" / "api_server" / "models.py").read_text()
    assert "sys.setrecursionlimit(max(sys.getrecursionlimit(), " in server_models
    client_models = [
        path.name
        for path in (out / "client" / "api_client" / "models").glob("_*.py")
        if "sys.setrecursionlimit(" in path.read_text()
    ]
    assert client_models == ["_op01.py"]
    nested: dict[str, object] = {"value": 64}
    for value in range(63, 0, -1):
        nested = {"value": value, "inputs": [nested]}
    data = json.dumps({"value": 0, "inputs": [nested]})
    # a fresh interpreter with the default limit, each package as a user imports it
    script = (
        "import json, sys\n"
        "from {package}.models import Op01\n"
        "op = Op01.model_validate_json({data!r})\n"
        "depth = 0\n"
        "while op.inputs:\n"
        "    op, depth = op.inputs[0], depth + 1\n"
        "print(json.dumps([depth, type(op).__name__]))\n"
    )
    for part, package in (("server", "api_server"), ("client", "api_client")):
        assert run_json(out / part, script.format(package=package, data=data)) == [64, "Op01"]


def test_short_cycles_leave_the_recursion_limit_alone() -> None:
    source = (
        "from __future__ import annotations\n\nfrom pydantic import BaseModel\n\n\n"
        "class Node(BaseModel):\n    children: list[Node] | None = None\n\n\n"
        "class A(BaseModel):\n    b: B | None = None\n\n\n"
        "class B(BaseModel):\n    a: A | None = None\n    node: Node | None = None\n\n\n"
        "class Leaf(BaseModel):\n    value: int\n\n\n"
        "class Tree(BaseModel):\n    leaf: Leaf\n"
    )
    # Node is complete when created (it refers only to itself), A and B build each other
    assert build_depth(source) == 2


def test_a_probe_failing_with_a_long_traceback_does_not_hang_the_build() -> None:
    verifier = Verifier("deep_server", "deep_client")
    verifier.start(together=True)
    # mutual recursion: a traceback of some 1000 distinct frames, over a pipe's 64 KB
    server = {
        "server/deep_server/__init__.py": (
            "def ping(n):\n    return pong(n + 1)\n\n\n"
            "def pong(n):\n    return ping(n + 1)\n\n\nping(0)\n"
        )
    }
    client = {"client/deep_client/__init__.py": f"PADDING = {'x' * 300_000!r}\n"}
    outcome: list[BaseException] = []

    def check() -> None:
        try:
            verifier.check({**server, **client})
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(timeout=120)
    if worker.is_alive():
        verifier.close()
        pytest.fail("the verifier hung on a probe's long traceback")
    assert len(outcome) == 1 and isinstance(outcome[0], GeneratedCodeBroken)
    assert "RecursionError" in str(outcome[0])


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
    code, output = _build(tmp_path, "media_range_bodies.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    found = run_json(tmp_path / "out", _RANGE)
    assert found["body"] == ["Deployment", {"name": "web", "replicas": 2}]
    assert found["made"] == ["Deployment", {"name": "web", "replicas": 2}]
    assert found["raw_seen"] == ["bytes", [0, 1]]
    assert found["raw"] == ["Deployment", {"name": "raw", "replicas": None}]
