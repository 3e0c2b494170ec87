"""Every example of the reference docs runs against a real server seeded with the demo data.

The examples come from the model the docs are rendered from, and are checked to appear
verbatim in the generated Markdown and HTML. Curl examples run with bash on one fresh demo
server, the Python ones with this interpreter on another (they repeat each other, and some
change what they touch). Examples that delete run after the others. Each must answer 2xx,
except the operations in ALLOWED, which cannot succeed on demo data: those must still reach
the operation and get a status the spec documents for it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import DOCS, load_site
from markupsafe import escape
from outreach_client.testing import OutreachServer
from spec_gen.docs import Site
from spec_gen.docs.model import Code, client_error

ORIGIN_IN_DOCS = "http://127.0.0.1:8000"
TIMEOUT = 60
NOT_A_JWT = "not-a-jwt"

# operationId -> (statuses it may answer on the demo data, why it cannot succeed there)
ALLOWED: dict[str, tuple[set[int], str]] = {
    "exchange_app_session": (
        {401},
        (
            "needs a JWT from an identity provider the server trusts (OUTREACH_APP_IDP_JWKS); "
            "the example's $IDENTITY_PROVIDER_PRINCIPAL_TOKEN is not one"
        ),
    ),
    "mint_service_token": (
        {401},
        (
            "needs an app credential, whose secret `admin create-app-credential` shows once: "
            "no fixed example can carry it"
        ),
    ),
}


def _examples(kind: str) -> list[Code]:
    found = [c for c in load_site().examples() if c.run == kind]
    # examples that delete run last: the others need what they remove
    return sorted(found, key=lambda c: c.operation_id.startswith("delete_"))


def _ids(codes: list[Code]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for code in codes:
        name = code.operation_id or "recipe"
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name}-{seen[name]}")
    return out


CURL = _examples("curl")
PYTHON = _examples("python")


def _env(server: OutreachServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("OUTREACH_")}
    env.update(
        OUTREACH_API_KEY=server.api_key, OUTREACH_IDENTITY_PROVIDER_PRINCIPAL_TOKEN=NOT_A_JWT
    )
    return env


def _documented(site: Site, operation_id: str) -> set[int]:
    op = site.api.operation(operation_id)
    return {int(r.status) for r in op.responses if r.status.isdigit()}


def test_every_operation_has_a_curl_and_a_python_example(docs_site: Site) -> None:
    for doc in docs_site.operations:
        assert sorted(c.run for c in doc.examples) == ["curl", "python"], doc.anchor


def test_allowlist_holds_documented_refusals_only(docs_site: Site) -> None:
    for operation_id, (statuses, reason) in ALLOWED.items():
        assert reason
        assert statuses <= _documented(docs_site, operation_id), operation_id
        assert not statuses & {400, 422} and all(s < 500 for s in statuses), operation_id


def test_examples_are_the_published_ones(docs_site: Site) -> None:
    markdown = "\n".join(p.read_text("utf-8") for p in sorted(DOCS.rglob("*.md")))
    page = (DOCS / "index.html").read_text("utf-8")
    for code in docs_site.examples():
        assert code.code.strip() in markdown, code.code
        assert str(escape(code.code.strip())) in page, code.code


@pytest.mark.slow
@pytest.mark.parametrize("code", CURL, ids=_ids(CURL))
def test_curl_example(
    code: Code, docs_site: Site, demo_server: OutreachServer, tmp_path: Path
) -> None:
    assert ORIGIN_IN_DOCS in code.code
    body = tmp_path / "body"
    command = code.code.replace(ORIGIN_IN_DOCS, demo_server.origin)
    command += f" -o {body} -w '%{{http_code}}'"
    done = subprocess.run(
        ["bash", "-c", command],
        env=_env(demo_server),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    status = int(done.stdout.strip())
    answer = body.read_text("utf-8") if body.exists() else ""
    print(f"{code.operation_id} -> {status} {answer[:200]}")
    if code.operation_id in ALLOWED:
        statuses, reason = ALLOWED[code.operation_id]
        assert status in statuses, f"{status} {answer}; expected {statuses}: {reason}"
    else:
        assert 200 <= status < 300, f"{status} {answer}"


@pytest.mark.slow
@pytest.mark.parametrize("code", PYTHON, ids=_ids(PYTHON))
def test_python_example(
    code: Code, docs_site: Site, python_demo_server: OutreachServer, tmp_path: Path
) -> None:
    script = tmp_path / "example.py"
    script.write_text(code.code.replace(ORIGIN_IN_DOCS, python_demo_server.origin), "utf-8")
    done = subprocess.run(
        [sys.executable, str(script)],
        env=_env(python_demo_server),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    if code.operation_id not in ALLOWED:
        assert done.returncode == 0, done.stderr[-3000:]
        return
    statuses, reason = ALLOWED[code.operation_id]
    raised = [f"{client_error(docs_site.api, str(s))}: {s} " for s in statuses]
    assert done.returncode != 0 and any(r in done.stderr for r in raised), (
        f"expected {raised} ({reason}):\n{done.stderr[-3000:]}"
    )
