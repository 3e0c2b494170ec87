"""Loading: YAML 1.2 read as JSON types, multi-file bundling with hoisted schema names,
`$ref`s inside `x-` extensions left as written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spec_gen.document.load import bundle, read_yaml
from spec_helpers import line_of, run_in, write


def test_yaml_is_read_as_json_types(tmp_path: Path) -> None:
    path = write(
        tmp_path / "a.yaml",
        "day: 2024-01-31\nwhen: 2024-01-31T10:00:00Z\nflag: yes\n200: {ok: true}\nn: null\n",
    )
    assert read_yaml(path) == {
        "day": "2024-01-31",
        "when": "2024-01-31T10:00:00Z",
        "flag": "yes",  # YAML 1.2: only true/false are booleans
        "200": {"ok": True},  # keys are strings, as in JSON
        "n": None,
    }


def test_a_plain_equals_sign_is_a_string(tmp_path: Path) -> None:
    """LeanIX's filter examples (`comparator: =`): ruamel resolves a plain `=` to YAML 1.1's
    "value key" type, which has no constructor: the document was refused as invalid YAML."""
    path = write(tmp_path / "a.yaml", "comparator: =\nops: [=, '!=']\nkey: {=: 1}\n")
    assert read_yaml(path) == {"comparator": "=", "ops": ["=", "!="], "key": {"=": 1}}


def test_binary_data_stays_its_base64_text(tmp_path: Path) -> None:
    """SAP's examples (`DEBITCREDITCODE: !!binary AA==`): ruamel made bytes, which the build
    could not write as JSON (TypeError, exit 2)."""
    path = write(tmp_path / "a.yaml", "code: !!binary |-\n  AA==\nlist: [!!binary AQI=]\n")
    assert read_yaml(path) == {"code": "AA==", "list": ["AQI="]}


# YAML that the fast path (C-composed nodes to JSON values in one walk) must read exactly as
# ruamel's constructor does, or hand over to it
TRICKY_YAML = [
    "a: 1\nb: -0x1F\nc: 0o17\nd: 1_000\ne: +12\nf: 0b101\ng: 017\nh: 0\n",
    "a: 1.5\nb: -.INF\nc: .inf\nd: 1e3\ne: 6.02_2e23\nf: -0.0\n",
    "a: true\nb: False\nc: TRUE\nd: yes\ne: ~\nf: null\ng:\nh: Null\n",
    "day: 2024-01-31\nwhen: 2001-12-14t21:59:43.10-05:00\n",
    "base: &b {x: 1, y: [1, 2]}\nuse: *b\nlist: [*b, *b]\n",
    "base: &b {x: 1}\nmerged:\n  <<: *b\n  y: 2\n",
    "a: !!str 123\nb: !!int '7'\nc: !!float 1\nd: !!binary AA==\n",
    "a: 1\na: 2\n",
    "1: one\n2.5: float key\ntrue: bool key\nnull: null key\n'1': quoted\n",
    "%YAML 1.1\n---\na: yes\nb: 0777\nc: 1:30\n",
    "? [a, b]\n: complex key\n",
    "set: !!set {a, b}\n",
    "just a scalar\n",
    "- 1\n- [2, {three: 3}]\n- ''\n- '='\n- =\n",
    "",
    "empty: {}\nnone: []\nnested: {a: {b: {c: [d]}}}\n",
    "text: |\n  line one\n  line two\nfolded: >-\n  folded\n  text\n",
    "cycle: &c [*c]\n",
]


def _outcomes(text: str) -> tuple[Any, Any]:
    """What the fast path and ruamel's constructor make of `text`: (value or error kind) each."""
    from ruamel.yaml.error import YAMLError
    from spec_gen.document.read import _fast_load, _loader

    def outcome(load: Any) -> Any:
        try:
            return ("value", load(text))
        except YAMLError as exc:
            return ("error", type(exc).__name__)

    return outcome(_fast_load), outcome(_loader(pure=False).load)


@pytest.mark.parametrize("text", TRICKY_YAML)
def test_the_fast_yaml_path_reads_as_the_constructor_does(text: str) -> None:
    fast, constructor = _outcomes(text)
    assert repr(fast) == repr(constructor)


def test_the_fast_yaml_path_reads_every_yaml_file_here_as_the_constructor_does() -> None:
    repo = Path(__file__).resolve().parents[3]
    files = sorted(
        path
        for folder in ("spec", "tests")
        for pattern in ("*.yaml", "*.yml")
        for path in (repo / folder).rglob(pattern)
    )
    assert len(files) > 50
    for path in files:
        fast, constructor = _outcomes(path.read_text(encoding="utf-8"))
        assert fast == constructor, path


def multi_file(root: Path) -> Path:
    write(
        root / "paths" / "droplets.yaml",
        """\
get:
  operationId: list_droplets
  responses:
    '200':
      description: ok
      content:
        application/json:
          schema:
            type: object
            properties:
              droplets:
                type: array
                items: {$ref: '../models/droplet.yml'}
              region: {$ref: '../models/region.yaml#/Region'}
    default:
      description: error
      content:
        application/json:
          schema: {$ref: '../models/error.yaml'}
""",
    )
    write(
        root / "models" / "droplet.yml",
        """\
type: object
x-internal: {$ref: 'nowhere.yaml#/Nothing'}
properties:
  id: {type: integer}
  region: {$ref: 'region.yaml#/Region'}
  next: {$ref: 'droplet.yml'}
  size: {$ref: 'sizes/size.yaml'}
""",
    )
    write(
        root / "models" / "sizes" / "size.yaml", "type: object\nproperties: {$ref: 'props.yaml'}\n"
    )
    write(
        root / "models" / "sizes" / "props.yaml", "slug: {type: string}\nvcpus: {type: integer}\n"
    )
    write(
        root / "models" / "region.yaml",
        "Region:\n  type: object\n  properties:\n    slug: {type: string, nullable: true}\n",
    )
    write(root / "models" / "error.yaml", "type: object\nproperties:\n  message: {type: string}\n")
    write(
        root / "models" / "other" / "error.yaml",
        "type: object\nproperties:\n  code: {type: integer}\n",
    )
    return write(
        root / "openapi.yaml",
        """\
openapi: 3.0.3
info: {title: Multi, version: '1'}
x-meta:
  $ref: 'models/not-a-file.yaml#/Nope'
paths:
  /droplets:
    $ref: 'paths/droplets.yaml'
  /others:
    get:
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: 'models/other/error.yaml'}
components:
  schemas:
    Error: {$ref: 'models/error.yaml'}
""",
    )


def test_external_schemas_are_hoisted_under_stable_unique_names(tmp_path: Path) -> None:
    result = bundle(multi_file(tmp_path))
    schemas = result.document["components"]["schemas"]
    assert list(schemas) == ["Error", "Droplet", "Region", "Size", "OtherError"]
    assert schemas["Droplet"]["properties"]["next"] == {"$ref": "#/components/schemas/Droplet"}
    assert schemas["Droplet"]["properties"]["region"] == {"$ref": "#/components/schemas/Region"}
    # a `$ref` standing for a whole `properties` map is copied in
    assert schemas["Size"]["properties"] == {
        "slug": {"type": "string"},
        "vcpus": {"type": "integer"},
    }
    assert schemas["Region"]["properties"]["slug"] == {"type": ["string", "null"]}
    ok = result.document["paths"]["/droplets"]["get"]["responses"]
    assert ok["default"]["content"]["application/json"]["schema"] == {
        "$ref": "#/components/schemas/Error"
    }
    assert bundle(tmp_path / "openapi.yaml").document == result.document  # stable


def test_refs_inside_extensions_are_left_as_written(tmp_path: Path) -> None:
    result = bundle(multi_file(tmp_path))
    assert result.document["x-meta"] == {"$ref": "models/not-a-file.yaml#/Nope"}
    droplet = result.document["components"]["schemas"]["Droplet"]
    assert droplet["x-internal"] == {"$ref": "nowhere.yaml#/Nothing"}
    assert not result.problems


def test_multi_file_spec_validates_and_builds_real_models(tmp_path: Path) -> None:
    spec = multi_file(tmp_path)
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    models = (tmp_path / "out" / "server" / "api_server" / "models.py").read_text()
    assert "class Droplet(BaseModel):" in models
    assert "next: Droplet | None" in models
    assert "RootModel[Any]" not in models


def test_finding_in_a_hoisted_schema_names_its_file(tmp_path: Path) -> None:
    spec = multi_file(tmp_path)
    droplet = tmp_path / "models" / "droplet.yml"
    text = droplet.read_text().replace("id: {type: integer}", "id: {type: bogus}")
    droplet.write_text(text)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1
    assert f"models/droplet.yml:{line_of(text, 'bogus')}:" in out and "[schema]" in out, out


def test_missing_file_is_a_finding_at_the_ref(tmp_path: Path) -> None:
    spec = multi_file(tmp_path)
    (tmp_path / "models" / "error.yaml").unlink()
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 1 and "Traceback" not in out
    assert "paths/droplets.yaml:" in out and "no such file" in out, out
