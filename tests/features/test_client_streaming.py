"""The generated client against a stub API layer over real HTTP: a streamed answer is read
incrementally (`<method>_stream`, sync and async), and an answer of several media types is
asked for with `Accept` and decoded by the answer's Content-Type."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from fastapi import FastAPI, Request
from harness import app, models, package
from http_server import serve_http

GATE_TIMEOUT = 5.0


class Rows:
    """`export_rows` sends its first row, then holds the rest until the test opens the gate."""

    def __init__(self) -> None:
        self.gate = threading.Event()
        self.sent: list[str] = []
        self.report: Any = None

    async def get_avatar(self, ctx: str, *, user_id: int) -> bytes:
        return b""

    async def get_readme(self, ctx: str) -> str:
        return ""

    async def export_rows(self, ctx: str) -> AsyncIterator[str]:
        async def rows() -> AsyncIterator[str]:
            self.sent.append("0,row")
            yield "0,row\n"
            await asyncio.to_thread(self.gate.wait, GATE_TIMEOUT)
            for n in (1, 2):
                self.sent.append(f"{n},row")
                yield f"{n},row\n"

        return rows()

    async def get_report(self, ctx: str) -> Any:
        return self.report


def recording(application: FastAPI, seen: list[str]) -> FastAPI:
    @application.middleware("http")
    async def record_accept(request: Request, call_next: Any) -> Any:
        seen.append(request.headers.get("accept", ""))
        return await call_next(request)

    return application


@pytest.fixture
def rows() -> Rows:
    return Rows()


def test_a_streamed_answer_is_read_before_the_server_has_sent_the_last_chunk(rows: Rows) -> None:
    with serve_http(app("binary_responses", media=rows)) as url:
        client = package("binary_responses", "client").Client(base_url=url)
        with client.media.export_rows_stream() as stream:
            assert stream.status_code == 200
            assert stream.content_type == "text/csv"
            lines = stream.iter_lines()
            assert next(lines) == "0,row"
            assert rows.sent == ["0,row"]  # the server is still holding the rest
            rows.gate.set()
            assert list(lines) == ["1,row", "2,row"]
        assert rows.sent == ["0,row", "1,row", "2,row"]
        client.close()


def test_the_async_client_streams_too(rows: Rows) -> None:
    async def read(url: str) -> list[str]:
        client = package("binary_responses", "client").AsyncClient(base_url=url)
        async with client.media.export_rows_stream() as stream:
            chunks = stream.aiter_text()
            first = await chunks.__anext__()
            assert first == "0,row\n"
            assert rows.sent == ["0,row"]
            rows.gate.set()
            rest = [chunk async for chunk in chunks]
        await client.close()
        return [first, *rest]

    with serve_http(app("binary_responses", media=rows)) as url:
        assert "".join(asyncio.run(read(url))) == "0,row\n1,row\n2,row\n"


def test_an_error_status_raises_when_the_stream_opens(rows: Rows) -> None:
    client_pkg = package("binary_responses", "client")
    with serve_http(app("binary_responses", media=rows)) as url:
        client = client_pkg.Client(base_url=url)
        stream = client.media.get_avatar_stream("not-a-number")
        with pytest.raises(client_pkg.APIStatusError) as caught, stream:
            pass
        assert caught.value.status_code == 422
        client.close()


def test_accept_lists_every_media_type_and_the_answer_is_decoded_by_its_content_type(
    rows: Rows,
) -> None:
    seen: list[str] = []
    with serve_http(recording(app("binary_responses", media=rows), seen)) as url:
        client = package("binary_responses", "client").Client(base_url=url)
        rows.report = models("binary_responses").GetReportResponse(title="q3")
        assert client.media.get_report().title == "q3"
        rows.report = b"%PDF-1.7"
        assert client.media.get_report(accept="application/pdf") == b"%PDF-1.7"
        with client.media.get_report_stream(accept="application/pdf") as stream:
            assert stream.content_type == "application/pdf"
            assert stream.read() == b"%PDF-1.7"
        client.close()
    assert seen == ["application/json, application/pdf", "application/pdf", "application/pdf"]
