"""Apps, their installations in organisations, and client credentials for service tokens.

A client credential is a `client_id` (`appc_<hex>`, public) and a `client_secret`
(`apps_<43 url-safe chars>`, shown once at creation). Only SHA-256 of the secret is stored;
the stored hash is compared in constant time, and an unknown client id costs the same hash
and comparison as a known one.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from .tables import app_credentials, app_installations, apps

SECRET_PREFIX = "apps_"
CLIENT_ID_PREFIX = "appc_"
MAX_CLIENT_FIELD = 128
_DUMMY_HASH = hashlib.sha256(b"no such client").hexdigest()


def hash_client_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


@dataclass(frozen=True)
class Credential:
    client_id: str
    org_id: int
    app_id: str


class RegistryError(Exception):
    """An operator request that cannot be done (unknown app, missing installation, ...)."""


class AppRegistry:
    def __init__(self, engine: AsyncEngine, clock: Callable[[], float] = time.time) -> None:
        self.engine = engine
        self.clock = clock

    async def create_app(self, name: str) -> str:
        app_id = f"app_{secrets.token_hex(12)}"
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(apps).values(id=app_id, name=name, created_at=int(self.clock()))
            )
        return app_id

    async def app_exists(self, app_id: str) -> bool:
        async with self.engine.connect() as connection:
            found = await connection.execute(select(apps.c.id).where(apps.c.id == app_id))
            return found.first() is not None

    async def install(self, org_id: int, app_id: str, *, consent: bool) -> tuple[int, int | None]:
        """Install `app_id` in `org_id` (idempotent; consent is added, never removed here).

        Returns the installation id and its consent time (None: not consented).
        """
        now = int(self.clock())
        key = (app_installations.c.org_id == org_id) & (app_installations.c.app_id == app_id)
        async with self.engine.begin() as connection:
            row = (
                await connection.execute(
                    select(app_installations.c.id, app_installations.c.consented_at).where(key)
                )
            ).first()
            if row is None:
                result = await connection.execute(
                    insert(app_installations).values(
                        org_id=org_id,
                        app_id=app_id,
                        consented_at=now if consent else None,
                        created_at=now,
                    )
                )
                assert result.inserted_primary_key is not None
                return int(result.inserted_primary_key[0]), now if consent else None
            consented_at = row.consented_at
            if consent and consented_at is None:
                consented_at = now
                await connection.execute(
                    update(app_installations).where(key).values(consented_at=now)
                )
            return int(row.id), consented_at

    async def consented(self, org_id: int, app_id: str) -> bool:
        """Whether `app_id` is installed in `org_id` with consent."""
        if len(app_id) > MAX_CLIENT_FIELD:
            return False
        query = select(app_installations.c.id).where(
            app_installations.c.org_id == org_id,
            app_installations.c.app_id == app_id,
            app_installations.c.consented_at.is_not(None),
        )
        async with self.engine.connect() as connection:
            return (await connection.execute(query)).first() is not None

    async def create_credential(self, org_id: int, app_id: str) -> tuple[str, str]:
        """A new credential of `app_id` in `org_id` (consented installation required).

        Returns (client_id, client_secret); the secret is not stored and cannot be shown again.
        """
        if not await self.consented(org_id, app_id):
            raise RegistryError(
                f"app {app_id} has no consented installation in organisation {org_id}"
            )
        client_id = f"{CLIENT_ID_PREFIX}{secrets.token_hex(12)}"
        secret = f"{SECRET_PREFIX}{secrets.token_urlsafe(32)}"
        async with self.engine.begin() as connection:
            await connection.execute(
                insert(app_credentials).values(
                    client_id=client_id,
                    secret_hash=hash_client_secret(secret),
                    org_id=org_id,
                    app_id=app_id,
                    created_at=int(self.clock()),
                )
            )
        return client_id, secret

    async def authenticate(self, client_id: str, client_secret: str) -> Credential | None:
        """The unrevoked credential `client_id` if `client_secret` is its secret, else None."""
        digest = hash_client_secret(client_secret[: MAX_CLIENT_FIELD * 2])
        row = None
        if 0 < len(client_id) <= MAX_CLIENT_FIELD:
            query = select(
                app_credentials.c.secret_hash,
                app_credentials.c.org_id,
                app_credentials.c.app_id,
                app_credentials.c.revoked_at,
            ).where(app_credentials.c.client_id == client_id)
            async with self.engine.connect() as connection:
                row = (await connection.execute(query)).first()
        stored = row.secret_hash if row is not None else _DUMMY_HASH
        matches = hmac.compare_digest(stored.encode(), digest.encode())
        if row is None or not matches or row.revoked_at is not None:
            return None
        return Credential(client_id=client_id, org_id=int(row.org_id), app_id=str(row.app_id))
