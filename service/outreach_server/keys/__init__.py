"""API keys: issuing tokens (stored hashed), authenticating, listing, narrowing a key to lists.

The public face of the `keys` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    MAX_KEYS_PER_ORG,
    MAX_LISTED_KEYS,
    ApiKeyRecord,
    KeyStore,
    TooManyKeys,
)
from .tables import (
    api_key_lists,
)

__all__ = [
    "MAX_KEYS_PER_ORG",
    "MAX_LISTED_KEYS",
    "ApiKeyRecord",
    "KeyStore",
    "TooManyKeys",
    "api_key_lists",
]
