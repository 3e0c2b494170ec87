"""Uploads with their metadata (issue 26, point 6), over HTTP, sync and async: a file part
takes bytes, a path, an open file or a `(filename, content, content_type)` tuple, sends the
caller's filename and the Encoding Object's `contentType` (or the caller's), and a path is
streamed from disk; the generated API layer hands the handler each file (an `UploadedFile`)
with the filename and content type it came with."""

from __future__ import annotations

import asyncio
import tracemalloc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI, Request
from harness import app, models, package
from http_server import serve_http


class Files:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def upload_avatar(self, ctx: str, *, body: Any) -> Any:
        image = body.image
        self.seen.append((image.filename, image.content_type, await image.read(), body.caption))
        return models("uploads").Stored(name=image.filename or "", size=image.size)

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        parts = [body.file, *(body.attachments or [])]
        self.seen.append([(p.filename, p.content_type, await p.read()) for p in parts])
        return models("uploads").Stored(name=body.title, size=body.file.size)


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[Files, str]]:
    files = Files()
    with serve_http(app("uploads", files=files)) as url:
        yield files, url


def test_each_kind_of_file_part_sends_its_name_and_type(
    served: tuple[Files, str], tmp_path: Path
) -> None:
    files, url = served
    client = package("uploads", "client").Client(base_url=url)
    photo = tmp_path / "photo.png"
    photo.write_bytes(b"\x89PNG...")
    client.files.upload_avatar(image=b"raw", caption="bytes")
    client.files.upload_avatar(image=photo)
    with photo.open("rb") as opened:
        client.files.upload_avatar(image=opened)
    client.files.upload_avatar(image=("me.jpg", b"jpeg", "image/jpeg"))
    client.files.upload_avatar(body={"image": ("renamed.png", photo)})
    client.files.upload_file(file=b"f", title="tuple", attachments=(b"1", ("2.txt", b"2")))
    assert files.seen[-6:-1] == [
        ("image", "image/png", b"raw", "bytes"),  # the field's name, the Encoding Object's type
        ("photo.png", "image/png", b"\x89PNG...", None),
        ("photo.png", "image/png", b"\x89PNG...", None),
        ("me.jpg", "image/jpeg", b"jpeg", None),  # the caller's name and type
        ("renamed.png", "image/png", b"\x89PNG...", None),
    ]
    assert files.seen[-1] == [  # a tuple of parts is a sequence of files, not one file tuple
        ("file", "application/octet-stream", b"f"),
        ("attachments1", "application/octet-stream", b"1"),
        ("2.txt", "application/octet-stream", b"2"),
    ]
    client.close()


def test_lists_of_parts_and_the_schemas_media_type_async(
    served: tuple[Files, str], tmp_path: Path
) -> None:
    files, url = served
    notes = tmp_path / "notes.txt"
    notes.write_bytes(b"two")

    async def go() -> None:
        client = package("uploads", "client").AsyncClient(base_url=url)
        stored = await client.files.upload_file(
            file=notes, title="t", attachments=[b"one", ("n.txt", notes, "text/plain")]
        )
        assert stored.size == 3
        await client.close()

    asyncio.run(go())
    assert files.seen[-1] == [
        ("notes.txt", "application/octet-stream", b"two"),  # contentMediaType of `file`
        ("attachments1", "application/octet-stream", b"one"),
        ("n.txt", "text/plain", b"two"),
    ]


def test_a_path_is_streamed_from_disk(tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    size = 16 * 1024 * 1024
    with big.open("wb") as out:
        for _ in range(size // 65536):
            out.write(b"\xab" * 65536)
    received: list[int] = []
    counting = FastAPI()

    @counting.post("/avatars", status_code=201)
    async def count(request: Request) -> Any:
        total = 0
        async for chunk in request.stream():  # counted, never kept
            total += len(chunk)
        received.append(total)
        return {"name": "big.bin", "size": total}

    with serve_http(counting) as url:
        client = package("uploads", "client").Client(base_url=url)
        tracemalloc.start()
        try:
            stored = client.files.upload_avatar(image=big)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        client.close()
    assert stored.size > size and received == [stored.size]  # the file and the part headers
    assert peak < size / 4, f"{peak} bytes held while sending a {size}-byte file"
