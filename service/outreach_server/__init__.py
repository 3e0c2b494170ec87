"""The Outreach Data Platform service: hand-written implementations of the generated interfaces."""

from .app import create_app
from .settings import Settings

__all__ = ["Settings", "create_app"]
