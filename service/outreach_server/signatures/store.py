"""Mailboxes, their signature revision (the optimistic-concurrency token), and deployments.

A push names the revision it last read; when it is still current, the revision moves on by
one and a deployment (re-compile and re-install) is queued for it, in one transaction.
Compiling and installing signatures is not shown in the source: deployments stay queued.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from ..contacts import storable
from .tables import mailboxes, signature_deployments

QUEUED = "queued"
FIRST_REVISION = 1


@dataclass(frozen=True)
class Pushed:
    revision: int
    deployment_id: int


class MailboxNotFound(Exception):
    pass


class StaleRevision(Exception):
    def __init__(self, current: int) -> None:
        super().__init__(f"current revision {current}")
        self.current = current


async def push(engine: AsyncEngine, org_id: int, mailbox_id: int, version: int) -> Pushed:
    """Queue a deployment; raises MailboxNotFound or StaleRevision (nothing written then)."""
    if not storable(mailbox_id):
        raise MailboxNotFound
    now = int(time.time())
    async with engine.begin() as connection:
        revision = None
        if storable(version):
            moved = await connection.execute(
                update(mailboxes)
                .where(
                    mailboxes.c.id == mailbox_id,
                    mailboxes.c.org_id == org_id,
                    mailboxes.c.revision == version,
                )
                .values(revision=mailboxes.c.revision + 1, updated_at=now)
                .returning(mailboxes.c.revision)
            )
            revision = moved.scalar()
        if revision is None:
            current = (
                await connection.execute(
                    select(mailboxes.c.revision).where(
                        mailboxes.c.id == mailbox_id, mailboxes.c.org_id == org_id
                    )
                )
            ).scalar()
            if current is None:
                raise MailboxNotFound
            raise StaleRevision(int(current))
        deployment = await connection.execute(
            insert(signature_deployments)
            .values(
                org_id=org_id,
                mailbox_id=mailbox_id,
                revision=int(revision),
                status=QUEUED,
                created_at=now,
            )
            .returning(signature_deployments.c.id)
        )
        return Pushed(int(revision), int(deployment.scalar_one()))


async def create_mailbox(engine: AsyncEngine, *, org_id: int, email: str) -> tuple[int, int]:
    """A mailbox at its first revision: (mailbox id, revision)."""
    async with engine.begin() as connection:
        result = await connection.execute(
            insert(mailboxes)
            .values(
                org_id=org_id, email=email, revision=FIRST_REVISION, created_at=int(time.time())
            )
            .returning(mailboxes.c.id)
        )
        return int(result.scalar_one()), FIRST_REVISION
