"""Client ergonomics against the real service: body fields as keyword arguments, ids accepted
as `int | str`, and local validation failures raised as the client's own error."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pydantic
import pytest
from outreach_client import (
    OMIT,
    APIError,
    AsyncClient,
    Client,
    PermissionDeniedError,
    RequestValidationError,
)
from outreach_client.testing import OutreachServer, start_outreach_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[OutreachServer]:
    with start_outreach_server(tmp_path_factory.mktemp("client-ergonomics")) as running:
        yield running


class Recorder:
    """An httpx client recording every request it sends."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.http = httpx.Client(event_hooks={"request": [self.requests.append]})


def test_body_fields_as_keywords_end_to_end(server: OutreachServer) -> None:
    recorder = Recorder()
    client = server.client(http_client=recorder.http)
    hook = client.webhooks.create(url=f"{server.receiver.url}/kw", events=["campaign.created"])
    assert hook.url == f"{server.receiver.url}/kw"
    assert [e.value for e in hook.events] == ["campaign.created"]
    assert hook.name is None  # an omitted optional field is not sent
    sent = recorder.requests[-1]
    assert sent.headers["content-type"].startswith("application/json")
    assert b'"name"' not in sent.content
    assert client.webhooks.get(hook.id).url == f"{server.receiver.url}/kw"
    named = client.webhooks.create(
        url=f"{server.receiver.url}/named", events=["campaign.created"], name="crm sync"
    )
    assert client.webhooks.get(named.id).name == "crm sync"
    # body= still takes a whole object, a mapping or the model
    whole = client.webhooks.create(
        body={"url": f"{server.receiver.url}/whole", "events": ["campaign.created"]}
    )
    assert whole.url == f"{server.receiver.url}/whole"
    # the raw-response view takes the same keywords
    raw = client.with_raw_response.webhooks.create(
        url=f"{server.receiver.url}/raw", events=["campaign.created"], name=OMIT
    )
    assert raw.status_code == 201 and raw.parse().url == f"{server.receiver.url}/raw"


def test_body_fields_as_keywords_async(server: OutreachServer) -> None:
    async def go() -> str:
        async with server.async_client() as client:
            assert isinstance(client, AsyncClient)
            hook = await client.webhooks.create(
                url=f"{server.receiver.url}/async", events=["campaign.created"]
            )
            return (await client.webhooks.get(hook.id)).url

    assert asyncio.run(go()) == f"{server.receiver.url}/async"


def test_body_and_fields_together_or_missing_fields_are_refused(server: OutreachServer) -> None:
    recorder = Recorder()
    client = server.client(http_client=recorder.http)
    body = {"url": f"{server.receiver.url}/a", "events": ["campaign.created"]}
    with pytest.raises(TypeError, match=r"either body= or the body's fields as keywords \(url\)"):
        client.webhooks.create(body=body, url=f"{server.receiver.url}/b")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"missing required keyword argument\(s\): 'events'"):
        client.webhooks.create(url=f"{server.receiver.url}/c")  # type: ignore[call-overload]
    with pytest.raises(TypeError, match=r"'url', 'events' \(or pass body=\)"):
        client.webhooks.create()  # type: ignore[call-overload]
    assert recorder.requests == []  # nothing was sent


def test_local_validation_failure_is_the_clients_error(server: OutreachServer) -> None:
    recorder = Recorder()
    client = server.client(http_client=recorder.http)
    with pytest.raises(RequestValidationError) as caught:
        client.webhooks.create(url=f"{server.receiver.url}/v", events=["no.such.event"])  # type: ignore[list-item]
    error = caught.value
    assert isinstance(error, APIError) and not isinstance(error, pydantic.ValidationError)
    assert "events" in str(error) and "WebhookCreateRequest" in str(error)
    assert error.fields == ["events"]
    assert error.errors[0].loc == ("events", 0) and error.errors[0].type == "enum"
    with pytest.raises(RequestValidationError) as missing:
        client.webhooks.create(body={"events": ["campaign.created"]})
    assert missing.value.fields == ["url"] and missing.value.errors[0].type == "missing"
    assert recorder.requests == []  # nothing was sent
    assert len(client.webhooks.list()) >= 0


def test_target_org_id_accepts_an_int(server: OutreachServer) -> None:
    recorder = Recorder()
    base = server.client(http_client=recorder.http)
    own = base.with_options(target_org_id=server.org_id)  # an int, as ids are everywhere else
    assert own.contacts.get(contact_id=1).id == 1
    assert recorder.requests[-1].headers["x-target-org-id"] == str(server.org_id)
    with pytest.raises(PermissionDeniedError):
        base.with_options(target_org_id=server.org_id + 1000).contacts.list()
    assert recorder.requests[-1].headers["x-target-org-id"] == str(server.org_id + 1000)
    # a header parameter named as an id, and an integer path parameter given as text
    assert base.contacts.get(contact_id="1", x_target_org_id=server.org_id).id == 1
    assert recorder.requests[-1].headers["x-target-org-id"] == str(server.org_id)
    assert recorder.requests[-1].url.path.endswith("/contacts/1")
    assert isinstance(
        Client(api_key=server.api_key, base_url=server.base_url, target_org_id=2), Client
    )
