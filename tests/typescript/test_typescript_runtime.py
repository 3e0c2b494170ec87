"""The TypeScript client's pagination, streamed answers and OAuth2 tokens, compiled by ONE tsc run and run by
node against servers the node scripts start (node's `http` module, written as real APIs
behave): every paging kind of the `pagination` feature fixture (`paging.mjs`) and the event
streams, JSON Lines, NDJSON and JSON text sequences of the `event_streams` fixture, sent in
chunks split mid-line, a stream stopped early cancelled (`streams.mjs`); the `oauth` fixture's
tokens fetched, cached, renewed and sent to HTTPS or loopback only (`oauth.mjs`). Skips without node
or npm (fails under CI=true)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from spec_gen.targets.typescript import OUTPUT_DIR
from ts_support import ROOT, TSCONFIG, tsc_or_skip

FEATURES = ROOT / "tests" / "features"
HERE = Path(__file__).parent
PACKAGES = ("pagination", "event_streams", "oauth")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """{fixture: the file:// URL of its client's compiled index.js}."""
    tsc = tsc_or_skip()
    root = tmp_path_factory.mktemp("ts-pages")
    for name in PACKAGES:
        shutil.copytree(FEATURES / name / "expected" / OUTPUT_DIR / "src", root / name / "src")
    options = {**TSCONFIG["compilerOptions"], "noEmit": False, "outDir": "dist", "rootDir": "."}
    config = {"compilerOptions": options, "include": [f"{name}/src" for name in PACKAGES]}
    (root / "tsconfig.json").write_text(json.dumps(config), encoding="utf-8")
    (root / "package.json").write_text('{"type": "module"}', encoding="utf-8")
    done = subprocess.run(
        [str(tsc), "-p", "tsconfig.json"], cwd=root, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return {name: (root / "dist" / name / "src" / "index.js").as_uri() for name in PACKAGES}


def run_node(script: str, client: str) -> list[str]:
    node = shutil.which("node")
    assert node is not None  # tsc_or_skip checked
    done = subprocess.run(
        [node, str(HERE / script)],
        env={**os.environ, "SCENARIO": json.dumps({"client": client})},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    checked: list[str] = json.loads(done.stdout.strip().splitlines()[-1])["checked"]
    return checked


def test_the_typescript_client_pages_every_kind(compiled: dict[str, str]) -> None:
    assert run_node("paging.mjs", compiled["pagination"]) == [
        "cursor",
        "cursor-header",
        "link",
        "offset",
        "page",
        "extensions",
        "unpaged",
        "other-origin",
    ]


def test_the_typescript_client_reads_streams_item_by_item(compiled: dict[str, str]) -> None:
    assert run_node("streams.mjs", compiled["event_streams"]) == [
        "events",
        "json-lines",
        "cancelled",
    ]


def test_the_typescript_client_fetches_its_oauth2_tokens(compiled: dict[str, str]) -> None:
    assert run_node("oauth.mjs", compiled["oauth"]) == [
        "client-credentials",
        "401",
        "expiry",
        "refresh",
        "discovery",
        "https-only",
    ]
