"""What a build produces, shared by `build` (which makes it) and `cache` (which records it)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class BuildResult:
    files: dict[str, str]  # path relative to the output directory -> content
    inputs: list[Path] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # the findings the build went on with
    reuse: Any = None  # build/reuse.py's Reuse: what it formatted, recorded once written
