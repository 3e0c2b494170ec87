"""Unlocking withheld contact details (phone, LinkedIn URL), paid per contact, never twice.

One transaction: `UPDATE contacts SET unlocked_at = now WHERE <selection> AND unlocked_at IS
NULL` counts the contacts unlocked by this call, then exactly that many are charged. A
contact already unlocked is never matched again, also not by a concurrent request (the
second UPDATE waits for the first one's row locks and re-checks the condition), and a short
balance rolls the unlock back with the charge.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncEngine

from ..contacts import Selection, count_selected
from ..core.tables import contacts
from .balances import UNLOCK_CREDITS_PER_CONTACT, charge

OPERATION = "unlock_contact_info"


@dataclass(frozen=True)
class Unlocked:
    selected: int  # contacts of the selection, all revealed now
    newly_unlocked: int  # of which unlocked (and charged) by this call
    credits_charged: int


async def unlock(engine: AsyncEngine, selection: Selection) -> Unlocked:
    now = int(time.time())
    async with engine.begin() as connection:
        newly = 0
        for where in selection.statements_where():
            result = await connection.execute(
                update(contacts)
                .where(where, contacts.c.unlocked_at.is_(None))
                .values(unlocked_at=now)
            )
            newly += int(result.rowcount)
        price = newly * UNLOCK_CREDITS_PER_CONTACT
        await charge(connection, selection.org_id, price, operation=OPERATION, units=newly)
        selected = await count_selected(connection, selection)
    return Unlocked(selected, newly, price)
