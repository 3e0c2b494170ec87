"""The units' keys (targets/unit_keys.py): a unit is keyed on what its template reads (the
templates read nothing else: tests/generator/targets/test_units.py), so on real documents
(this repository's spec, a corpus document) a rebuild after each kind of edit writes what a
cold build writes while rendering fewer units than there are."""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest
from spec_gen.build.pipeline import build, render_tree
from spec_gen.build.tree import existing_files, stat_key
from spec_gen.core.config import load_config
from spec_gen.core.timings import ENV
from spec_gen.document.load import bundle

ROOT = Path(__file__).parents[3]
TEMPLATES = ROOT / "templates"
CORPUS = ROOT.parent / "shared" / "corpus"
_EDITS = importlib.util.spec_from_file_location("spec_edits", ROOT / "bench" / "spec_edits.py")
assert _EDITS is not None and _EDITS.loader is not None
spec_edits = importlib.util.module_from_spec(_EDITS)
_EDITS.loader.exec_module(spec_edits)
edited = spec_edits.edited


def _units_rendered(stderr: str) -> dict[str, tuple[int, int]]:
    line = next(line for line in stderr.splitlines() if "units rendered: " in line)
    text = line.split("units rendered: ")[1].rsplit(" (", 1)[0]
    out = {}
    for part in text.split(", "):
        kind, counts = part.rsplit(" ", 3)[0], part.rsplit(" ", 3)[1:]
        out[kind] = (int(counts[0]), int(counts[2]))
    return out


def _add_tag(document: dict[str, Any], n: int) -> dict[str, Any]:
    """The first operation copied to a path of its own under a new tag."""
    out = copy.deepcopy(document)
    path, item = next((p, i) for p, i in out["paths"].items() if "get" in i or "post" in i)
    method = "get" if "get" in item else "post"
    op = copy.deepcopy(item[method])
    op["operationId"] = f"{op.get('operationId', 'op')}_tagged{n}"
    op.pop("x-client-method", None)
    op["tags"] = [f"added-tag-{n}"]
    out["paths"][f"{path.rstrip('/')}/tagged-{n}"] = {
        **{k: v for k, v in item.items() if k == "parameters"},
        method: op,
    }
    out.setdefault("tags", []).append({"name": f"added-tag-{n}", "description": f"Tag {n}."})
    return out


def _change_scheme(document: dict[str, Any], n: int) -> dict[str, Any]:
    """The first security scheme's description (or an apiKey's header name) changed."""
    out = copy.deepcopy(document)
    schemes = out.get("components", {}).get("securitySchemes") or {}
    if not schemes:
        pytest.skip("no security scheme")
    scheme = next(iter(schemes.values()))
    if scheme.get("type") == "apiKey":
        scheme["name"] = f"X-Key-{n}"
    else:
        scheme["description"] = f"{scheme.get('description', '')} (edited {n})"
    return out


def _change_parameter(document: dict[str, Any], n: int) -> dict[str, Any]:
    """The first parameter component's description changed (else a path item's parameter)."""
    out = copy.deepcopy(document)
    parameters = out.get("components", {}).get("parameters") or {}
    if not parameters:
        pytest.skip("no parameter component")
    first = next(iter(parameters.values()))
    first["description"] = f"{first.get('description', '')} (edited {n})"
    return out


# spec_edits.py's edit 1 each time, of the document as the edits before left it
EDITS = [
    ("description", lambda d, n: edited(d, "description", 1)),
    ("operation", lambda d, n: edited(d, "operation", 1)),
    ("field", lambda d, n: edited(d, "field", 1)),
    ("rename", lambda d, n: edited(d, "rename", 1)),
    ("tag", _add_tag),
    ("scheme", _change_scheme),
    ("parameter", _change_parameter),
]
# the edits of one operation or tag: a unit or two of each kind (the edited one, its copy's)
LOCAL = {"description", "operation", "tag"}


def _documents() -> list[Any]:
    out = [pytest.param(ROOT / "spec" / "openapi.yaml", id="this-spec")]
    corpus = CORPUS / "swagger-petstore3.yaml"
    marks = pytest.mark.skipif(not corpus.is_file(), reason=f"no corpus at {CORPUS}")
    return [*out, pytest.param(corpus, id="petstore3", marks=marks)]


@pytest.mark.parametrize("source", _documents())
def test_each_kind_of_edit_rebuilds_as_a_cold_build_rendering_fewer_units(
    source: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    document = bundle(source).document  # one JSON file: the edits work on it
    (tmp_path / "pyproject.toml").write_text(
        f'[tool.spec-gen]\nspec = "spec.json"\noutput = "generated"\ntemplates = "{TEMPLATES}"\n',
        encoding="utf-8",
    )
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(document, indent=1), encoding="utf-8")
    config = load_config(tmp_path)
    build(config, echo=lambda _: None)
    monkeypatch.setenv(ENV, "1")  # `--timings`: it says how many units were rendered
    for n, (kind, edit) in enumerate(EDITS, start=1):
        try:
            document = edit(document, n)
        except pytest.skip.Exception:
            continue
        spec.write_text(json.dumps(document, indent=1), encoding="utf-8")
        capsys.readouterr()
        build(load_config(tmp_path), echo=lambda _: None)
        units = _units_rendered(capsys.readouterr().err)
        cold = render_tree(load_config(tmp_path), None).files
        written = existing_files(config.output)
        assert written == {name: text.encode("utf-8") for name, text in cold.items()}, kind
        # the record of the output: the entries of the files left as they were are the ones
        # the comparison made, and true (the next rebuild trusts them)
        record = json.loads((tmp_path / ".spec-gen-cache" / "build.json").read_text("utf-8"))
        assert record["outputs"] == {
            name: [hashlib.sha256(data).hexdigest(), *stat_key((config.output / name).stat())]
            for name, data in written.items()
        }
        rendered = sum(r for r, _ in units.values())
        assert rendered < sum(t for _, t in units.values()), (kind, units)
        if kind in LOCAL:
            assert all(r <= 2 for r, _ in units.values()), (kind, units)
