"""Round-trip fidelity over the larger public documents of `../shared/corpus-large/`: every
example valid against its schema validates into the server's and the client's generated type
and dumps back unchanged (tests/corpus/fidelity_probe.py says how).

Each document is built once by the CLI (render, verify: imports and mounts; no mypy here:
tests/corpus/test_corpus.py type-checks the smaller corpus), two at a time on two cores.
Skipped with a reason when the corpus is absent, except under CI=true where it must run.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from fidelity_support import differences, probe_all, summary
from test_corpus import project, run_builds

ROOT = Path(__file__).resolve().parents[2]
LARGE = ROOT.parent / "shared" / "corpus-large"
# the multi-file documents' roots (ORIGINS.md there names them)
ROOTS = (
    "digitalocean/specification/DigitalOcean-public.v2.yaml",
    "lob/lob-api-public.yml",
    "matrix/data/api/client-server/content-repo.yaml",
)

# examples still refused, both sides, with their reason (docs/models.md, "What remains"): none
KNOWN: frozenset[tuple[str, str]] = frozenset()

pytestmark = pytest.mark.skipif(
    not LARGE.is_dir() and os.environ.get("CI") != "true", reason=f"no corpus at {LARGE}"
)


def specs() -> list[Path]:
    if not LARGE.is_dir():
        return []
    top = [p for p in sorted(LARGE.iterdir()) if p.suffix in (".yaml", ".yml", ".json")]
    return top + [LARGE / root for root in ROOTS]


def test_every_large_corpus_example_round_trips(tmp_path: Path) -> None:
    assert LARGE.is_dir(), f"no corpus at {LARGE}"
    directories = {spec: project(tmp_path, spec) for spec in specs()}
    results = run_builds(list(directories.values()))
    failed = {
        spec.name: (results[d].stdout + results[d].stderr)[-1500:]
        for spec, d in directories.items()
        if results[d].returncode != 0
    }
    assert not failed, failed
    reports = probe_all(
        {
            re.sub(r"^" + re.escape(str(LARGE)) + "/", "", str(spec)): (spec, d / "out", d.name)
            for spec, d in directories.items()
        }
    )
    print(summary("corpus-large", reports))
    found = differences(reports, KNOWN)
    assert not found, f"{len(found)} examples changed or refused:\n" + "\n".join(found)
