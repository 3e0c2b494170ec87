"""Unions and fields whose models refused values their schema accepts (issue 27), each shape
met in a large public document (fixtures/shapes/unions_and_allof/discriminator_hints.yaml and
mapped_in_files/ say where). Every value below is valid against its schema: it validates
into the server's and the client's model and dumps back unchanged.

- a discriminator whose members share one `enum` of every tag (DigitalOcean's droplet
  actions): datamodel-code-generator narrowed each member's `type` to a Literal (the class
  name where the mapping named it by another spelling), refusing `change_policy`, which the
  schema allows; the union is now a plain one;
- a discriminator over members with a readOnly field (PagerDuty's automation actions): the
  request's `...Input` classes had a mapping still naming the answer's classes, so every tag
  was refused; the mapping follows the variants;
- a mapping written as references to other files (DigitalOcean's volume actions): it now
  names the schemas where the bundler mounted them;
- a deprecated oneOf property (PagerDuty's services): its RootModel's `root` was a
  read-only deprecated field, and every value was refused (`AttributeError: root`);
- an undeclared key spelled as a declared field's attribute (Xero: `name` beside `Name`):
  the client kept it as an extra but counted the field as set, and dumped `Name: null`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from spec_helpers import SHAPES, build_shape, run_in

ROUND_TRIP = """
import importlib, json, sys
sys.path[:0] = [sys.argv[1] + "/server", sys.argv[1] + "/client"]
out = []
for package, name, value in json.loads(sys.argv[2]):
    models = importlib.import_module(package + ".models")
    cls = getattr(models, name)
    dumped = cls.model_validate_json(json.dumps(value)).model_dump(
        mode="json", by_alias=True, exclude_unset=True
    )
    out.append(dumped)
print(json.dumps(out))
"""


def round_trips(output: Path, cases: list[tuple[str, str, object]]) -> list[object]:
    done = subprocess.run(
        [sys.executable, "-c", ROUND_TRIP, str(output), json.dumps(cases)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return list(json.loads(done.stdout))


@pytest.fixture(scope="module")
def hints(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("hints")
    code, output = build_shape(tmp_path, "unions_and_allof/discriminator_hints.yaml")
    assert code == 0, output
    return tmp_path / "out"


CASES = [
    ("PostActionRequest", {"type": "change_policy"}),
    ("PostActionRequest", {"type": "enable_backups", "plan": "daily"}),
    ("Backups", {"type": "change_policy", "plan": "weekly"}),
    ("RunRequestInput", {"run": {"kind": "script", "body": "java --version"}}),
    ("RunRequestInput", {"run": {"kind": "job", "job": "j1"}}),
    ("Service", {"grouping": {"timeout": 2}}),
    ("Service", {"name": "undeclared", "Name": "declared"}),
]


@pytest.mark.parametrize("side", ["api_server", "api_client"])
def test_values_their_schema_accepts_come_back_unchanged(hints: Path, side: str) -> None:
    cases = [(side, name, value) for name, value in CASES]
    if side == "api_client":  # the client keeps undeclared keys (the server leaves them out)
        cases.append((side, "Service", {"name": "undeclared"}))
    expected = [value for _, _, value in cases]
    if side == "api_server":
        expected[-1] = {"Name": "declared"}
    assert round_trips(hints, cases) == expected


def test_a_union_pydantic_cannot_discriminate_is_a_plain_one(hints: Path) -> None:
    models = (hints / "server/api_server/models.py").read_text(encoding="utf-8")
    assert 'Field(discriminator="type")' not in models
    assert 'Field(discriminator="kind")' in models  # Script | Job: each tag names one member
    client = (hints / "client/api_client/models").glob("*.py")
    bases = {
        line for path in client for line in path.read_text().splitlines() if "class Service" in line
    }
    assert bases == {"class Service(AliasedModel):"}


def test_a_mapping_into_other_files_names_the_mounted_schemas(tmp_path: Path) -> None:
    source = SHAPES / "unions_and_allof/mapped_in_files"
    for path in source.rglob("*.y*ml"):
        target = tmp_path / path.relative_to(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    bundled = json.loads((tmp_path / "out/server/api_server/openapi.json").read_text("utf-8"))
    body = bundled["paths"]["/volumes/actions"]["post"]["requestBody"]["content"]
    mapping = body["application/json"]["schema"]["discriminator"]["mapping"]
    assert mapping == {
        "attach": "#/components/schemas/Attach",
        "detach": "#/components/schemas/Detach",
    }
    cases = [
        (side, "PostVolumeActionRequest", value)
        for side in ("api_server", "api_client")
        for value in ({"type": "attach", "droplet_id": 3}, {"type": "detach"})
    ]
    assert round_trips(tmp_path / "out", cases) == [value for _, _, value in cases]
