"""build_speed.py's watch-mode rows: `watch-<edit>`, a rebuild after an edit in
`spec-gen build --watch` (generator/spec_gen/build/watch.py), timed from the moment the
edited spec is written to the watch's `[watch] built` line: its polling (every 0.1 s, then
0.05 s to see the file settle) is in the figure, as a team meets it.

Each row runs one watch, in a project of its own built once beforehand (the watch's first
build is not timed), for the whole bench; run i (warm-up included) writes the document with
edits 1 ... i+1, as the `rebuild-<edit>` rows do. The watch's builds are not its children's
(it forks them), so no CPU time is given for these rows. After each build the row waits
until the watch's processes stop using CPU (the next build's process gets ready then), so
that work does not fall into the bench's next rows.
"""

from __future__ import annotations

import queue
import signal
import statistics
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path

WAIT_S = 900
SETTLE_MAX_S = 60  # at most this long waiting for the watch's processes to go idle


class WatchRow:
    """A row of build_speed.py's table (the same fields and methods as its `Row`)."""

    def __init__(
        self, case: str, key: str, cwd: Path, spec_gen: str, write: Callable[[int], None]
    ) -> None:
        self.case, self.key, self.cwd = case, key, cwd
        self.spec_gen, self.write = spec_gen, write
        self.times: list[float] = []
        self.cpu: list[float] = []
        self.error: str | None = None
        self.runs = 0
        self.process: subprocess.Popen[str] | None = None
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.said: list[str] = []

    def _read(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # the end

    def _status(self) -> str:
        """The watch's next `[watch] ...` line ("" once it has ended)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                return f"no [watch] line after {WAIT_S} s"
            if line is None:
                return ""
            self.said = [*self.said[-20:], line]
            if line.startswith("[watch]"):
                return line

    def once(self, timed: bool) -> None:
        if self.error is not None:
            return
        if self.process is None:
            self.process = subprocess.Popen(
                [self.spec_gen, "build", "--watch"],
                cwd=self.cwd,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,
            )
            threading.Thread(target=self._read, daemon=True).start()
            first = self._status()
            if not first.startswith("[watch] built"):
                self.error = f"the watch's first build: {first or 'it ended'}: " + " / ".join(
                    self.said[-3:]
                )
                return
            self._settle()
        start = time.perf_counter()
        self.write(self.runs)
        self.runs += 1
        line = self._status()
        elapsed = time.perf_counter() - start
        if not line.startswith("[watch] built"):
            self.error = f"{line or 'the watch ended'}: " + " / ".join(self.said[-3:])
        elif timed:
            self.times.append(elapsed)
        self._settle()

    def _settle(self) -> None:
        """Wait until the watch's processes use no more CPU: after a build, the process of
        the next one gets ready (its models worker, its probes importing the last models),
        which would otherwise run during the bench's next rows (and a user's next edit
        comes after it, as the next run's here does)."""
        assert self.process is not None
        last, deadline = -1, time.monotonic() + SETTLE_MAX_S
        while time.monotonic() < deadline:
            used = _session_cpu_ticks(self.process.pid)
            if used == last:
                return
            last = used
            time.sleep(0.5)

    def median(self) -> float | None:
        return statistics.median(self.times) if self.times and self.error is None else None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                self.process.kill()


def _session_cpu_ticks(session: int) -> int:
    """The CPU time (clock ticks, user + system) of the processes of a session now."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        # after the name: state, ppid, pgrp, session, ..., utime (12th), stime (13th)
        if len(fields) > 12 and int(fields[3]) == session:
            total += int(fields[11]) + int(fields[12])
    return total
