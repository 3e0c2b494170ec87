"""The webhook delivery worker: claims due attempts in batches, POSTs them signed and
concurrently, records the outcomes in batches as they arrive.

This module schedules; the jobs are in their own modules: the queue of delivery rows
(queue.py: claim under a lease, record, retries; its SQL per dialect in statements.py), one
attempt over HTTP (attempt.py, with the target and secret caches of caches.py and the
connections of transport.py).

The worker keeps its pipeline full: `lanes` claim loops claim the next batches while earlier
attempts are still sending, up to `concurrency` attempts in flight, and leave out of a claim
the webhooks whose target already has 4 x `per_target` attempts queued (another worker may
take them). Each attempt is its own task; a slow or hanging target holds only its own slots:
other targets' attempts of the same batch complete and are recorded without waiting for it.

Outcomes are recorded as they arrive, in small batches (a flush every `flush_size` outcomes
or `flush_interval` seconds, whichever comes first; `lanes` flushes may be under way at
once). An idle worker looks less and less often (poll_interval doubling to idle_max, or at
its earliest retry's due time) and an event its own process publishes wakes it
(`outbox.on_publish`).
"""

from __future__ import annotations

import asyncio
import logging
from collections import Counter
from collections.abc import Callable, Sequence

from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.resolver import Resolver
from ..core.settings import Settings
from .attempt import Sender
from .outbox import on_publish
from .queue import (
    IN_FLIGHT_SHARE,
    LEASE_MARGIN_SECONDS,
    RELEASED,
    Claimed,
    DeliveryQueue,
    Outcome,
)
from .store import now_ms

log = logging.getLogger("outreach_server.webhooks")


class DeliveryWorker:
    def __init__(
        self,
        engine: AsyncEngine,
        settings: Settings,
        resolver: Resolver,
        *,
        batch: int = 32,
        concurrency: int | None = None,
        per_target: int = 32,
        poll_interval: float = 0.05,
        idle_max: float = 1.0,
        flush_size: int = 64,
        flush_interval: float = 0.005,
        lanes: int = 2,
        per_org: int | None = None,
    ) -> None:
        self.engine = engine
        self.settings = settings
        self.batch = batch
        self.concurrency = concurrency  # attempts in flight; None: 4 batches
        self.poll_interval = poll_interval
        # nothing due: the next look doubles its wait from poll_interval up to idle_max (an
        # idle worker does not take SQLite's write lock 40 times a second); an event this
        # process publishes, or a claim that found rows, brings it back to poll_interval
        self.idle_max = max(idle_max, poll_interval)
        self._idle_wait = poll_interval
        self._next_due_ms: int | None = None  # the earliest retry this worker scheduled
        self._wake = asyncio.Event()
        self._unlisten: Callable[[], None] | None = None
        self.flush_size = flush_size
        self.flush_interval = flush_interval
        self.queue = DeliveryQueue(
            engine,
            lease_ms=int(
                (settings.webhook_timeout + settings.dns_timeout + LEASE_MARGIN_SECONDS) * 1000
            ),
            retry_scale=settings.webhook_retry_scale,
        )
        self.sender = Sender(settings, resolver, per_target)
        self._task: asyncio.Task[None] | None = None
        self._stop = asyncio.Event()
        self._in_flight: set[asyncio.Task[None]] = set()
        self._reserved = 0  # attempts being claimed
        self.lanes = lanes
        self._slot_freed = asyncio.Event()
        self._results: list[tuple[Claimed, Outcome | None]] = []
        self._result_ready = asyncio.Event()
        self._recorders: list[asyncio.Task[None]] = []
        self._flushing = 0  # record_many calls under way
        self._flushed = asyncio.Event()  # set whenever none is
        self._flushed.set()
        self._closing = False
        self.per_org = per_org
        self._org_load: Counter[int] = Counter()  # attempts in flight per organisation

    @property
    def lease_ms(self) -> int:
        return self.queue.lease_ms

    @lease_ms.setter
    def lease_ms(self, value: int) -> None:
        self.queue.lease_ms = value

    @property
    def per_org(self) -> int:
        """Due attempts of one organisation in flight at most (spec/DECISIONS.md row 133):
        as set, else a quarter of max_in_flight (IN_FLIGHT_SHARE; 32 with the defaults)."""
        return max(1, self._per_org or self.max_in_flight // IN_FLIGHT_SHARE)

    @per_org.setter
    def per_org(self, value: int | None) -> None:
        self._per_org = value

    @property
    def per_target(self) -> int:
        """Attempts in flight at once per target (set before the first send)."""
        return self.sender.per_target

    @per_target.setter
    def per_target(self, value: int) -> None:
        self.sender.per_target = value

    # -- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        if self._task is None:
            self._stop = asyncio.Event()
            self._closing = False
            self._wake = asyncio.Event()
            self._idle_wait = self.poll_interval
            loop = asyncio.get_running_loop()
            wake = self._wake

            def woken() -> None:
                if not loop.is_closed():
                    loop.call_soon_threadsafe(self._woken, wake)

            self._unlisten = on_publish(woken)
            self._task = asyncio.create_task(self.run(), name="webhook-delivery-worker")

    async def close(self) -> None:
        """Stop claiming; let the attempts in flight finish (each bounded by the timeout),
        record them, then close the connections."""
        self._stop.set()
        self._wake.set()
        if self._unlisten is not None:
            self._unlisten()
            self._unlisten = None
        if self._task is not None:
            await asyncio.gather(self._task, return_exceptions=True)
            self._task = None
        await self._drain()
        await self.queue.close()
        await self.sender.aclose()

    async def _drain(self) -> None:
        if self._in_flight:
            await asyncio.gather(*self._in_flight, return_exceptions=True)
        self._closing = True
        self._result_ready.set()
        if self._recorders:
            await asyncio.gather(*self._recorders, return_exceptions=True)
            self._recorders = []
        await self._flush_all()

    @property
    def max_in_flight(self) -> int:
        return self.concurrency or 4 * self.batch

    async def run(self) -> None:
        """Claim and send until stopped: `lanes` claim loops share the in-flight budget, so
        the next claim is under way while another one's rows are being spawned."""
        self._ensure_recorder()
        await asyncio.gather(*(self._claim_loop() for _ in range(self.lanes)))

    async def _claim_loop(self) -> None:
        while not self._stop.is_set():
            free = self.max_in_flight - len(self._in_flight) - self._reserved
            if free < max(1, min(self.batch, self.max_in_flight) // 2):
                self._slot_freed.clear()  # the pipeline is full: wait for a slot
                await self._wait(self._slot_freed, self.poll_interval)
                continue
            wanted = min(self.batch, free)
            skipped = self.sender.saturated_webhooks()
            full = self._full_orgs()
            self._reserved += wanted
            try:
                items = await self.claim(wanted, skipped)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("webhook delivery claim failed")
                items = []
            finally:
                self._reserved -= wanted
            if items:
                self._idle_wait = self.poll_interval
            for item in items:
                self._spawn(item)
            if len(items) == wanted:
                await asyncio.sleep(0)  # let the sends start, then claim more
            elif (skipped or full) and self._in_flight:  # a busy target's or organisation's
                # rows may be due: look again as soon as a slot frees
                self._slot_freed.clear()
                await self._wait(self._slot_freed, self.poll_interval)
            else:  # nothing more is due now
                await self._idle()

    def _woken(self, wake: asyncio.Event) -> None:
        self._idle_wait = self.poll_interval
        wake.set()

    async def _idle(self) -> None:
        """Wait while nothing is due: until woken, or the idle wait (doubled each time)."""
        wait = self._idle_wait
        if self._next_due_ms is not None:  # a retry of ours falls due: look then
            until = (self._next_due_ms - now_ms()) / 1000
            if until <= 0:
                self._next_due_ms = None
            wait = max(0.0, min(wait, until))
        try:
            await asyncio.wait_for(self._wake.wait(), wait)
        except TimeoutError:
            self._idle_wait = min(self._idle_wait * 2, self.idle_max)
        else:
            self._wake.clear()

    @staticmethod
    async def _wait(event: asyncio.Event, timeout: float) -> None:
        try:
            await asyncio.wait_for(event.wait(), timeout)
        except TimeoutError:
            pass

    async def run_once(self) -> int:
        """Claim one batch, deliver it and record every outcome; the number claimed."""
        self._ensure_recorder()
        items = await self.claim()
        tasks = [self._spawn(item) for item in items]
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        await self._recorded()  # a background recorder may hold some of them, mid-flush
        return len(items)

    def _spawn(self, item: Claimed) -> asyncio.Task[None]:
        task = asyncio.create_task(self.deliver(item))
        self._in_flight.add(task)
        org = item.org_id
        self._org_load[org] += 1

        def finished(task: asyncio.Task[None]) -> None:
            self._in_flight.discard(task)
            self._org_load[org] -= 1
            if self._org_load[org] <= 0:
                del self._org_load[org]
            self._slot_freed.set()

        task.add_done_callback(finished)
        return task

    def _full_orgs(self) -> list[int]:
        return sorted(org for org, load in self._org_load.items() if load >= self.per_org)

    # -- deliver -----------------------------------------------------------------------------

    async def deliver(self, item: Claimed) -> None:
        try:
            outcome = await self.attempt(item)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # never lose the row: record the failure
            log.exception("webhook delivery %s failed unexpectedly", item.id)
            outcome = Outcome(False, None, f"internal error ({type(exc).__name__})")
        self._results.append((item, outcome))
        self._result_ready.set()

    # -- record ------------------------------------------------------------------------------

    def _ensure_recorder(self) -> None:
        """`lanes` recorders: one flush can be under way while the next batch collects."""
        self._recorders = [task for task in self._recorders if not task.done()]
        while len(self._recorders) < self.lanes:
            self._recorders.append(
                asyncio.create_task(self._record_loop(), name="webhook-recorder")
            )

    async def _record_loop(self) -> None:
        while not (self._closing and not self._results):
            await self._result_ready.wait()
            if not self._closing and len(self._results) < self.flush_size:
                await asyncio.sleep(self.flush_interval)
            await self._flush_all()

    async def _flush_all(self) -> None:
        while self._results:
            taken = self._results[: self.flush_size * 4]
            del self._results[: len(taken)]
            if not self._results and not self._closing:
                self._result_ready.clear()
            self._flushing += 1
            self._flushed.clear()
            try:
                await self.record_many(taken)
            except asyncio.CancelledError:
                raise
            except Exception:  # the rows stay pending: delivered again once the lease ends
                log.exception("recording %d webhook deliveries failed", len(taken))
            finally:
                self._flushing -= 1
                if not self._flushing:
                    self._flushed.set()

    async def _recorded(self) -> None:
        """Until every outcome collected so far is recorded, by this task or a recorder."""
        while self._results or not self._flushed.is_set():
            await self._flush_all()
            await self._flushed.wait()

    async def record(self, item: Claimed, outcome: Outcome) -> bool:
        """Record one attempt (and schedule the next); False when the lease was lost."""
        return item.id in await self.record_many([(item, outcome)])

    async def record_many(self, results: list[tuple[Claimed, Outcome | None]]) -> set[str]:
        """Record attempts (and schedule their retries) in one transaction; release the
        attempts not made. Returns the ids recorded (a row whose lease was lost is not)."""
        done = await self.queue.record(results)
        due = done.next_due_ms  # an idle look falls on the earliest retry's due time
        if due is not None and (self._next_due_ms is None or due < self._next_due_ms):
            self._next_due_ms = due
        for row_id in done.made:
            if row_id not in done.ids:
                log.warning("webhook delivery %s: lease lost, outcome not recorded", row_id)
        return done.ids

    # -- claim and attempt ---------------------------------------------------------------------

    async def claim(self, limit: int | None = None, skipped: Sequence[str] = ()) -> list[Claimed]:
        """Lease due attempts, organisations taking turns, at most `per_org` of each in
        flight: the claim leaves out the organisations already at the bound and takes at most
        what each other one has room for; what a concurrent claim (another lane) took
        beyond the bound is given back unsent at once."""
        load = self._org_load
        items = await self.queue.claim(
            limit or self.batch,
            skipped,
            full_orgs=self._full_orgs(),
            room={org: self.per_org - n for org, n in load.items() if n < self.per_org},
            per_org=self.per_org,
        )
        taken: Counter[int] = Counter(load)
        kept: list[Claimed] = []
        for item in items:
            taken[item.org_id] += 1
            if taken[item.org_id] <= self.per_org:
                kept.append(item)
            else:  # the spawn below would pass the bound: released, due again at once
                self._results.append((item, RELEASED))
                self._result_ready.set()
        return kept

    async def attempt(self, item: Claimed) -> Outcome | None:
        """The outcome of one attempt; None (RELEASED) when it was not made."""
        return await self.sender.attempt(item)
