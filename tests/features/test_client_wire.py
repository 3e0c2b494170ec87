"""The generated clients of the feature fixtures against their generated API layers (stub
handlers), over real HTTP: uploads reach the handler with their files, a form login its
fields, an image/png answer comes back as bytes, every parameter style arrives as sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from harness import app, models, package
from http_server import serve_http


class Files:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def upload_file(self, ctx: str, *, body: Any) -> Any:
        parts = [body.file, *(body.attachments or [])]
        self.seen.append([await part.read() for part in parts])
        tags = ",".join(body.tags or [])
        return models("uploads").Stored(name=body.title, size=body.file.size, fields={"tags": tags})

    async def put_blob(self, ctx: str, *, name: str, body: bytes) -> Any:
        self.seen.append(body)
        return models("uploads").Stored(name=name, size=len(body))

    async def post_note(self, ctx: str, *, body: str) -> Any:
        self.seen.append(body)
        return models("uploads").Stored(name=body, size=len(body))

    async def post_document(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        if isinstance(body, bytes):
            return models("uploads").Stored(name="pdf", size=len(body))
        return models("uploads").Stored(name=body.text, size=len(body.text))


@pytest.fixture(scope="module")
def files() -> Files:
    return Files()


@pytest.fixture(scope="module")
def uploads(files: Files) -> Iterator[Any]:
    with serve_http(app("uploads", files=files)) as url:
        yield package("uploads", "client").Client(base_url=url)


def test_an_upload_reaches_the_handler_with_its_bytes_and_fields(
    uploads: Any, files: Files
) -> None:
    payload = bytes(range(256)) * 4
    stored = uploads.files.upload_file(
        body={"file": payload, "title": "report", "tags": ["a", "b"], "attachments": [b"1", b"22"]}
    )
    assert (stored.name, stored.size, stored.fields) == ("report", 1024, {"tags": "a,b"})
    assert files.seen[-1] == [payload, b"1", b"22"]


def test_octet_stream_text_and_several_media_types(uploads: Any, files: Files) -> None:
    blob = b"\x00\xffbinary"
    assert uploads.files.put_blob("b1", body=blob).size == len(blob)
    assert files.seen[-1] == blob
    assert uploads.files.post_note(body="héllo").name == "héllo"
    assert files.seen[-1] == "héllo"
    assert uploads.files.post_document(body={"text": "hi"}).name == "hi"
    assert uploads.files.post_document(body=b"%PDF-1.7").name == "pdf"
    assert files.seen[-1] == b"%PDF-1.7"
    with pytest.raises(ValueError, match="content_type 'image/gif'"):
        uploads.files.post_document(body=b"x", content_type="image/gif")


def test_plain_data_is_validated_before_sending(uploads: Any, files: Files) -> None:
    before = len(files.seen)
    with pytest.raises(Exception, match="title"):
        uploads.files.upload_file(body={"file": b"1"})
    assert len(files.seen) == before


class Auth:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def login(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return models("form_login").LoginResponse(
            token="t-" + body.username, user=body.username, remember=body.remember
        )


def test_a_form_login_reaches_the_handler_with_its_fields() -> None:
    auth = Auth()
    with serve_http(app("form_login", auth=auth)) as url:
        client = package("form_login", "client").Client(base_url=url)
        session = client.auth.login(
            body={"username": "ada", "password": "s3 cr&t", "remember": True, "scope": ["a", "b"]}
        )
    assert (session.token, session.user, session.remember) == ("t-ada", "ada", True)
    body = auth.seen[0]
    assert (body.password.get_secret_value(), body.scope) == ("s3 cr&t", ["a", "b"])


PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


class Media:
    async def get_avatar(self, ctx: str, *, user_id: int) -> bytes:
        return PNG + bytes([user_id])

    async def get_readme(self, ctx: str) -> str:
        return "read me: é"

    async def export_rows(self, ctx: str) -> Any:
        async def rows() -> Any:
            for n in range(3):
                yield f"{n},row\n"

        return rows()

    async def get_report(self, ctx: str) -> Any:
        return models("binary_responses").GetReportResponse(title="q3")


def test_an_image_answer_comes_back_as_its_bytes() -> None:
    with serve_http(app("binary_responses", media=Media())) as url:
        client = package("binary_responses", "client").Client(base_url=url)
        assert client.media.get_avatar(7) == PNG + b"\x07"
        assert client.media.get_readme() == "read me: é"
        assert client.media.export_rows() == "0,row\n1,row\n2,row\n"
        assert client.media.get_report().title == "q3"


class Items:
    def __init__(self) -> None:
        self.seen: dict[str, Any] = {}

    async def find_items(self, ctx: str, **arguments: Any) -> Any:
        self.seen = arguments
        return models("parameters").FindItemsResponse()

    async def get_tile(self, ctx: str, *, coords: list[int]) -> Any:
        return models("parameters").GetTileResponse(coords)


def test_every_parameter_style_arrives_as_sent() -> None:
    items = Items()
    m = models("parameters")
    with serve_http(app("parameters", items=items)) as url:
        client = package("parameters", "client").Client(base_url=url)
        client.items.find_items(
            m.FindItemsKind("disc"),
            m.FindItemsRef(42),
            session="s 1",
            x_request_id="r-1",
            ids=[1, 2],
            colour=["red", "blue"],
            words=["a", "b"],
            sizes=[3, 4],
            filter_=m.Filter(name="x", min_price=2.5, in_stock=True),
            point=m.FindItemsPoint(x=1, y=2),
            box=m.FindItemsBox(w=3, h=4),
        )
        assert client.items.get_tile([3, 5, 8]) == [3, 5, 8]  # an array answer is a list
    seen = items.seen
    assert seen["kind"].value == "disc" and seen["ref"].root == 42
    assert seen["session"] == "s 1" and seen["theme"] == "light"
    assert seen["x_request_id"] == "r-1"
    assert (seen["ids"], seen["colour"]) == ([1, 2], ["red", "blue"])
    assert (seen["words"], seen["sizes"]) == (["a", "b"], [3, 4])
    assert seen["filter_"] == m.Filter(name="x", min_price=2.5, in_stock=True)
    assert (seen["point"].x, seen["point"].y, seen["box"].w, seen["box"].h) == (1, 2, 3, 4)


class Jobs:
    async def start_job(self, ctx: str) -> Any:
        return models("status_ranges").Job(id="j1", state="queued")

    async def get_job(self, ctx: str, *, job_id: str) -> Any:
        if job_id == "missing":
            from fastapi import HTTPException

            raise HTTPException(404, "no such job")
        return models("status_ranges").Job(id=job_id, state="done")


def test_status_ranges_and_default_answers_are_parsed() -> None:
    with serve_http(app("status_ranges", jobs=Jobs())) as url:
        c = package("status_ranges", "client")
        client = c.Client(base_url=url, max_retries=0)
        assert client.jobs.start_job().state.value == "queued"
        assert client.jobs.get_job("j2").id == "j2"
        with pytest.raises(c.NotFoundError):
            client.jobs.get_job("missing")
