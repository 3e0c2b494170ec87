"""The columns of contacts and companies: base, custom and enrichment, and what each supports.

One catalogue per (organisation, entity) serves every schema read (column definitions,
column names, base columns, form fields, searchable fields), the filter language
(`filter_columns()`: each column as a `FilterColumn`), the named columns of fetch and the
writes (which fields a client may set, and their types).

- Base columns are real columns of `contacts` / `companies`.
- Custom columns are rows of `custom_columns`; their values live in the record's `fields`
  JSON under the column_id `cc_<id>`.
- Enrichment columns are the column_ids of the organisation's waterfall configs
  (enrichment.waterfall_configs); their values live in `fields` under that column_id.
- Withheld columns (phone, linkedin_url) read as null until the contact is unlocked
  (`unlocked_at` set by unlock-info), in records and in filters alike, so a filter cannot
  reveal them either.

Searchable-field tiers are derived from the database's real indexes, read at request time
(`index_keys`): a field whose column (or an expression over it) is the leading key of an
index, after an optional `org_id`, is `fast`; a text field with only a trigram or full-text
index (PostgreSQL `gin`/`gist` with `*_trgm_ops`, or `to_tsvector(...)`) is `text_search`;
anything else is `full_scan`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import (
    BigInteger,
    Integer,
    String,
    Table,
    bindparam,
    case,
    cast,
    literal_column,
    or_,
    select,
    type_coerce,
    union_all,
)
from sqlalchemy.ext.asyncio import AsyncConnection

from ..core.db import Reader
from ..core.errors import ApiError
from ..core.filters import NUMBER, TEXT, FilterColumn
from ..core.tables import contacts, lists
from ..enrichment import waterfall_configs
from .tables import companies, custom_columns

CONTACT, COMPANY = "contact", "company"
ENTITY_TABLES: dict[str, Table] = {CONTACT: contacts, COMPANY: companies}
COMPANIES_LIST = "companies"
FAST, TEXT_SEARCH, FULL_SCAN = "fast", "text_search", "full_scan"
CUSTOM_PREFIX = "cc_"
MAX_CUSTOM_TEXT = 10_000


def entity_type(value: str) -> str:
    """The entity a schema read applies to; anything but contact or company is a 400."""
    if value not in (CONTACT, COMPANY):
        raise ApiError(400, f"Invalid entity_type '{value[:50]}': use contact or company")
    return value


def entity_of_list(list_type: str) -> str:
    """A companies list holds companies; every other list type holds contacts."""
    return COMPANY if list_type == COMPANIES_LIST else CONTACT


@dataclass(frozen=True)
class ColumnSpec:
    """One column of an entity, as the API shows it and as SQL reaches it."""

    column_id: str
    display_name: str
    kind: str  # text | number: the filter language's kind, also the column definition's type
    source: str  # base | custom | enrichment
    expression: Any  # SQL expression over the entity's table (withheld: null until unlocked)
    db_column: str | None = None  # base columns: the table column behind it
    writable: bool = False
    nullable: bool = True
    max_length: int | None = None
    withheld: bool = False

    def definition(self) -> dict[str, Any]:
        return {
            "column_id": self.column_id,
            "type": self.kind,
            "display_name": self.display_name,
            "source": self.source,
            "writable": self.writable,
            "withheld": self.withheld,
        }


def _base(
    table: Table,
    name: str,
    display: str,
    kind: str,
    *,
    writable: bool = False,
    withheld: bool = False,
) -> ColumnSpec:
    column = table.c[name]
    expression: Any = column
    if isinstance(column.type, Integer) and not isinstance(column.type, BigInteger):
        # bind filter values as 64-bit: an int4 parameter refuses larger numbers (asyncpg)
        expression = type_coerce(column, BigInteger)
    if withheld:
        expression = case((contacts.c.unlocked_at.is_not(None), column), else_=None)
    length = getattr(column.type, "length", None)
    return ColumnSpec(
        column_id=name,
        display_name=display,
        kind=kind,
        source="base",
        expression=expression,
        db_column=name,
        writable=writable,
        nullable=bool(column.nullable),
        max_length=length if isinstance(length, int) else None,
        withheld=withheld,
    )


CONTACT_BASE: tuple[ColumnSpec, ...] = (
    _base(contacts, "id", "ID", NUMBER),
    _base(contacts, "list_id", "List", NUMBER, writable=True),
    _base(contacts, "email", "Email", TEXT, writable=True),
    _base(contacts, "first_name", "First name", TEXT, writable=True),
    _base(contacts, "last_name", "Last name", TEXT, writable=True),
    _base(contacts, "job_title", "Job title", TEXT, writable=True),
    _base(contacts, "company_name", "Company name", TEXT, writable=True),
    _base(contacts, "company_id", "Company", NUMBER, writable=True),
    _base(contacts, "owner_id", "Owner", TEXT, writable=True),
    _base(contacts, "phone", "Phone", TEXT, withheld=True),
    _base(contacts, "linkedin_url", "LinkedIn URL", TEXT, withheld=True),
    _base(contacts, "email_status", "Email status", TEXT),
    _base(contacts, "email_checked_at", "Email checked at", NUMBER),
    _base(contacts, "unlocked_at", "Unlocked at", NUMBER),
    _base(contacts, "created_at", "Created at", NUMBER),
    _base(contacts, "updated_at", "Updated at", NUMBER),
)
COMPANY_BASE: tuple[ColumnSpec, ...] = (
    _base(companies, "id", "ID", NUMBER),
    _base(companies, "list_id", "List", NUMBER),
    _base(companies, "name", "Name", TEXT, writable=True),
    _base(companies, "domain", "Domain", TEXT, writable=True),
    _base(companies, "created_at", "Created at", NUMBER),
    _base(companies, "updated_at", "Updated at", NUMBER),
)
BASE_COLUMNS = {CONTACT: CONTACT_BASE, COMPANY: COMPANY_BASE}
# form-field groups per entity: (label, required, base fields); custom columns follow
FORM_GROUPS = {
    CONTACT: (
        ("List", True, ("list_id",)),
        ("Name", False, ("first_name", "last_name")),
        ("Email", False, ("email",)),
        ("Work", False, ("job_title", "company_name", "company_id", "owner_id")),
    ),
    COMPANY: (
        ("Company", True, ("name",)),
        ("Web", False, ("domain",)),
    ),
}


def custom_column_id(row_id: int) -> str:
    return f"{CUSTOM_PREFIX}{row_id}"


def _json_column(table: Table, column_id: str, display: str, kind: str, source: str) -> ColumnSpec:
    value = table.c.fields[column_id]
    return ColumnSpec(
        column_id=column_id,
        display_name=display,
        kind=kind,
        source=source,
        expression=value.as_float() if kind == NUMBER else value.as_string(),
        writable=source == "custom",
    )


NUMBER_DATA_TYPES = {"number", "integer", "float", "decimal", "numeric", "int"}


@dataclass(frozen=True)
class Catalogue:
    """Every column of one entity for one organisation (optionally as seen from one list)."""

    entity: str
    columns: tuple[ColumnSpec, ...]

    @property
    def table(self) -> Table:
        return ENTITY_TABLES[self.entity]

    def get(self, column_id: str) -> ColumnSpec | None:
        return self._by_id.get(column_id)

    @cached_property
    def _by_id(self) -> dict[str, ColumnSpec]:
        return {column.column_id: column for column in self.columns}

    def filter_columns(self) -> dict[str, FilterColumn]:
        """The columns of the filter language (filters.compile_filter / compile_sort)."""
        return self._filter_columns

    @cached_property
    def _filter_columns(self) -> dict[str, FilterColumn]:
        return {c.column_id: FilterColumn(c.expression, c.kind) for c in self.columns}

    def custom(self) -> list[ColumnSpec]:
        return [c for c in self.columns if c.source == "custom"]

    def form_groups(self) -> list[dict[str, Any]]:
        groups: list[dict[str, Any]] = [
            {"label": label, "required": required, "fields": list(fields)}
            for label, required, fields in FORM_GROUPS[self.entity]
        ]
        custom = [c.column_id for c in self.custom()]
        if custom:
            groups.append({"label": "Custom fields", "required": False, "fields": custom})
        return groups


async def custom_column_rows(
    connection: AsyncConnection, org_id: int, entity: str
) -> list[dict[str, Any]]:
    query = (
        select(custom_columns.c.id, custom_columns.c.name, custom_columns.c.type)
        .where(custom_columns.c.org_id == org_id, custom_columns.c.entity_type == entity)
        .order_by(custom_columns.c.id)
    )
    return [dict(row._mapping) for row in await connection.execute(query)]


async def _enrichment_rows(
    connection: AsyncConnection, org_id: int, entity: str, list_id: int | None
) -> list[dict[str, Any]]:
    """Waterfall configs whose output column applies: to the list (or global), else to the entity."""
    configs = waterfall_configs
    query = select(configs.c.column_id, configs.c.name, configs.c.data_type).where(
        configs.c.org_id == org_id
    )
    if list_id is not None:
        query = query.where(or_(configs.c.is_global.is_(True), configs.c.list_id == list_id))
    else:
        holds_entity = (
            lists.c.type == COMPANIES_LIST if entity == COMPANY else lists.c.type != COMPANIES_LIST
        )
        on_entity_list = (
            select(lists.c.id).where(lists.c.org_id == org_id, holds_entity).scalar_subquery()
        )
        query = query.where(
            or_(configs.c.is_global.is_(True), configs.c.list_id.in_(on_entity_list))
        )
    rows = await connection.execute(query.order_by(configs.c.id))
    return [dict(row._mapping) for row in rows]


def _catalogue_of(
    entity: str, custom_rows: list[dict[str, Any]], enrichment_rows: list[dict[str, Any]]
) -> Catalogue:
    table = ENTITY_TABLES[entity]
    columns = list(BASE_COLUMNS[entity])
    for row in custom_rows:
        columns.append(
            _json_column(table, custom_column_id(row["id"]), row["name"], row["type"], "custom")
        )
    taken = {c.column_id for c in columns}
    for row in enrichment_rows:
        column_id = row["column_id"]
        if column_id in taken:  # a config's column_id never shadows a base or custom column
            continue
        taken.add(column_id)
        kind = NUMBER if (row["data_type"] or "").lower() in NUMBER_DATA_TYPES else TEXT
        columns.append(_json_column(table, column_id, row["name"], kind, "enrichment"))
    return Catalogue(entity, tuple(columns))


async def load_catalogue(
    connection: AsyncConnection, org_id: int, entity: str, list_id: int | None = None
) -> Catalogue:
    """The columns of `entity` for the organisation (enrichment columns of `list_id` if given),
    read on `connection` (a write reads them in its own transaction)."""
    return _catalogue_of(
        entity,
        await custom_column_rows(connection, org_id, entity),
        await _enrichment_rows(connection, org_id, entity, list_id),
    )


# -- the catalogue of a read, kept while its rows are unchanged ---------------------------------
#
# A read-only operation (fetch) reads the rows a catalogue is made of in one indexed statement
# on the Reader, and reuses the Catalogue last made of the same rows: the read is the check
# that nothing changed (custom columns are written by other processes, the admin CLI, too), so
# a catalogue is never stale, in this process or across several. The statements are the
# ones of load_catalogue in one UNION ALL: custom columns first, then enrichment configs, each
# by id.


def _catalogue_rows(entity: str | None, with_list: bool) -> Any:
    configs = waterfall_configs
    custom = select(
        literal_column("0").label("source"),
        custom_columns.c.id.label("position"),
        cast(custom_columns.c.id, String).label("column_id"),
        custom_columns.c.name,
        custom_columns.c.type.label("data_type"),
    ).where(
        custom_columns.c.org_id == bindparam("org_id"),
        custom_columns.c.entity_type == bindparam("entity"),
    )
    if with_list:
        applies = or_(configs.c.is_global.is_(True), configs.c.list_id == bindparam("list_id"))
    else:
        holds_entity = (
            lists.c.type == COMPANIES_LIST if entity == COMPANY else lists.c.type != COMPANIES_LIST
        )
        on_entity_list = (
            select(lists.c.id)
            .where(lists.c.org_id == bindparam("org_id"), holds_entity)
            .scalar_subquery()
        )
        applies = or_(configs.c.is_global.is_(True), configs.c.list_id.in_(on_entity_list))
    enrichment = select(
        literal_column("1").label("source"),
        configs.c.id.label("position"),
        configs.c.column_id,
        configs.c.name,
        configs.c.data_type,
    ).where(configs.c.org_id == bindparam("org_id"), applies)
    return union_all(custom, enrichment).order_by("source", "position")


CATALOGUE_ROWS_OF_LIST = _catalogue_rows(None, with_list=True)
CATALOGUE_ROWS = {entity: _catalogue_rows(entity, with_list=False) for entity in ENTITY_TABLES}
KEPT_CATALOGUES = 256  # distinct (entity, rows) kept; the oldest goes first
_kept: dict[tuple[Any, ...], Catalogue] = {}


async def read_catalogue(
    reader: Reader, org_id: int, entity: str, list_id: int | None = None
) -> Catalogue:
    """load_catalogue's columns, read on the Reader (one statement, outside any transaction):
    for reads only. The Catalogue is made once per distinct set of rows. On SQLite it is kept
    with the Reader's `changes()` taken before it was read, and is not read again while nothing
    was committed since (by any connection, so a column another process adds is seen at once)."""
    place = ("catalogue", org_id, entity, list_id)
    version = reader.changes()
    if version is not None:
        kept = reader.kept.get(place)
        if kept is not None and kept[0] == version and isinstance(kept[1], Catalogue):
            return kept[1]
    if list_id is None:
        rows = await reader.all(CATALOGUE_ROWS[entity], org_id=org_id, entity=entity)
    else:
        rows = await reader.all(
            CATALOGUE_ROWS_OF_LIST, org_id=org_id, entity=entity, list_id=list_id
        )
    found = tuple((row["source"], row["column_id"], row["name"], row["data_type"]) for row in rows)
    key = (entity, found)
    catalogue = _kept.get(key)
    if catalogue is None:
        custom = [
            {"id": int(column_id), "name": name, "type": kind}
            for source, column_id, name, kind in found
            if source == 0
        ]
        enrichment = [
            {"column_id": column_id, "name": name, "data_type": kind}
            for source, column_id, name, kind in found
            if source == 1
        ]
        catalogue = _catalogue_of(entity, custom, enrichment)
        if len(_kept) >= KEPT_CATALOGUES:
            del _kept[next(iter(_kept))]
        _kept[key] = catalogue
    if version is not None:
        if len(reader.kept) >= KEPT_CATALOGUES:
            del reader.kept[next(iter(reader.kept))]
        reader.kept[place] = (version, catalogue)
    return catalogue


async def contact_filter_columns(
    connection: AsyncConnection, org_id: int, entity: str = CONTACT
) -> dict[str, FilterColumn]:
    """Base, custom and enrichment columns of the entity, as the filter language takes them."""
    return (await load_catalogue(connection, org_id, entity)).filter_columns()


def base_columns(entity: str) -> list[dict[str, Any]]:
    """The real columns of the entity's table, without tenancy and the custom-value holder."""
    table = ENTITY_TABLES[entity]
    specs = {c.column_id: c for c in BASE_COLUMNS[entity]}
    out = []
    for column in table.columns:
        if column.name in ("org_id", "fields"):
            continue
        spec = specs.get(column.name)
        out.append(
            {
                "name": column.name,
                "type": spec.kind if spec else str(column.type).lower(),
                "sql_type": str(column.type).lower(),
                "nullable": bool(column.nullable),
                "withheld": bool(spec and spec.withheld),
            }
        )
    return out


# -- values ----------------------------------------------------------------------------------


def check_value(column: ColumnSpec, value: Any) -> str | None:
    """Why `value` cannot be stored in `column`, or None when it can."""
    if value is None:
        return None if column.nullable else f"{column.column_id} may not be null"
    if column.kind == NUMBER:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{column.column_id} takes a number"
        if column.source == "base" and not isinstance(value, int):
            return f"{column.column_id} takes an integer"
        if isinstance(value, float) and not math.isfinite(value):
            return f"{column.column_id} takes a finite number"
        return None
    if not isinstance(value, str):
        return f"{column.column_id} takes a string"
    limit = column.max_length or MAX_CUSTOM_TEXT
    if len(value) > limit:
        return f"{column.column_id} is longer than {limit} characters"
    return None


def values_of(row: Any, catalogue: Catalogue) -> dict[str, Any]:
    """Every column value of one row (withheld values null until unlocked)."""
    mapping = row._mapping if hasattr(row, "_mapping") else row
    fields = mapping.get("fields") or {}
    unlocked = mapping.get("unlocked_at") is not None
    out: dict[str, Any] = {}
    for column in catalogue.columns:
        if column.db_column is not None:
            value = mapping.get(column.db_column)
            out[column.column_id] = value if (unlocked or not column.withheld) else None
        else:
            out[column.column_id] = fields.get(column.column_id)
    return out


def normalise_linkedin_url(url: str) -> str | None:
    """The allow-list key of a LinkedIn URL: host without www, lower-case path, no slash/query."""
    raw = url.strip()
    if not raw:
        return None
    if "://" not in raw:
        raw = "https://" + raw
    try:
        parts = urlsplit(raw)
    except ValueError:
        return None
    host = (parts.hostname or "").lower()
    if not host:
        return None
    host = host.removeprefix("www.")
    path = parts.path.rstrip("/").lower()
    key = f"{host}{path}"
    return key if len(key) <= 500 else None


__all__ = [
    "COMPANY",
    "CONTACT",
    "Catalogue",
    "ColumnSpec",
    "check_value",
    "contact_filter_columns",
    "entity_of_list",
    "entity_type",
    "load_catalogue",
    "normalise_linkedin_url",
    "read_catalogue",
    "values_of",
]
