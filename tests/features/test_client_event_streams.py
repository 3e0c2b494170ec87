"""Event streams (issue 26, point 4), over HTTP, sync and async: a server sends its stream in
chunks of a few bytes, split mid-line, mid-CRLF and mid-character; the client yields typed
events (OpenAPI 3.2 `itemSchema`, a 3.1 schema of the data) or text events by the SSE rules
(BOM, comments, multi-line data, `id` kept, `retry`, an unfinished event dropped), JSON Lines,
NDJSON and JSON text sequences as typed items, and closes the connection when a loop ends
early."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.responses import StreamingResponse
from harness import package
from http_server import serve_http

CHAT = (
    "\ufeff: keep-alive\r\n"
    "event: delta\r\nid: 1\r\n"
    'data: {"text": "Hel",\r\ndata:  "finishReason": "length"}\r\n\r\n'
    'data:{"text":"lo","finishReason":"content_filter"}\nretry: 3000\n\n'
    'data: {"text": "\u00e9t\u00e9"}\r\r'
    "data: [DONE]\n\n"
    'data: {"text": "never read"}\n\n'
)
LOG = (
    "data: line 1\ndata: line 2\n\n: a comment\n\nid: 7\ndata\n\nid: 8\ndata: x\n\ndata: unfinished"
)
ROWS = '{"id": 1, "name": "a"}\r\n\n{"id": 2}\n{"id": 3, "name": "\u00fc"}'
SEQ = '\x1e{"n": 1}\n\x1e{"n":\n 2}\n\x1e{"n": 3}\n'


def chunks(text: str, size: int = 3) -> Iterator[bytes]:
    data = text.encode()
    for start in range(0, len(data), size):
        yield data[start : start + size]


class Streams:
    def __init__(self) -> None:
        self.closed = threading.Event()

    def app(self) -> FastAPI:
        api = FastAPI()

        def send(text: str, media: str) -> StreamingResponse:
            async def body() -> AsyncIterator[bytes]:
                for piece in chunks(text):
                    yield piece
                    await asyncio.sleep(0.001)

            return StreamingResponse(body(), media_type=media)

        @api.get("/chat")
        async def chat() -> Any:
            return send(CHAT, "text/event-stream")

        @api.get("/log")
        async def log() -> Any:
            return send(LOG, "text/event-stream")

        @api.get("/rows.jsonl")
        async def jsonl() -> Any:
            return send(ROWS, "application/jsonl")

        @api.get("/rows.ndjson")
        async def ndjson() -> Any:
            return send(ROWS, "application/x-ndjson")

        @api.get("/rows.seq")
        async def seq() -> Any:
            return send(SEQ, "application/json-seq")

        @api.get("/ticks")
        async def ticks() -> Any:
            async def forever() -> AsyncIterator[bytes]:
                try:
                    for n in range(10_000):
                        yield f'data: {{"seq": {n}}}\n\n'.encode()
                        await asyncio.sleep(0.01)
                finally:
                    self.closed.set()  # the client went away (or the stream ended)

            return StreamingResponse(forever(), media_type="text/event-stream")

        return api


@pytest.fixture(scope="module")
def streams() -> Iterator[tuple[Streams, str]]:
    server = Streams()
    with serve_http(server.app()) as url:
        yield server, url


def check_chat(events: list[Any]) -> None:
    assert [e.data.text for e in events] == ["Hel", "lo", "\u00e9t\u00e9"]  # [DONE] ends it
    assert [e.event for e in events] == ["delta", "message", "message"]
    assert [e.id for e in events] == ["1", "1", "1"]  # the last event id is kept
    assert [e.retry for e in events] == [None, 3000, None]
    assert events[0].data.finish_reason.value == "length"
    assert events[1].data.finish_reason.value == "content_filter"  # open enum: added later
    assert events[0].raw == '{"text": "Hel",\n "finishReason": "length"}'  # lines joined


def test_typed_server_sent_events(streams: tuple[Streams, str]) -> None:
    _, url = streams
    client = package("event_streams", "client").Client(base_url=url)
    check_chat(list(client.streams.stream_chat()))
    raw = client.with_raw_response.streams.stream_chat()  # status and headers, then the events
    assert raw.headers["content-type"].startswith("text/event-stream")
    check_chat(list(raw.parse()))
    client.close()


def test_typed_server_sent_events_async(streams: tuple[Streams, str]) -> None:
    _, url = streams

    async def go() -> list[Any]:
        client = package("event_streams", "client").AsyncClient(base_url=url)
        events = [event async for event in await client.streams.stream_chat()]
        await client.close()
        return events

    check_chat(asyncio.run(go()))


def test_text_events_follow_the_sse_rules(streams: tuple[Streams, str]) -> None:
    _, url = streams
    client = package("event_streams", "client").Client(base_url=url)
    events = list(client.streams.stream_log())
    # `data` alone is an empty line of data; the last event, never finished, is dropped
    assert [(e.data, e.id) for e in events] == [("line 1\nline 2", None), ("", "7"), ("x", "8")]
    client.close()


def test_json_lines_ndjson_and_json_seq_items(streams: tuple[Streams, str]) -> None:
    _, url = streams
    pkg = package("event_streams", "client")
    client = pkg.Client(base_url=url)
    for rows in (client.streams.export_jsonl(), client.streams.export_ndjson()):
        assert [(r.id, r.name) for r in rows] == [(1, "a"), (2, None), (3, "\u00fc")]
    assert [item.n for item in client.streams.export_seq()] == [1, 2, 3]
    client.close()

    async def go() -> list[int]:
        async_client = pkg.AsyncClient(base_url=url)
        async with await async_client.streams.export_seq() as stream:
            found = [item.n async for item in stream]
        await async_client.close()
        return found

    assert asyncio.run(go()) == [1, 2, 3]


def test_the_stream_closes_when_the_loop_ends_early(streams: tuple[Streams, str]) -> None:
    server, url = streams
    pkg = package("event_streams", "client")
    client = pkg.Client(base_url=url)
    server.closed.clear()
    for event in client.streams.stream_ticks():
        if event.data.seq == 2:
            break
    assert server.closed.wait(5), "the server kept streaming after the loop ended"
    client.close()

    async def go() -> int:
        server.closed.clear()
        async_client = pkg.AsyncClient(base_url=url)
        async with await async_client.streams.stream_ticks() as stream:
            async for event in stream:
                if event.data.seq == 1:
                    break
        started = time.monotonic()
        while not server.closed.is_set() and time.monotonic() - started < 5:
            await asyncio.sleep(0.01)
        await async_client.close()
        return int(event.data.seq)

    assert asyncio.run(go()) == 1
    assert server.closed.is_set(), "the async stream was not closed"
