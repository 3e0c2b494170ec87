"""The output tree on disk: what is there, what changed, a short diff, writing the changes."""

from __future__ import annotations

import difflib
import hashlib
import os
import shutil
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

STAGING = ".spec-gen-staging"  # inside the output: new files wait there to be verified
IGNORED_PARTS = {"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", STAGING}


def stat_key(status: os.stat_result) -> list[int]:
    """What tells a file was not written since it was recorded, as git's index tells it: its
    size, modification and change times (the change time no tool can set back) and inode."""
    return [status.st_size, status.st_mtime_ns, status.st_ctime_ns, status.st_ino]


class OutputFiles(Mapping[str, bytes]):
    """The files of the output directory: their paths listed at once, their bytes read on
    first use. `digest(path)` is the recorded sha-256 of a file whose `stat_key` is the one
    recorded with it by the last build (`known`: path -> [sha, *stat_key]), so a rebuild reads
    only the files it changes or that were written since; any other file is read and hashed."""

    def __init__(self, output: Path, known: Mapping[str, list[object]] | None = None) -> None:
        self.output = output
        self.known = known or {}
        self.stats: dict[str, os.stat_result] = {}
        self._read: dict[str, bytes] = {}
        if output.is_dir():
            self._scan(output, "")
            self.stats = dict(sorted(self.stats.items()))

    def _scan(self, folder: Path, prefix: str) -> None:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name in IGNORED_PARTS or entry.name.endswith(".egg-info"):
                    continue
                if entry.is_dir(follow_symlinks=True):
                    self._scan(Path(entry.path), f"{prefix}{entry.name}/")
                elif entry.is_file(follow_symlinks=True):
                    self.stats[prefix + entry.name] = entry.stat(follow_symlinks=True)

    def __getitem__(self, path: str) -> bytes:
        if path not in self.stats:
            raise KeyError(path)
        if path not in self._read:
            self._read[path] = (self.output / path).read_bytes()
        return self._read[path]

    def __contains__(self, path: object) -> bool:
        return path in self.stats

    def __iter__(self) -> Iterator[str]:
        return iter(self.stats)

    def __len__(self) -> int:
        return len(self.stats)

    def digest(self, path: str) -> str:
        recorded = self.known.get(path)
        if recorded and recorded[1:] == stat_key(self.stats[path]):
            return str(recorded[0])
        return hashlib.sha256(self[path]).hexdigest()


def existing_files(output: Path, known: Mapping[str, list[object]] | None = None) -> OutputFiles:
    return OutputFiles(output, known)


@dataclass
class Change:
    kind: str  # added | changed | removed
    path: str
    added: int
    removed: int

    def __str__(self) -> str:
        return f"{self.kind:8} {self.path} (+{self.added} -{self.removed})"


def changes(
    old: Mapping[str, bytes], new: dict[str, str], kept: dict[str, list[object]] | None = None
) -> list[Change]:
    """What writing `new` over `old` changes; `kept` gets each file left as it is, with its
    record entry (sha-256 and `stat_key`, what `remember_build` records) when `old` is the
    output on disk: not hashed nor looked at again."""
    out = []
    for path in sorted(set(old) | set(new)):
        data = new[path].encode("utf-8") if path in new else b""
        if path in old and path in new and _same(old, path, data, kept):
            continue
        if path not in old:
            out.append(Change("added", path, len(new[path].splitlines()), 0))
        elif path not in new:
            out.append(Change("removed", path, 0, len(_lines(old[path]))))
        else:
            before, after = _middles(old[path], data)
            out.append(Change("changed", path, *_line_counts(_lines(before), _lines(after))))
    return out


def _lines(data: bytes) -> list[str]:
    return data.decode("utf-8", "replace").splitlines()


_CHUNK = 1 << 16


def _common_prefix(a: bytes, b: bytes) -> int:
    """How many first bytes `a` and `b` share: compared a chunk at a time (C's memcmp), the
    first differing chunk halved down."""
    limit = min(len(a), len(b))
    at = 0
    while at < limit and a[at : at + _CHUNK] == b[at : at + _CHUNK]:
        at += _CHUNK
    low, high = at, min(at + _CHUNK, limit)
    while low < high:  # a[:low] == b[:low]; they differ before `high` (or end there)
        middle = (low + high + 1) // 2
        if a[low:middle] == b[low:middle]:
            low = middle
        else:
            high = middle - 1
    return low


def _middles(old: bytes, new: bytes) -> tuple[bytes, bytes]:
    """`old` and `new` without the whole lines they begin and end with alike: a large file
    (the HTML page, the served document) edited in one place is split into lines only there."""
    start = old.rfind(b"\n", 0, _common_prefix(old, new)) + 1
    room = min(len(old), len(new)) - start
    tail = min(_common_prefix(old[::-1], new[::-1]), room)
    cut = len(old) - tail  # old[cut:] == new[len(new) - tail:]: moved to a line's start in both
    if old[cut - 1 : cut] != b"\n" or new[len(new) - tail - 1 : len(new) - tail] != b"\n":
        newline = old.find(b"\n", cut)
        cut = len(old) if newline < 0 else newline + 1
    kept = len(old) - cut
    return old[start:cut], new[start : len(new) - kept]


def _same(
    old: Mapping[str, bytes], path: str, data: bytes, kept: dict[str, list[object]] | None
) -> bool:
    if isinstance(old, OutputFiles):
        digest = hashlib.sha256(data).hexdigest()
        if old.digest(path) != digest:
            return False
        if kept is not None:
            kept[path] = [digest, *stat_key(old.stats[path])]
        return True
    return old[path] == data


# above this many lines left once the common head and tail are set aside, the lines added and
# removed are counted as a multiset difference: difflib's matcher is quadratic in the worst
# case (a large models module or bundled document edited in many places: minutes)
_DIFFLIB_LINES = 2_000


def _line_counts(before: list[str], after: list[str]) -> tuple[int, int]:
    """(lines added, lines removed) from `before` to `after`, as `diff` counts them.

    The common first and last lines are set aside first (an edit usually touches a few lines
    of a long file); what is left is diffed by difflib when small, else counted as the lines
    of each side the other does not have (the same counts for edits that move no lines)."""
    start = 0
    limit = min(len(before), len(after))
    while start < limit and before[start] == after[start]:
        start += 1
    end = 0
    while end < limit - start and before[-1 - end] == after[-1 - end]:
        end += 1
    old, new = before[start : len(before) - end], after[start : len(after) - end]
    if len(old) + len(new) > _DIFFLIB_LINES:
        removed, added = Counter(old), Counter(new)
        return sum((added - removed).values()), sum((removed - added).values())
    diff = list(difflib.unified_diff(old, new, lineterm="", n=0))
    plus = sum(1 for d in diff if d.startswith("+") and not d.startswith("+++"))
    minus = sum(1 for d in diff if d.startswith("-") and not d.startswith("---"))
    return plus, minus


def short_diff(path: str, old: bytes | None, new: str | None, limit: int = 30) -> str:
    before = old.decode("utf-8", "replace").splitlines() if old is not None else []
    after = new.splitlines() if new is not None else []
    diff = list(
        difflib.unified_diff(
            before, after, f"generated/{path}", f"expected/{path}", lineterm="", n=1
        )
    )
    if len(diff) > limit:
        diff = diff[:limit] + [f"... ({len(diff) - limit} more diff lines)"]
    return "\n".join(diff)


def write_tree(output: Path, new: dict[str, str], found: list[Change]) -> None:
    staged = Staging(output, new, found)
    try:
        staged.commit()
    finally:
        staged.discard()


class Staging:
    """The changes, written into `<output>/.spec-gen-staging/` first (while the build checks
    them) and then moved into place by `commit`, a rename per file: writing the files, the
    slow part on some file systems, overlaps the check, and a failed check writes nothing.
    `discard` removes what is left (after a commit: nothing but the empty folder)."""

    def __init__(self, output: Path, new: dict[str, str], found: list[Change]) -> None:
        self.output = output
        self.root = output / STAGING
        self.found = found
        self.made_output = not output.exists()
        shutil.rmtree(self.root, ignore_errors=True)  # an interrupted build's leftovers
        made: set[Path] = set()
        for change in found:
            if change.kind == "removed":
                continue
            target = self.root / change.path
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            target.write_bytes(new[change.path].encode("utf-8"))

    def commit(self) -> None:
        made: set[Path] = set()
        for change in self.found:
            target = self.output / change.path
            if change.kind == "removed":
                target.unlink()
                parent = target.parent
                while parent != self.output and parent.is_dir() and not any(parent.iterdir()):
                    parent.rmdir()
                    parent = parent.parent
                continue
            if target.parent not in made:
                target.parent.mkdir(parents=True, exist_ok=True)
                made.add(target.parent)
            os.replace(self.root / change.path, target)

    def discard(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        if self.made_output and self.output.is_dir() and not any(self.output.iterdir()):
            self.output.rmdir()  # nothing was committed: as if the build had not run
