"""The Outreach Data Platform service: hand-written implementations of the generated interfaces.

`create_app` is imported on first use, so operator commands (`outreach-server admin ...`)
start without loading FastAPI and every handler.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .core.settings import Settings

if TYPE_CHECKING:
    from .app import create_app as create_app

__all__ = ["Settings", "create_app"]


def __getattr__(name: str) -> Any:
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
