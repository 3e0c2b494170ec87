"""Contacts, companies and lists as a key sees them: columns, reads, selections and writes.

The public face of the `contacts` domain: other packages import from here, never from its
modules. Its operation handlers (`handlers*.py`) are imported by the app factory only.
"""

from __future__ import annotations

from .columns import (
    normalise_linkedin_url,
)
from .seeding import (
    allow_photo,
    create_custom_column,
    create_list,
    enroll,
    restrict_key,
    seed_company,
    seed_contact,
)
from .selection import (
    Selection,
    chunks,
    count_selected,
    filter_condition,
    require_contacts,
    require_list,
    selected_rows,
    storable,
    unique_ids,
)
from .store import (
    LIST_TYPES,
    ContactScope,
    get_list,
)
from .tables import (
    CUSTOM_COLUMN_TYPES,
    ENTITY_TYPES,
    companies,
    custom_columns,
    profile_photos,
    sequence_enrollments,
)

__all__ = [
    "CUSTOM_COLUMN_TYPES",
    "ENTITY_TYPES",
    "LIST_TYPES",
    "ContactScope",
    "Selection",
    "allow_photo",
    "chunks",
    "companies",
    "count_selected",
    "create_custom_column",
    "create_list",
    "custom_columns",
    "enroll",
    "filter_condition",
    "get_list",
    "normalise_linkedin_url",
    "profile_photos",
    "require_contacts",
    "require_list",
    "restrict_key",
    "seed_company",
    "seed_contact",
    "selected_rows",
    "sequence_enrollments",
    "storable",
    "unique_ids",
]
