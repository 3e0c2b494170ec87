"""spec-gen alone, and the walkthrough of docs/own-spec.md run as written (issue 25).

A wheel of spec-gen is built from generator/ and installed into a fresh virtual environment
with nothing else; what it installed is recorded then and checked (no service dependency, no
`outreach_*` package, no pytest plugin, no `outreach-server`). In that environment, for three
public documents of ../shared/corpus (read from there, never copied into the repository), the
walkthrough's commands run: init, build, the generated packages installed, scaffold --write,
mypy --strict over the scaffold, the generated server and the client, uvicorn serving the
scaffolded app. Then, over HTTP: every stub answers 501 in the declared error shape, every
secured operation 401 naming the verifier to write, malformed requests the declared 4xx shape
with the strict contract on, /docs and /openapi.json the generated page and the team's
document, the generated client's calls reach it; Petstore also gets two real handlers, one
answering a typed declared 404 that the client receives as its NotFoundError.

The environment is kept between runs in the temporary directory, keyed by
generator/pyproject.toml (its dependencies): a run after the first reinstalls only the wheel.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

REPO = Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
# distributions of the service or the development install that spec-gen must not bring
FORBIDDEN = {
    "sqlalchemy",
    "aiosqlite",
    "asyncpg",
    "alembic",
    "redis",
    "prometheus-client",
    "cryptography",
    "joserfc",
    "dnspython",
    "uvicorn",
    "pytest",
    "spec-gen-outreach",
}

# the walkthrough's own tools, pre-commit for the hooks' test, and setuptools to install the
# generated packages without an isolated build each time
TOOLS = ("uvicorn", "mypy", "pre-commit", "setuptools>=69")

pytestmark = pytest.mark.slow


def corpus(name: str) -> Path:
    path = CORPUS / name
    if not path.is_file():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing (required under CI=true)")
        pytest.skip(f"{path} is absent: the walkthrough reads the public corpus from ../shared")
    return path


def run(*command: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, (command, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


def distribution_name(line: str) -> str:
    name = line.split("==")[0].split(" @ ")[0].strip()
    return name.lower().replace("_", "-").replace(".", "-")


@dataclass(frozen=True)
class Venv:
    root: Path
    wheel: Path

    @property
    def bin(self) -> Path:
        return self.root / "bin"

    @property
    def env(self) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
        return {
            **env,
            "PATH": f"{self.bin}{os.pathsep}{env['PATH']}",
            "VIRTUAL_ENV": str(self.root),
        }

    def run(self, *command: str | Path, cwd: Path | None = None) -> str:
        # never from the repository: its root holds the development install's metadata
        return run(*command, cwd=cwd or self.root, env=self.env)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Venv:
    wheels = tmp_path_factory.mktemp("wheel")
    # built from a copy (setuptools leaves build/ and an egg-info in the tree it builds); the
    # copy holds the templates the link generator/spec_gen/templates points at
    source = tmp_path_factory.mktemp("source") / "generator"
    top = REPO / "generator"

    def leftovers(directory: str, names: list[str]) -> list[str]:
        at_top = Path(directory) == top  # spec_gen/build is a package of its own
        return [
            n
            for n in names
            if n == "__pycache__" or (at_top and (n == "build" or n.endswith(".egg-info")))
        ]

    shutil.copytree(top, source, ignore=leftovers)
    run(sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", wheels, source)
    (wheel,) = wheels.glob("spec_gen-*.whl")
    key = hashlib.sha256(
        (REPO / "generator" / "pyproject.toml").read_bytes()
        + sys.version.encode()
        + " ".join(TOOLS).encode()
    ).hexdigest()[:12]
    root = Path(tempfile.gettempdir()) / f"spec-gen-own-spec-{key}"
    if not (root / ".ready").is_file():
        shutil.rmtree(root, ignore_errors=True)
        run(sys.executable, "-m", "venv", root)
        python = root / "bin" / "python"
        run(python, "-m", "pip", "install", "-q", wheel)
        # what installing spec-gen brought, recorded before the walkthrough adds its tools
        (root / "installed-by-spec-gen.txt").write_text(run(python, "-m", "pip", "freeze"))
        run(python, "-m", "pip", "install", "-q", *TOOLS)
        (root / ".ready").write_text("")
    else:  # the same dependencies: this build of spec-gen only
        run(
            root / "bin" / "python",
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--force-reinstall",
            wheel,
        )
    return Venv(root, wheel)


def test_the_wheel_holds_the_toolchain_and_its_templates(venv: Venv) -> None:
    names = zipfile.ZipFile(venv.wheel).namelist()
    assert "spec_gen/templates/api/app.py.j2" in names  # the files, not the link
    assert "spec_gen/templates/scaffold/context.py.j2" in names
    assert "spec_gen/build/pipeline.py" in names and "spec_gen/cli.py" in names
    assert not [n for n in names if n.startswith(("outreach", "service/", "generated/"))]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    text = zipfile.ZipFile(venv.wheel).read(entry_points).decode()
    assert text.split() == ["[console_scripts]", "spec-gen", "=", "spec_gen.cli:run"]


def test_installing_spec_gen_brings_no_service_part(venv: Venv) -> None:
    installed = {
        distribution_name(line)
        for line in (venv.root / "installed-by-spec-gen.txt").read_text().splitlines()
        if line.strip()
    }
    assert "spec-gen" in installed and "datamodel-code-generator" in installed
    assert not installed & FORBIDDEN
    assert not [name for name in installed if name.startswith("outreach")]
    assert not (venv.bin / "outreach-server").exists()
    probe = (
        "import importlib.metadata as m, importlib.util as u, json;"
        "print(json.dumps([[e.name for e in m.entry_points(group='pytest11')],"
        " [n for n in ('outreach_api', 'outreach_client', 'outreach_server')"
        " if u.find_spec(n)]]))"
    )
    plugins, packages = json.loads(venv.run(venv.bin / "python", "-c", probe))
    assert [p for p in plugins if "outreach" in p] == [] and packages == []
    source = (REPO / "generator/spec_gen/core/version.py").read_text()
    version = source.split('__version__ = "')[1].split('"')[0]
    assert venv.run(venv.bin / "spec-gen", "--version").strip() == f"spec-gen, version {version}"


# the probe runs in the walkthrough's environment: every operation of the spec, sent as the
# spec describes it (path and required parameters, a required body, a credential for each
# scheme), then malformed requests; each answer's body checked against the declared model
PROBE = r"""
import base64, importlib, json, sys
from importlib.resources import files
import httpx

base, pkg = sys.argv[1], sys.argv[2]
OPERATIONS = importlib.import_module(pkg + ".operations").OPERATIONS
errors = importlib.import_module(pkg + ".errors")
SCHEMES = importlib.import_module(pkg + ".security").SECURITY_SCHEMES
doc = json.loads(files(pkg).joinpath("openapi.json").read_text())


def resolve(node):
    while isinstance(node, dict) and "$ref" in node:
        target = doc
        for part in node["$ref"][2:].split("/"):
            target = target[part.replace("~1", "/").replace("~0", "~")]
        node = target
    return node


def sample(schema, depth=0):
    schema = resolve(schema) or {}
    if "enum" in schema:
        return schema["enum"][0]
    if "allOf" in schema:
        merged = {}
        for part in schema["allOf"]:
            value = sample(part, depth + 1)
            merged.update(value if isinstance(value, dict) else {})
        return merged
    for key in ("oneOf", "anyOf"):
        if key in schema:
            return sample(schema[key][0], depth + 1)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object" or "properties" in schema:
        props = schema.get("properties", {})
        return {k: sample(props.get(k, {}), depth + 1) for k in schema.get("required", [])}
    if kind == "array":
        return [sample(schema.get("items", {}), depth + 1) for _ in range(schema.get("minItems", 0))]
    if kind == "integer":
        return max(1, int(schema.get("minimum", 1)))
    if kind == "number":
        return float(max(1, schema.get("minimum", 1)))
    if kind == "boolean":
        return True
    formats = {"date-time": "2024-01-01T00:00:00Z", "date": "2024-01-01", "email": "a@example.com",
               "uuid": "00000000-0000-0000-0000-000000000001", "uri": "https://example.com/"}
    return formats.get(schema.get("format"), "x" * max(1, schema.get("minLength", 1)))


def spec_operation(operation_id):
    for template, item in doc["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                shared = [resolve(p) for p in item.get("parameters", [])]
                return operation, shared + [resolve(p) for p in operation.get("parameters", [])]
    raise KeyError(operation_id)


def credentials():
    headers, params, cookies = {}, {}, {}
    for info in SCHEMES.values():
        value = "secret"
        if info.type != "apiKey":
            scheme = (info.scheme or "bearer").capitalize()
            token = base64.b64encode(b"user:secret").decode() if scheme == "Basic" else value
            value = f"{scheme} {token}"
        {"header": headers, "query": params, "cookie": cookies}.get(info.location, {})[info.parameter] = value
    return headers, params, cookies


def shape(operation_id, response):
    model = errors.declared_model(operation_id, response.status_code)
    if model is None:
        return "none declared"
    try:
        model.model_validate_json(response.content)
    except Exception as exc:
        return f"does not match {model.__name__}: {exc}"
    return "declared"


out = []
cred_headers, cred_params, cred_cookies = credentials()
client = httpx.Client(base_url=base, cookies=cred_cookies)
for operation_id, info in OPERATIONS.items():
    operation, parameters = spec_operation(operation_id)
    path, query, headers = info.path, dict(cred_params), dict(cred_headers)
    integer_path = None
    for p in parameters:
        value = sample(p.get("schema", {}))
        if p["in"] == "path":
            path = path.replace("{" + p["name"] + "}", str(value))
            if resolve(p.get("schema", {})).get("type") == "integer":
                integer_path = p["name"]
        elif p.get("required") and p["in"] == "query":
            query[p["name"]] = str(value).lower() if isinstance(value, bool) else str(value)
        elif p.get("required") and p["in"] == "header":
            headers[p["name"]] = str(value)
    body = resolve(operation.get("requestBody", {}))
    kwargs = {}
    if body.get("required"):
        media, content = next(iter(body["content"].items()))
        value = sample(content.get("schema", {}))
        if "json" in media:
            kwargs["json"] = value
        elif media.startswith("multipart/"):
            kwargs["files"] = {"file": ("a.txt", b"x")}
            kwargs["data"] = {k: str(v) for k, v in value.items()} if isinstance(value, dict) else {}
        elif media == "application/x-www-form-urlencoded":
            kwargs["data"] = {k: str(v) for k, v in value.items()} if isinstance(value, dict) else {}
        else:
            kwargs["content"], headers["content-type"] = b"x", media
    r = client.request(info.method, path, params=query, headers=headers, **kwargs)
    out.append({"kind": "call", "op": operation_id, "secured": info.requires_authentication,
                "status": r.status_code, "body": r.text[:300], "shape": shape(operation_id, r)})
    if info.requires_authentication:
        continue
    malformed = []
    if integer_path:
        malformed.append(("integer path parameter", info.path.replace("{" + integer_path + "}", "abc"), {}))
    raw = ("application/octet-stream", "text/", "*/*")  # they read any bytes
    if body.get("content") and not any(m.startswith(raw) for m in body["content"]):
        malformed.append(("body as text/plain", path, {"content": b"x", "headers": {"content-type": "text/plain"}}))
    for what, bad_path, extra in malformed:
        for p in parameters:
            bad_path = bad_path.replace("{" + p["name"] + "}", str(sample(p.get("schema", {}))))
        r = client.request(info.method, bad_path, params=query, **extra)
        out.append({"kind": what, "op": operation_id, "status": r.status_code,
                    "body": r.text[:300], "shape": shape(operation_id, r)})
for path in ("/openapi.json", "/docs"):
    r = client.get(path)
    out.append({"kind": path, "status": r.status_code, "type": r.headers.get("content-type", ""),
                "same": r.content == files(pkg).joinpath(path.strip("/") if path != "/docs" else "docs.html").read_bytes()})
print(json.dumps(out))
"""

PETS_HANDLERS = """\
from pets_api.errors import ErrorAnswer
from pets_api.models import Error, FindPetsResponse, NewPet, Pet

from pets_service.context import RequestContext

PETS: dict[int, Pet] = {}


class DefaultService:
    async def find_pets(
        self, ctx: RequestContext, *, tags: list[str] | None, limit: int | None
    ) -> FindPetsResponse:
        return FindPetsResponse(list(PETS.values())[:limit])

    async def add_pet(self, ctx: RequestContext, *, body: NewPet) -> Pet:
        pet = Pet(id=len(PETS) + 1, name=body.name, tag=body.tag)
        PETS[pet.id] = pet
        return pet

    async def find_pet_by_id(self, ctx: RequestContext, *, id_: int) -> Pet:
        if id_ not in PETS:
            raise ErrorAnswer(404, Error(code=404, message=f"no pet {id_}"))
        return PETS[id_]

    async def delete_pet(self, ctx: RequestContext, *, id_: int) -> None:
        raise ErrorAnswer(404, Error(code=404, message=f"no pet {id_}"))
"""

PETS_CLIENT = """
import json, sys
from pets_client import Client, NotFoundError

client = Client(base_url=sys.argv[1] + "/v2", max_retries=0)
pet = client.default.add_pet(name="Rex")
found = client.default.find_pet_by_id(pet.id)
try:
    client.default.find_pet_by_id(999)
except NotFoundError as missing:
    print(json.dumps([pet.name, found.name, missing.status_code, missing.response.json()]))
"""

STUB_CLIENT = """
import json, sys
from {name}_client import Client
from {name}_client.errors import APIStatusError

client = Client(base_url=sys.argv[1] + {prefix!r}, max_retries=0)
try:
    client.{call}
except APIStatusError as error:
    print(json.dumps([error.status_code, error.response.json()]))
"""

CASES = {
    "pets": ("oai-v3.0-petstore-expanded.yaml", "", ""),
    "store": ("swagger-petstore3.yaml", "/api/v3", "store.get_order_by_id(5)"),
    "uploads": ("fcg-upload.yaml", "/v1", "pets.upload_pet_image_with_form_data('7')"),
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def served(
    venv: Venv, tmp_path: Path, request: pytest.FixtureRequest
) -> Iterator[tuple[Path, str]]:
    name = str(request.param)
    document = corpus(CASES[name][0])
    project = tmp_path / name
    project.mkdir()
    shutil.copy(document, project / "openapi.yaml")
    # docs/own-spec.md, step by step
    venv.run("spec-gen", "init", "--name", name, cwd=project)
    venv.run("spec-gen", "build", cwd=project)
    # as written, but without fetching what the environment already has
    venv.run(
        "pip", "install", "-q", "--no-deps", "--no-build-isolation",
        "-e", "./generated/server", "-e", "./generated/client", cwd=project,
    )  # fmt: skip
    out = venv.run("spec-gen", "scaffold", "--write", cwd=project)
    assert f"uvicorn {name}_service.app:app" in out
    if name == "pets":
        (project / "pets_service" / "default.py").write_text(PETS_HANDLERS)
    venv.run(
        "mypy", "--strict", f"{name}_service",
        f"generated/server/{name}_api", f"generated/client/{name}_client", cwd=project,
    )  # fmt: skip
    port = free_port()
    server = subprocess.Popen(
        [venv.bin / "uvicorn", f"{name}_service.app:app", "--port", str(port)],
        cwd=project,
        env=venv.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx.get(base + "/openapi.json", timeout=1)
                break
            except httpx.TransportError:
                assert server.poll() is None, server.stderr.read().decode() if server.stderr else ""
                assert time.monotonic() < deadline, "uvicorn did not start"
                time.sleep(0.2)
        yield project, base
    finally:
        server.terminate()
        server.wait(10)


@pytest.mark.parametrize("served", list(CASES), indirect=True)
def test_the_walkthrough_serves_the_spec(venv: Venv, served: tuple[Path, str]) -> None:
    project, base = served
    name = project.name
    report = json.loads(venv.run("python", "-c", PROBE, base, f"{name}_api", cwd=project))
    calls = [r for r in report if r["kind"] == "call"]
    assert calls
    for call in calls:
        assert call["status"] != 500, call
        if call["secured"]:
            assert call["status"] == 401, call
            assert "implement verify_" in call["body"] and f"{name}_service.context" in call["body"]
        elif name != "pets" or call["op"] not in (
            "findPets",
            "addPet",
            "find pet by id",
            "deletePet",
        ):
            assert call["status"] == 501, call
        # the declared model's shape where the operation declares one for the status
        assert call["shape"] in ("declared", "none declared"), call
    if name == "store":
        assert any(c["secured"] for c in calls) and any(not c["secured"] for c in calls)
    if name in ("pets", "uploads"):  # their `default: Error` shapes every stub's 501
        assert all(c["shape"] == "declared" for c in calls if c["status"] == 501), calls
    malformed = [r for r in report if r["kind"] not in ("call", "/openapi.json", "/docs")]
    assert malformed, "no malformed request was tried"
    for answer in malformed:
        assert 400 <= answer["status"] < 500, answer  # the strict contract is on: no 500
        assert answer["shape"] in ("declared", "none declared"), answer
        if name in ("pets", "uploads"):
            assert answer["shape"] == "declared", answer
    pages = {r["kind"]: r for r in report if r["kind"] in ("/openapi.json", "/docs")}
    assert pages["/openapi.json"]["same"] and pages["/docs"]["same"], pages
    assert pages["/docs"]["type"].startswith("text/html")

    if name == "pets":
        answer = json.loads(venv.run("python", "-c", PETS_CLIENT, base, cwd=project))
        assert answer == ["Rex", "Rex", 404, {"code": 404, "message": "no pet 999"}]
    else:
        _, prefix, call_text = CASES[name]
        script = STUB_CLIENT.format(name=name, prefix=prefix, call=call_text)
        status, body = json.loads(venv.run("python", "-c", script, base, cwd=project))
        assert status == 501 and "is not implemented yet" in json.dumps(body)


HOOKS_SPEC = """\
openapi: 3.1.0
info: {title: Hooks, version: '1'}
paths:
  /things:
    get:
      operationId: listThings
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {type: string}}
"""


def test_the_offered_pre_commit_hooks_pass_clean_and_fail_on_drift(
    venv: Venv, tmp_path: Path
) -> None:
    """`.pre-commit-hooks.yaml` with the real pre-commit, in a repository of its own."""
    rev = run("git", "rev-parse", "HEAD", cwd=REPO).strip()
    committed = run("git", "show", f"{rev}:.pre-commit-hooks.yaml", cwd=REPO)
    assert "spec-gen-build-check" in committed  # the hooks are in the revision pre-commit clones
    project = tmp_path / "project"
    project.mkdir()
    (project / "openapi.yaml").write_text(HOOKS_SPEC)
    (project / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO}\n    rev: {rev}\n    hooks:\n"
        "      - id: spec-gen-validate\n      - id: spec-gen-build-check\n"
    )
    env = {**venv.env, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    git = ("git", "-c", "user.name=t", "-c", "user.email=t@example.com")
    run(*git, "init", "-q", cwd=project, env=env)
    run(venv.bin / "spec-gen", "init", "--name", "hooks", cwd=project, env=env)
    run(venv.bin / "spec-gen", "build", cwd=project, env=env)
    run(*git, "add", "-A", cwd=project, env=env)
    run(*git, "commit", "-qm", "spec and generated code", cwd=project, env=env)

    def pre_commit() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(venv.bin / "pre-commit"), "run", "--all-files"],
            cwd=project,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    clean = pre_commit()
    assert clean.returncode == 0, clean.stdout + clean.stderr
    assert "spec-gen validate" in clean.stdout and "spec-gen build --check" in clean.stdout
    models = project / "generated" / "server" / "hooks_api" / "models.py"
    models.write_text(models.read_text() + "# edited by hand\n")
    drifted = pre_commit()
    assert drifted.returncode != 0, drifted.stdout
    assert "hooks_api/models.py" in drifted.stdout
