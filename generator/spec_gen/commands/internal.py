"""The one line an unexpected error inside spec-gen is reported as (exit status 2)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.where import pointer_of


def describe(exc: BaseException, kwargs: dict[str, Any]) -> str:
    """`spec-gen: internal error at FILE:LINE:COL (POINTER): Type: message`."""
    reason = " ".join(str(exc).split()) or "(no message)"
    what = f"{type(exc).__name__}: {reason}"
    pointer = pointer_of(exc)
    if pointer is None:
        return f"spec-gen: internal error: {what}"
    return f"spec-gen: internal error at {_where(pointer, kwargs)}: {what}"


def _where(pointer: str, kwargs: dict[str, Any]) -> str:
    shown = pointer or "/"
    try:
        from ..core.config import load_config
        from ..document.load import SourceMap, bundle

        spec = kwargs.get("spec") or kwargs.get("path") or kwargs.get("spec_option")
        config = load_config()
        root = Path(spec).resolve() if spec else config.spec
        file, line, column = SourceMap(bundle(root)).locate(pointer)
        return f"{config.relative(file)}:{line}:{column} ({shown})"
    except Exception:  # noqa: BLE001  (the location is a help; the error line must come out)
        return shown
