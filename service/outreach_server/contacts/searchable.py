"""Searchable fields: which columns a filter can use, and their tier (indexed, text search or
scan) read from the real indexes of the database, on SQLite and PostgreSQL."""

from __future__ import annotations

import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Table, inspect, text
from sqlalchemy.exc import SAWarning
from sqlalchemy.ext.asyncio import AsyncConnection

from ..core.filters import NUMBER, NUMBER_OPERATORS, TEXT, TEXT_OPERATORS
from ..core.tables import contacts
from .tables import companies

CONTACT, COMPANY = "contact", "company"
ENTITY_TABLES: dict[str, Table] = {CONTACT: contacts, COMPANY: companies}
from .columns import FAST, FULL_SCAN, TEXT_SEARCH, ColumnSpec, load_catalogue

# -- searchable fields: tiers from the real indexes ------------------------------------------

OPERATORS = {
    TEXT: [*TEXT_OPERATORS, "blank", "notBlank"],
    NUMBER: [*NUMBER_OPERATORS, "inRange", "blank", "notBlank"],
}
TENANT_KEYS = {"org_id"}


@dataclass(frozen=True)
class IndexKey:
    """The leading key of an index (after org_id) and what kind of index it is."""

    key: str  # a column name or an expression's SQL text
    method: str  # btree | text_search


def _split_top_level(body: str) -> list[str]:
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in body:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
        else:
            current.append(char)
    if current:
        parts.append("".join(current).strip())
    return parts


def _sqlite_index_parts(sql: str) -> list[str]:
    """The indexed terms of a SQLite `CREATE INDEX ... ON t (a, lower(b))` statement."""
    match = re.search(r"\bON\s+[\"`\[]?\w+[\"`\]]?\s*\(", sql, re.IGNORECASE)
    if match is None:
        return []
    start, depth = match.end() - 1, 0
    for position in range(start, len(sql)):
        depth += sql[position] == "("
        depth -= sql[position] == ")"
        if depth == 0:
            return _split_top_level(sql[start + 1 : position])
    return []


def _strip_term(term: str) -> str:
    term = re.sub(r"\s+(ASC|DESC|COLLATE\s+\w+)\b.*$", "", term.strip(), flags=re.IGNORECASE)
    return term.strip().strip('"').strip("`")


def _leading(parts: Sequence[str]) -> str | None:
    for part in parts:
        if _strip_term(part) not in TENANT_KEYS:
            return _strip_term(part)
    return None


def _sync_index_keys(sync_connection: Any, table_name: str) -> list[IndexKey]:
    inspector = inspect(sync_connection)
    keys: list[IndexKey] = []
    primary = inspector.get_pk_constraint(table_name).get("constrained_columns") or []
    leading = _leading(primary)
    if leading:
        keys.append(IndexKey(leading, "btree"))
    with warnings.catch_warnings():  # SQLite reflection skips expression indexes, with a warning
        warnings.simplefilter("ignore", SAWarning)
        indexes = inspector.get_indexes(table_name)
        uniques = inspector.get_unique_constraints(table_name)
    seen = set()
    for index in indexes:
        seen.add(index.get("name"))
        names = list(index.get("column_names") or [])
        expressions = list(index.get("expressions") or [])
        if len(expressions) == len(names):
            parts = [str(e) for e in expressions]
        else:
            pending = iter(expressions)
            parts = [n if n is not None else str(next(pending, "")) for n in names]
        options = index.get("dialect_options") or {}
        ops = " ".join(str(v) for v in (options.get("postgresql_ops") or {}).values())
        using = str(options.get("postgresql_using") or "btree").lower()
        key = _leading(parts)
        if key is None:
            continue
        trigram = using in ("gin", "gist") and "trgm" in ops
        keys.append(IndexKey(key, "text_search" if trigram or "tsvector" in key else "btree"))
    for unique in uniques:
        key = _leading(list(unique.get("column_names") or []))
        if key:
            keys.append(IndexKey(key, "btree"))
    if sync_connection.dialect.name == "sqlite":
        rows = sync_connection.execute(
            text(
                "SELECT name, sql FROM sqlite_master WHERE type = 'index' "
                "AND tbl_name = :table AND sql IS NOT NULL"
            ),
            {"table": table_name},
        )
        for name, sql in rows:
            if name in seen:
                continue
            key = _leading(_sqlite_index_parts(sql))
            if key:
                keys.append(IndexKey(key, "btree"))
    return keys


async def index_keys(connection: AsyncConnection, table: Table) -> list[IndexKey]:
    """The leading keys of every index of `table`, as the database has them now."""
    return list(await connection.run_sync(_sync_index_keys, table.name))


def _mentions(key: str, name: str) -> bool:
    if key == name:
        return True
    return re.search(rf"(?<!\w){re.escape(name)}(?!\w)", key) is not None


def tier(column: ColumnSpec, keys: Sequence[IndexKey]) -> str:
    if column.withheld:  # filtered through a CASE over unlocked_at: no index can serve it
        return FULL_SCAN
    name = column.db_column or column.column_id
    methods = {key.method for key in keys if _mentions(key.key, name)}
    if "btree" in methods:
        return FAST
    if "text_search" in methods and column.kind == TEXT:
        return TEXT_SEARCH
    return FULL_SCAN


async def searchable_fields(
    connection: AsyncConnection, org_id: int, entity: str
) -> list[dict[str, Any]]:
    catalogue = await load_catalogue(connection, org_id, entity)
    keys = await index_keys(connection, catalogue.table)
    return [
        {"name": c.column_id, "tier": tier(c, keys), "operators": list(OPERATORS[c.kind])}
        for c in catalogue.columns
    ]
