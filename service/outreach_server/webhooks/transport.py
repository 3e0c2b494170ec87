"""The delivery worker's HTTP/1.1 transport: httpcore connections kept alive per target, over
plain asyncio streams, with a concurrency cap per target.

httpcore (httpx's own transport layer) speaks HTTP; this module only gives it a network
backend and decides which connection an attempt uses. Why not httpx.AsyncClient or
httpcore's AsyncConnectionPool: measured on the 2-core bench machine, httpx and the pool
cost 1-3 ms of CPU per request, growing with the connections in the pool (each request
walks every pooled connection and polls its socket), and anyio's cancel scopes add to
each read and write. Here each target (scheme, checked address, port, host name) has its
own list of idle keep-alive connections and a semaphore of `cap` slots: one request per
connection at a time, so picking a connection is O(1), and a slow or hanging target can
hold at most its own `cap` connections.

httpcore asks `sniffio` which event loop runs on every request; when sniffio is not
installed that is a failing import (a scan of sys.path) each time. `fast_sniffio_fallback`
records it as absent once (sys.modules[name] = None makes the import fail at once), and
httpcore falls back to asyncio as it does without sniffio.
"""

from __future__ import annotations

import asyncio
import importlib.util
import ssl
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import httpcore
from httpcore import AsyncNetworkBackend, AsyncNetworkStream


def fast_sniffio_fallback() -> None:
    if "sniffio" not in sys.modules and importlib.util.find_spec("sniffio") is None:
        sys.modules["sniffio"] = None  # type: ignore[assignment]


class _Stream(AsyncNetworkStream):
    """An asyncio stream for httpcore. Writes are held until the next read (or 64 KiB), so a
    request's head and body leave in one send: httpcore writes them separately, and each
    send is a system call."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._reader = reader
        self._writer = writer
        self._pending: list[bytes] = []
        self._pending_size = 0

    async def _flush(self, timeout: float | None) -> None:
        data = b"".join(self._pending)
        self._pending.clear()
        self._pending_size = 0
        try:
            self._writer.write(data)
            if self._writer.transport.get_write_buffer_size():
                async with asyncio.timeout(timeout):
                    await self._writer.drain()
        except TimeoutError as exc:
            raise httpcore.WriteTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.WriteError(str(exc)) from exc

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._pending:
            await self._flush(timeout)
        try:
            async with asyncio.timeout(timeout):
                return await self._reader.read(max_bytes)
        except TimeoutError as exc:
            raise httpcore.ReadTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ReadError(str(exc)) from exc

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        self._pending.append(buffer)
        self._pending_size += len(buffer)
        if self._pending_size >= 65536:
            await self._flush(timeout)

    async def aclose(self) -> None:
        self._pending.clear()
        self._writer.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                await self._writer.start_tls(ssl_context, server_hostname=server_hostname)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except (OSError, ssl.SSLError) as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return self

    def get_extra_info(self, info: str) -> Any:
        if info == "is_readable":  # an idle keep-alive connection the peer has closed
            return self._reader.at_eof()
        names = {"ssl_object": "ssl_object", "client_addr": "sockname", "server_addr": "peername"}
        if info in names:
            return self._writer.get_extra_info(names[info])
        if info == "socket":
            return self._writer.get_extra_info("socket")
        return None


class AsyncioBackend(AsyncNetworkBackend):
    """httpcore's network backend on asyncio streams (TCP only; asyncio sets TCP_NODELAY)."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> AsyncNetworkStream:
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(host, port)
        except TimeoutError as exc:
            raise httpcore.ConnectTimeout(str(exc)) from exc
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return _Stream(reader, writer)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> AsyncNetworkStream:  # pragma: no cover - webhook targets are TCP
        raise httpcore.ConnectError("unix sockets are not webhook targets")

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


TargetKey = tuple[str, str, int, str]  # scheme, checked address, port, host name (SNI)


@dataclass
class TargetSlots:
    """The connections of one target: at most `cap` requests at once, idle ones kept alive."""

    cap: int
    slots: asyncio.Semaphore
    idle: list[httpcore.AsyncHTTPConnection] = field(default_factory=list)
    queued: int = 0  # attempts waiting for a slot or sending


class Transport:
    def __init__(self, cap_per_target: int) -> None:
        fast_sniffio_fallback()
        self.cap = cap_per_target
        self.backend = AsyncioBackend()
        self.ssl_context = httpcore.default_ssl_context()
        self.targets: dict[TargetKey, TargetSlots] = {}

    def target(self, key: TargetKey) -> TargetSlots:
        slots = self.targets.get(key)
        if slots is None:
            slots = self.targets[key] = TargetSlots(self.cap, asyncio.Semaphore(self.cap))
        return slots

    def saturated(self, key: TargetKey) -> bool:
        """Enough attempts queued for the target (4 x its slots): claim no more for now."""
        slots = self.targets.get(key)
        return slots is not None and slots.queued >= 4 * slots.cap

    async def post(
        self,
        key: TargetKey,
        slots: TargetSlots,
        path: str,
        headers: list[tuple[bytes, bytes]],
        body: bytes,
    ) -> int:
        """POST on a connection of `key` (the caller holds one of its slots); the status.

        The answer's body is read and discarded (never kept in memory). Raises
        httpcore.TimeoutException / httpcore.NetworkError / httpcore.ProtocolError, or
        CancelledError (the connection is then closed, never reused)."""
        scheme, address, port, sni = key
        host_part = f"[{address}]" if ":" in address else address
        request = httpcore.Request(
            b"POST",
            httpcore.URL(scheme=scheme, host=host_part, port=port, target=path),
            headers=[*headers, (b"Content-Length", str(len(body)).encode())],
            content=body,
            extensions={"sni_hostname": sni} if scheme == "https" and sni else {},
        )
        connection = await self._idle_connection(slots)
        if connection is not None:
            try:
                return await self._send(slots, connection, request)
            except httpcore.ConnectionNotAvailable:
                pass  # the kept connection went away before the request: a new one
        return await self._send(slots, self._new_connection(key), request)

    async def _idle_connection(self, slots: TargetSlots) -> httpcore.AsyncHTTPConnection | None:
        while slots.idle:
            candidate = slots.idle.pop()
            if candidate.is_idle() and not candidate.has_expired():
                return candidate
            await candidate.aclose()  # expired, or closed by the peer
        return None

    def _new_connection(self, key: TargetKey) -> httpcore.AsyncHTTPConnection:
        scheme, address, port, _sni = key
        return httpcore.AsyncHTTPConnection(
            httpcore.Origin(scheme.encode(), address.encode(), port),
            ssl_context=self.ssl_context if scheme == "https" else None,
            keepalive_expiry=30.0,
            http1=True,
            http2=False,
            network_backend=self.backend,
        )

    async def _send(
        self,
        slots: TargetSlots,
        connection: httpcore.AsyncHTTPConnection,
        request: httpcore.Request,
    ) -> int:
        reusable = False
        try:
            response = await connection.handle_async_request(request)
            try:
                async for _chunk in response.aiter_stream():
                    pass
            finally:
                await response.aclose()
            reusable = True
            return response.status
        finally:
            if reusable and connection.is_idle() and len(slots.idle) < slots.cap:
                slots.idle.append(connection)
            else:
                await connection.aclose()

    async def aclose(self) -> None:
        for slots in self.targets.values():
            for connection in slots.idle:
                await connection.aclose()
            slots.idle.clear()
        self.targets.clear()
