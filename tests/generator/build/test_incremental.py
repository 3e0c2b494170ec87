"""The incremental rebuild: after each kind of spec edit, a rebuild reusing the last build's
work writes exactly what a cold `--no-cache` build writes, and reuses what it can (ruff's
formatting, what verify proved, the rendered units of the edits that touch only some)."""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest
from spec_gen.build import pipeline
from spec_gen.build.pipeline import build, render_tree
from spec_gen.build.proof import importers
from spec_gen.build.tree import _line_counts, changes, existing_files
from spec_gen.build.verify import GeneratedCodeBroken, Verifier
from spec_gen.core.config import load_config
from spec_gen.core.timings import ENV
from spec_gen.targets.models import prepare

TEMPLATES = Path(__file__).parents[3] / "templates"


def _spec() -> dict[str, Any]:
    def op(op_id: str, tag: str, schema: str, description: str) -> dict[str, Any]:
        answer = {"content": {"application/json": {"schema": {"$ref": schema}}}}
        return {
            "operationId": op_id,
            "tags": [tag],
            "description": description,
            "responses": {"200": {"description": "OK.", **answer}},
        }

    owner = "#/components/schemas/Owner"
    return {
        "openapi": "3.1.0",
        "info": {"title": "Shop", "version": "1"},
        "servers": [{"url": "https://shop.example.com"}],
        "security": [{"key": []}],
        "tags": [
            {"name": "pets", "description": "Pets."},
            {"name": "owners", "description": "Owners."},
        ],
        "paths": {
            "/pets": {
                "get": {
                    **op("list_pets", "pets", "#/components/schemas/Pet", "All pets."),
                    "parameters": [{"$ref": "#/components/parameters/Limit"}],
                }
            },
            "/owners/{id}": {
                "parameters": [
                    {"name": "id", "in": "path", "required": True, "schema": {"type": "integer"}}
                ],
                "get": {
                    **op("get_owner", "owners", owner, "One owner."),
                    "security": [{"token": []}],
                },
            },
        },
        "components": {
            "securitySchemes": {
                "key": {"type": "apiKey", "in": "header", "name": "X-Key", "description": "A key."},
                "token": {"type": "http", "scheme": "bearer"},  # the owners' only
            },
            "parameters": {  # the pets' only
                "Limit": {"name": "limit", "in": "query", "schema": {"type": "integer"}}
            },
            "schemas": {
                "Owner": {
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}},
                },
                "Pet": {
                    "description": "A pet.",
                    "type": "object",
                    "required": ["name"],
                    "properties": {"name": {"type": "string"}, "owner": {"$ref": owner}},
                },
            },
        },
    }


def _describe(spec: dict[str, Any]) -> None:
    spec["paths"]["/pets"]["get"]["description"] = "Every pet, edited."


def _describe_schema(spec: dict[str, Any]) -> None:  # only the pets' operations reach Pet
    spec["components"]["schemas"]["Pet"]["description"] = "A pet, edited."


def _describe_tag(spec: dict[str, Any]) -> None:
    spec["tags"][0]["description"] = "Pets, edited."


def _change_security_scheme(spec: dict[str, Any]) -> None:  # every operation uses it
    spec["components"]["securitySchemes"]["key"]["name"] = "X-Api-Key"


def _change_server_url(spec: dict[str, Any]) -> None:
    spec["servers"][0]["url"] = "https://shop.example.com/v2"


def _change_token_scheme(spec: dict[str, Any]) -> None:  # only get_owner uses it
    token = spec["components"]["securitySchemes"]["token"]
    token["scheme"] = "basic" if token["scheme"] == "bearer" else "bearer"


def _change_parameter_component(spec: dict[str, Any]) -> None:  # only list_pets uses it
    limit = spec["components"]["parameters"]["Limit"]["schema"]
    limit["maximum"] = limit.get("maximum", 10) + 1


def _add_tag(spec: dict[str, Any]) -> None:  # a tag and its operation: a third tag's units
    spec["tags"].append({"name": "toys", "description": "Toys."})
    spec["paths"]["/toys"] = {"get": {**spec["paths"]["/pets"]["get"], "operationId": "toys"}}
    spec["paths"]["/toys"]["get"]["tags"] = ["toys"]


def _add_operation(spec: dict[str, Any]) -> None:
    paths = spec["paths"]
    added = json.loads(json.dumps(paths["/pets"]["get"]))
    paths[f"/pets/count{len(paths)}"] = {"get": {**added, "operationId": f"count{len(paths)}"}}


def _owner(spec: dict[str, Any]) -> str:  # the edits run in any order: Owner may be renamed
    return "Owner" if "Owner" in spec["components"]["schemas"] else "Keeper"


def _change_field(spec: dict[str, Any]) -> None:
    fields = spec["components"]["schemas"][_owner(spec)]["properties"]
    fields["age"] = {"type": "string" if fields.get("age") == {"type": "integer"} else "integer"}


def _rename_schema(spec: dict[str, Any]) -> None:
    old = _owner(spec)
    new = "Keeper" if old == "Owner" else "Owner"
    text = json.dumps(spec).replace(f"#/components/schemas/{old}", f"#/components/schemas/{new}")
    renamed = json.loads(text)
    schemas = renamed["components"]["schemas"]
    schemas[new] = schemas.pop(old)
    spec.clear()
    spec.update(renamed)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("incremental")
    (where / "pyproject.toml").write_text(
        "[tool.spec-gen]\n"
        'spec = "openapi.json"\noutput = "generated"\n'
        f'templates = "{TEMPLATES.as_posix()}"\n'
        'server-package = "shop_api"\nclient-package = "shop_client"\n'
        'distribution-prefix = "shop"\n',
        encoding="utf-8",
    )
    (where / "openapi.json").write_text(json.dumps(_spec(), indent=1), encoding="utf-8")
    return where


@pytest.fixture(scope="module")
def first_build(project: Path) -> list[str]:
    lines: list[str] = []
    build(load_config(project), echo=lines.append)
    return lines


# each edit, and the units it renders again: (pets, owners[, toys]) of client, docs and the
# server's interfaces and routers; the others are read back
ALL, PETS, OWNERS, NONE = (2, 2), (1, 2), (1, 2), (0, 2)
EDITS = {
    _describe: {"client": PETS, "docs": PETS, "server interfaces": PETS, "server routers": PETS},
    _add_operation: {
        "client": PETS,
        "docs": PETS,
        "server interfaces": PETS,
        "server routers": PETS,
    },
    # Owner is reached by both tags' operations (Pet.owner): the docs tables of both show the
    # field; the client's and the server's modules name the class only where an operation does
    _change_field: {
        "client": OWNERS,
        "docs": ALL,
        "server interfaces": OWNERS,
        "server routers": OWNERS,
    },
    _rename_schema: {"client": ALL, "docs": ALL, "server interfaces": ALL, "server routers": ALL},
    _describe_schema: {
        "client": PETS,
        "docs": PETS,
        "server interfaces": PETS,
        "server routers": PETS,
    },
    _describe_tag: {
        "client": PETS,
        "docs": PETS,
        "server interfaces": PETS,
        "server routers": PETS,
    },
    _change_parameter_component: {
        "client": PETS,
        "docs": PETS,
        "server interfaces": PETS,
        "server routers": PETS,
    },
    _change_token_scheme: {
        "client": OWNERS,
        "docs": OWNERS,
        "server interfaces": NONE,
        "server routers": NONE,
    },
    # the key scheme's header: the server's and the client's security modules, the docs' examples
    _change_security_scheme: {
        "client": NONE,
        "docs": ALL,
        "server interfaces": NONE,
        "server routers": NONE,
    },
    _add_tag: {
        "client": (1, 3),
        "docs": (1, 3),
        "server interfaces": (1, 3),
        "server routers": (1, 3),
    },
    _change_server_url: {
        "client": (3, 3),
        "docs": (3, 3),
        "server interfaces": (3, 3),
        "server routers": (3, 3),
    },
}


@pytest.mark.parametrize("edit", EDITS, ids=lambda f: f.__name__)
def test_a_rebuild_after_an_edit_writes_what_a_cold_build_writes(
    project: Path,
    first_build: list[str],
    edit: Any,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The edits apply one after the other, each rebuilt from the previous build's cache."""
    spec_path = project / "openapi.json"
    spec = json.loads(spec_path.read_text(encoding="utf-8"))
    edit(spec)
    spec_path.write_text(json.dumps(spec, indent=1), encoding="utf-8")
    config = load_config(project)
    given: list[str] = []  # what ruff was given (a spy: the real formatter runs)
    real_format = pipeline.format_python

    def spy(files: dict[str, str]) -> dict[str, str]:
        given.extend(name for name in files if name.endswith(".py"))
        return real_format(files)

    monkeypatch.setattr(pipeline, "format_python", spy)
    made: list[object] = []  # the models documents made (build/models_input.py remembers)
    real_document = prepare.models_document
    monkeypatch.setattr(
        prepare, "models_document", lambda api: made.append(api) or real_document(api)
    )
    monkeypatch.setenv(ENV, "1")  # `--timings`: it says how many units were rendered
    capsys.readouterr()
    lines: list[str] = []
    found = build(config, echo=lines.append)
    monkeypatch.undo()
    units = _units_rendered(capsys.readouterr().err)
    assert found, "the edit changes the output"
    cold = render_tree(config, None).files
    written = existing_files(config.output)
    assert written == {name: text.encode("utf-8") for name, text in cold.items()}
    python = [name for name in cold if name.endswith(".py")]
    # ruff formats only files whose text it has not formatted before
    assert 0 < len(given) < len(python) / 2, given
    assert units == EDITS[edit], units
    if edit is _change_field:  # the schemas changed: the models document is made again
        assert made
    if edit is _describe:  # no model changed: the models module is not formatted again
        assert not made  # nor is the models document made: its entry is remembered
        assert not any(name.endswith("/models.py") for name in given)
        # the modules changed only in prose (docstrings): proven by the last check
        verified = next(line for line in lines if line.startswith("server: "))
        assert verified == (
            "server: unchanged since the last check; client: unchanged since the last check"
        )
    if edit is _describe_schema:  # a class's docstring: proven too, nothing built again
        verified = next(line for line in lines if line.startswith("server: "))
        assert "model classes built" not in verified, verified


def _units_rendered(stderr: str) -> dict[str, tuple[int, int]]:
    """`[timings] ... units rendered: client 1 of 2, docs 1 of 2 (pid)` -> kind: (1, 2)."""
    line = next(line for line in stderr.splitlines() if "units rendered: " in line)
    text = line.split("units rendered: ")[1].rsplit(" (", 1)[0]
    out = {}
    for part in text.split(", "):
        kind, counts = part.rsplit(" ", 3)[0], part.rsplit(" ", 3)[1:]
        out[kind] = (int(counts[0]), int(counts[2]))
    return out


def _client(models: str, resource: str) -> dict[str, str]:
    return {
        "client/pkg_client/__init__.py": "",
        "client/pkg_client/models.py": models,
        "client/pkg_client/other.py": "from .models import Thing\n\nX = Thing\n",
        "client/pkg_client/resource.py": resource,
    }


def _server(a_path: str = "/a") -> dict[str, str]:
    def tag(path: str) -> str:
        return (
            "from fastapi import APIRouter\n\n"
            "def create_router(impl, context):\n    router = APIRouter()\n"
            f"    router.add_api_route({path!r}, lambda: None)\n    return router\n"
        )

    return {
        "server/pkg_api/__init__.py": "",
        "server/pkg_api/routers/__init__.py": (
            "from fastapi import APIRouter\n\n"
            "from .a import create_router as create_a_router\n"
            "from .b import create_router as create_b_router\n\n"
            "def create_api_router(*, context, a, b):\n    router = APIRouter()\n"
            "    router.routes.extend(create_a_router(a, context).routes)\n"
            "    router.routes.extend(create_b_router(b, context).routes)\n"
            "    return router\n"
        ),
        "server/pkg_api/routers/a.py": tag(a_path),
        "server/pkg_api/routers/b.py": tag("/b"),
    }


def test_verify_reuses_the_last_proof_and_still_finds_what_an_edit_breaks(
    tmp_path: Path,
) -> None:
    models = "import pydantic\n\nclass Thing(pydantic.BaseModel):\n    a: int\n"
    files = {**_server(), **_client(models, "Y = 1\n")}

    def check(files: dict[str, str]) -> str:
        verifier = Verifier("pkg_api", "pkg_client", tmp_path)
        verifier.start(together=True)
        summary = verifier.check(files)
        verifier.remember()
        return summary

    assert check(files) == (
        "server: 3 modules imported, 2 routes mounted; client: 3 modules imported, "
        "1 model classes resolved"
    )
    # nothing changed: nothing is imported again
    assert check(files) == (
        "server: unchanged since the last check; client: unchanged since the last check"
    )
    # one module changed: it and its importers (the client's: none; the server's tag router:
    # the routers package); one tag's routes mounted, not the others
    edited = {**files, **_server("/a2"), **_client(models, "Y = 2\n")}
    assert check(edited) == (
        "server: 2 modules imported, 1 routes mounted; client: 1 modules imported, "
        "0 model classes resolved"
    )
    # a class removed: the unchanged module that imports it is checked too, and fails
    broken = {**edited, **_client("import pydantic\n", "Y = 2\n")}
    with pytest.raises(GeneratedCodeBroken, match="Thing"):
        check(broken)
    # a route FastAPI refuses (a response model pydantic cannot make) in one changed router
    refused = dict(edited)
    refused["server/pkg_api/routers/a.py"] = refused["server/pkg_api/routers/a.py"].replace(
        "lambda: None", "lambda: None, response_model=type('Odd', (), {})"
    )
    with pytest.raises(GeneratedCodeBroken, match="Odd"):
        check(refused)


def test_importers_follow_relative_and_absolute_imports_backwards() -> None:
    sources = {
        "p/__init__.py": "from . import a\n",
        "p/a.py": "from .b import X\n",
        "p/b.py": "X = 1\n",
        "p/sub/c.py": "def f():\n    from ..b import X\n",
        "p/sub/d.py": "import p.sub.c\n",
        "p/e.py": "Y = 2\n",
    }
    assert importers(sources, {"p.b"}) == {"p.b", "p.a", "p", "p.sub.c", "p.sub.d"}
    assert importers(sources, {"p.e"}) == {"p.e"}


def test_line_counts_of_a_large_file_edited_in_one_line_are_quick() -> None:
    before = [f"line {i % 50}" for i in range(200_000)]
    after = list(before)
    after[100_000] = "edited"
    start = time.perf_counter()
    assert _line_counts(before, after) == (1, 1)
    assert _line_counts(before, before[:-3]) == (0, 3)
    # many lines changed: counted as the lines each side lacks
    scattered = [line + "!" if i % 10 == 0 else line for i, line in enumerate(before)]
    assert _line_counts(before, scattered) == (20_000, 20_000)
    assert time.perf_counter() - start < 2


def test_ruff_reused_file_by_file_formats_a_changed_file_as_a_cold_build(tmp_path: Path) -> None:
    """ruff tells a module's own package from the `__init__.py` files around it: a changed
    module is formatted with its batch's package markers, its imports sorted as cold."""
    from spec_gen.build.formatter import format_python
    from spec_gen.build.reuse import Reuse

    def batch(extra: str) -> dict[str, str]:
        return {
            "client/pkg/__init__.py": "X = 1\n",
            "client/pkg/testing.py": (
                "import os\n\nimport httpx\nfrom pkg import X\nfrom zzz import Y\n\n"
                f"print(os, httpx, X, Y{extra})\n"
            ),
        }

    output, cache = tmp_path / "out", tmp_path / "cache"
    first = format_python(batch(""))
    for name, text in first.items():
        (output / name).parent.mkdir(parents=True, exist_ok=True)
        (output / name).write_text(text, encoding="utf-8")
    recorder = Reuse(cache, output, format_python)
    recorder.format(batch(""))
    recorder.save(first)  # what this build formatted, once written
    again = Reuse(cache, output, format_python)
    edited = again.format(batch(", 2"))
    assert again.reused == 1  # the package's __init__.py, read back from the output
    assert edited == format_python(batch(", 2"))
    assert "from pkg import X" in edited["client/pkg/testing.py"].split("\n\n")[2]


def test_the_server_probe_imports_the_last_proven_models_while_the_build_renders(
    tmp_path: Path,
) -> None:
    """The server probe imports the models module as the output directory holds it (when
    the last passing check proved that very source) before the build sends anything; kept
    when the build sends the same source, dropped (and the build's own imported) when not."""
    models = "import pydantic\n\nclass Thing(pydantic.BaseModel):\n    a: int\n"
    tag = (
        "from fastapi import APIRouter\n\nfrom ..models import Thing\n\n"
        "def create_router(impl, context):\n    router = APIRouter()\n"
        "    router.add_api_route('/t', lambda: None, response_model=Thing, name=NAME)\n"
        "    return router\n"
    )

    def server(models: str, name: str) -> dict[str, str]:
        return {
            "server/pkg_api/__init__.py": "",
            "server/pkg_api/models.py": models,
            "server/pkg_api/routers/__init__.py": (
                "from .t import create_router\n\n"
                "def create_api_router(*, context, t):\n    return create_router(t, context)\n"
            ),
            "server/pkg_api/routers/t.py": tag.replace("NAME", repr(name)),
        }

    output = tmp_path / "out"

    def check(files: dict[str, str]) -> str:
        verifier = Verifier("pkg_api", "pkg_client", tmp_path / "cache", output)
        verifier.start()
        summary = verifier.check(files)
        verifier.remember()
        for name, text in files.items():  # written, as the build does once the check passed
            (output / name).parent.mkdir(parents=True, exist_ok=True)
            (output / name).write_text(text)
        return summary.split(";")[0]

    client = _client(models, "Y = 1\n")
    assert check({**server(models, "one"), **client}) == (
        "server: 3 modules imported, 1 routes mounted"
    )
    # a router edited (its route's name: code, not prose): the models were imported before the build sent its sources, and kept
    assert check({**server(models, "two"), **client}) == (
        "server: 2 modules imported, 1 routes mounted (2 of them imported while the build rendered)"
    )
    # the models edited: what the output holds is not what the build sends; the build's own
    # source is checked, and its error found
    broken = models + "\nclass Other(pydantic.BaseModel):\n    b: Missing\n"
    with pytest.raises(GeneratedCodeBroken, match="Missing"):
        check({**server(broken, "three"), **client})
    # the failed check proved nothing: the last proof is still the one of "two"
    assert "2 of them imported while" in check({**server(models, "four"), **client})
    # the models module edited by hand in the output: not what the last check proved, so not
    # imported beforehand; the check still passes on the build's own sources
    (output / "server/pkg_api/models.py").write_text(models + "X = 1\n")
    summary = check({**server(models, "five"), **client})
    assert summary.startswith("server: 2 modules imported") and "while the build" not in summary


def test_templates_of_the_projects_own_render_every_unit(tmp_path: Path) -> None:
    """An overriding template may read anything: no unit is read back; the shipped ones (or an
    empty folder) are reused."""
    from spec_gen.build.reuse import units_for

    def units(templates: str) -> bool:
        (tmp_path / "pyproject.toml").write_text(
            f'[tool.spec-gen]\nspec = "openapi.json"\ntemplates = "{templates}"\n', encoding="utf-8"
        )
        return units_for(load_config(tmp_path), tmp_path / ".spec-gen-cache").enabled

    (tmp_path / "own" / "docs").mkdir(parents=True)
    assert units("own")  # an empty folder overrides nothing
    (tmp_path / "own" / "docs" / "tag.md.j2").write_text("{{ site.title }}\n", encoding="utf-8")
    assert not units("own")
    assert units(TEMPLATES.as_posix())  # the shipped templates themselves


def test_a_change_is_counted_in_lines_from_its_middle_as_from_the_whole_file() -> None:
    """`changes` splits into lines only what lies between the lines two versions begin and end
    with alike; the counts are those of the whole files split (random edits, seeded: line
    ends of every kind, a line separator inside a line, edits at both ends)."""
    rng = random.Random(29)
    words = [b"a", b"b", b"xx", b"\n", b"\n", b"\r\n", b"\r", "\u2028".encode()]
    for _ in range(3000):
        before = b"".join(rng.choice(words) for _ in range(rng.randint(0, 30)))
        after = bytearray(before)
        for _ in range(rng.randint(1, 3)):
            at = rng.randint(0, len(after))
            if rng.random() < 0.5:
                after[at:at] = rng.choice(words)
            else:
                del after[at : at + rng.randint(1, 3)]
        try:
            text = bytes(after).decode("utf-8")
        except UnicodeDecodeError:
            continue
        found = changes({"f": before}, {"f": text})
        whole = _line_counts(before.decode().splitlines(), text.splitlines())
        if bytes(after) == before:
            assert found == []
        else:
            assert (found[0].added, found[0].removed) == whole, (before, text)


def test_a_models_edit_checks_the_classes_it_reaches_and_the_modules_naming_them(
    tmp_path: Path,
) -> None:
    """After an edit of some model classes, the server's probe builds those and the classes
    naming them, and imports and mounts only the modules naming one of them: the other
    classes and routes are the last check's; a class removed that a module still names is
    found (the module is imported, and fails)."""
    classes = {
        "A": "class A(pydantic.BaseModel):\n    a: int\n",
        "B": "class B(pydantic.BaseModel):\n    inner: A\n",
        "C": "class C(pydantic.BaseModel):\n    c: str\n",
    }

    def models(**edits: str) -> str:
        return "import pydantic\n\n\n" + "\n\n".join({**classes, **edits}.values())

    def tag(cls: str) -> str:
        return (
            "from fastapi import APIRouter\n\nfrom .. import models\n\n"
            "def create_router(impl, context):\n    router = APIRouter()\n"
            f"    router.add_api_route('/{cls}', lambda: None, response_model=models.{cls})\n"
            "    return router\n"
        )

    def server(source: str) -> dict[str, str]:
        return {
            "server/pkg_api/__init__.py": "",
            "server/pkg_api/models.py": source,
            "server/pkg_api/routers/__init__.py": (
                "from .b import create_router as b_router\n"
                "from .c import create_router as c_router\n\n"
                "def create_api_router(*, context, b, c):\n"
                "    router = b_router(b, context)\n"
                "    router.routes.extend(c_router(c, context).routes)\n"
                "    return router\n"
            ),
            "server/pkg_api/routers/b.py": tag("B"),
            "server/pkg_api/routers/c.py": tag("C"),
        }

    client = _client("import pydantic\n\nclass Thing(pydantic.BaseModel):\n    a: int\n", "")

    def check(source: str) -> str:
        verifier = Verifier("pkg_api", "pkg_client", tmp_path)
        verifier.start()
        summary = verifier.check({**server(source), **client})
        verifier.remember()
        return summary.split(";")[0]

    assert check(models()) == "server: 4 modules imported, 2 routes mounted"
    # A changed: A and B (which names it) built; the router naming B imported and mounted
    edited = models(A="class A(pydantic.BaseModel):\n    a: int\n    more: str = ''\n")
    assert check(edited) == ("server: 2 modules imported, 1 routes mounted (2 model classes built)")
    # a class changed so that it no longer builds: found, though no module changed
    broken = models(A="class A(pydantic.BaseModel):\n    a: 'Nowhere'\n")
    with pytest.raises(GeneratedCodeBroken, match="undefined-annotation"):
        check(broken)
    # C removed while routers/c.py still names it: that router is imported, and fails
    with pytest.raises(GeneratedCodeBroken, match="C"):
        check(edited.replace(classes["C"], "").rstrip() + "\n")
