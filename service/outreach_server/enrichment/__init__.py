"""Waterfall enrichment configs and the organisation's provider keys.

The public face of the `enrichment` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .configs import (
    add_provider_key,
    create_config,
    parse_step,
)
from .tables import (
    waterfall_configs,
)

__all__ = [
    "add_provider_key",
    "create_config",
    "parse_step",
    "waterfall_configs",
]
