"""The generated client, sync and async, against the real service over HTTP: every operation.

One scenario (`exercise`) calls every operation of the spec through a client and checks the
results; it runs once with `Client` and once with `AsyncClient`. A request hook records
which operation each request reached, and the test fails if any operation was left out.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from outreach_api.operations import OPERATIONS
from outreach_client import (
    AsyncClient,
    AuthenticationError,
    BadRequestError,
    Client,
    ConflictError,
    NotFoundError,
    PaymentRequiredError,
    PermissionDeniedError,
    UnprocessableEntityError,
)
from outreach_client.testing import OutreachServer, start_outreach_server

DEMO_LINKEDIN = "https://www.linkedin.com/in/ada-lovelace-demo"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    directory = tmp_path_factory.mktemp("client-http")
    with start_outreach_server(
        directory,
        env={
            "OUTREACH_RATE_LIMIT_PER_SECOND": "100_000",
            "OUTREACH_RATE_LIMIT_PER_MINUTE": "1_000_000",
        },
    ) as running:
        yield running


def operation_matcher() -> Callable[[str, str], str | None]:
    """(method, path) -> the operationId it reaches."""
    table = [
        (op.method, re.compile("^" + re.sub(r"\{[^}]+\}", "[^/]+", op.path) + "$"), op.operation_id)
        for op in sorted(OPERATIONS.values(), key=lambda op: op.path.count("{"))  # literals first
    ]

    def match(method: str, path: str) -> str | None:
        for verb, pattern, operation_id in table:
            if verb == method and pattern.match(path):
                return operation_id
        return None

    return match


class Adapter:
    """Lets one scenario drive the sync and the async client."""

    def __init__(self, is_async: bool) -> None:
        self.is_async = is_async

    async def __call__(self, value: Any) -> Any:
        return await value if self.is_async else value

    async def all(self, listing: Any) -> list[Any]:
        if self.is_async:
            return [item async for item in listing]
        return list(listing)

    async def raises(self, error: type[Exception], thunk: Callable[[], Any]) -> Exception:
        try:
            result = thunk()
            if self.is_async:
                await result
        except error as exc:
            return exc
        raise AssertionError(f"expected {error.__name__}")


async def exercise(server: OutreachServer, client: Any, other: Any, run: Adapter) -> None:
    list_id = server.list_id
    org = str(server.org_id)
    contacts = await run.all(client.contacts.list(limit=2))
    assert len(contacts) >= 5  # walked three pages of two
    first, second = contacts[0].id, contacts[1].id

    # suppressions
    assert (await run(client.suppressions.status(contact_id=first))).channels == []
    await run(client.suppressions.suppress(contact_id=first))
    assert (await run(client.suppressions.status(contact_id=first))).channels != []
    added = await run(client.suppressions.bulk_add(body={"contact_ids": [second]}))
    assert added.model_dump()
    ledger = await run.all(client.suppressions.list(limit=1))
    assert {row.contact_id for row in ledger} >= {first, second}
    await run(client.suppressions.unsuppress(contact_id=first))
    reinstated = await run(client.suppressions.reinstate(body={"contact_ids": [second]}))
    assert reinstated.model_dump()
    assert (await run(client.suppressions.status(contact_id=second))).channels == []

    # contacts
    created = await run(
        client.contacts.create(
            body={"list_id": list_id, "email": f"new-{run.is_async}@example.com"}
        )
    )
    assert (await run(client.contacts.get(contact_id=created.id))).email == created.email
    fetched = await run.all(client.contacts.fetch(body={"columns": ["email"]}, limit=2))
    assert created.id in {row.id for row in fetched}
    stats = await run(client.contacts.dashboard_stats())
    assert (stats.model_extra or {}).get("total", 0) >= 6
    values = await run(client.contacts.column_values(body={"list_id": list_id, "record_id": first}))
    assert values is not None
    pictures = await run(client.contacts.profile_pictures(body={"linkedin_urls": [DEMO_LINKEDIN]}))
    assert isinstance(pictures, dict) and DEMO_LINKEDIN in pictures
    updated = await run(client.contacts.bulk_update(body=[{"id": first, "job_title": "Engineer"}]))
    assert (updated.updated, updated.failed, updated.errors) == (1, 0, [])
    assert (await run(client.contacts.get(contact_id=first))).job_title == "Engineer"
    owner = await run(client.contacts.assign_owner(body={"owner_id": "u1", "contact_ids": [first]}))
    assert owner.updated == 1
    withdrawn = await run(
        client.contacts.withdraw_from_sequences(body={"contact_ids": [first], "remove_all": True})
    )
    assert withdrawn.model_dump()
    verified = await run(client.contacts.verify_email(body={"contact_ids": [first]}))
    assert verified.model_dump()
    queued = await run(
        client.contacts.verify_email_async(body={"list_id": list_id, "contact_ids": [second]})
    )
    assert queued.model_dump()
    unlocked = await run(
        client.contacts.unlock_info(body={"list_id": list_id, "contact_ids": [first]})
    )
    assert unlocked.model_dump()

    # schema reads
    schema = client.contacts.schema
    assert await run(schema.base_columns(list_id=list_id))
    assert await run(schema.column_definitions())
    assert "email" in await run(schema.column_names())
    assert isinstance(await run(schema.custom_column_definitions()), list)
    assert (await run(schema.custom_columns())) is not None
    assert (await run(schema.form_fields())).model_dump()
    assert await run(schema.searchable_fields())

    # lists, and a merge into a new one
    target = await run(
        client.lists.create(body={"name": f"Target {run.is_async}", "type": "contacts"})
    )
    assert target.id in {item.id for item in await run.all(client.lists.list(limit=1))}
    merged = await run(
        client.contacts.merge_filtered(
            body={"target_list_id": target.id, "filter_model": {}, "source_list_id": list_id}
        )
    )
    assert merged.model_dump()

    # enrichment, forms, feedback, signatures
    checked = await run(client.enrichment.verify_email(body={"email": "ada@example.com"}))
    assert checked.model_dump()
    assert (
        await run(client.enrichment.waterfall.list_configs(list_id=list_id))
    ).model_dump() is not None
    form = server.run(
        "create-form", "--org-id", org, "--source-id", "web", "--form-key", f"f{run.is_async}"
    )
    overview = await run(client.forms.get_overview(form_key=f"f{run.is_async}", source_id="web"))
    assert overview.model_dump() and form["form_id"]
    survey = server.run("create-survey", "--org-id", org)["survey_id"]
    trigger = server.run("create-survey-trigger", "--org-id", org, "--survey-id", survey)[
        "trigger_id"
    ]
    deleted = await run(
        client.feedback.surveys.triggers.delete(survey_id=survey, trigger_id=str(trigger))
    )
    assert deleted.model_dump()
    mailbox = server.run(
        "create-mailbox", "--org-id", org, "--email", f"m{run.is_async}@example.com"
    )
    pushed = await run(
        client.signatures.mailboxes.push(mailbox_id=mailbox["mailbox_id"], body={"version": 1})
    )
    assert pushed.model_dump()
    stale = await run.raises(
        ConflictError,
        lambda: client.signatures.mailboxes.push(
            mailbox_id=mailbox["mailbox_id"], body={"version": 1}
        ),
    )
    assert isinstance(stale, ConflictError) and stale.status_code == 409

    # webhooks
    events = await run(client.webhooks.events.list())
    kinds = [e.event.value for e in events]
    hook = await run(client.webhooks.create(body={"url": server.receiver.url, "events": kinds[:1]}))
    assert hook.secret
    assert (await run(client.webhooks.get(webhook_id=hook.id))).url == server.receiver.url
    assert hook.id in {h.id for h in await run(client.webhooks.list())}
    renamed = await run(client.webhooks.update(webhook_id=hook.id, body={"name": "renamed"}))
    assert renamed.name == "renamed"
    assert await run.all(client.webhooks.deliveries.list(webhook_id=hook.id)) == []
    await run(client.webhooks.delete(webhook_id=hook.id))
    await run.raises(NotFoundError, lambda: client.webhooks.get(webhook_id=hook.id))

    # API keys (served under /v1)
    keys = await run(client.api_keys.list())
    new_key = await run(
        client.api_keys.create(body={"name": f"client {run.is_async}", "tier": "read"})
    )
    assert new_key.api_key_token.startswith("outreach_live_")
    assert (await run(client.api_keys.list())).total == keys.total + 1

    # app platform (preview): enabled, with an app and a service credential
    server.run("enable-flag", "--org-id", org, "M6_APP_TOKENS_ENABLED")
    app = server.run("create-app", "--name", f"app {run.is_async}")["app_id"]
    server.run("install-app", "--org-id", org, "--app-id", app, "--consent")
    server.run("create-signing-key")
    credential = server.run("create-app-credential", "--org-id", org, "--app-id", app)
    minted = await run(
        client.app_platform.service_token(
            body={
                "client_id": credential["client_id"],
                "client_secret": credential["client_secret"],
            }
        )
    )
    jwks = await run(client.app_platform.jwks())
    assert minted.model_dump() and jwks.keys
    refused = await run.raises(
        AuthenticationError,
        lambda: client.app_platform.exchange_session(
            identity_provider_principal_token="not-a-jwt", body={"app_id": app}
        ),
    )
    assert refused.status_code == 401

    # the error classes
    missing = await run.raises(NotFoundError, lambda: client.contacts.get(contact_id=987_654))
    assert missing.detail == "Contact not found" and missing.request_id
    invalid = await run.raises(
        UnprocessableEntityError, lambda: client.suppressions.list(limit=501)
    )
    assert isinstance(invalid, UnprocessableEntityError)
    assert [(e.loc, e.type) for e in invalid.errors] == [(("query", "limit"), "less_than_equal")]
    bad = await run.raises(
        BadRequestError, lambda: client.contacts.assign_owner(body={"owner_id": "u2"})
    )
    assert bad.status_code == 400
    unknown_key = await run.raises(
        AuthenticationError,
        lambda: other.with_options(api_key="outreach_live_nope").contacts.list(),
    )
    assert unknown_key.status_code == 401
    reader = await run(
        client.api_keys.create(body={"name": f"reader {run.is_async}", "tier": "read"})
    )
    denied = await run.raises(
        PermissionDeniedError,
        lambda: other.with_options(api_key=reader.api_key_token).suppressions.suppress(
            contact_id=first
        ),
    )
    assert denied.status_code == 403
    raw = await run(client.with_raw_response.contacts.get(contact_id=first))
    assert raw.status_code == 200 and raw.headers["content-type"].startswith("application/json")
    assert raw.parse().id == first and raw.request_id


def test_payment_required_is_typed(server: OutreachServer) -> None:
    org = server.run("create-org", "broke")["org_id"]
    token = server.run("create-key", "--org-id", str(org), "--name", "k")["api_key_token"]
    with server.client(api_key=token) as client, pytest.raises(PaymentRequiredError) as short:
        client.enrichment.verify_email(body={"email": "ada@example.com"})
    assert short.value.status_code == 402


def recorded_client(server: OutreachServer, seen: set[str], is_async: bool) -> Any:
    match = operation_matcher()

    def record(request: httpx.Request) -> None:
        operation = match(request.method, request.url.path)
        if operation:
            seen.add(operation)

    async def arecord(request: httpx.Request) -> None:
        record(request)

    if is_async:
        return AsyncClient(
            api_key=server.api_key,
            base_url=server.base_url,
            http_client=httpx.AsyncClient(event_hooks={"request": [arecord]}),
        )
    return Client(
        api_key=server.api_key,
        base_url=server.base_url,
        http_client=httpx.Client(event_hooks={"request": [record]}),
    )


@pytest.mark.parametrize("is_async", [False, True], ids=["sync", "async"])
def test_every_operation(server: OutreachServer, is_async: bool) -> None:
    seen: set[str] = set()
    client = recorded_client(server, seen, is_async)
    other = server.async_client() if is_async else server.client()
    asyncio.run(exercise(server, client, other, Adapter(is_async)))
    expected = set(OPERATIONS)
    assert expected - seen == set(), (
        f"operations the client never called: {sorted(expected - seen)}"
    )


def test_api_key_mode_is_readable(server: OutreachServer) -> None:
    assert server.client().key_mode == "live"
    assert server.client(api_key=server.test_key).key_mode == "test"
    assert Client(api_key="no-prefix", base_url=server.base_url).key_mode == "live"


def test_environment_and_base_url(server: OutreachServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OUTREACH_API_KEY", server.api_key)
    from_env = Client(base_url=server.base_url)
    assert from_env.api_key == server.api_key and from_env.contacts.get(contact_id=1).id == 1
    production = Client(environment="production")
    assert production.base_url.startswith("https://") and production.base_url.endswith("/api/v1")
    assert Client(environment="qa").base_url != production.base_url
    with pytest.raises(ValueError, match="unknown environment"):
        Client(environment="staging")
    # the API-key operations live under /v1 of the same host, whatever the base URL says
    assert Client(base_url=server.origin).api_keys.list().total >= 1
    monkeypatch.delenv("OUTREACH_API_KEY")
    from outreach_client import APIError

    with pytest.raises(APIError, match="OUTREACH_API_KEY"):
        Client(base_url=server.base_url).contacts.list()


def test_target_org_header_is_sent(server: OutreachServer) -> None:
    sent: list[str | None] = []
    http = httpx.Client(
        event_hooks={"request": [lambda r: sent.append(r.headers.get("x-target-org-id"))]}
    )
    client = Client(
        api_key=server.api_key, base_url=server.base_url, http_client=http, target_org_id="999999"
    )
    with pytest.raises(PermissionDeniedError):
        client.contacts.list()
    client.with_options(target_org_id=None).contacts.get(contact_id=1)
    assert sent == ["999999", None]


def run_async(thunk: Callable[[], Awaitable[Any]]) -> Any:
    return asyncio.run(thunk())


def test_async_page_is_awaitable_and_iterable(server: OutreachServer) -> None:
    async def go() -> tuple[int, int, bool]:
        async with server.async_client() as client:
            page = await client.contacts.list(limit=2)
            everything = [c async for c in client.contacts.list(limit=2)]
            return len(page.data), len(everything), page.has_next_page()

    first_page, everything, more = run_async(go)
    assert first_page == 2 and everything >= 5 and more
