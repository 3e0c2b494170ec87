"""Every public document of `../shared/corpus/` builds as it is into code that imports, mounts
and passes mypy --strict; the one invalid beyond repair is refused with findings, no traceback.

Runs whenever `../shared/corpus` exists next to the repository (CI has it). Each spec is
built by the CLI (`spec-gen build`: render, verify in a subprocess, write), as many at once
as there are cores, into a temporary directory under its own
package names; then ONE mypy --strict run checks every output together.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from fidelity_support import differences, probe_all, summary

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus"
# invalid: the lines of its errors (an empty `responses`), and of the other findings (two
# responses without `description`, read as empty ones: warnings)
REFUSED = {"fcg-body_and_parameters.yaml": ({333}, {358, 380})}
# the generated packages mypy checks
KINDS = ("api", "client")

pytestmark = pytest.mark.skipif(
    not CORPUS.is_dir() and os.environ.get("CI") != "true", reason=f"no corpus at {CORPUS}"
)


def specs() -> list[Path]:
    return sorted(CORPUS.glob("*.yaml")) + sorted(CORPUS.glob("*.json")) if CORPUS.is_dir() else []


def slug(spec: Path) -> str:
    return "c_" + re.sub(r"\W+", "_", spec.stem).strip("_").lower()


def project(root: Path, spec: Path) -> Path:
    """A project directory building `spec` under its own package names."""
    name = slug(spec)
    directory = root / name
    directory.mkdir()
    (directory / "pyproject.toml").write_text(
        "[tool.spec-gen]\n"
        f"spec = {str(spec)!r}\n"
        'output = "out"\n'
        f'server-package = "{name}_api"\n'
        f'client-package = "{name}_client"\n'
        f'distribution-prefix = "{name.replace("_", "-")}"\n',
        encoding="utf-8",
    )
    return directory


def run_builds(directories: list[Path]) -> dict[Path, subprocess.CompletedProcess[str]]:
    """`spec-gen build --no-cache` in each directory, as many at once as there are cores."""
    done: dict[Path, subprocess.CompletedProcess[str]] = {}
    pending = list(directories)
    running: list[tuple[Path, subprocess.Popen[str]]] = []
    while pending or running:
        while pending and len(running) < max(1, os.cpu_count() or 1):
            directory = pending.pop(0)
            command = [sys.executable, "-m", "spec_gen", "build", "--no-cache"]
            running.append(
                (
                    directory,
                    subprocess.Popen(
                        command,
                        cwd=directory,
                        text=True,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                    ),
                )
            )
        directory, process = running.pop(0)
        out, err = process.communicate()
        done[directory] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    return done


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Build every buildable spec once, through the CLI: name -> output directory."""
    root = tmp_path_factory.mktemp("corpus")
    directories = {spec.name: project(root, spec) for spec in specs() if spec.name not in REFUSED}
    results = run_builds(list(directories.values()))
    failed = {
        name: (results[d].returncode, (results[d].stdout + results[d].stderr)[-1500:])
        for name, d in directories.items()
        if results[d].returncode != 0 or "routes mounted" not in results[d].stdout
    }
    assert not failed, failed
    return {name: d / "out" for name, d in directories.items()}


def test_every_corpus_spec_builds_imports_and_mounts(outputs: dict[str, Path]) -> None:
    expected = {s.name for s in specs()} - set(REFUSED)
    assert set(outputs) == expected
    for out in outputs.values():
        assert (out / "server").is_dir() and (out / "client").is_dir()


def test_every_corpus_output_passes_mypy_strict(outputs: dict[str, Path]) -> None:
    paths, args = [], []
    for out in outputs.values():
        paths += [str(out / "server"), str(out / "client")]
        args += [a for kind in KINDS for a in ("-p", f"{out.parent.name}_{kind}")]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file", os.devnull]
        + args,
        env={**os.environ, "MYPYPATH": os.pathsep.join(paths)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]


def test_every_corpus_example_round_trips(outputs: dict[str, Path]) -> None:
    """Each schema-valid example (answers, bodies, parameters, schemas) validates into the
    server's and the client's generated type and dumps back unchanged (fidelity_probe.py)."""
    assert CORPUS.is_dir(), f"no corpus at {CORPUS}"  # under CI=true it must be there
    reports = probe_all(
        {name: (CORPUS / name, out, out.parent.name) for name, out in outputs.items()}
    )
    print(summary("corpus", reports))
    found = differences(reports)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_invalid_spec_is_refused_with_findings_at_their_lines(name: str, tmp_path: Path) -> None:
    directory = project(tmp_path, CORPUS / name)
    result = run_builds([directory])[directory]
    report = result.stdout + result.stderr
    assert result.returncode == 1, report
    assert "Traceback" not in report and "internal error" not in report
    errors, others = REFUSED[name]
    lines = {int(m) for m in re.findall(rf"{re.escape(name)}:(\d+):\d+: error", report)}
    assert errors <= lines, report
    lines = {int(m) for m in re.findall(rf"{re.escape(name)}:(\d+):\d+: warning", report)}
    assert others <= lines, report
    assert not (directory / "out").exists()
