"""Per-stage wall-clock timings on stderr, when `SPEC_GEN_TIMINGS=1` (or `build --timings`).

Each line reads `[timings] <seconds since start> +<stage seconds> <stage> (pid)`, so the
stages of the forked workers (models, validation) show on the same clock as the main
process's. Off by default: nothing is printed and nothing is measured.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

ENV = "SPEC_GEN_TIMINGS"
_START = time.perf_counter()


def enabled() -> bool:
    return os.environ.get(ENV, "") not in ("", "0")


def mark(what: str, since: float | None = None) -> None:
    """One timings line for `what` (took `now - since` when `since` is given)."""
    if not enabled():
        return
    now = time.perf_counter()
    took = "" if since is None else f" +{now - since:6.3f}"
    # one write per line: the workers print on the same stderr, and print()'s two writes
    # (the text, then the newline) interleave with theirs
    sys.stderr.write(f"[timings] {now - _START:7.3f}{took} {what} ({os.getpid()})\n")
    sys.stderr.flush()


@contextmanager
def stage(what: str) -> Iterator[None]:
    """Time a stage: one line when it ends."""
    start = time.perf_counter()
    try:
        yield
    finally:
        mark(what, start)
