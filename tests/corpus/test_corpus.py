"""Every public document of `../shared/corpus/` builds as it is into code that imports, mounts
and passes mypy --strict; the one invalid beyond repair is refused with findings, no traceback.

Runs whenever `../shared/corpus` exists next to the repository (CI has it). Each spec is
built (render, verify in a subprocess, write) into a temporary directory under its own
package names; then ONE mypy --strict run checks every output together.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from spec_gen.build import SpecInvalid, build
from spec_gen.config import load_config

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
REFUSED = {"fcg-body_and_parameters.yaml": {333, 358, 380}}  # invalid: the lines of findings
# the generated packages mypy checks
KINDS = ("api", "client")

pytestmark = pytest.mark.skipif(not CORPUS.is_dir(), reason=f"no corpus at {CORPUS}")


def specs() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml")) + sorted(CORPUS.glob("*.json")) if CORPUS.is_dir() else []


def slug(spec: Path) -> str:
    return "c_" + re.sub(r"\W+", "_", spec.stem).strip("_").lower()


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build every buildable spec once: name -> output directory."""
    root = tmp_path_factory.mktemp("corpus")
    (root / "pyproject.toml").write_text("[tool.spec-gen]\n", encoding="utf-8")
    base = load_config(root)
    built = {}
    for spec in specs():
        if spec.name in REFUSED:
            continue
        name = slug(spec)
        config = base.with_overrides(
            spec=spec,
            output=root / name,
            server_package=f"{name}_api",
            client_package=f"{name}_client",
            distribution_prefix=name.replace("_", "-"),
        )
        lines: list[str] = []
        build(config, use_cache=False, echo=lines.append)
        assert any("routes mounted" in line for line in lines), lines
        built[spec.name] = root / name
    return built


def test_every_corpus_spec_builds_imports_and_mounts(outputs: dict[str, Path]) -> None:
    expected = {s.name for s in specs()} - set(REFUSED)
    assert set(outputs) == expected
    for out in outputs.values():
        assert (out / "server").is_dir() and (out / "client").is_dir()


def test_every_corpus_output_passes_mypy_strict(outputs: dict[str, Path]) -> None:
    paths, args = [], []
    for out in outputs.values():
        paths += [str(out / "server"), str(out / "client")]
        args += [a for kind in KINDS for a in ("-p", f"{out.name}_{kind}")]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", os.devnull]
        + args,
        env={**os.environ, "MYPYPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_invalid_spec_is_refused_with_findings_at_their_lines(name: str, tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.spec-gen]\n", encoding="utf-8")
    config = load_config(tmp_path).with_overrides(spec=CORPUS / name, output=tmp_path / "out")
    with pytest.raises(SpecInvalid) as refused:
        build(config, use_cache=False, echo=lambda line: None)
    errors = [f for f in refused.value.findings if f.severity == "error"]
    assert REFUSED[name] <= {f.line for f in errors}, [str(f) for f in errors]
    assert not (tmp_path / "out").exists()
