"""Retries, backoff, Retry-After, pacing and timeouts, against real servers.

The rate-limit tests use the real service with the spec's limits (10 per second, 200 per
minute per key); the 5xx, connection and timeout tests use a small real HTTP server that
answers what each test asks for.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace
from typing import Any

import httpx
import pytest
from outreach_client import (
    APIConnectionError,
    APITimeoutError,
    AsyncClient,
    Client,
    InternalServerError,
    RateLimitError,
)
from outreach_client import base as client_base
from outreach_client.base import Pacer, retry_after, retry_delay
from outreach_client.testing import OutreachServer, start_outreach_server


@pytest.fixture
def sleeps(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the sync client asks for, in order; it still really sleeps.

    The waits are asserted exactly from this list; the wall clock only checks that the
    client did wait (a lower bound), since a loaded machine may add any delay on top.
    """
    asked: list[float] = []

    def sleep(seconds: float) -> None:
        asked.append(seconds)
        time.sleep(seconds)

    monkeypatch.setattr(client_base, "time", SimpleNamespace(sleep=sleep))
    return asked


@pytest.fixture(scope="module")
def limited(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    """The real service with the spec's real rate limits."""
    with start_outreach_server(tmp_path_factory.mktemp("limited")) as running:
        yield running


def fresh_key(server: OutreachServer) -> str:
    """A key of its own, so that each test starts with empty rate-limit windows."""
    created = server.run("create-key", "--org-id", str(server.org_id), "--name", "retry")
    return str(created["api_key_token"])


class Timeline:
    """httpx event hooks noting when each request left and each response came back."""

    def __init__(self) -> None:
        self.events: list[tuple[str, float, int, str | None]] = []

    def request(self, request: httpx.Request) -> None:
        self.events.append(("request", time.monotonic(), 0, None))

    def response(self, response: httpx.Response) -> None:
        self.events.append(
            (
                "response",
                time.monotonic(),
                response.status_code,
                response.headers.get("retry-after"),
            )
        )

    def http(self, **options: Any) -> httpx.Client:
        return httpx.Client(
            event_hooks={"request": [self.request], "response": [self.response]}, **options
        )

    def statuses(self) -> list[int]:
        return [status for kind, _, status, _ in self.events if kind == "response"]

    def requests(self) -> int:
        return sum(1 for kind, *_ in self.events if kind == "request")


def fill_window(server: OutreachServer, key: str) -> None:
    """Use up the key's 10 requests of the current second."""
    with Client(api_key=key, base_url=server.base_url, max_retries=0) as burst:
        for _ in range(10):
            burst.contacts.get(contact_id=1)


def test_a_real_429_is_retried_after_exactly_retry_after(
    limited: OutreachServer, sleeps: list[float]
) -> None:
    key = fresh_key(limited)
    timeline = Timeline()
    client = Client(
        api_key=key, base_url=limited.base_url, max_retries=2, http_client=timeline.http()
    )
    fill_window(limited, key)
    contact = client.contacts.get(contact_id=1)
    assert contact.id == 1
    assert timeline.statuses()[0] == 429 and timeline.statuses()[-1] == 200
    _, refused_at, _, asked = next(e for e in timeline.events if e[0] == "response" and e[2] == 429)
    retried_at = [e[1] for e in timeline.events if e[0] == "request"][1]
    assert asked is not None
    waited = retried_at - refused_at
    assert sleeps == [float(asked)], (asked, sleeps)
    assert waited >= float(asked) - 0.01, (asked, waited)


def test_without_retries_the_429_is_a_typed_error(limited: OutreachServer) -> None:
    key = fresh_key(limited)
    fill_window(limited, key)
    with pytest.raises(RateLimitError) as refused:
        Client(api_key=key, base_url=limited.base_url, max_retries=0).contacts.get(contact_id=1)
    assert refused.value.status_code == 429
    assert refused.value.retry_after is not None and refused.value.retry_after >= 1
    assert refused.value.response.headers["x-ratelimit-limit-second"] == "10"


def test_non_idempotent_and_billable_calls_are_not_retried_unless_opted_in(
    limited: OutreachServer,
) -> None:
    key = fresh_key(limited)
    timeline = Timeline()
    client = Client(
        api_key=key, base_url=limited.base_url, max_retries=3, http_client=timeline.http()
    )
    fill_window(limited, key)
    with pytest.raises(RateLimitError):
        client.suppressions.suppress(contact_id=2)  # a write by POST
    with pytest.raises(RateLimitError):
        client.contacts.verify_email(body={"contact_ids": [2]})  # billable
    assert timeline.statuses() == [429, 429]
    # opting in retries the write after Retry-After
    done = client.with_options(retry_unsafe=True).suppressions.suppress(contact_id=2)
    assert done.model_dump()
    assert timeline.statuses()[2:] in ([429, 200], [200])


def test_pacing_keeps_a_burst_under_the_limits(limited: OutreachServer) -> None:
    key = fresh_key(limited)
    timeline = Timeline()
    client = Client(
        api_key=key,
        base_url=limited.base_url,
        max_retries=0,
        pacing=True,
        http_client=timeline.http(),
    )
    started = time.monotonic()
    for _ in range(25):
        client.contacts.get(contact_id=1)
    elapsed = time.monotonic() - started
    assert timeline.statuses() == [200] * 25  # no 429: the client waited instead
    assert elapsed >= 2.0  # 25 requests at 10 per second need two full windows


def test_the_async_client_retries_too(limited: OutreachServer) -> None:
    key = fresh_key(limited)
    statuses: list[int] = []

    async def note(response: httpx.Response) -> None:
        statuses.append(response.status_code)

    async def go() -> int:
        http = httpx.AsyncClient(event_hooks={"response": [note]})
        async with AsyncClient(
            api_key=key, base_url=limited.base_url, max_retries=2, http_client=http
        ) as client:
            fill_window(limited, key)
            return (await client.contacts.get(contact_id=1)).id

    assert asyncio.run(go()) == 1
    assert statuses[0] == 429 and statuses[-1] == 200


# -- a scripted real HTTP server for 5xx, dates and timeouts ---------------------------------


class Script:
    def __init__(self) -> None:
        self.answers: list[tuple[int, dict[str, str], float]] = []
        self.hits = 0


@pytest.fixture
def scripted() -> Iterator[tuple[str, Script]]:
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            script.hits += 1
            status, headers, delay = script.answers.pop(0) if script.answers else (200, {}, 0.0)
            time.sleep(delay)
            body = b'{"data": {"id": 1, "list_id": 1, "email": "a@example.com", "created_at": 0}}'
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/api/v1", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_5xx_is_retried_honouring_fractional_retry_after(
    scripted: tuple[str, Script], sleeps: list[float]
) -> None:
    base_url, script = scripted
    script.answers = [(503, {"Retry-After": "0.4"}, 0.0), (502, {}, 0.0)]
    started = time.monotonic()
    contact = Client(api_key="k", base_url=base_url, max_retries=2).contacts.get(contact_id=1)
    elapsed = time.monotonic() - started
    assert contact.id == 1 and script.hits == 3
    # 0.4 s asked, then a backoff of 1.0 s with up to 25 % jitter
    assert len(sleeps) == 2 and sleeps[0] == 0.4 and 0.75 <= sleeps[1] <= 1.0, sleeps
    assert elapsed >= sum(sleeps) - 0.01


def test_5xx_after_the_last_retry_is_raised(scripted: tuple[str, Script]) -> None:
    base_url, script = scripted
    script.answers = [(500, {"Retry-After": "0"}, 0.0)] * 3
    with pytest.raises(InternalServerError) as failed:
        Client(api_key="k", base_url=base_url, max_retries=2).contacts.get(contact_id=1)
    assert failed.value.status_code == 500 and script.hits == 3


def test_a_retry_after_beyond_the_cap_is_not_waited_for(scripted: tuple[str, Script]) -> None:
    base_url, script = scripted
    script.answers = [(429, {"Retry-After": "3600"}, 0.0)]
    with pytest.raises(RateLimitError):
        Client(api_key="k", base_url=base_url, max_retries=2).contacts.get(contact_id=1)
    assert script.hits == 1


def test_timeouts_raise_the_timeout_error(scripted: tuple[str, Script]) -> None:
    base_url, script = scripted
    script.answers = [(200, {}, 1.0)]
    with pytest.raises(APITimeoutError):
        Client(api_key="k", base_url=base_url, max_retries=0, timeout=0.2).contacts.get(
            contact_id=1
        )


def test_connection_errors_are_retried_with_backoff(sleeps: list[float]) -> None:
    attempts: list[float] = []
    http = httpx.Client(event_hooks={"request": [lambda r: attempts.append(time.monotonic())]})
    closed = "http://127.0.0.1:9/api/v1"  # discard port: nothing listens
    with pytest.raises(APIConnectionError):
        Client(api_key="k", base_url=closed, max_retries=2, http_client=http).contacts.get(
            contact_id=1
        )
    assert len(attempts) == 3
    first, second = attempts[1] - attempts[0], attempts[2] - attempts[1]
    assert len(sleeps) == 2 and 0.375 <= sleeps[0] <= 0.5 and 0.75 <= sleeps[1] <= 1.0, sleeps
    assert first >= sleeps[0] - 0.01 and second >= sleeps[1] - 0.01


def test_retry_after_parsing() -> None:
    def answer(value: str) -> httpx.Response:
        return httpx.Response(429, headers={"Retry-After": value})

    assert retry_after(answer("2")) == 2.0
    assert retry_after(answer("0.25")) == 0.25
    in_three = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 3))
    assert 1.5 <= (retry_after(answer(in_three)) or 0) <= 3.5
    assert retry_after(httpx.Response(429)) is None
    assert retry_delay(0, answer("5")) == 5.0
    assert retry_delay(0, answer("120")) is None  # beyond the cap: raise instead
    assert all(0.375 <= (retry_delay(0, None) or 0) <= 0.5 for _ in range(50))
    assert all(6.0 <= (retry_delay(10, None) or 0) <= 8.0 for _ in range(50))  # capped


def test_pacer_reserves_slots_in_both_windows() -> None:
    pacer = Pacer(((2, 1.0), (3, 60.0)))
    waits = [pacer.reserve()[1] for _ in range(4)]
    assert waits[0] == 0 and waits[1] == 0
    assert 0.95 <= waits[2] <= 1.0  # the third waits for the per-second window
    assert 59.0 <= waits[3] <= 60.0  # the fourth for the per-minute one
    slot, _ = pacer.reserve()
    before = slot[0]
    pacer.done(slot)  # an answer that came back now moves nothing earlier
    assert slot[0] >= before
    assert Pacer.for_key("a") is Pacer.for_key("a") and Pacer.for_key("a") is not Pacer.for_key("b")


def test_a_real_5xx_is_typed_and_a_write_is_not_retried(limited: OutreachServer) -> None:
    """The service answers 503 to a token mint while no signing key exists (none is created
    on this server): `InternalServerError`, sent once although 503 is retryable, since the
    mint is a POST."""
    org = str(limited.org_id)
    limited.run("enable-flag", "--org-id", org, "M6_APP_TOKENS_ENABLED")
    app = limited.run("create-app", "--name", "no signing key")["app_id"]
    limited.run("install-app", "--org-id", org, "--app-id", app, "--consent")
    credential = limited.run("create-app-credential", "--org-id", org, "--app-id", app)
    timeline = Timeline()
    client = Client(base_url=limited.base_url, max_retries=2, http_client=timeline.http())
    with pytest.raises(InternalServerError) as unavailable:
        client.app_platform.service_token(
            body={
                "client_id": credential["client_id"],
                "client_secret": credential["client_secret"],
            }
        )
    assert unavailable.value.status_code == 503
    assert "signing" in str(unavailable.value.detail)
    assert timeline.statuses() == [503]


def test_pacing_holds_after_an_answer_says_the_window_is_spent(limited: OutreachServer) -> None:
    """Another process spent the key's window: the paced client's first call is answered with
    `X-RateLimit-Remaining: 0`, so its next call waits for `X-RateLimit-Reset` instead of
    meeting a 429 (its own count alone would say nine places are left)."""
    remaining: list[str | None] = []

    def note(response: httpx.Response) -> None:
        remaining.append(response.headers.get("x-ratelimit-remaining"))

    for _ in range(3):  # a loaded machine may let the window roll over before the paced call
        key = fresh_key(limited)
        remaining.clear()
        with Client(api_key=key, base_url=limited.base_url, max_retries=0) as other:
            for _ in range(9):
                other.contacts.get(contact_id=1)
        paced = Client(
            api_key=key,
            base_url=limited.base_url,
            max_retries=0,
            pacing=True,
            http_client=httpx.Client(event_hooks={"response": [note]}),
        )
        paced.contacts.get(contact_id=1)
        if remaining == ["0"]:
            paced.contacts.get(contact_id=1)  # held until the reset, then answered (no 429)
            assert len(remaining) == 2
            return
    pytest.fail(f"the window never read as spent: {remaining}")
