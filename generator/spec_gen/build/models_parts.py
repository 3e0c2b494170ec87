"""A cold models step in two processes at once: datamodel-code-generator run on two parts
of the schemas, one in this process (the models worker, the tool already imported and
warmed up) and one in a process forked from it, each part closed under references.

A piece of a run on a part equals the piece of a run on the whole document (what the models
cache per class rests on, build/models_cache.py), so the two runs' pieces, assembled, are
the module one run writes, byte for byte. The parts are the connected components of the
schemas' reference graph (`dependencies`, both ways), packed into two bins of about the same
size (the schemas' JSON text): no class is generated twice. Taken only when there are
`TWO_RUNS_FROM` classes or more to generate, when the bins are balanced enough to gain, and
when the tool names no class itself (named.tool_names_some: its module would not split).
"""

from __future__ import annotations

import json
import os
import pickle
import signal
from collections.abc import Callable
from typing import Any

from ..core.graphs import reached
from ..core.timings import mark

# fewer classes than this: one run (measured: a run of ~120 classes is ~0.5 s, hidden behind
# the templates; spec/ must not pay a fork for nothing); SPEC_GEN_MODELS_TWO_RUNS overrides
TWO_RUNS_FROM = 400
# the larger part at most this share of the whole (else one run is about as fast)
MOST = 0.75

Pieces = dict[str, dict[str, Any]]
_PR_SET_PDEATHSIG = 1


def two_parts(
    names: list[str], schemas: dict[str, Any], graph: dict[str, list[str]]
) -> tuple[list[str], list[str]] | None:
    """`names` (closed under `graph`) in two parts, each closed, heavier first, in the
    document's order; None when they would be too few or too unequal to gain."""
    least = int(os.environ.get("SPEC_GEN_MODELS_TWO_RUNS", TWO_RUNS_FROM))
    if len(names) < max(least, 2):
        return None
    wanted = set(names)
    both: dict[str, set[str]] = {name: set() for name in names}
    for name in names:
        for target in graph[name]:
            if target in wanted:
                both[name].add(target)
                both[target].add(name)
    weight = {name: len(json.dumps(schemas[name])) for name in names}
    seen: set[str] = set()
    components: list[tuple[int, set[str]]] = []
    for name in names:
        if name not in seen:
            members = reached([name], both.__getitem__)
            seen |= members
            components.append((sum(weight[m] for m in members), members))
    bins: list[tuple[int, set[str]]] = [(0, set()), (0, set())]
    for size, members in sorted(components, key=lambda c: -c[0]):  # stable: ties in order
        lighter = 0 if bins[0][0] <= bins[1][0] else 1
        bins[lighter] = (bins[lighter][0] + size, bins[lighter][1] | members)
    bins.sort(key=lambda b: -b[0])
    total = bins[0][0] + bins[1][0]
    if not bins[1][1] or bins[0][0] > MOST * total:
        return None
    first, second = ([n for n in names if n in members] for _, members in bins)
    return first, second


def _die_with(parent: int) -> None:
    """End this process when `parent` ends (a build stopped early kills the models worker,
    ForkedWorker.close: its forked run must not go on alone). Linux's prctl; elsewhere the
    run ends at its first write to the closed pipe."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent:  # it ended before the line above
        os._exit(1)


def run_in_two(
    part: Callable[[list[str]], Pieces | None], parts: tuple[list[str], list[str]]
) -> Pieces | None:
    """`part(names)` for the two parts at once, the second in a forked process; their
    pieces together, or None when a run did not split or failed (the caller then makes the
    module in one run, which raises what the tool refused)."""
    read, write = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the forked run: never returns to the caller's code
        code = 1
        try:
            os.close(read)
            _die_with(parent)
            try:
                answer = part(parts[1])
            except Exception:  # noqa: BLE001  (the whole run, in the parent, says why)
                answer = None
            data = memoryview(pickle.dumps(answer, protocol=pickle.HIGHEST_PROTOCOL))
            while data:
                data = data[os.write(write, data) :]
            code = 0
        finally:
            os._exit(code)
    os.close(write)
    try:
        mine = part(parts[0])
    except Exception:  # noqa: BLE001  (as above)
        mine = None
    try:
        if mine is None:  # the other's answer is no use
            os.kill(pid, signal.SIGKILL)
            return None
        chunks = []
        while chunk := os.read(read, 1 << 20):
            chunks.append(chunk)
    finally:
        os.close(read)
        _, status = os.waitpid(pid, 0)
    theirs = pickle.loads(b"".join(chunks)) if status == 0 and chunks else None
    if theirs is None:
        return None
    mark(f"models: two runs at once, {len(parts[0])} + {len(parts[1])} classes")
    return {**mine, **theirs}
