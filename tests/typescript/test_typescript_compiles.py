"""`tsc --strict` (with noUncheckedIndexedAccess) passes on the TypeScript client of this
repository's spec, of every feature fixture and of every document of `../shared/corpus` that
builds: ONE tsc run over all of them (a run costs seconds, most of it starting up).

The compiler is the pinned `typescript` package (ts_support.py); without node or npm the test
skips with the reason (fails under CI=true).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from spec_gen.build.pipeline import SpecInvalid, load_and_validate
from spec_gen.core.config import load_config
from spec_gen.document.load import SpecError
from spec_gen.ir import build_ir
from spec_gen.targets import Target
from spec_gen.targets.typescript import OUTPUT_DIR, TYPESCRIPT_VERSION, render_typescript
from ts_support import ROOT, tsc_or_skip, typecheck

CORPUS = ROOT.parent / "shared" / "corpus"
FEATURES = ROOT / "tests" / "features"


def render(spec: Path, out: Path, name: str) -> None:
    config = load_config(out.parent)  # no project: the default settings and rules
    api = build_ir(load_and_validate(config.with_overrides(spec=spec)).document)
    target = Target(config.templates, name, name, spec.name)
    for path, content in render_typescript(target, api, name.upper()).items():
        file = out / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(content, encoding="utf-8")


def test_every_typescript_client_compiles_strictly(tmp_path: Path) -> None:
    tsc = tsc_or_skip()
    shutil.copytree(ROOT / "generated" / OUTPUT_DIR / "src", tmp_path / "own" / "src")
    included = ["own/src"]
    for feature in sorted(FEATURES.glob("*/expected/" + OUTPUT_DIR)):
        name = "f_" + feature.parent.parent.name
        shutil.copytree(feature / "src", tmp_path / name / "src")
        included.append(f"{name}/src")
    refused = []
    corpus = (
        sorted(CORPUS.glob("*.yaml")) + sorted(CORPUS.glob("*.json")) if CORPUS.is_dir() else []
    )
    for spec in corpus:
        name = "c_" + re.sub(r"\W+", "_", spec.stem).strip("_").lower()
        try:
            render(spec, tmp_path / name, name)
        except (SpecInvalid, SpecError):  # the corpus test shows it is refused with findings
            refused.append(spec.name)
            continue
        included.append(f"{name}/src")
    examples = docs_examples(tmp_path / "docs")
    shutil.copy(Path(__file__).with_name("typing_checks.ts"), tmp_path / "docs")
    included.append("docs")
    assert len(included) >= 2 + 9, included
    assert len(refused) <= 1, refused  # fcg-body_and_parameters.yaml: invalid beyond repair
    done = typecheck(tsc, tmp_path, included, {"outreach-client": ["./own/src/index.ts"]})
    assert done.returncode == 0, done.stdout + done.stderr
    print(f"tsc {TYPESCRIPT_VERSION} --strict: {len(included) - 1} clients, {examples} examples")


def docs_examples(into: Path) -> int:
    """The reference's TypeScript example of every operation, one module each (compiled
    against this repository's client)."""
    into.mkdir()
    (into / "node.d.ts").write_text(
        "declare const process: { env: Record<string, string | undefined> };\n"
    )
    count = 0
    for page in sorted((ROOT / "generated" / "docs").glob("*.md")):
        for code in re.findall(r"```typescript\n(.*?)```", page.read_text(), re.DOTALL):
            count += 1
            (into / f"example{count}.ts").write_text(code, encoding="utf-8")
    operations = (ROOT / "generated" / OUTPUT_DIR / "src" / "resources.ts").read_text()
    assert count == operations.count("    const call = {"), "one example per operation"
    return count


def test_ci_installs_the_pinned_compiler() -> None:
    assert f"typescript@{TYPESCRIPT_VERSION}" in (ROOT / ".ci" / "run").read_text()
    package = (ROOT / "generated" / OUTPUT_DIR / "package.json").read_text()
    assert f'"typescript": "{TYPESCRIPT_VERSION}"' in package
