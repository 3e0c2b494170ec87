"""A client made by another generator (openapi-python-client) from the bundled spec works
against the real server: the spec, not only our own client, describes what the server does.

openapi-python-client is pinned in the `dev` extra (its output is imported here). It ignores
`servers`, so one client is made per base address: `/v1` for the API-key operations and
`/api/v1` for the rest. Its warnings about the spec, if any, are printed and fail the test.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from outreach_client.testing import OutreachServer, start_outreach_server

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "opc_outreach_client"
EXECUTABLE = "openapi-python-client"


def tool(name: str) -> str | None:
    return shutil.which(name, path=os.path.dirname(sys.executable)) or shutil.which(name)


@pytest.fixture(scope="module")
def opc(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The generated package, imported (`opc.api`, `opc.models`, `opc.AuthenticatedClient`)."""
    executable, spec_gen = tool(EXECUTABLE), tool("spec-gen")
    if executable is None or spec_gen is None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{EXECUTABLE} and spec-gen are required under CI=true")
        pytest.skip(f'{EXECUTABLE} not installed (pip install -e ".[dev]")')
    work = tmp_path_factory.mktemp("opc")
    bundled = subprocess.run(
        [spec_gen, "bundle"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    (work / "openapi.yaml").write_text(bundled.stdout, encoding="utf-8")
    (work / "config.yaml").write_text(
        f"package_name_override: {PACKAGE}\nproject_name_override: {PACKAGE}\n", encoding="utf-8"
    )
    done = subprocess.run(
        [
            executable,
            "generate",
            "--path",
            "openapi.yaml",
            "--config",
            "config.yaml",
            "--meta",
            "none",
            "--output-path",
            PACKAGE,
        ],
        cwd=work,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    output = (done.stdout + done.stderr).strip()
    print(f"{EXECUTABLE} generate:\n{output}")
    assert done.returncode == 0, output
    assert "warning" not in output.lower(), f"{EXECUTABLE} warned about the spec:\n{output}"
    sys.path.insert(0, str(work))
    try:
        package = importlib.import_module(PACKAGE)
        for module in ("api", "models", "types"):
            importlib.import_module(f"{PACKAGE}.{module}")
        yield package
    finally:
        sys.path.remove(str(work))
        for name in [n for n in sys.modules if n == PACKAGE or n.startswith(PACKAGE + ".")]:
            del sys.modules[name]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    directory = tmp_path_factory.mktemp("opc-server")
    with start_outreach_server(
        directory,
        env={"OUTREACH_RATE_LIMIT_PER_SECOND": "1000", "OUTREACH_RATE_LIMIT_PER_MINUTE": "100_000"},
    ) as running:
        yield running


def op(opc: ModuleType, tag: str, operation_id: str) -> Any:
    return importlib.import_module(f"{opc.__name__}.api.{tag}.{operation_id}")


def client(opc: ModuleType, base_url: str, token: str | None) -> Any:
    options: dict[str, Any] = {
        "base_url": base_url,
        "raise_on_unexpected_status": True,  # a status the spec does not declare fails
        "httpx_args": {"trust_env": False},
    }
    if token is None:
        return opc.Client(**options)
    return opc.AuthenticatedClient(token=token, **options)


@pytest.fixture(scope="module")
def api(opc: ModuleType, server: OutreachServer) -> Any:
    return client(opc, server.base_url, server.api_key)


def test_list_api_keys(opc: ModuleType, server: OutreachServer) -> None:
    keys_client = client(opc, server.origin + "/v1", server.api_key)
    response = op(opc, "api_keys", "list_api_keys").sync_detailed(client=keys_client)
    assert response.status_code == 200
    listed = response.parsed.data
    assert listed.total == len(listed.keys) >= 2
    assert {key.mode.value for key in listed.keys} == {"live", "test"}


def test_suppress_then_read_the_ledger_and_the_status(opc: ModuleType, api: Any) -> None:
    contacts = op(opc, "contacts", "list_contacts").sync_detailed(client=api)
    assert contacts.status_code == 200
    contact_id = contacts.parsed.data[0].id
    suppressed = op(opc, "suppressions", "suppress_contact").sync_detailed(contact_id, client=api)
    assert suppressed.status_code == 200
    assert suppressed.parsed.data.contact_id == contact_id
    assert suppressed.parsed.data.suppressed is True

    ledger = op(opc, "suppressions", "list_suppressions").sync_detailed(client=api)
    assert ledger.status_code == 200
    assert contact_id in {record.contact_id for record in ledger.parsed.data}

    status = op(opc, "suppressions", "get_contact_suppression_status").sync_detailed(
        contact_id, client=api
    )
    assert status.status_code == 200
    assert status.parsed.data.contact_id == contact_id
    assert status.parsed.data.channels


def test_create_a_webhook_and_list_event_kinds(
    opc: ModuleType, api: Any, server: OutreachServer
) -> None:
    kinds = op(opc, "webhooks", "list_webhook_events").sync_detailed(client=api)
    assert kinds.status_code == 200
    offered = {info.event for info in kinds.parsed.data}
    assert offered == set(opc.models.WebhookEventKind)

    body = opc.models.WebhookCreateRequest(
        url=server.receiver.url,
        events=[opc.models.WebhookEventKind.PERSON_ENRICHED],
        name="openapi-python-client",
    )
    created = op(opc, "webhooks", "create_webhook").sync_detailed(client=api, body=body)
    assert created.status_code == 201
    webhook = created.parsed.data
    assert webhook.secret and webhook.url == server.receiver.url
    assert webhook.events == [opc.models.WebhookEventKind.PERSON_ENRICHED]
    assert webhook.is_active is True

    fetched = op(opc, "webhooks", "get_webhook").sync_detailed(webhook.id, client=api)
    assert fetched.status_code == 200
    assert fetched.parsed.data.name == "openapi-python-client"
    assert not hasattr(fetched.parsed.data, "secret")


def test_not_found_is_a_parsed_error(opc: ModuleType, api: Any) -> None:
    response = op(opc, "suppressions", "get_contact_suppression_status").sync_detailed(
        999_999, client=api
    )
    assert response.status_code == 404
    assert isinstance(response.parsed, opc.models.Error)
    assert response.parsed.detail == "Contact not found"


def test_no_key_is_a_parsed_401(opc: ModuleType, server: OutreachServer) -> None:
    anonymous = client(opc, server.base_url, None)
    response = op(opc, "suppressions", "list_suppressions").sync_detailed(client=anonymous)
    assert response.status_code == 401
    assert isinstance(response.parsed, opc.models.Error)
    assert response.parsed.detail == "Missing Authorization header"
