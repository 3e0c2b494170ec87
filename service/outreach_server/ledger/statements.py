"""The ledger's SQL, built once per dialect: statuses, bulk inserts and clears, listings.

Bulk statements bind the whole id list as one value: a PostgreSQL array (`= ANY(:ids)`,
`unnest(:ids)`) or, on SQLite, a JSON array read with `json_each`: one statement for any
number of ids, no bound-variable limit.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Integer,
    Select,
    String,
    and_,
    any_,
    bindparam,
    exists,
    func,
    literal_column,
    select,
    true,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite

from ..core.tables import contacts
from .tables import (
    ACTIVE_KEY_COLUMNS,
    ACTIVE_POSTGRESQL,
    ACTIVE_SQLITE,
    suppressions,
)

ALL = "all"
CONTACT_INITIATED = "contact_initiated"
ORG_INITIATED = "org_initiated"
SYSTEM = "system"
NON_REVERSIBLE = (CONTACT_INITIATED, SYSTEM)


# -- statements (built once per dialect) ------------------------------------------------------


S = suppressions
OTHER = suppressions.alias("other")


def _has_active(categories: Sequence[str]) -> ColumnElement[bool]:
    """An active row of one of `categories` for the outer row's contact."""
    return exists().where(
        OTHER.c.org_id == S.c.org_id,
        OTHER.c.contact_id == S.c.contact_id,
        OTHER.c.active,
        # the categories as SQL literals (our own constants, identifiers only), not an
        # expanding parameter: the statement compiles once, for the Reader too
        OTHER.c.category.in_([_constant(category) for category in categories]),
    )


def _constant(text: str) -> Any:
    if not text.isidentifier():
        raise ValueError(f"not a constant: {text!r}")
    return literal_column(f"'{text}'")


REVERSIBLE = and_(_has_active([ORG_INITIATED]), ~_has_active(NON_REVERSIBLE))

# the active row of a contact of the organisation on a channel and category, if any: an
# idempotent record() answered by one indexed read, without a write transaction
ACTIVE_RECORDED = (
    select(S.c.id)
    .select_from(
        S.join(contacts, and_(contacts.c.id == S.c.contact_id, contacts.c.org_id == S.c.org_id))
    )
    .where(
        S.c.org_id == bindparam("org"),
        S.c.contact_id == bindparam("cid"),
        S.c.channel == bindparam("ch"),
        S.c.category == bindparam("cat"),
        S.c.active,
    )
)

# a contact's status: no row at all means the contact is unknown in the organisation
STATUS = (
    select(contacts.c.id, S.c.channel, S.c.category)
    .select_from(
        contacts.outerjoin(
            S, and_(S.c.org_id == contacts.c.org_id, S.c.contact_id == contacts.c.id, S.c.active)
        )
    )
    .where(contacts.c.id == bindparam("cid"), contacts.c.org_id == bindparam("org"))
)


class Statements:
    """Every bulk statement for one dialect (`ids` binds the whole id list as one value)."""

    def __init__(self, dialect: str) -> None:
        self.postgresql = dialect == "postgresql"
        org = bindparam("org", type_=Integer)
        cleared = {
            "active": False,
            "cleared_at": bindparam("now"),
            "cleared_by": bindparam("actor"),
        }
        self.existing = select(contacts.c.id).where(
            contacts.c.org_id == org, self.among(contacts.c.id)
        )
        self.insert_many = self._insert_many()
        self.insert_one = self._upsert(
            self._insert().values(
                org_id=org,
                contact_id=bindparam("cid", type_=Integer),
                channel=bindparam("ch", type_=String),
                category=bindparam("cat", type_=String),
                active=True,
                created_at=bindparam("now", type_=BigInteger),
                created_by=bindparam("actor", type_=String),
            )
        ).returning(S.c.id)
        self.active_id = select(S.c.id).where(
            S.c.org_id == org,
            S.c.contact_id == bindparam("cid"),
            S.c.channel == bindparam("ch"),
            S.c.category == bindparam("cat"),
            S.c.active,
        )
        self.active_rows = select(S.c.contact_id, S.c.channel, S.c.category).where(
            S.c.org_id == org, S.c.active, self.among(S.c.contact_id)
        )
        self.clear_one = (
            update(S)
            .where(
                S.c.org_id == org,
                S.c.contact_id == bindparam("cid"),
                S.c.category == ORG_INITIATED,
                S.c.active,
            )
            .values(**cleared)
            .returning(S.c.id)
        )
        self.reinstate = (
            update(S)
            .where(
                S.c.org_id == org,
                S.c.active,
                S.c.category == ORG_INITIATED,
                self.among(S.c.contact_id),
                ~_has_active(NON_REVERSIBLE),
            )
            .values(**cleared)
            .returning(S.c.contact_id)
        )
        self.reachable = {
            any_channel: self._reachable(any_channel) for any_channel in (False, True)
        }

    def among(self, column: Any) -> ColumnElement[bool]:
        if self.postgresql:
            return column == any_(bindparam("ids", type_=postgresql.ARRAY(Integer)))  # type: ignore[no-any-return]
        values = func.json_each(bindparam("ids", type_=String)).table_valued("value")
        return column.in_(select(values.c.value))  # type: ignore[no-any-return]

    def ids(self, contact_ids: Sequence[int]) -> Any:
        return list(contact_ids) if self.postgresql else json.dumps(list(contact_ids))

    def _insert(self) -> Any:
        return (postgresql.insert if self.postgresql else sqlite.insert)(S)

    def _upsert(self, statement: Any) -> Any:
        predicate = ACTIVE_POSTGRESQL if self.postgresql else ACTIVE_SQLITE
        return statement.on_conflict_do_nothing(
            index_elements=list(ACTIVE_KEY_COLUMNS), index_where=predicate
        )

    def _insert_many(self) -> Any:
        source = (
            select(
                bindparam("org", type_=Integer),
                contacts.c.id,
                bindparam("ch", type_=String),
                bindparam("cat", type_=String),
                true(),
                bindparam("now", type_=BigInteger),
                bindparam("actor", type_=String),
            )
            .where(contacts.c.org_id == bindparam("org"), self.among(contacts.c.id))
            .order_by(contacts.c.id)  # one lock order for every writer: no deadlock
        )
        columns = [*ACTIVE_KEY_COLUMNS, "active", "created_at", "created_by"]
        return self._upsert(self._insert().from_select(columns, source)).returning(S.c.contact_id)

    def _reachable(self, any_channel: bool) -> Select[Any]:
        """Ids of the organisation's contacts with no blocking active row.

        PostgreSQL walks the id array and probes two indexes per id (the contact's primary
        key through a LATERAL ... LIMIT 1, which the planner cannot turn into a scan of
        contacts; then the active-row index, index-only); SQLite probes the same two indexes
        from its json_each list.
        """
        org = bindparam("org", type_=Integer)
        if not self.postgresql:
            return select(contacts.c.id).where(
                contacts.c.org_id == org,
                self.among(contacts.c.id),
                ~self._blocked(contacts.c.id, any_channel),
            )
        ids = bindparam("ids", type_=postgresql.ARRAY(Integer))
        wanted = func.unnest(ids).table_valued("id").render_derived(name="wanted")
        found = (
            select(contacts.c.id)
            .where(contacts.c.id == wanted.c.id, contacts.c.org_id == org)
            .limit(literal_column("1"))
            .lateral("found")
        )
        return (
            select(wanted.c.id)
            .select_from(wanted.join(found, true()))
            .where(~self._blocked(wanted.c.id, any_channel))
        )

    @staticmethod
    def _blocked(contact_id: Any, any_channel: bool = False) -> ColumnElement[bool]:
        """An active row of the contact on the channel asked for or on `all` (any category)."""
        blocking = [S.c.org_id == bindparam("org"), S.c.contact_id == contact_id, S.c.active]
        if not any_channel:
            blocking.append(S.c.channel.in_([bindparam("ch"), ALL]))
        return exists().where(*blocking)


@lru_cache(maxsize=4)
def statements(dialect: str) -> Statements:
    return Statements(dialect)


def listing_contact_id() -> Any:
    """The contact id column of the listing, to narrow it."""
    return S.c.contact_id


@lru_cache(maxsize=64)  # channels x categories, each optional: built and compiled once each
def listing_statement(channel: str | None, category: str | None) -> Select[Any]:
    query = select(
        S.c.id,
        S.c.contact_id,
        S.c.channel,
        S.c.category,
        S.c.active,
        S.c.created_at,
        S.c.created_by,
        S.c.cleared_at,
        S.c.cleared_by,
        REVERSIBLE.label("operator_reversible"),
    ).where(S.c.org_id == bindparam("org"), S.c.active)
    if channel is not None:
        query = query.where(S.c.channel == bindparam("channel"))
    if category is not None:
        query = query.where(S.c.category == bindparam("category"))
    return query.order_by(S.c.id).limit(bindparam("limit")).offset(bindparam("offset"))
