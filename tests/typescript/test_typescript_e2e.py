"""The TypeScript client, compiled by tsc to `dist/` and run by node, against the real
`outreach-server`: the same scenario as the Python client's end-to-end tests (keys, contacts
across pages, suppress and the ledger, a webhook's delivery verified, a typed 404, a 429 and
its retry after Retry-After), the HTTP response beside the data, pacing under the real rate
limits and an upload to the `uploads` feature fixture's server.

The scenario is `scenario.mjs`; this module builds the packages, starts the servers and passes
their addresses to it. Skips without node or npm (fails under CI=true).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from outreach_client.testing import OutreachServer, start_outreach_server
from spec_gen.targets.typescript import OUTPUT_DIR
from ts_support import ROOT, tsc_or_skip

FEATURES = ROOT / "tests" / "features"
if str(FEATURES) not in sys.path:
    sys.path.insert(0, str(FEATURES))

from harness import app, models
from http_server import serve_http


def compile_package(tsc: Path, source: Path, into: Path) -> str:
    """`tsc -p tsconfig.json` (the package's own build) into `into/dist`; the file:// URL of
    its `dist/index.js`."""
    shutil.copytree(source, into, ignore=shutil.ignore_patterns("dist", "node_modules"))
    done = subprocess.run(
        [str(tsc), "-p", "tsconfig.json"], cwd=into, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    index = into / "dist" / "index.js"
    assert index.is_file() and (into / "dist" / "index.d.ts").is_file()
    return index.as_uri()


class Files:
    """The uploads fixture's handlers: what they got, answered as the feature test's."""

    def __init__(self) -> None:
        self.M = models("uploads")

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        assert [await part.read() for part in body.attachments or []] == [b"one", b"two"]
        tags = ",".join(body.tags or [])
        return self.M.Stored(name=body.title, size=body.file.size, fields={"tags": tags})

    async def put_blob(self, ctx: str, *, name: str, body: bytes) -> Any:
        return self.M.Stored(name=name, size=len(body))

    async def post_note(self, ctx: str, *, body: str) -> Any:
        return self.M.Stored(name=body, size=len(body))

    async def post_document(self, ctx: str, *, body: Any) -> Any:
        return self.M.Stored(name="document", size=0)


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OutreachServer, ...]]:
    """One server with limits out of the way, one with the spec's real rate limits."""
    roomy = {
        "OUTREACH_RATE_LIMIT_PER_SECOND": "100_000",
        "OUTREACH_RATE_LIMIT_PER_MINUTE": "1_000_000",
    }
    with (
        start_outreach_server(tmp_path_factory.mktemp("ts-e2e"), env=roomy) as server,
        start_outreach_server(tmp_path_factory.mktemp("ts-limited")) as limited,
    ):
        yield server, limited


def test_the_typescript_client_runs_the_python_clients_scenario(
    servers: tuple[OutreachServer, ...], tmp_path: Path
) -> None:
    tsc = tsc_or_skip()
    node = shutil.which("node")
    assert node is not None  # tsc_or_skip checked
    client = compile_package(tsc, ROOT / "generated" / OUTPUT_DIR, tmp_path / "outreach")
    uploads = compile_package(
        tsc, FEATURES / "uploads" / "expected" / OUTPUT_DIR, tmp_path / "uploads"
    )
    server, limited = servers
    limited_key = limited.run("create-key", "--org-id", str(limited.org_id), "--name", "ts")
    paced_key = limited.run("create-key", "--org-id", str(limited.org_id), "--name", "paced")
    emit = [
        *server.command, "admin", "emit-event", "campaign.created",
        "--org-id", str(server.org_id), "--payload", json.dumps({"n": 1}),
        "--database-url", server.database_url,
    ]  # fmt: skip
    with serve_http(app("uploads", files=Files())) as uploads_url:
        setup = {
            "client": client,
            "uploadsClient": uploads,
            "baseUrl": server.base_url,
            "apiKey": server.api_key,
            "limitedBaseUrl": limited.base_url,
            "limitedKey": limited_key["api_key_token"],
            "pacedKey": paced_key["api_key_token"],
            "uploadsBaseUrl": uploads_url,
            "emit": {"argv": emit, "env": server.env},
        }
        done = subprocess.run(
            [node, str(Path(__file__).with_name("scenario.mjs"))],
            env={**os.environ, "SCENARIO": json.dumps(setup)},
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert done.returncode == 0, done.stdout + done.stderr + server.log_tail()
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["checked"] == [
        "keys",
        "contacts",
        "suppressions",
        "webhook",
        "404",
        "429",
        "pacing",
        "upload",
        "runtime",
    ]
