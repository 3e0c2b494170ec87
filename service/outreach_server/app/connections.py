"""Slow clients and connection floods, refused at the HTTP protocol (issue 30, hole 7).

uvicorn times out an idle keep-alive connection, but nothing else: a client that sends its
request head one byte every few seconds, or its body the same way, holds a connection (and,
for a body, a request task) for ever, and nothing bounds the open connections. This protocol
(uvicorn's httptools protocol, which `serve` runs) adds, each with a flag of `serve` and an
`OUTREACH_*` setting (docs/connections.md, spec/DECISIONS.md rows 125-127):

- `header_timeout` (OUTREACH_HEADER_TIMEOUT): the whole request head (request line and
  headers) must arrive within this many seconds of the connection being opened or of the
  request's first byte; otherwise 408 and the connection is closed.
- `body_timeout` (OUTREACH_BODY_TIMEOUT): the whole body must arrive within this many seconds
  of the end of the head; otherwise 408 (when no answer has started) and the connection is
  closed; the application reads a disconnect.
- `max_connections` (OUTREACH_MAX_CONNECTIONS): open connections per server process; one
  more is answered 503 and closed at once, before anything of it is read.

The values are read from the environment once per process (`serve` exports its flags, so
every worker process sees the same ones); 0 turns a bound off.
"""

from __future__ import annotations

import asyncio
import json
import logging
from typing import Any, ClassVar

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from ..core.settings import Settings

log = logging.getLogger("outreach_server.connections")


def _answer(status: int, reason: str) -> bytes:
    body = json.dumps({"detail": reason}).encode()
    return (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n"
        f"content-length: {len(body)}\r\nconnection: close\r\n\r\n"
    ).encode() + body


TIMEOUT_408 = _answer(408, "Request Timeout")
BUSY_503 = _answer(503, "Service Unavailable")


class GuardedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol with head and body deadlines and a connection cap."""

    limits: ClassVar[tuple[float, float, int] | None] = None  # read once per process

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        limits = GuardedHttpToolsProtocol.limits
        if limits is None:
            settings = Settings.from_env()
            limits = GuardedHttpToolsProtocol.limits = (
                settings.header_timeout,
                settings.body_timeout,
                settings.max_connections,
            )
        self.header_timeout, self.body_timeout, self.max_connections = limits
        self._head_timer: asyncio.TimerHandle | None = None
        self._body_timer: asyncio.TimerHandle | None = None

    # -- the connection ------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if self.max_connections and len(self.connections) > self.max_connections:
            log.warning("connection refused: %d open (limit %d)", len(self.connections) - 1,
                        self.max_connections)  # fmt: skip
            transport.write(BUSY_503)
            transport.close()
            return
        self._arm_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_timers()
        super().connection_lost(exc)

    # -- the request head and body -------------------------------------------------------------

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._arm_head()  # a pipelined or keep-alive request: its head has its own deadline

    def on_headers_complete(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None
        super().on_headers_complete()
        if self.body_timeout and self._body_timer is None:
            self._body_timer = self.loop.call_later(self.body_timeout, self._body_too_slow)

    def on_message_complete(self) -> None:
        if self._body_timer is not None:
            self._body_timer.cancel()
            self._body_timer = None
        super().on_message_complete()

    def _arm_head(self) -> None:
        if self.header_timeout and self._head_timer is None:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_too_slow)

    def _cancel_timers(self) -> None:
        for timer in (self._head_timer, self._body_timer):
            if timer is not None:
                timer.cancel()
        self._head_timer = self._body_timer = None

    def _head_too_slow(self) -> None:
        self._head_timer = None
        busy = self.cycle is not None and not self.cycle.response_complete
        self._close(not busy)  # a head read while an earlier answer is still being written: close

    def _body_too_slow(self) -> None:
        self._body_timer = None
        started = self.cycle is not None and self.cycle.response_started
        self._close(not started)

    def _close(self, answer: bool) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        if answer:
            self.transport.write(TIMEOUT_408)
        self.transport.close()
