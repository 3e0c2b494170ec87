"""The app platform: apps, installations, client credentials, signing keys and app tokens.

The public face of the `app_platform` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from . import tables as tables  # registers the tables on the metadata
from .platform import (
    AppPlatform,
)
from .registry import (
    RegistryError,
)
from .tokens import (
    SigningKeyUnavailable,
)

__all__ = [
    "AppPlatform",
    "RegistryError",
    "SigningKeyUnavailable",
]
