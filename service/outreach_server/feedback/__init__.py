"""Feedback surveys and their automated-send triggers.

The public face of the `feedback` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .store import (
    canonical_uuid,
    create_survey,
    create_trigger,
)
from .tables import (
    survey_triggers,
    surveys,
)

__all__ = [
    "canonical_uuid",
    "create_survey",
    "create_trigger",
    "survey_triggers",
    "surveys",
]
