"""The forked worker that runs the models step: answers in order, errors carried back, a
large call never blocks the caller, and close() stops a busy worker at once."""

from __future__ import annotations

import os
import time

import pytest
from spec_gen.build.worker import ForkedWorker


def _pid() -> int:
    return os.getpid()


def _echo(value: object) -> object:
    return value


def _fail(message: str) -> None:
    raise ValueError(message)


def _sleep(seconds: float) -> None:
    time.sleep(seconds)


def _size(data: bytes) -> int:
    return len(data)


def _exit_now() -> None:
    os._exit(3)


def test_calls_run_in_another_process_and_answer_in_order() -> None:
    with ForkedWorker() as worker:
        pid = worker.submit(_pid)
        answers = [worker.submit(_echo, {"n": n}) for n in range(5)]
        # read out of order: each Pending still gets its own answer
        assert answers[3].result() == {"n": 3}
        assert [a.result() for a in answers] == [{"n": n} for n in range(5)]
        assert pid.result() not in (os.getpid(), None)


def test_an_exception_in_the_worker_is_raised_by_result() -> None:
    with ForkedWorker() as worker:
        failed = worker.submit(_fail, "no class for Pet")
        after = worker.submit(_echo, "still serving")
        with pytest.raises(ValueError, match="no class for Pet"):
            failed.result()
        assert after.result() == "still serving"


def test_the_first_call_runs_before_the_submitted_ones_and_its_failure_is_not_fatal() -> None:
    with ForkedWorker(lambda: _fail("warm-up failed")) as worker:
        assert worker.submit(_echo, 7).result() == 7


def test_a_large_call_does_not_block_the_caller_while_the_worker_is_busy() -> None:
    with ForkedWorker(lambda: _sleep(0.5)) as worker:
        started = time.monotonic()
        pending = worker.submit(_size, b"x" * (8 << 20))  # far beyond a pipe's buffer
        assert time.monotonic() - started < 0.4  # returned while the worker still sleeps
        assert pending.result() == 8 << 20


def test_a_worker_that_dies_is_reported() -> None:
    with ForkedWorker() as worker:
        pending = worker.submit(_exit_now)
        with pytest.raises(RuntimeError, match="ended without an answer"):
            pending.result()


def test_close_stops_a_busy_worker_at_once() -> None:
    worker = ForkedWorker(lambda: _sleep(30))
    started = time.monotonic()
    worker.close()
    assert time.monotonic() - started < 5
    with pytest.raises(ChildProcessError):
        os.waitpid(worker.pid, os.WNOHANG)  # reaped: no such child any more
    with pytest.raises(RuntimeError, match="closed"):
        worker.submit(_echo, 1)


def test_many_calls_submitted_at_once_each_get_their_own_answer() -> None:
    """Each call's frame was written by its own thread under a lock: a later thread could
    take the lock first, and a call then got another call's answer (seen once in the suite).
    The writers now go in submit order."""
    with ForkedWorker() as worker:
        calls = [worker.submit(_echo, (n, "x" * (n % 7) * 20_000)) for n in range(300)]
        assert [call.result()[0] for call in calls] == list(range(300))
