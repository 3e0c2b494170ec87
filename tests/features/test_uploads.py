"""Multipart uploads, raw bytes, text and a body of several media types reach the handler."""

from __future__ import annotations

from typing import Any

import pytest
from harness import models, serve

M = models("uploads")


class Files:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return M.Stored(
            name=body.title, size=len(body.file), fields={"tags": ",".join(body.tags or [])}
        )

    async def put_blob(self, ctx: str, *, name: str, body: bytes) -> Any:
        self.seen.append(body)
        return M.Stored(name=name, size=len(body))

    async def post_note(self, ctx: str, *, body: str) -> Any:
        self.seen.append(body)
        return M.Stored(name=body, size=len(body))

    async def post_document(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        if isinstance(body, bytes):
            return M.Stored(name="pdf", size=len(body))
        return M.Stored(name=body.text, size=len(body.text))


@pytest.fixture
def files() -> Files:
    return Files()


def test_multipart_upload_reaches_the_handler_with_its_bytes_and_fields(files: Files) -> None:
    client = serve("uploads", files=files)
    payload = bytes(range(256)) * 4
    response = client.post(
        "/files",
        data={"title": "report", "tags": ["a", "b"]},
        files=[
            ("file", ("r.bin", payload, "application/octet-stream")),
            ("attachments", ("1.txt", b"one", "text/plain")),
            ("attachments", ("2.txt", b"two", "text/plain")),
        ],
    )
    assert response.status_code == 201, response.text
    assert response.json() == {"name": "report", "size": 1024, "fields": {"tags": "a,b"}}
    body = files.seen[0]
    assert body.file == payload
    assert body.attachments == [b"one", b"two"]


def test_multipart_missing_file_or_too_long_field_is_422(files: Files) -> None:
    client = serve("uploads", files=files)
    assert client.post("/files", data={"title": "x"}, files={"other": b"1"}).status_code == 422
    too_long = {"title": "x" * 41}
    assert client.post("/files", data=too_long, files={"file": b"1"}).status_code == 422
    assert files.seen == []


def test_octet_stream_and_text_bodies(files: Files) -> None:
    client = serve("uploads", files=files)
    blob = b"\x00\xffbinary"
    response = client.put(
        "/blobs/b1", content=blob, headers={"content-type": "application/octet-stream"}
    )
    assert response.json() == {"name": "b1", "size": len(blob), "fields": None}
    response = client.post(
        "/notes", content="héllo".encode(), headers={"content-type": "text/plain"}
    )
    assert response.json()["name"] == "héllo"
    assert files.seen == [blob, "héllo"]


def test_body_of_several_media_types_dispatches_on_content_type(files: Files) -> None:
    client = serve("uploads", files=files)
    assert client.post("/documents", json={"text": "hi"}).json()["name"] == "hi"
    pdf = client.post(
        "/documents", content=b"%PDF-1.7", headers={"content-type": "application/pdf"}
    )
    assert pdf.json() == {"name": "pdf", "size": 8, "fields": None}
    refused = client.post("/documents", content=b"x", headers={"content-type": "image/gif"})
    assert refused.status_code == 415
    assert client.post("/documents", json={"nope": 1}).status_code == 422
    assert [type(b).__name__ for b in files.seen] == ["Document", "bytes"]
