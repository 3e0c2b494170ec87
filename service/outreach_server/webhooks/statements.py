"""The delivery worker's SQL, per dialect: the claim of due attempts, the read of what a
claimed attempt needs, the record of outcomes (with the retries they schedule) and the
release of attempts given back unsent.

Every statement that touches a claimed row is guarded by its lease token and org_id: a row
whose lease was lost (another worker claimed it after the lease expired) is left alone.
PostgreSQL gets one statement per claim and per batch of outcomes (one round trip each, on
an autocommit connection); SQLite runs the same steps as a few statements under one BEGIN
IMMEDIATE (its single writer lock).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import (
    ARRAY,
    BigInteger,
    Integer,
    String,
    Text,
    and_,
    bindparam,
    case,
    func,
    literal,
    select,
    text,
    update,
)

from ..core.tables import agency_links
from .tables import webhook_deliveries, webhook_events, webhooks

D = webhook_deliveries

# the fields of a claimed row the worker keeps, and those a retry copies from it
CLAIMED_FIELDS = (D.c.id, D.c.org_id, D.c.webhook_id, D.c.event_id, D.c.event, D.c.attempts)
OUTCOME_FIELDS = (
    "id", "org_id", "lease_token", "status", "attempts", "response_code", "error_message",
)  # fmt: skip
RETRY_FIELDS = ("id", "org_id", "webhook_id", "event_id", "event", "attempts", "max_attempts")


def claim(
    *,
    now: int,
    lease_ms: int,
    token: str,
    limit: int,
    skipped: Sequence[str] = (),
    full_orgs: Sequence[int] = (),
    room: Mapping[int, int] | None = None,
    per_org: int | None = None,
    sqlite: bool,
) -> Any:
    """The UPDATE that leases up to `limit` due rows, leaving out the webhooks in `skipped`
    and the organisations in `full_orgs`; PostgreSQL skips the rows another worker is
    claiming.

    Organisations take turns: among the oldest due rows (a window of 8 claims' worth), each
    organisation's rows are numbered oldest first and the claim takes every organisation's
    first row, then every second one, and so on, at most `room[org]` (else `per_org`) rows
    of each; without `per_org`, simply the oldest due rows."""
    due = select(D.c.id, D.c.org_id, D.c.next_attempt_at).where(
        D.c.status == "pending", D.c.next_attempt_at <= now
    )
    if skipped:
        due = due.where(D.c.webhook_id.not_in(skipped))
    if full_orgs:
        due = due.where(D.c.org_id.not_in(full_orgs))
    if per_org is None:
        picked = due.with_only_columns(D.c.id).order_by(D.c.next_attempt_at).limit(limit)
        if not sqlite:
            picked = picked.with_for_update(skip_locked=True)
    else:
        window = (
            due.order_by(D.c.next_attempt_at, D.c.id).limit(max(8 * limit, 256)).subquery("due")
        )
        turn = (
            func.row_number()
            .over(partition_by=window.c.org_id, order_by=(window.c.next_attempt_at, window.c.id))
            .label("turn")
        )
        ranked = select(window.c.id, window.c.org_id, window.c.next_attempt_at, turn).subquery(
            "ranked"
        )
        allowed: Any = literal(per_org)
        if room:
            allowed = case(dict(room), value=ranked.c.org_id, else_=per_org)
        picked = (
            select(ranked.c.id)
            .where(ranked.c.turn <= allowed)
            .order_by(ranked.c.turn, ranked.c.next_attempt_at)
            .limit(limit)
        )
        if not sqlite:  # lock what was picked, skipping rows another worker holds; the
            # due test again here, where PostgreSQL re-checks a row a concurrent claim changed
            picked = select(D.c.id).where(
                D.c.id.in_(picked.scalar_subquery()),
                D.c.status == "pending",
                D.c.next_attempt_at <= now,
            )
            picked = picked.with_for_update(skip_locked=True)
    return (
        update(D)
        .where(
            D.c.id.in_(picked.scalar_subquery()),
            D.c.status == "pending",
            D.c.next_attempt_at <= now,
        )
        .values(next_attempt_at=now + lease_ms, lease_token=token)
    )


def claimed_batch(rows: Any, token: str, ids: list[str] | None) -> Any:
    """The claimed rows with their webhook and event (each joined on the row's org_id), and
    whether the agency that set the webhook's URL, if any, is still linked.

    `rows` is the deliveries table (SQLite: `ids` are the rows the claim returned) or, on
    PostgreSQL, the claim's RETURNING as a CTE, so claim and read are one statement."""
    query = (
        select(
            rows.c.id,
            rows.c.org_id,
            rows.c.webhook_id,
            rows.c.event_id,
            rows.c.event,
            rows.c.attempts,
            rows.c.max_attempts,
            webhooks.c.url,
            webhooks.c.is_active,
            webhooks.c.secret_encrypted,
            webhooks.c.agency_org_id,
            agency_links.c.org_id.label("agency_linked"),
            webhook_events.c.payload,
            webhook_events.c.created_at,
        )
        .select_from(
            rows.outerjoin(
                webhooks,
                and_(webhooks.c.id == rows.c.webhook_id, webhooks.c.org_id == rows.c.org_id),
            )
            .outerjoin(  # an agency's webhook delivers only while the agency is linked
                agency_links,
                and_(
                    agency_links.c.agency_org_id == webhooks.c.agency_org_id,
                    agency_links.c.org_id == rows.c.org_id,
                ),
            )
            .outerjoin(
                webhook_events,
                and_(
                    webhook_events.c.id == rows.c.event_id,
                    webhook_events.c.org_id == rows.c.org_id,
                ),
            )
        )
        .order_by(rows.c.id)
    )
    if ids is not None:
        query = query.where(rows.c.id.in_(ids), rows.c.lease_token == token)
    return query


def claim_and_read_postgresql(claim_statement: Any, token: str) -> Any:
    """PostgreSQL: claim and read in one round trip."""
    claimed = claim_statement.returning(*CLAIMED_FIELDS, D.c.max_attempts).cte("claimed")
    return claimed_batch(claimed, token, None)


# PostgreSQL: a batch of outcomes in one statement (one round trip, atomic): the arrays are
# unnested side by side, so one compiled statement serves every batch size; each row is
# guarded by its lease token and org_id, and the retries of the rows actually recorded are
# inserted by the same statement
RECORD_OUTCOMES = text(
    """
    WITH done AS (
        UPDATE webhook_deliveries AS d
        SET status = o.status, attempts = o.attempts, response_code = o.response_code,
            error_message = o.error_message, completed_at = :now, lease_token = NULL
        FROM unnest(:id, :org_id, :lease_token, :status, :attempts, :response_code,
                    :error_message)
            AS o(id, org_id, lease_token, status, attempts, response_code, error_message)
        WHERE d.id = o.id AND d.org_id = o.org_id AND d.lease_token = o.lease_token
            AND d.status = 'pending'
        RETURNING d.id
    ), retried AS (
        INSERT INTO webhook_deliveries (id, org_id, webhook_id, event_id, event, status,
            attempts, max_attempts, created_at, next_attempt_at)
        SELECT r.id, r.org_id, r.webhook_id, r.event_id, r.event, 'pending', r.attempts,
            r.max_attempts, :now, r.next_attempt_at
        FROM unnest(:r_after, :r_id, :r_org_id, :r_webhook_id, :r_event_id, :r_event,
                    :r_attempts, :r_max_attempts, :r_next_attempt_at)
            AS r(after_id, id, org_id, webhook_id, event_id, event, attempts, max_attempts,
                 next_attempt_at)
        WHERE r.after_id IN (SELECT id FROM done)
        RETURNING id
    )
    SELECT id FROM done
    """
).bindparams(
    bindparam("id", type_=ARRAY(String)),
    bindparam("org_id", type_=ARRAY(Integer)),
    bindparam("lease_token", type_=ARRAY(String)),
    bindparam("status", type_=ARRAY(String)),
    bindparam("attempts", type_=ARRAY(Integer)),
    bindparam("response_code", type_=ARRAY(Integer)),
    bindparam("error_message", type_=ARRAY(Text)),
    bindparam("now", type_=BigInteger),
    bindparam("r_after", type_=ARRAY(String)),
    bindparam("r_id", type_=ARRAY(String)),
    bindparam("r_org_id", type_=ARRAY(Integer)),
    bindparam("r_webhook_id", type_=ARRAY(String)),
    bindparam("r_event_id", type_=ARRAY(String)),
    bindparam("r_event", type_=ARRAY(String)),
    bindparam("r_attempts", type_=ARRAY(Integer)),
    bindparam("r_max_attempts", type_=ARRAY(Integer)),
    bindparam("r_next_attempt_at", type_=ARRAY(BigInteger)),
)


def record_outcomes_parameters(
    made_rows: list[dict[str, Any]], retries: dict[str, dict[str, Any]], now: int
) -> dict[str, Any]:
    """RECORD_OUTCOMES' arrays: one per outcome field, one per retry field."""
    given: dict[str, Any] = {name: [row[name] for row in made_rows] for name in OUTCOME_FIELDS}
    given["r_after"] = list(retries)
    for name in (*RETRY_FIELDS, "next_attempt_at"):
        given[f"r_{name}"] = [retry[name] for retry in retries.values()]
    return {**given, "now": now}


# an attempt given back unsent: due again at once, its lease cleared
RELEASE = (
    update(D)
    .where(
        D.c.id == bindparam("r_id"),
        D.c.org_id == bindparam("r_org"),
        D.c.status == "pending",
        D.c.lease_token == bindparam("r_token"),
    )
    .values(next_attempt_at=bindparam("r_now"), lease_token=None)
)


def release_parameters(item_id: str, org_id: int, token: str, now: int) -> dict[str, Any]:
    return {"r_id": item_id, "r_org": org_id, "r_token": token, "r_now": now}


# SQLite: one outcome, guarded by its lease token and org_id
RECORD_ONE = (
    update(D)
    .where(
        D.c.id == bindparam("o_id"),
        D.c.org_id == bindparam("o_org_id"),
        D.c.status == "pending",
        D.c.lease_token == bindparam("o_lease_token"),
    )
    .values(
        status=bindparam("o_status"),
        attempts=bindparam("o_attempts"),
        response_code=bindparam("o_response_code"),
        error_message=bindparam("o_error_message"),
        completed_at=bindparam("o_now"),
        lease_token=None,
    )
)


def leases(ids: list[str]) -> Any:
    """SQLite: the leases of pending rows among `ids` (read under the write lock)."""
    return select(D.c.id, D.c.org_id, D.c.lease_token).where(
        D.c.id.in_(ids), D.c.status == "pending"
    )
