"""The profile's rules and the positions of their findings, in the validator's worker.

The rules run in the forked worker while this process builds the IR and renders; the
positions of what they find (and of what the loader repaired: its pointers are known when
the worker is given the document) are looked up there too, in the spec's text
(`SourceMap`, a walk of the JSON or YAML text along each pointer): on a large document
with hundreds of warnings that is a tenth of a second the build no longer waits for at its
end. `locate_findings` then looks up only the pointers the worker was not given (the
validator's, the models step's), the same way, so the findings are the ones it would find.
The pointers the last build looked up itself (`LAST`, in the build cache: the models step's
warnings of a rebuild whose models are read back are the last build's) are given to the
worker too: only their positions in this build's text are used.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..core.timings import stage
from ..document.load import Bundle, SourceMap
from ..lint.findings import RawFinding
from ..lint.validate import rule_findings

Located = dict[str, tuple[Path, int, int]]  # pointer -> file, line, column
LAST = "located.json"  # the pointers the last build's own process looked up


def to_locate(cache_dir: Path | None, pointers: list[str]) -> list[str]:
    """`pointers` and those the last build looked up itself."""
    try:
        last = json.loads((cache_dir / LAST).read_text(encoding="utf-8")) if cache_dir else []
    except (OSError, ValueError):
        last = []
    return (
        [*pointers, *(p for p in last if isinstance(p, str))]
        if isinstance(last, list)
        else pointers
    )


def remember_unlocated(cache_dir: Path | None, raw: list[RawFinding], known: Located) -> None:
    """Keep the pointers of `raw` the worker was not asked for by the rules or the loader (not
    located, or located only as the last build's), for the next build's worker."""
    if cache_dir is None:
        return
    last = set(to_locate(cache_dir, []))
    missed = sorted({f.pointer for f in raw if f.pointer not in known or f.pointer in last})
    path = cache_dir / LAST
    try:
        if missed != sorted(last):
            path.write_text(json.dumps(missed), encoding="utf-8")
    except OSError:
        pass


def rules_in_worker(
    spec_bundle: Bundle, rules: Any, pointers: list[str]
) -> tuple[list[RawFinding] | None, Located]:
    """The profile's findings (None when a rule fails: the caller runs them again, to raise
    the error in its own process), and where they and `pointers` are in the spec's files."""
    with stage("rules"):
        try:
            found: list[RawFinding] | None = rule_findings(spec_bundle.document, rules)
        except Exception:  # noqa: BLE001
            found = None
    with stage("findings located (worker)"):
        wanted = [*pointers, *(f.pointer for f in found or [])]
        try:
            return found, locate(spec_bundle, wanted)
        except Exception:  # noqa: BLE001  (looked up again at the end: an error is raised there)
            return found, {}


def locate(spec_bundle: Bundle, pointers: list[str]) -> Located:
    source_map = SourceMap(spec_bundle)
    out: Located = {}
    for pointer in pointers:
        if pointer not in out:
            out[pointer] = source_map.locate(pointer)
    return out
