"""Every security scheme, honoured per operation by a generated client, seen by a real HTTP server.

The client is generated from `tests/features/client_auth` (one operation per scheme, alternatives,
optional and no authentication) into a temporary directory and imported; a local HTTP server
records what each request carried.
"""

from __future__ import annotations

import base64
import importlib
import json
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from spec_gen.build import render_tree
from spec_gen.config import load_config

FIXTURE = Path(__file__).parents[1] / "features" / "client_auth"


class Recorder:
    """A real HTTP server answering `{"ok": true}` and keeping each request's path, query, headers."""

    def __init__(self) -> None:
        self.seen: list[dict[str, Any]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                url = urlsplit(self.path)
                recorder.seen.append(
                    {
                        "path": url.path,
                        "query": parse_qs(url.query),
                        "headers": {k.lower(): v for k, v in self.headers.items()},
                    }
                )
                body = json.dumps({"ok": True}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}/api"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def last(self) -> dict[str, Any]:
        return self.seen[-1]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def secure_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("secure")
    for name, content in render_tree(load_config(FIXTURE), None).files.items():
        path = out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    sys.path.insert(0, str(out / "client"))
    try:
        yield importlib.import_module("secure_client")
    finally:
        sys.path.remove(str(out / "client"))
        for module in [m for m in sys.modules if m.split(".")[0] == "secure_client"]:
            del sys.modules[module]


@pytest.fixture
def server() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.close()


CREDENTIALS = {
    "header_key": "hk-1",
    "query_key": "qk-2",
    "cookie_key": "ck 3",
    "username": "ada",
    "password": "pa:ss",
    "bearer_token": "bt-4",
    "petstore_token": "oauth-5",
    "openid_token": "oidc-6",
}


def test_each_scheme_travels_where_the_spec_says(
    secure_client: ModuleType, server: Recorder
) -> None:
    client = secure_client.Client(base_url=server.base_url, **CREDENTIALS)
    client.auth.header_key()
    assert server.last()["headers"]["x-api-key"] == "hk-1"
    assert "authorization" not in server.last()["headers"]
    client.auth.query_key()
    assert server.last()["query"] == {"key": ["qk-2"]}
    client.auth.cookie_key()
    assert server.last()["headers"]["cookie"] == "session=ck%203"
    client.auth.basic()
    sent = server.last()["headers"]["authorization"]
    assert sent == "Basic " + base64.b64encode(b"ada:pa:ss").decode()
    client.auth.bearer()
    assert server.last()["headers"]["authorization"] == "Bearer bt-4"
    client.auth.oauth()
    assert server.last()["headers"]["authorization"] == "Bearer oauth-5"
    client.auth.openid()
    assert server.last()["headers"]["authorization"] == "Bearer oidc-6"
    client.auth.key_and_basic()
    both = server.last()["headers"]
    assert both["x-api-key"] == "hk-1" and both["authorization"].startswith("Basic ")
    client.auth.anonymous()
    assert "authorization" not in server.last()["headers"]
    assert "x-api-key" not in server.last()["headers"]


def test_alternatives_pick_the_first_complete_one(
    secure_client: ModuleType, server: Recorder
) -> None:
    only_bearer = secure_client.Client(base_url=server.base_url, bearer_token="bt")
    only_bearer.auth.key_or_bearer()
    assert server.last()["query"] == {} and server.last()["headers"]["authorization"] == "Bearer bt"
    both = secure_client.Client(base_url=server.base_url, query_key="qk", bearer_token="bt")
    both.auth.key_or_bearer()
    assert server.last()["query"] == {"key": ["qk"]}
    assert "authorization" not in server.last()["headers"]


def test_optional_security_sends_the_credential_only_when_set(
    secure_client: ModuleType, server: Recorder
) -> None:
    secure_client.Client(base_url=server.base_url, bearer_token="bt").auth.optional_auth()
    assert server.last()["headers"]["authorization"] == "Bearer bt"
    secure_client.Client(base_url=server.base_url).auth.optional_auth()
    assert "authorization" not in server.last()["headers"]


def test_missing_credentials_are_refused_before_sending(
    secure_client: ModuleType, server: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    for env in ("SECURE_USERNAME", "SECURE_PASSWORD", "SECURE_HEADER_KEY"):
        monkeypatch.delenv(env, raising=False)
    client = secure_client.Client(base_url=server.base_url, username="ada")
    with pytest.raises(secure_client.APIError, match=r"password= \(or \$SECURE_PASSWORD\)"):
        client.auth.basic()
    assert server.seen == []


def test_credentials_come_from_the_environment(
    secure_client: ModuleType, server: Recorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SECURE_HEADER_KEY", "from-env")
    secure_client.Client(base_url=server.base_url).auth.header_key()
    assert server.last()["headers"]["x-api-key"] == "from-env"


async def _async_basic(secure_client: ModuleType, base_url: str) -> None:
    async with secure_client.AsyncClient(base_url=base_url, username="u", password="p") as client:
        await client.auth.basic()


def test_the_async_client_authenticates_the_same_way(
    secure_client: ModuleType, server: Recorder
) -> None:
    import asyncio

    asyncio.run(_async_basic(secure_client, server.base_url))
    assert server.last()["headers"]["authorization"] == "Basic " + base64.b64encode(b"u:p").decode()
