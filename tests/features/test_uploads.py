"""Multipart uploads, raw bytes, text and a body of several media types reach the handler;
a file part reaches it as an `UploadedFile` (filename, content type, size, a stream)."""

from __future__ import annotations

import hashlib
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from harness import context, models, package, serve
from http_server import serve_http
from pydantic import ValidationError

M = models("uploads")


class Files:
    def __init__(self) -> None:
        self.seen: list[Any] = []
        self.contents: list[bytes] = []  # each file part's content, read by the handler

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        self.contents += [await part.read() for part in [body.file, *(body.attachments or [])]]
        return M.Stored(
            name=body.title, size=body.file.size, fields={"tags": ",".join(body.tags or [])}
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
    assert files.contents == [payload, b"one", b"two"]
    body = files.seen[0]
    assert (body.file.filename, body.file.content_type) == ("r.bin", "application/octet-stream")
    assert body.file.file.closed  # once the answer was sent
    assert [(a.filename, a.content_type, a.size) for a in body.attachments] == [
        ("1.txt", "text/plain", 3),
        ("2.txt", "text/plain", 3),
    ]


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


# -- a file part as the handler receives it: filename, type, size and a stream ----------------


def _sha(content: bytes) -> bytes:
    return hashlib.sha256(content).digest()


class Streamed:
    """Handlers that stream each file part to disk, 64 KiB at a time, and note what came."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.parts: list[tuple[str | None, str | None, int | None, bytes]] = []
        self.open_files: list[Any] = []

    async def _store(self, part: Any) -> int:
        self.open_files.append(part.file)
        digest, written = hashlib.sha256(), 0
        with (self.directory / f"part{len(self.parts)}").open("wb") as out:
            async for chunk in part:
                digest.update(chunk)
                written += out.write(chunk)
        self.parts.append((part.filename, part.content_type, part.size, digest.digest()))
        return written

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        sizes = [await self._store(p) for p in [body.file, *(body.attachments or [])]]
        return M.Stored(name=body.title, size=sum(sizes), fields={"tags": ",".join(body.tags)})

    async def upload_avatar(self, ctx: str, *, body: Any) -> Any:
        head = await body.image.read(4)  # read(n) from the start, then the rest
        rest = await body.image.read()
        self.parts.append((body.image.filename, body.image.content_type, body.image.size, head))
        return M.Stored(name=body.caption or "", size=len(head) + len(rest))


@pytest.fixture(scope="module")
def streamed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Streamed, str]]:
    handlers = Streamed(tmp_path_factory.mktemp("stored"))
    service = package("uploads").create_app(context=context, files=handlers, strict_contract=True)
    with serve_http(service) as url:  # the generated app: its error handlers and contract check
        yield handlers, url


def test_a_large_upload_is_streamed_to_the_handler_not_held_in_memory(
    streamed: tuple[Streamed, str], tmp_path: Path
) -> None:
    handlers, url = streamed
    size = 16 * 1024 * 1024
    source = tmp_path / "big.bin"
    with source.open("wb") as out:
        for block in range(size // 65536):
            out.write(block.to_bytes(4, "big") * 16384)
    expected = hashlib.sha256(source.read_bytes()).digest()
    with httpx.Client(base_url=url, timeout=60) as client, source.open("rb") as sent:
        tracemalloc.start()
        try:
            response = client.post(
                "/files",
                data={"title": "big", "tags": ["a", "b"]},
                files={"file": ("big.bin", sent, "application/x-big")},
            )
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
    assert response.status_code == 201, response.text
    assert response.json() == {"name": "big", "size": size, "fields": {"tags": "a,b"}}
    assert handlers.parts[-1] == ("big.bin", "application/x-big", size, expected)
    assert (handlers.directory / f"part{len(handlers.parts) - 1}").stat().st_size == size
    # client, server and handler together: a few MB at most (Starlette spools above 1 MB)
    assert peak < size / 4, f"{peak} bytes held while receiving a {size}-byte file"
    deadline = time.monotonic() + 5  # closed once the answer was sent (the client has it first)
    while not handlers.open_files[-1].closed and time.monotonic() < deadline:
        time.sleep(0.01)
    assert handlers.open_files[-1].closed


def test_several_file_parts_and_a_list_of_parts_arrive_with_their_names_and_types(
    streamed: tuple[Streamed, str],
) -> None:
    handlers, url = streamed
    before = len(handlers.parts)
    with httpx.Client(base_url=url) as client:
        response = client.post(
            "/files",
            data={"title": "three", "tags": ["x"]},
            files=[
                ("file", ("main.pdf", b"%PDF-main", "application/pdf")),
                ("attachments", ("a.txt", b"alpha", "text/plain")),
                ("attachments", ("b.png", b"\x89PNG-beta", "image/png")),
            ],
        )
        assert response.status_code == 201, response.text
        avatar = client.post(
            "/avatars",
            data={"caption": "me"},
            files={"image": ("me.jpg", b"JFIF-face", "image/jpeg")},
        )
    assert avatar.json()["size"] == 9
    assert handlers.parts[before:] == [
        ("main.pdf", "application/pdf", 9, _sha(b"%PDF-main")),
        ("a.txt", "text/plain", 5, _sha(b"alpha")),
        ("b.png", "image/png", 9, _sha(b"\x89PNG-beta")),
        ("me.jpg", "image/jpeg", 9, b"JFIF"),
    ]
    assert response.json()["size"] == 23


def test_a_file_field_sent_as_text_and_a_text_field_sent_as_a_file(files: Files) -> None:
    """Parts as some clients send them: the file without a filename (a plain field), the
    title as a file part; both read as before (the file's text as its content)."""
    client = serve("uploads", files=files)
    response = client.post(
        "/files",
        data={"file": "plain text"},
        files={"title": ("title.txt", b"from a file", "text/plain")},
    )
    assert response.status_code == 201, response.text
    assert response.json()["name"] == "from a file"
    assert files.contents == [b"plain text"]
    assert files.seen[0].file.filename is None
    huge = b"t" * (package("uploads").transport.FIELD_PART_LIMIT + 1)  # bounded as a field is
    refused = client.post("/files", data={"file": "x"}, files={"title": ("t.txt", huge)})
    assert refused.status_code == 422 and "larger than" in refused.text
    assert len(files.seen) == 1


def test_a_model_built_by_hand_takes_bytes_for_a_file() -> None:
    body = M.UploadFileRequestMultipart(file=b"abc", title="t", attachments=[b"d"])
    assert (body.file.size, body.file.filename, body.attachments[0].size) == (3, None, 1)
    assert body.file.file.read() == b"abc"
    with pytest.raises(ValidationError):
        M.UploadFileRequestMultipart(file=12, title="t")
    schema = M.UploadFileRequestMultipart.model_json_schema()["properties"]["file"]
    assert schema == {"type": "string", "format": "binary", "title": "File"}
