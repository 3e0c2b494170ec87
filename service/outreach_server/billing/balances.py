"""Credit balances per organisation and the ledger of every grant and charge.

A charge is one conditional UPDATE (`balance >= amount`) inside the caller's transaction,
followed by its ledger row: two requests can never spend the same credits, and when the
balance is short nothing is charged (InsufficientCredits; the caller's transaction rolls
back whatever else it wrote). Prices are provisional: the source says which operations
spend credits, never how many.
"""

from __future__ import annotations

import time

from sqlalchemy import bindparam, insert, select, update
from sqlalchemy.ext.asyncio import AsyncConnection

from ..core.db import Reader
from ..core.errors import ApiError
from .tables import credit_charges, credits

# provisional prices, in credits
VERIFY_CREDITS_PER_ADDRESS = 1  # contact verification (sync and async): per distinct address
UNLOCK_CREDITS_PER_CONTACT = 1  # unlock-info: per contact newly unlocked
ADDRESS_CHECK_CREDITS = 1  # POST /enrichment/verify-email: per call

INSUFFICIENT_STATUS = 402  # provisional: the source names no status for it
BALANCE = select(credits.c.balance).where(credits.c.org_id == bindparam("org_id"))


class InsufficientCredits(Exception):
    def __init__(self, required: int, available: int) -> None:
        super().__init__(f"{required} required, {available} available")
        self.required = required
        self.available = available

    def refusal(self) -> ApiError:
        return ApiError(
            INSUFFICIENT_STATUS,
            f"Insufficient credits: {self.required} required, {self.available} available",
        )


async def balance(reader: Reader, org_id: int) -> int:
    row = await reader.one(BALANCE, org_id=org_id)
    return int(row["balance"]) if row else 0


async def ensure_affordable(reader: Reader, org_id: int, amount: int) -> None:
    """An early refusal before doing costly work; `charge` still decides atomically."""
    available = await balance(reader, org_id)
    if amount > available:
        raise InsufficientCredits(amount, available)


async def charge(
    connection: AsyncConnection,
    org_id: int,
    amount: int,
    *,
    operation: str,
    units: int,
    reference: str | None = None,
) -> int:
    """Spend `amount` credits in the caller's transaction; returns the balance left."""
    if amount <= 0:
        found = (await connection.execute(BALANCE, {"org_id": org_id})).scalar()
        return int(found or 0)
    now = int(time.time())
    spent = await connection.execute(
        update(credits)
        .where(credits.c.org_id == org_id, credits.c.balance >= amount)
        .values(balance=credits.c.balance - amount, updated_at=now)
        .returning(credits.c.balance)
    )
    left = spent.scalar()
    if left is None:
        found = (await connection.execute(BALANCE, {"org_id": org_id})).scalar()
        raise InsufficientCredits(amount, int(found or 0))
    await connection.execute(
        insert(credit_charges).values(
            org_id=org_id,
            operation=operation,
            units=units,
            credits=-amount,
            balance_after=int(left),
            reference=reference,
            created_at=now,
        )
    )
    return int(left)


async def grant(
    connection: AsyncConnection, org_id: int, amount: int, *, operation: str = "add_credits"
) -> tuple[int, int]:
    """Add credits; returns (ledger entry id, new balance)."""
    now = int(time.time())
    added = await connection.execute(
        update(credits)
        .where(credits.c.org_id == org_id)
        .values(balance=credits.c.balance + amount, updated_at=now)
        .returning(credits.c.balance)
    )
    left = added.scalar()
    if left is None:
        await connection.execute(
            insert(credits).values(org_id=org_id, balance=amount, updated_at=now)
        )
        left = amount
    entry = await connection.execute(
        insert(credit_charges)
        .values(
            org_id=org_id,
            operation=operation,
            units=0,
            credits=amount,
            balance_after=int(left),
            created_at=now,
        )
        .returning(credit_charges.c.id)
    )
    return int(entry.scalar_one()), int(left)
