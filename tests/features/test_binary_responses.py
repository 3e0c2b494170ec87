"""Responses that are not JSON: an image's bytes, text, a stream, JSON or PDF."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

from harness import models, serve

M = models("binary_responses")
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


class Media:
    async def get_avatar(self, ctx: str, *, user_id: int) -> bytes:
        return PNG

    async def get_readme(self, ctx: str) -> str:
        return "héllo"

    async def export_rows(self, ctx: str) -> AsyncIterator[str]:
        async def rows() -> AsyncIterator[str]:
            for n in range(3):
                yield f"{n},row\n"

        return rows()

    async def get_report(self, ctx: str) -> Any:
        return M.GetReportResponse(title="t") if ctx else b""


def test_png_response_returns_its_bytes() -> None:
    client = serve("binary_responses", media=Media())
    response = client.get("/avatars/7")
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content == PNG
    assert client.get("/avatars/x").status_code == 422


def test_text_and_streamed_csv() -> None:
    client = serve("binary_responses", media=Media())
    readme = client.get("/readme")
    assert readme.headers["content-type"].startswith("text/plain")
    assert readme.text == "héllo"
    export = client.get("/export")
    assert export.headers["content-type"].startswith("text/csv")
    assert export.text == "0,row\n1,row\n2,row\n"


def test_json_or_pdf() -> None:
    class Pdf(Media):
        async def get_report(self, ctx: str) -> Any:
            return b"%PDF-1.7"

    client = serve("binary_responses", media=Media())
    assert client.get("/report").json() == {"title": "t"}
    pdf = serve("binary_responses", media=Pdf()).get("/report")
    assert (pdf.headers["content-type"], pdf.content) == ("application/pdf", b"%PDF-1.7")
