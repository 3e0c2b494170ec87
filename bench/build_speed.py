#!/usr/bin/env python3
"""Build-speed benchmark: spec-gen against its own parts and against openapi-python-client.

Times, in ONE run and on the same spec, each of these as a separate process, repeated
--repeat times (rounds are interleaved, so slow moments of the machine hit every row alike):

  1. `python -c pass`                       interpreter start-up, the floor of any Python CLI
  2. `spec-gen build --out NEW --no-cache`  cold, whole build: API layer, client, docs
  3. `spec-gen build --out SAME`            nothing changed (cache on); must print "nothing changed"
  4. `datamodel-codegen ...`                the pydantic models alone, on the bundled spec
  5. `openapi-python-client generate ...`   a client alone, from its own venv (bench/.venvs/opc)

It prints a Markdown table (min, median, ratio to openapi-python-client's median) and writes
the same results as JSON to bench/results/build_speed.json. Standard library only; run it
with the project's virtual environment active (`python bench/build_speed.py`).

The spec-gen rows run in a throw-away copy of the project (its pyproject.toml, the spec's
directory and the templates), so the developer's own `.spec-gen-cache/` is never touched.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
OPC_VENV = BENCH / ".venvs" / "opc"
RESULTS = BENCH / "results" / "build_speed.json"
HTTP_METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")
NOOP_AIM_S = 0.3
TIMEOUT_S = 900


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- locating things -----------------------------------------------------------------------


def spec_gen_settings(project: Path) -> dict[str, Any]:
    pyproject = project / "pyproject.toml"
    if not pyproject.is_file():
        return {}
    with pyproject.open("rb") as handle:
        return dict(tomllib.load(handle).get("tool", {}).get("spec-gen", {}))


def find_project(spec: Path) -> Path:
    """The nearest directory above the spec whose pyproject.toml has [tool.spec-gen]."""
    for directory in spec.parents:
        if spec_gen_settings(directory):
            return directory
    return REPO


def venv_bin() -> Path:
    """The bin/ directory of the environment that has spec-gen (preferably this interpreter's)."""
    here = Path(sys.executable).parent  # not resolved: a venv's python is a symlink
    if (here / "spec-gen").exists():
        return here
    found = shutil.which("spec-gen")
    if found:
        return Path(found).parent
    sys.exit(
        "spec-gen not found: activate the project's virtual environment (. /tmp/venv/bin/activate)"
    )


def env_with(bin_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env.pop("PYTHONHOME", None)
    return env


def generator_fingerprint(python: str, env: dict[str, str]) -> tuple[str, str]:
    """(package dir, hash of its .py files) of the spec_gen that the venv imports."""
    code = (
        "import hashlib, pathlib, spec_gen; d = pathlib.Path(spec_gen.__file__).parent; h = hashlib.sha256()\n"
        "for p in sorted(d.rglob('*.py')): h.update(str(p).encode()); h.update(p.read_bytes())\n"
        "print(d); print(h.hexdigest())"
    )
    done = run([python, "-c", code], env=env)
    lines = done.stdout.split()
    return (lines[0], lines[1]) if len(lines) == 2 else ("?", "?")


def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        cmd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False, **kwargs
    )


def tail(text: str, lines: int = 15) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])


# -- the throw-away project ------------------------------------------------------------------


def make_project_copy(project: Path, spec: Path, dest: Path) -> Path:
    """Copy pyproject ([tool.spec-gen] only, paths rewritten), the spec's directory and the
    templates into dest; return the spec's path inside the copy."""
    settings = spec_gen_settings(project)
    templates = project / settings.get("templates", "templates")
    if not templates.is_dir():
        sys.exit(f"templates directory not found: {templates}")
    ignore = shutil.ignore_patterns("__pycache__", ".spec-gen-cache")
    try:
        rel = spec.relative_to(project)
    except ValueError:
        rel = Path(spec.name)
    if len(rel.parts) > 1:  # e.g. spec/openapi.yaml: copy the whole top folder (refs may go ../)
        shutil.copytree(project / rel.parts[0], dest / rel.parts[0], ignore=ignore)
        new_spec = dest / rel
    else:  # a spec lying loose: take its folder
        shutil.copytree(spec.parent, dest / "spec", ignore=ignore)
        new_spec = dest / "spec" / spec.name
    shutil.copytree(templates, dest / "templates", ignore=ignore)
    settings.update(
        spec=new_spec.relative_to(dest).as_posix(), templates="templates", output="generated"
    )
    lines = ["[tool.spec-gen]"] + [
        f"{key} = {json.dumps(str(value))}" for key, value in settings.items()
    ]
    (dest / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return new_spec


# -- openapi-python-client in its own venv ---------------------------------------------------


@dataclass
class OpcSetup:
    exe: Path | None
    version: str | None
    reused: bool
    install_s: float | None
    error: str | None = None
    exit_code: int | None = None


def setup_opc(python: str) -> OpcSetup:
    exe = OPC_VENV / "bin" / "openapi-python-client"
    pip = OPC_VENV / "bin" / "pip"
    reused = exe.exists()
    install_s: float | None = None
    if not reused:
        log(f"installing openapi-python-client into {OPC_VENV.relative_to(REPO)} ...")
        start = time.perf_counter()
        OPC_VENV.parent.mkdir(parents=True, exist_ok=True)
        if not pip.exists():
            done = run([python, "-m", "venv", str(OPC_VENV)])
            if done.returncode != 0:
                return OpcSetup(
                    None,
                    None,
                    False,
                    None,
                    f"python -m venv failed:\n{tail(done.stderr + done.stdout)}",
                    done.returncode,
                )
        done = run([str(pip), "install", "--disable-pip-version-check", "openapi-python-client"])
        (OPC_VENV.parent / "opc-install.log").write_text(
            done.stdout + done.stderr, encoding="utf-8"
        )
        install_s = time.perf_counter() - start
        if done.returncode != 0 or not exe.exists():
            return OpcSetup(
                None,
                None,
                False,
                install_s,
                f"pip install failed:\n{tail(done.stderr + done.stdout)}",
                done.returncode,
            )
        log(f"  installed in {install_s:.1f} s")
    done = run(
        [
            str(OPC_VENV / "bin" / "python"),
            "-c",
            "from importlib.metadata import version; print(version('openapi-python-client'))",
        ]
    )
    version = done.stdout.strip() or None
    return OpcSetup(exe, version, reused, install_s)


# -- timing ------------------------------------------------------------------------------------


@dataclass
class Row:
    key: str
    label: str
    shown: str  # the command as shown in the table (temp paths abbreviated)
    # run index -> (argv, scratch dir to delete afterwards)
    make_cmd: Callable[[int], tuple[list[str], Path | None]]
    cwd: Path | None = None
    env: dict[str, str] | None = None
    expect_stdout: str | None = None
    times: list[float] = field(default_factory=list)
    error: str | None = None
    exit_code: int | None = None
    warnings: list[str] = field(default_factory=list)
    runs: int = 0

    def once(self, timed: bool) -> None:
        if self.error is not None:
            return
        cmd, scratch = self.make_cmd(self.runs)
        self.runs += 1
        start = time.perf_counter()
        try:
            done = subprocess.run(
                cmd,
                cwd=self.cwd,
                env=self.env,
                capture_output=True,
                text=True,
                timeout=TIMEOUT_S,
                check=False,
            )
        except subprocess.TimeoutExpired:
            self.error, self.exit_code = f"timed out after {TIMEOUT_S} s", None
            return
        elapsed = time.perf_counter() - start
        if scratch is not None:
            shutil.rmtree(scratch, ignore_errors=True)
        if done.returncode != 0:
            self.error = tail(done.stderr + "\n" + done.stdout) or "(no output)"
            self.exit_code = done.returncode
            return
        if self.expect_stdout is not None and self.expect_stdout not in done.stdout:
            self.error = (
                f"expected {self.expect_stdout!r} on stdout, got:\n{tail(done.stdout + done.stderr)}\n"
                "(the cache key hashes the spec, templates and generator sources: was the generator "
                "edited during the run? rerun to tell)"
            )
            self.exit_code = done.returncode
            return
        if not self.warnings:
            self.warnings = [
                line
                for line in (done.stdout + done.stderr).splitlines()
                if "warning" in line.lower()
            ]
        if timed:
            self.times.append(elapsed)

    def summary(self) -> dict[str, Any]:
        ok = self.error is None and bool(self.times)
        return {
            "key": self.key,
            "label": self.label,
            "command": self.shown,
            "times_s": [round(t, 4) for t in self.times],
            "min_s": round(min(self.times), 4) if ok else None,
            "median_s": round(statistics.median(self.times), 4) if ok else None,
            "error": self.error,
            "exit_code": self.exit_code,
            "warnings": self.warnings[:20],
        }


def fmt(value: float | None, digits: int = 3) -> str:
    return "—" if value is None else f"{value:.{digits}f}"


# -- main ----------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--spec",
        type=Path,
        default=REPO / "spec" / "openapi.yaml",
        help="root spec file (default: spec/openapi.yaml in the repo)",
    )
    parser.add_argument(
        "--project",
        type=Path,
        help="project dir with [tool.spec-gen] (default: nearest one above the spec)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="timed runs of each command (default 5)"
    )
    parser.add_argument(
        "--warmup",
        type=int,
        default=1,
        help="untimed runs of each command first (default 1; page cache, .pyc files)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=RESULTS,
        help=f"where to write the results (default {RESULTS.relative_to(REPO)})",
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    args = parser.parse_args()
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")

    spec = args.spec.resolve()
    if not spec.is_file():
        sys.exit(f"spec not found: {spec}")
    project = (args.project or find_project(spec)).resolve()
    if not spec_gen_settings(project):
        sys.exit(f"no [tool.spec-gen] in {project / 'pyproject.toml'}")
    bin_dir = venv_bin()
    python = str(bin_dir / "python")
    spec_gen = str(bin_dir / "spec-gen")
    dmcg = str(bin_dir / "datamodel-codegen")
    env = env_with(bin_dir)

    tmp = Path(tempfile.mkdtemp(prefix="spec-gen-bench-"))
    try:
        return bench(args, spec, project, python, spec_gen, dmcg, env, tmp)
    finally:
        if args.keep:
            log(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


def bench(
    args: argparse.Namespace,
    spec: Path,
    project: Path,
    python: str,
    spec_gen: str,
    dmcg: str,
    env: dict[str, str],
    tmp: Path,
) -> int:
    generator_dir, fingerprint_before = generator_fingerprint(python, env)
    work = tmp / "project"
    work.mkdir()
    make_project_copy(project, spec, work)
    log(f"spec {spec} (project {project}); copy in {work}")

    # Not timed: the bundled spec for the single-file tools, and the operation count.
    done = run([spec_gen, "bundle", "--format", "json"], cwd=work, env=env)
    if done.returncode != 0:
        sys.exit(
            f"spec-gen bundle failed (exit {done.returncode}):\n{tail(done.stderr + done.stdout)}"
        )
    bundled = tmp / "bundled.json"
    bundled.write_text(done.stdout, encoding="utf-8")
    document = json.loads(done.stdout)
    operations = sum(
        1
        for item in (document.get("paths") or {}).values()
        if isinstance(item, dict)
        for key in item
        if key in HTTP_METHODS
    )
    log(f"{operations} operations")

    # Not timed: the first build with the cache, which the no-op rows then repeat.
    noop_out = tmp / "out-noop"
    done = run([spec_gen, "build", "--out", str(noop_out)], cwd=work, env=env)
    if done.returncode != 0:
        sys.exit(
            f"spec-gen build failed (exit {done.returncode}):\n{tail(done.stderr + done.stdout)}"
        )
    generated_files = sum(1 for p in noop_out.rglob("*") if p.is_file())

    opc = setup_opc(sys.executable)
    opc_env = env_with(OPC_VENV / "bin")

    def scratch(name: str, create: bool = False) -> Callable[[int], Path]:
        def path(i: int) -> Path:
            where = tmp / f"{name}-{i}"
            if create:  # datamodel-codegen wants --output's directory to exist
                where.mkdir(parents=True, exist_ok=True)
            return where

        return path

    cold_dir, dmcg_dir, opc_dir = scratch("out-cold"), scratch("dmcg", create=True), scratch("opc")
    rows = [
        Row(
            "python",
            "interpreter baseline",
            "python -c pass",
            lambda i: ([python, "-c", "pass"], None),
            env=env,
        ),
        Row(
            "cold",
            "spec-gen build, cold (whole build: API layer, client, docs)",
            "spec-gen build --out NEW_DIR --no-cache",
            lambda i: ([spec_gen, "build", "--out", str(cold_dir(i)), "--no-cache"], cold_dir(i)),
            cwd=work,
            env=env,
        ),
        Row(
            "noop",
            "spec-gen build, nothing changed (cache on)",
            "spec-gen build --out SAME_DIR",
            lambda i: ([spec_gen, "build", "--out", str(noop_out)], None),
            cwd=work,
            env=env,
            expect_stdout="nothing changed",
        ),
        Row(
            "datamodel-codegen",
            "datamodel-codegen alone (models only, bundled spec)",
            (
                "datamodel-codegen --input bundled.json --input-file-type openapi "
                "--output-model-type pydantic_v2.BaseModel --disable-timestamp --output out.py"
            ),
            lambda i: (
                [
                    dmcg,
                    "--input",
                    str(bundled),
                    "--input-file-type",
                    "openapi",
                    "--output-model-type",
                    "pydantic_v2.BaseModel",
                    "--disable-timestamp",
                    "--output",
                    str(dmcg_dir(i) / "out.py"),
                ],
                dmcg_dir(i),
            ),
            cwd=tmp,
            env=env,
        ),
        Row(
            "openapi-python-client",
            "openapi-python-client generate (client only, bundled spec)",
            "openapi-python-client generate --path bundled.json --output-path NEW_DIR --overwrite",
            lambda i: (
                [
                    str(opc.exe),
                    "generate",
                    "--path",
                    str(bundled),
                    "--output-path",
                    str(opc_dir(i)),
                    "--overwrite",
                ],
                opc_dir(i),
            ),
            cwd=tmp,
            env=opc_env,
        ),
    ]
    opc_row = rows[-1]
    if opc.exe is None:
        opc_row.error, opc_row.exit_code = opc.error, opc.exit_code

    total = args.warmup + args.repeat
    for round_no in range(total):
        timed = round_no >= args.warmup
        log(f"round {round_no + 1}/{total}{'' if timed else ' (warm-up, not timed)'}")
        for row in rows:
            row.once(timed)

    generator_changed = generator_fingerprint(python, env)[1] != fingerprint_before
    if generator_changed:
        log(f"WARNING: the generator's sources ({generator_dir}) changed during the run")
    results = [row.summary() for row in rows]
    by_key = {r["key"]: r for r in results}
    opc_median = by_key["openapi-python-client"]["median_s"]
    for r in results:
        r["ratio_to_opc_median"] = (
            round(r["median_s"] / opc_median, 3)
            if r["median_s"] is not None and opc_median
            else None
        )

    cold_median = by_key["cold"]["median_s"]
    noop_median = by_key["noop"]["median_s"]
    aims = [
        {
            "aim": "whole build (spec-gen build, cold) faster than openapi-python-client's client alone",
            "measured": f"median {fmt(cold_median)} s vs {fmt(opc_median)} s",
            "met": (cold_median < opc_median)
            if cold_median is not None and opc_median is not None
            else None,
        },
        {
            "aim": f"no-op rebuild (nothing changed) under {NOOP_AIM_S} s",
            "measured": f"median {fmt(noop_median)} s",
            "met": (noop_median < NOOP_AIM_S) if noop_median is not None else None,
        },
    ]

    version = run([spec_gen, "--version"], env=env).stdout.strip().split()[-1:]
    dmcg_version = run([dmcg, "--version"], env=env).stdout.strip().split()[-1:]
    py_version = run(
        [python, "-c", "import sys; print(sys.version.split()[0])"], env=env
    ).stdout.strip()
    report = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "machine": {
            "python_version": py_version,
            "python": python,
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "machine": platform.machine(),
        },
        "spec": rel_to_repo(spec),
        "project": rel_to_repo(project),
        "operations": operations,
        "generator_changed_during_run": generator_changed,
        "generated_files": generated_files,
        "repeat": args.repeat,
        "warmup": args.warmup,
        "tools": {
            "spec-gen": version[0] if version else None,
            "datamodel-codegen": dmcg_version[0] if dmcg_version else None,
            "openapi-python-client": opc.version,
        },
        "openapi_python_client_setup": {
            "venv": rel_to_repo(OPC_VENV),
            "reused": opc.reused,
            "install_s": round(opc.install_s, 1) if opc.install_s is not None else None,
            "error": opc.error,
        },
        "results": results,
        "aims": aims,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(markdown(report))
    log(f"results written to {rel_to_repo(args.json.resolve())}")
    failed = [r["key"] for r in results if r["error"] and r["key"] != "openapi-python-client"]
    return 1 if failed else 0


def rel_to_repo(path: Path) -> str:
    try:
        return path.relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def markdown(report: dict[str, Any]) -> str:
    m = report["machine"]
    out = [
        (
            f"## spec-gen build speed — {report['spec']} ({report['operations']} operations, "
            f"{report['generated_files']} generated files)"
        ),
        "",
        (
            f"{report['date']}; Python {m['python_version']}, {m['cpu_count']} CPUs, {m['platform']}; "
            f"{report['repeat']} timed runs each (after {report['warmup']} warm-up), rounds interleaved"
        ),
        "",
        "| command | min s | median s | × openapi-python-client median |",
        "| --- | ---: | ---: | ---: |",
    ]
    if report["generator_changed_during_run"]:
        out[4:4] = [
            (
                "**WARNING: spec-gen's sources changed during this run; its rows mix two versions"
                " of the generator. Rerun.**"
            ),
            "",
        ]
    for r in report["results"]:
        if r["error"]:
            first = r["error"].strip().splitlines()[-1] if r["error"].strip() else "(no output)"
            out.append(
                f"| {r['label']}: `{r['command']}` | FAILED (exit {r['exit_code']}) | {first} | — |"
            )
        else:
            ratio = "—" if r["ratio_to_opc_median"] is None else f"{r['ratio_to_opc_median']:.2f}"
            out.append(
                f"| {r['label']}: `{r['command']}` | {fmt(r['min_s'])} | {fmt(r['median_s'])} | {ratio} |"
            )
    out.append("")
    out.append("Aims:")
    for aim in report["aims"]:
        verdict = {True: "MET", False: "NOT MET", None: "UNKNOWN"}[aim["met"]]
        out.append(f"- {aim['aim']}: {aim['measured']} — **{verdict}**")
    tools = report["tools"]
    setup = report["openapi_python_client_setup"]
    how = (
        "reused"
        if setup["reused"]
        else (
            f"installed in {setup['install_s']} s"
            if setup["install_s"] is not None
            else "not installed"
        )
    )
    out.append("")
    out.append(
        f"Tools: spec-gen {tools['spec-gen']}; datamodel-codegen {tools['datamodel-codegen']}; "
        f"openapi-python-client {tools['openapi-python-client'] or '?'} ({setup['venv']}, {how})"
    )
    for r in report["results"]:
        if r["error"]:
            out += ["", f"{r['key']} failed (exit {r['exit_code']}):", "```", r["error"], "```"]
        elif r["warnings"]:
            out += [
                "",
                f"{r['key']} printed {len(r['warnings'])} warning line(s), e.g.: {r['warnings'][0].strip()}",
            ]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
