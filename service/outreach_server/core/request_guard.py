"""Limits every request meets before routing, parsing or authentication (issue 12).

One pure ASGI middleware, outermost:
- the headers as a whole are at most `max_header_bytes` (431);
- a body is at most `max_body_bytes`: an announced Content-Length over it is refused at once,
  before a byte of the body is read (413); a body without a length is read up to the limit;
- the query string carries no NUL (`%00`), and a JSON body no NUL or lone-surrogate escape
  (`\\u0000`, `\\ud800` alone): neither database stores them and no API value needs them (422);
- every answer of an operation carries the caller's rate-limit state, from `scope["state"]`.
The body it read is handed on unchanged, so the application parses it once.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

RATE_HEADERS_STATE = "rate_limit_headers"  # set by runtime.context on every keyed request
# an escape (after an even run of backslashes) of NUL or of a UTF-16 surrogate
_SUSPECT_ESCAPE = re.compile(rb"(?<!\\)(?:\\\\)*\\u(0000|[dD][89a-fA-F][0-9a-fA-F]{2})")


def bad_escape(body: bytes) -> str | None:
    """Why a JSON body's string escapes cannot be stored (NUL, lone surrogate), else None."""
    if b"\\u" not in body:
        return None
    pending_high = -1  # end offset of a high-surrogate escape awaiting its low half
    for match in _SUSPECT_ESCAPE.finditer(body):
        code = int(match.group(1), 16)
        start = match.end() - 6
        if code == 0:
            return "strings must not contain NUL characters"
        if 0xD800 <= code <= 0xDBFF:
            if pending_high != -1:
                return "strings must not contain lone UTF-16 surrogates"
            pending_high = match.end()
        elif pending_high == start:
            pending_high = -1
        else:
            return "strings must not contain lone UTF-16 surrogates"
    if pending_high != -1:
        return "strings must not contain lone UTF-16 surrogates"
    return None


async def _answer(send: Send, status: int, detail: object) -> None:
    payload = json.dumps({"detail": detail}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": payload, "more_body": False})


class RequestGuard:
    def __init__(self, app: ASGIApp, *, max_body_bytes: int, max_header_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_header_bytes = max_header_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers: list[tuple[bytes, bytes]] = scope.get("headers", [])
        size = 0
        length_header: bytes | None = None
        for name, value in headers:  # one pass: the total size and the first Content-Length
            size += len(name) + len(value) + 4
            if name == b"content-length" and length_header is None:
                length_header = value
        if size > self.max_header_bytes:
            await _answer(
                send, 431, f"Request headers too large (limit {self.max_header_bytes} bytes)"
            )
            return
        if b"%00" in scope.get("query_string", b""):
            await _answer(
                send,
                422,
                [
                    {
                        "loc": ["query"],
                        "msg": "parameters must not contain NUL characters",
                        "type": "value_error",
                    }
                ],
            )
            return
        if length_header is not None:
            if not length_header.isdigit():
                await _answer(send, 400, "Invalid Content-Length")
                return
            if int(length_header) > self.max_body_bytes:
                await _answer(
                    send, 413, f"Request body too large (limit {self.max_body_bytes} bytes)"
                )
                return
        if scope.get("method") in ("GET", "HEAD", "DELETE", "OPTIONS") and length_header is None:
            await self.app(scope, receive, self._with_rate_headers(scope, send))
            return
        body, too_large = await self._read_body(receive)
        if too_large:
            await _answer(send, 413, f"Request body too large (limit {self.max_body_bytes} bytes)")
            return
        problem = bad_escape(body)
        if problem is not None:
            await _answer(send, 422, [{"loc": ["body"], "msg": problem, "type": "value_error"}])
            return
        await self.app(scope, _replay(body, receive), self._with_rate_headers(scope, send))

    async def _read_body(self, receive: Receive) -> tuple[bytes, bool]:
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunk = bytes(message.get("body", b""))
            size += len(chunk)
            if size > self.max_body_bytes:
                return b"", True
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        return b"".join(chunks), False

    @staticmethod
    def _with_rate_headers(scope: Scope, send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = (scope.get("state") or {}).get(RATE_HEADERS_STATE)
                if extra:
                    present = {k.lower() for k, _ in message.get("headers", [])}
                    message["headers"] = list(message.get("headers", [])) + [
                        (k.lower().encode(), v.encode())
                        for k, v in extra.items()
                        if k.lower().encode() not in present
                    ]
            await send(message)

        return wrapped


def _replay(body: bytes, receive: Receive) -> Receive:
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay
