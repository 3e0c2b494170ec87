"""One forked worker process that runs the calls submitted to it, in order.

It is what `ProcessPoolExecutor(max_workers=1, mp_context=fork)` gives, minus what the
models step cannot afford on its critical path: the pool's imports, and the wait for a
first `submit` before the process exists. `spec-gen build` starts it as soon as its
configuration is read (before the generator is imported), with a first call that imports
and warms up datamodel-code-generator; by the time the spec is read and the IR built,
the worker is ready for the real run.

The calls and their results cross two pipes as pickled frames (8-byte length, then the
pickle). The parent writes from a thread, so a large call (the models document of a big
spec) never blocks it while the worker is still warming up. A call that raises in the
worker raises the same exception from `Pending.result()` (one that would not load again,
its `__init__` wanting more than its args, comes back as a RuntimeError with its text). `close()` kills the worker: a
build that stops early (an invalid spec) does not wait for a warm-up it no longer needs.
Nothing here is imported by the worker's calls: it is plain os, pickle and threading.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import threading
from collections import deque
from collections.abc import Callable
from typing import Any, Self

_LENGTH = struct.Struct(">Q")


def _write_frame(fd: int, payload: bytes) -> None:
    data = memoryview(_LENGTH.pack(len(payload)) + payload)
    while data:
        data = data[os.write(fd, data) :]


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def _read_frame(fd: int) -> bytes | None:
    head = _read_exactly(fd, _LENGTH.size)
    if head is None:
        return None
    return _read_exactly(fd, _LENGTH.unpack(head)[0])


class WorkerDied(RuntimeError):
    """The worker process ended before it answered."""


class Pending:
    """A submitted call's result, read from the worker when asked for."""

    def __init__(self, worker: ForkedWorker) -> None:
        self._worker = worker
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None

    def _settle(self, value: Any, error: BaseException | None) -> None:
        self._done, self._value, self._error = True, value, error

    def result(self) -> Any:
        while not self._done:
            self._worker._read_one()
        if self._error is not None:
            raise self._error
        return self._value


class ForkedWorker:
    """A forked process running submitted calls one after another (see the module's text)."""

    def __init__(self, first: Callable[[], object] | None = None) -> None:
        jobs_read, self._jobs = os.pipe()
        self._results, results_write = os.pipe()
        self._pending: deque[Pending] = deque()
        self._writers: list[threading.Thread] = []
        self._closed = False
        self.pid = os.fork()
        if self.pid == 0:  # the worker: never returns to the caller's code
            code = 1
            try:
                os.close(self._jobs)
                os.close(self._results)
                _serve(jobs_read, results_write, first)
                code = 0
            finally:
                os._exit(code)
        os.close(jobs_read)
        os.close(results_write)

    def submit(self, fn: Callable[..., Any], *args: Any) -> Pending:
        """Run `fn(*args)` in the worker, after what was submitted before."""
        if self._closed:
            raise RuntimeError("the worker is closed")
        payload = pickle.dumps((fn, args), protocol=pickle.HIGHEST_PROTOCOL)
        pending = Pending(self)
        self._pending.append(pending)
        before = self._writers[-1] if self._writers else None

        def send() -> None:
            # after the call submitted before this one: answers are matched to calls by order
            # (a lock alone let a later writer thread reach the pipe first, and a call then
            # got another call's answer)
            if before is not None:
                before.join()
            try:
                _write_frame(self._jobs, payload)
            except OSError:  # the worker has gone: its Pending says so when read
                pass

        writer = threading.Thread(target=send, name="spec-gen worker feed", daemon=True)
        writer.start()
        self._writers.append(writer)
        return pending

    def _read_one(self) -> None:
        """Read the next answer and settle the oldest pending call with it."""
        frame = _read_frame(self._results)
        pending = self._pending.popleft()
        if frame is None:
            pending._settle(None, WorkerDied("the models worker ended without an answer"))
            return
        ok, value = pickle.loads(frame)
        pending._settle(value if ok else None, None if ok else value)

    def close(self) -> None:
        """Stop the worker now (whatever it is doing) and reap it."""
        if self._closed:
            return
        self._closed = True
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self.pid, 0)
        for fd in (self._jobs, self._results):
            try:
                os.close(fd)
            except OSError:
                pass

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def deaf_to_ctrl_c() -> None:
    """A worker process ignores Ctrl-C (a pool's initializer): the build's own process stops
    it, with no traceback of the worker's on the terminal."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _serve(jobs: int, results: int, first: Callable[[], object] | None) -> None:
    """The worker's loop: the first call (its failure is not fatal: the real call will
    raise it again where it is read), then each submitted call until the pipe closes."""
    if first is not None:
        try:
            first()
        except Exception:  # noqa: BLE001,S110  (a warm-up only)
            pass
    while True:
        frame = _read_frame(jobs)
        if frame is None:
            return
        fn, args = pickle.loads(frame)
        try:
            answer: tuple[bool, Any] = (True, fn(*args))
        except Exception as exc:  # noqa: BLE001  (carried to the caller)
            answer = (False, exc)
        try:
            payload = pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL)
            if not answer[0]:  # an exception whose __init__ its args do not fit would not load
                pickle.loads(payload)
        except Exception:  # noqa: BLE001  (an answer that does not pickle: its text does)
            what = answer[1]
            text = f"the worker's answer does not pickle: {type(what).__name__}: {what}"
            payload = pickle.dumps((False, RuntimeError(text)))
        _write_frame(results, payload)
