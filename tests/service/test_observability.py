"""Request ids, metrics, access log and redacted JSON logging (outreach_server.app.observability, outreach_server.core.logs)."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import re
from collections.abc import Iterator
from datetime import datetime
from typing import Any

import pytest
from fastapi import FastAPI, HTTPException, Request
from fastapi.responses import JSONResponse
from fastapi.testclient import TestClient
from outreach_server.app.observability import (
    Observability,
    RequestContextMiddleware,
    install_observability,
)
from outreach_server.core.logs import configure_logging, redact_text, request_id_var
from prometheus_client.parser import text_string_to_metric_families
from starlette.types import Message

HEX32 = re.compile(r"[0-9a-f]{32}")
KEY = "outreach_live_abcdefghijklmnopqrstuvwxyz012345"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlc2lnbmF0dXJl"
app_log = logging.getLogger("tests.observability.app")


def make_app() -> FastAPI:
    """A small app shaped like the service: operation ids, `{"detail": ...}` errors."""
    app = FastAPI()

    @app.exception_handler(Exception)
    async def unexpected(request: Request, exc: Exception) -> JSONResponse:
        app_log.exception("unhandled error on %s %s", request.method, request.url.path)
        return JSONResponse({"detail": "Internal server error"}, status_code=500)

    @app.get("/items/{item_id}", operation_id="get_item")
    async def get_item(item_id: int) -> dict[str, Any]:
        if item_id == 0:
            raise HTTPException(404, "Item not found")
        app_log.info("serving item %d", item_id)
        return {"data": {"id": item_id}}

    @app.get("/boom", operation_id="boom")
    async def boom() -> None:
        raise RuntimeError("kaboom")

    @app.get("/whoami", operation_id="whoami")
    def whoami() -> dict[str, str | None]:  # sync: runs in the threadpool
        return {"request_id": request_id_var.get()}

    install_observability(app)
    return app


@pytest.fixture
def client() -> TestClient:
    return TestClient(make_app(), raise_server_exceptions=False)


@pytest.fixture
def restore_logging() -> Iterator[None]:
    """Put the root and uvicorn loggers back as they were (configure_logging is global)."""
    loggers = [
        logging.getLogger(name) for name in ("", "uvicorn", "uvicorn.error", "uvicorn.access")
    ]
    saved = [(lg, lg.handlers[:], lg.level, lg.propagate, lg.disabled) for lg in loggers]
    yield
    for lg, handlers, level, propagate, disabled in saved:
        for handler in lg.handlers:
            if handler not in handlers:
                handler.close()
        lg.handlers[:] = handlers
        lg.setLevel(level)
        lg.propagate = propagate
        lg.disabled = disabled


@pytest.fixture
def log_stream(restore_logging: None) -> io.StringIO:
    stream = io.StringIO()
    configure_logging("INFO", stream=stream)
    return stream


def json_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


# --- request ids ---------------------------------------------------------------------------


def test_request_id_is_generated_when_absent(client: TestClient) -> None:
    first = client.get("/items/1").headers["x-request-id"]
    second = client.get("/items/1").headers["x-request-id"]
    assert HEX32.fullmatch(first) and HEX32.fullmatch(second)
    assert first != second


@pytest.mark.parametrize("sane", ["abc-123", "A.b_c-9", "x", "7" * 64, "0f8fad5b-d9cb-469f"])
def test_sane_request_id_is_echoed(client: TestClient, sane: str) -> None:
    response = client.get("/items/1", headers={"X-Request-Id": sane})
    assert response.headers["x-request-id"] == sane


@pytest.mark.parametrize("insane", ["x" * 65, "", "has space", "a/b", "<script>", "id;rm", "a:b"])
def test_insane_request_id_is_replaced(client: TestClient, insane: str) -> None:
    response = client.get("/items/1", headers={"X-Request-Id": insane})
    assert HEX32.fullmatch(response.headers["x-request-id"])


def call_asgi(app: Any, headers: list[tuple[bytes, bytes]], path: str = "/items/1") -> Message:
    """One GET straight through the ASGI interface (headers httpx would refuse to send)."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(b"host", b"testserver"), *headers],
        "client": ("127.0.0.1", 1234),
        "server": ("testserver", 80),
    }
    sent: list[Message] = []

    async def receive() -> Message:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Message) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    return sent[0]


@pytest.mark.parametrize(
    "raw",
    [b"abc\r\nSet-Cookie: session=stolen", b"abc\n", b"abc\x00", "caf\u00e9".encode(), b"a" * 200],
)
def test_header_injection_attempt_is_replaced(raw: bytes) -> None:
    start = call_asgi(make_app(), [(b"x-request-id", raw)])
    headers = dict(start["headers"])
    assert start["status"] == 200
    assert HEX32.fullmatch(bytes(headers[b"x-request-id"]).decode())
    assert b"set-cookie" not in headers


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/nowhere/123", 404),  # no route
        ("GET", "/items/0", 404),  # the route's HTTPException
        ("GET", "/items/abc", 422),
        ("GET", "/boom", 500),  # unhandled: answered by ServerErrorMiddleware
        ("POST", "/items/1", 405),
    ],
)
def test_request_id_on_error_responses(
    client: TestClient, method: str, path: str, status: int
) -> None:
    response = client.request(method, path)
    assert response.status_code == status
    assert HEX32.fullmatch(response.headers["x-request-id"])
    echoed = client.request(method, path, headers={"X-Request-Id": "err-1"})
    assert echoed.headers["x-request-id"] == "err-1"


def test_500_body_comes_from_the_app_handler(client: TestClient) -> None:
    response = client.get("/boom")
    assert response.json() == {"detail": "Internal server error"}


def test_request_id_var_inside_handler_and_outside(client: TestClient) -> None:
    response = client.get("/whoami", headers={"X-Request-Id": "trace.42"})
    assert response.json() == {"request_id": "trace.42"}
    assert request_id_var.get() is None


def test_one_request_id_header_only(client: TestClient) -> None:
    response = client.get("/items/1")
    assert len(response.headers.get_list("x-request-id")) == 1


# --- metrics -------------------------------------------------------------------------------


def samples(client: TestClient, name: str) -> list[tuple[dict[str, str], float]]:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return [
        (sample.labels, sample.value)
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
        if sample.name == name
    ]


def count(client: TestClient, **labels: str) -> float:
    return sum(
        value
        for sample_labels, value in samples(client, "outreach_http_requests_total")
        if all(sample_labels.get(k) == v for k, v in labels.items())
    )


def test_counter_by_operation_method_and_status(client: TestClient) -> None:
    for path in ["/items/1", "/items/2", "/items/0", "/items/abc", "/boom", "/nowhere/123"]:
        client.get(path)
    assert count(client, operation_id="get_item", method="GET", status="200") == 2
    assert count(client, operation_id="get_item", method="GET", status="404") == 1
    assert count(client, operation_id="get_item", method="GET", status="422") == 1
    assert count(client, operation_id="boom", method="GET", status="500") == 1
    assert count(client, operation_id="unmatched", method="GET", status="404") == 1


def test_labels_never_carry_raw_paths(client: TestClient) -> None:
    for path in ["/nowhere/123", "/a/b/c/d", "/items/5", "/items/5/"]:
        client.get(path, follow_redirects=False)
    client.request("BREW", "/items/5")
    text = client.get("/metrics").text
    values = {
        value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
        for value in sample.labels.values()
    }
    # (not `"123" not in text`: timestamps and sums may contain any digits)
    assert not any("/" in value or "123" in value for value in values), values
    assert "/nowhere" not in text and "/a/b" not in text and "/items" not in text
    assert count(client, operation_id="unmatched", status="404") == 2
    assert count(client, operation_id="unmatched", status="307") == 1  # /items/5/ redirected
    assert count(client, operation_id="get_item", method="OTHER", status="405") == 1


def test_duration_histogram_by_operation(client: TestClient) -> None:
    client.get("/items/1")
    client.get("/items/2")
    counts = {
        labels["operation_id"]: value
        for labels, value in samples(client, "outreach_http_request_duration_seconds_count")
    }
    assert counts["get_item"] == 2
    buckets = [
        labels["le"]
        for labels, _ in samples(client, "outreach_http_request_duration_seconds_bucket")
        if labels["operation_id"] == "get_item"
    ]
    assert 2 < len(buckets) <= 8


def test_metrics_route_is_outside_the_schema(client: TestClient) -> None:
    app = client.app
    assert isinstance(app, FastAPI)
    assert "/metrics" not in app.openapi()["paths"]


def test_two_apps_have_separate_registries() -> None:
    first, second = make_app(), make_app()
    first_client, second_client = TestClient(first), TestClient(second)
    first_client.get("/items/1")
    first_client.get("/items/1")
    second_client.get("/items/1")
    assert count(first_client, operation_id="get_item", status="200") == 2
    assert count(second_client, operation_id="get_item", status="200") == 1
    assert first.state.observability.registry is not second.state.observability.registry


def test_install_is_idempotent_and_refused_once_started() -> None:
    app = make_app()
    obs = app.state.observability
    assert install_observability(app) is obs
    TestClient(app).get("/items/1")
    other = FastAPI()
    TestClient(other).get("/")
    with pytest.raises(RuntimeError):
        install_observability(other)


def test_middleware_alone_wraps_any_asgi_app() -> None:
    async def plain(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    obs = Observability()
    start = call_asgi(RequestContextMiddleware(plain, obs), [(b"x-request-id", b"r-1")])
    assert (b"x-request-id", b"r-1") in start["headers"]
    exposition = bytes(obs.metrics_response().body).decode()
    assert 'operation_id="unmatched",status="204"' in exposition


# --- logging -------------------------------------------------------------------------------


def test_log_lines_are_json_with_the_request_id(
    client: TestClient, log_stream: io.StringIO
) -> None:
    request_id = client.get("/items/7").headers["x-request-id"]
    [app_line] = [line for line in json_lines(log_stream) if line["logger"] == app_log.name]
    assert app_line["msg"] == "serving item 7"
    assert app_line["level"] == "INFO"
    assert app_line["request_id"] == request_id
    assert datetime.fromisoformat(app_line["ts"]).utcoffset() is not None
    assert app_line["ts"].endswith("Z")


def test_access_log_line(client: TestClient, log_stream: io.StringIO) -> None:
    response = client.get("/items/7?token=supersecretvalue&page=2")
    [access] = [line for line in json_lines(log_stream) if line["logger"].endswith("access")]
    assert access["logger"] == "outreach_server.access"
    assert access["request_id"] == response.headers["x-request-id"]
    assert access["method"] == "GET"
    assert access["path"] == "/items/7"
    assert access["route"] == "/items/{item_id}"
    assert access["status"] == 200
    assert access["operation_id"] == "get_item"
    assert isinstance(access["duration_ms"], float)
    assert "page=2" not in json.dumps(access)
    # other loggers (here httpx's) may write the URL, but never the secret in it
    assert "supersecretvalue" not in log_stream.getvalue()


def test_unhandled_error_log_carries_the_request_id(
    client: TestClient, log_stream: io.StringIO
) -> None:
    client.get("/boom", headers={"X-Request-Id": "boom-1"})
    lines = json_lines(log_stream)
    [error] = [line for line in lines if line["logger"] == app_log.name]
    assert error["level"] == "ERROR"
    assert error["request_id"] == "boom-1"
    assert "RuntimeError: kaboom" in error["exc"]
    [access] = [line for line in lines if line["logger"] == "outreach_server.access"]
    assert (access["status"], access["operation_id"], access["request_id"]) == (
        500,
        "boom",
        "boom-1",
    )


def test_request_id_is_null_outside_requests(log_stream: io.StringIO) -> None:
    app_log.warning("startup")
    [line] = json_lines(log_stream)
    assert line["request_id"] is None
    assert line["level"] == "WARNING"


LEAKY_CALLS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    (f"Authorization: Bearer {KEY}", (), {}),
    ("got header %s", (f"Bearer {KEY}",), {}),
    ("bearer %s sent", ("opaque-token-without-prefix",), {}),
    ("key %s", (KEY,), {}),
    ("in the middle:%s:of text", (KEY,), {}),
    ("dict arg %s", ({"Authorization": f"Bearer {KEY}", "name": "kept"},), {}),
    ("payload %s", ({"secret": "plain-webhook-secret", "name": "kept"},), {}),
    ("nested %s", ({"webhook": {"signing_secret": "plain-webhook-secret"}},), {}),
    ("mapping %(who)s", ({"who": KEY},), {}),
    ("headers %s", ([(b"authorization", f"Bearer {KEY}".encode())],), {}),
    ("repr %r", ({"password": "hunter2-plain"},), {}),
    ("extra", (), {"extra": {"headers": {"authorization": f"Bearer {KEY}"}}}),
    ("extra", (), {"extra": {"api_key": "plain-api-key-value"}}),
    ("extra", (), {"extra": {"note": f"created {KEY} today"}}),
    ("extra", (), {"extra": {"items": [{"token": "plain-token-value"}]}}),
    ("query string ?token=plain-token-value&page=2", (), {}),
    (f"jwt {JWT}", (), {}),
    (f"test key outreach_test_{'A' * 43}", (), {}),
]
SECRETS = [
    KEY,
    "opaque-token-without-prefix",
    "plain-webhook-secret",
    "hunter2-plain",
    "plain-api-key-value",
    "plain-token-value",
    JWT,
    "A" * 43,
]


@pytest.mark.parametrize(("msg", "args", "kwargs"), LEAKY_CALLS)
def test_secrets_are_redacted(
    log_stream: io.StringIO, msg: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    app_log.info(msg, *args, **kwargs)
    output = log_stream.getvalue()
    assert not any(secret in output for secret in SECRETS), output
    assert "[redacted]" in output
    json.loads(output)  # still one valid JSON line


def test_redaction_keeps_the_rest(log_stream: io.StringIO) -> None:
    app_log.info("dict arg %s", {"Authorization": f"Bearer {KEY}", "name": "kept"})
    app_log.info("token sent", extra={"user": "ann", "count": 3})
    first, second = json_lines(log_stream)
    assert first["msg"] == "dict arg {'Authorization': '[redacted]', 'name': 'kept'}"
    assert (second["user"], second["count"]) == ("ann", 3)


def test_secrets_in_exceptions_are_redacted(log_stream: io.StringIO) -> None:
    try:
        raise ValueError(f"bad key {KEY}")
    except ValueError:
        app_log.exception("failed")
    [line] = json_lines(log_stream)
    assert KEY not in log_stream.getvalue()
    assert "ValueError: bad key [redacted]" in line["exc"]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"Authorization: Bearer {KEY}", "Authorization: Bearer [redacted]"),
        ("Bearer abc.def-ghi", "Bearer [redacted]"),
        ("Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [redacted]"),
        ("secret=abc&page=2", "secret=[redacted]&page=2"),
        (f'{{"api_key": "{KEY}"}}', '{"api_key": "[redacted]"}'),
        ("GET /webhooks/wh_123 200 1.2ms", "GET /webhooks/wh_123 200 1.2ms"),
        ("outreach_live_short", "outreach_live_short"),
        ("Missing Authorization header", "Missing Authorization header"),
    ],
)
def test_redact_text(text: str, expected: str) -> None:
    assert redact_text(text) == expected
    assert redact_text(expected) == expected  # idempotent


def test_configure_logging_is_idempotent(restore_logging: None) -> None:
    stream = io.StringIO()
    configure_logging(stream=stream)
    configure_logging("debug", stream=stream)
    ours = [h for h in logging.getLogger().handlers if getattr(h, "stream", None) is stream]
    assert len(ours) == 1
    assert logging.getLogger().level == logging.DEBUG
    app_log.info("once")
    assert len(stream.getvalue().splitlines()) == 1


def test_uvicorn_loggers(log_stream: io.StringIO) -> None:
    logging.getLogger("uvicorn.error").info("Started server process %d", 42)
    logging.getLogger("uvicorn.access").info('%s - "GET /x?token=%s HTTP/1.1" 200', "1.2.3.4", "t")
    [line] = json_lines(log_stream)
    assert (line["logger"], line["msg"]) == ("uvicorn.error", "Started server process 42")


def test_uvicorn_loggers_left_quiet_by_an_earlier_server_are_heard_again(
    restore_logging: None,
) -> None:
    """uvicorn.Config(log_level="warning") or a dictConfig leaves a level / `disabled` on
    uvicorn's loggers; configure_logging resets them, so the root's level decides."""
    logging.getLogger("uvicorn.error").setLevel(logging.WARNING)
    logging.getLogger("uvicorn").disabled = True
    stream = io.StringIO()
    configure_logging("INFO", stream=stream)
    logging.getLogger("uvicorn.error").info("Started server process %d", 7)
    [line] = json_lines(stream)
    assert line["msg"] == "Started server process 7"


def test_default_stream_is_stderr(
    restore_logging: None, capsys: pytest.CaptureFixture[str]
) -> None:
    configure_logging()
    app_log.warning("to stderr %s", f"Bearer {KEY}")
    captured = capsys.readouterr()
    assert captured.out == ""
    [line] = [json.loads(x) for x in captured.err.splitlines()]
    assert line["msg"] == "to stderr Bearer [redacted]"


def test_text_format(restore_logging: None) -> None:
    stream = io.StringIO()
    configure_logging(json_format=False, stream=stream)
    app_log.warning("plain %s", KEY)
    line = stream.getvalue().strip()
    assert line.endswith("WARNING tests.observability.app [None] plain [redacted]")
