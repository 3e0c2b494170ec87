"""Forms and their operational overview.

The public face of the `forms` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    create_form,
)
from .tables import (
    forms,
)

__all__ = [
    "create_form",
    "forms",
]
