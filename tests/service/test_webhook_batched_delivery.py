"""The delivery worker's guarantees under the batched design, on SQLite and PostgreSQL, with
workers run in process against real HTTP receivers on 127.0.0.1 (keep-alive HTTP/1.1):

1. a worker that claims a batch and dies before recording loses nothing: once the lease
   ends another worker delivers every row once, and the dead worker's late record is refused;
2. two workers on the same due rows never send one attempt twice;
3. a hanging target does not hold up a healthy one in the same batch: the healthy attempts
   are recorded before the hanging ones time out, and those end as failed attempts with a
   timeout message and a scheduled retry;
4. an attempt that cannot get a slot of its busy target in time is given back unsent.
(The retry schedule and per-attempt rows: test_webhook_delivery.py, on this same worker.)
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from cryptography.fernet import Fernet
from outreach_server.core.db import create_engine
from outreach_server.core.resolver import create_resolver
from outreach_server.core.settings import Settings
from outreach_server.orgs.store import OrgStore
from outreach_server.webhooks.delivery import DeliveryWorker, Outcome
from outreach_server.webhooks.outbox import publish_event
from outreach_server.webhooks.store import WebhookStore
from outreach_server.webhooks.tables import webhook_deliveries, webhooks
from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncEngine

KEY = Fernet.generate_key().decode()
SCALE = 0.01


@dataclass
class Receiver:
    """Answers 204, or holds each request until `release` is set (hang=True)."""

    hang: bool = False
    port: int = 0
    ids: list[str] = field(default_factory=list)
    held: int = 0  # requests being held right now
    release: threading.Event = field(default_factory=threading.Event)

    def url(self, path: str = "/hook") -> str:
        return f"http://127.0.0.1:{self.port}{path}"


def serve(state: Receiver) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real receivers

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length", "0")))
            state.ids.append(self.headers.get("X-Webhook-Delivery-Id", ""))
            if state.hang:
                state.held += 1
                state.release.wait(30)
                state.held -= 1
            self.send_response(204)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    state.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def receivers() -> Iterator[tuple[Receiver, Receiver]]:
    """A healthy receiver and a hanging one."""
    healthy, hanging = Receiver(), Receiver(hang=True)
    servers = [serve(healthy), serve(hanging)]
    yield healthy, hanging
    hanging.release.set()
    for server in servers:
        server.shutdown()
        server.server_close()


def settings_for(database_url: str, **changes: Any) -> Settings:
    values: dict[str, Any] = {
        "database_url": database_url,
        "secret_key": KEY,
        "webhook_allow_http": True,
        "webhook_allowed_networks": "127.0.0.0/8",
        "webhook_retry_scale": SCALE,
        "webhook_timeout": 2.0,
        "dns_timeout": 0.5,
        "dns_fixed": "",  # offline: the targets are IP literals
        **changes,
    }
    return Settings(**values)


def worker(settings: Settings, **options: Any) -> DeliveryWorker:
    engine = create_engine(settings.database_url)
    return DeliveryWorker(engine, settings, create_resolver(settings.dns_fixed, 1.0), **options)


async def seed(engine: AsyncEngine, settings: Settings, urls: list[str], events: int) -> int:
    org = await OrgStore(engine).create("batched delivery")
    store = WebhookStore(engine, settings)
    for index, url in enumerate(urls):
        await store.create(
            org,
            url=url,
            events=["campaign.created"],
            name=f"hook {index}",
            secret=f"whsec_{index}",
        )
    for index in range(events):
        await publish_event(engine, org, "campaign.created", {"n": index})
    return org


async def rows(engine: AsyncEngine) -> list[Any]:
    async with engine.connect() as connection:
        query = select(webhook_deliveries).order_by(webhook_deliveries.c.created_at)
        return list((await connection.execute(query)).all())


async def until(engine: AsyncEngine, check: Any, timeout: float = 15.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    while True:
        found = await rows(engine)
        if check(found):
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"not reached: {[(r.status, r.error_message) for r in found]}")
        await asyncio.sleep(0.02)


def test_a_worker_dead_between_claim_and_record_loses_nothing(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    healthy, _ = receivers
    settings = settings_for(database_url)

    async def scenario() -> None:
        dead = worker(settings, batch=10)
        dead.lease_ms = 300  # a short lease, so the test need not wait for the real one
        live = worker(settings, batch=10)
        try:
            await seed(dead.engine, settings, [healthy.url(), healthy.url("/b")], 3)
            claimed = await dead.claim()
            assert len(claimed) == 6 and healthy.ids == []  # claimed, nothing sent
            assert await live.claim() == []  # leased: nobody else takes them
            await asyncio.sleep(0.4)  # the lease ends; the claiming worker never records
            assert await live.run_once() == 6
            assert sorted(healthy.ids) == sorted(item.id for item in claimed)
            # the dead worker's late outcome is refused: the rows are another lease's now
            assert await dead.record(claimed[0], Outcome(False, 500, "HTTP 500")) is False
            found = await rows(live.engine)
            assert len(found) == 6  # no row lost, no retry scheduled by the late record
            assert {(r.status, r.attempts, r.lease_token) for r in found} == {("success", 1, None)}
        finally:
            await dead.close()
            await live.close()
            await dead.engine.dispose()
            await live.engine.dispose()

    asyncio.run(scenario())


def test_run_once_returns_only_when_a_background_recorder_has_recorded_too(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    """The background recorder takes the first outcomes (flush_size 1) and is slow to write
    them: run_once's own flush finds nothing left, yet must not return before those rows
    are recorded (CI once read one row still pending right after run_once)."""
    healthy, _ = receivers
    settings = settings_for(database_url)

    async def scenario() -> None:
        live = worker(settings, batch=10, flush_size=1, flush_interval=0.0)
        record_many = live.record_many
        callers: list[str] = []

        async def slow(items: Any) -> Any:
            task = asyncio.current_task()
            callers.append(task.get_name() if task else "")
            await asyncio.sleep(0.3)
            return await record_many(items)

        live.record_many = slow  # type: ignore[method-assign]
        try:
            await seed(live.engine, settings, [healthy.url(), healthy.url("/b")], 3)
            assert await live.run_once() == 6
            assert "webhook-recorder" in callers  # the race this test is about did happen
            found = await rows(live.engine)
            assert {(r.status, r.attempts, r.lease_token) for r in found} == {("success", 1, None)}
        finally:
            await live.close()
            await live.engine.dispose()

    asyncio.run(scenario())


def test_two_workers_never_send_an_attempt_twice(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    healthy, _ = receivers
    # a long timeout: a POST slowed down by a loaded machine is not what this test is about
    settings = settings_for(database_url, webhook_timeout=5.0)

    def settled(found: list[Any]) -> bool:  # every pair delivered, nothing left pending
        delivered = {(r.event_id, r.webhook_id) for r in found if r.status == "success"}
        return len(delivered) == 60 and "pending" not in {r.status for r in found}

    async def scenario() -> None:
        # small batches and several lanes each: many claims racing for the same due rows
        workers = [worker(settings, batch=3, concurrency=6, lanes=3) for _ in range(2)]
        try:
            await seed(workers[0].engine, settings, [healthy.url(), healthy.url("/b")], 30)
            for each in workers:
                await each.start()
            found = await until(workers[0].engine, settled)
        finally:
            for each in workers:
                await each.close()
        # each attempt (row) reached the receiver once, and every row's attempt did
        assert max(Counter(healthy.ids).values()) == 1
        assert sorted(r.id for r in found) == sorted(healthy.ids)
        assert len(healthy.ids) >= 60
        for each in workers:
            await each.engine.dispose()

    asyncio.run(scenario())


def test_a_hanging_target_does_not_hold_up_the_others(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    healthy, hanging = receivers
    settings = settings_for(database_url, webhook_timeout=1.0)

    async def scenario() -> None:
        each = worker(settings, batch=32)
        try:
            await seed(each.engine, settings, [healthy.url(), hanging.url()], 4)
            async with each.engine.connect() as connection:
                query = select(webhooks.c.id).where(webhooks.c.url == hanging.url())
                hanging_id = (await connection.execute(query)).scalar_one()
            await each.start()

            def healthy_done(found: list[Any]) -> bool:
                done = [r for r in found if r.status == "success"]
                return len(done) == 4

            found = await until(each.engine, healthy_done)
            # recorded while the hanging target still holds its requests, not yet failed
            assert hanging.held >= 1
            slow = [r for r in found if r.status != "success"]
            assert len(slow) == 4 and {r.status for r in slow} == {"pending"}
            assert {r.webhook_id for r in slow} == {hanging_id}
            found = await until(
                each.engine,
                lambda f: len([r for r in f if r.status == "failed"]) == 4,
            )
        finally:
            hanging.release.set()
            await each.close()
            await each.engine.dispose()
        ok = [r for r in found if r.status == "success"]
        failed = [r for r in found if r.status == "failed"]
        retries = {r.id: r for r in found}
        assert len(ok) == 4 and hanging_id not in {r.webhook_id for r in ok}
        assert all(r.webhook_id == hanging_id and r.attempts == 1 for r in failed)
        # the healthy attempts were recorded before the hanging ones timed out
        assert max(r.completed_at for r in ok) < min(r.completed_at for r in failed)
        for row in failed:
            assert row.response_code is None
            assert row.error_message.startswith("Timed out after 1 s (attempt 1 of 3; retried as ")
            retry_id = row.error_message.rsplit(" ", 1)[1].rstrip(")")
            retry = retries[retry_id]
            assert retry.event_id == row.event_id and retry.webhook_id == hanging_id
            assert retry.next_attempt_at == row.completed_at + int(10 * SCALE * 1000)
        assert len(hanging.ids) >= 4

    asyncio.run(scenario())


def test_an_attempt_without_a_slot_in_time_is_given_back_unsent(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    _, hanging = receivers
    settings = settings_for(database_url, webhook_timeout=2.0, dns_timeout=0.1)

    async def scenario() -> None:
        # one slot per target: the second attempt waits for it past its start-by time
        each = worker(settings, batch=10, per_target=1)
        try:
            await seed(each.engine, settings, [hanging.url()], 2)
            claimed = await each.claim()
            assert len(claimed) == 2
            outcomes = await asyncio.gather(*(each.attempt(item) for item in claimed))
            assert sorted(map(str, outcomes)) == [
                "None",
                str(Outcome(False, None, "Timed out after 2 s")),
            ]
            assert len(hanging.ids) == 1  # the given-back attempt was never sent
            await each.record_many(list(zip(claimed, outcomes, strict=True)))
            found = {r.id: r for r in await rows(each.engine)}
            given_back = next(i for i, o in zip(claimed, outcomes, strict=True) if o is None)
            row = found[given_back.id]
            assert (row.status, row.attempts, row.lease_token) == ("pending", 0, None)
            assert row.next_attempt_at <= int(time.time() * 1000)  # due again at once
            assert len(found) == 3  # the timed-out attempt, its retry, the given-back one
        finally:
            hanging.release.set()
            await each.close()
            await each.engine.dispose()

    asyncio.run(scenario())


def test_an_idle_worker_backs_off_and_a_publish_in_its_process_wakes_it(
    database_url: str, receivers: tuple[Receiver, Receiver]
) -> None:
    """Nothing due: the worker's looks thin out (it does not take the database's write lock
    every poll interval forever); an event published by its own process is sent at once,
    not after the idle wait."""
    healthy, _ = receivers
    settings = settings_for(database_url)

    async def scenario() -> None:
        idle = worker(settings, poll_interval=0.05, idle_max=1.0)
        sleepy = worker(settings, poll_interval=5.0, idle_max=5.0)
        looks = 0
        claim = idle.claim

        async def counted(*args: Any, **kwargs: Any) -> Any:
            nonlocal looks
            looks += 1
            return await claim(*args, **kwargs)

        idle.claim = counted  # type: ignore[method-assign]
        try:
            org = await seed(idle.engine, settings, [healthy.url()], 0)
            await idle.start()
            await asyncio.sleep(1.6)
            await idle.close()
            # two lanes polling every 0.05 s would look 64 times; backing off: 0.05, 0.1,
            # 0.2, 0.4, 0.8 s apart, 5 or 6 looks per lane
            assert 2 <= looks <= 16, looks
            await sleepy.start()
            await asyncio.sleep(0.3)  # its first look found nothing: it now waits 5 s
            started = time.monotonic()
            await publish_event(sleepy.engine, org, "campaign.created", {"n": 1})
            await until(sleepy.engine, lambda found: [r.status for r in found] == ["success"])
            assert time.monotonic() - started < 4.0  # woken, not the 5 s idle wait
            assert len(healthy.ids) == 1
        finally:
            await idle.close()
            await sleepy.close()
            await idle.engine.dispose()
            await sleepy.engine.dispose()

    asyncio.run(scenario())
