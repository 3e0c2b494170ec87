"""The cyclic garbage collector, paused while a build runs.

A build makes millions of objects that live until it ends (the document, the IR, every
rendered file): each full collection walks all of them, and the heap grows by enough to
trigger one every time it grows by a quarter. On DigitalOcean's document that was 0.8 s of
the main process (8 full collections) and as much again in the models worker, some 10% of
the build's CPU, to free almost nothing. Reference counting still frees what is not in a
cycle; the cycles left (some 20% more peak memory) go when the collector is back on, or with
the process.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """No cyclic collection inside the block; the collector's state is restored after."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
