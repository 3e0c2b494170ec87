"""API keys: issuing tokens, storing only their hash, authenticating, listing.

A token is `<live|test prefix><43 url-safe chars>`. Only SHA-256 of the part after the
prefix is stored; a token is looked up by that hash and the stored hash compared in
constant time. The mode is read from the stored key, never from the token's prefix, so
editing or removing the prefix changes nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from outreach_api.constants import (
    API_KEY_FORMAT_LIVE_PREFIX,
    API_KEY_FORMAT_TEST_PREFIX,
    LIMITS_API_KEYS_MAX_LISTED,
    LIMITS_API_KEYS_MAX_PER_ORG,
)
from outreach_api.models import Tier
from sqlalchemy import bindparam, func, insert, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.db import Reader
from ..core.tables import api_keys, lock_organization
from .tables import api_key_lists

PREFIXES = {"live": API_KEY_FORMAT_LIVE_PREFIX, "test": API_KEY_FORMAT_TEST_PREFIX}
TIER_RANK = {tier.value: rank for rank, tier in enumerate(Tier)}
TOKEN_BYTES = 32
LAST_USED_GRANULARITY = 60
BY_HASH = select(api_keys).where(api_keys.c.token_hash == bindparam("digest"))
# spec/DECISIONS.md rows 122-123: what one organisation can hold and what one listing returns
MAX_KEYS_PER_ORG = LIMITS_API_KEYS_MAX_PER_ORG  # unrevoked keys; the next one is refused (403)
MAX_LISTED_KEYS = LIMITS_API_KEYS_MAX_LISTED  # in one listing: unrevoked first, then revoked
BY_ORG = (
    select(api_keys)
    .where(api_keys.c.org_id == bindparam("org_id"))
    .order_by(api_keys.c.revoked_at.is_not(None), api_keys.c.created_at, api_keys.c.id)
    .limit(MAX_LISTED_KEYS)
)
COUNT_BY_ORG = select(func.count()).where(api_keys.c.org_id == bindparam("org_id"))
UNREVOKED_BY_ORG = select(func.count()).where(
    api_keys.c.org_id == bindparam("org_id"), api_keys.c.revoked_at.is_(None)
)


class TooManyKeys(Exception):
    """The organisation already holds MAX_KEYS_PER_ORG unrevoked keys."""


@dataclass(frozen=True)
class ApiKeyRecord:
    id: str
    org_id: int | None
    name: str
    mode: str
    tier: str
    scopes: frozenset[str]
    is_agency: bool
    created_at: int
    last_used_at: int | None
    expires_at: int | None
    revoked_at: int | None
    token_hash: str

    def usable(self, now: float) -> bool:
        expired = self.expires_at is not None and self.expires_at <= now
        return self.revoked_at is None and not expired

    def allows_tier(self, tier: str) -> bool:
        return TIER_RANK[self.tier] >= TIER_RANK[tier]


def strip_prefix(token: str) -> str:
    """The secret part of a token: a live or test prefix is accepted and removed."""
    for prefix in PREFIXES.values():
        if token.startswith(prefix):
            return token[len(prefix) :]
    return token


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogateescape")).hexdigest()


def new_token(mode: str) -> tuple[str, str]:
    """A fresh token with its mode prefix, and the hash to store."""
    secret = secrets.token_urlsafe(TOKEN_BYTES)
    return PREFIXES[mode] + secret, hash_secret(secret)


def _record(m: Mapping[Any, Any]) -> ApiKeyRecord:
    return ApiKeyRecord(
        id=m["id"],
        org_id=m["org_id"],
        name=m["name"],
        mode=m["mode"],
        tier=m["tier"],
        scopes=frozenset(m["scopes"].split()),
        is_agency=bool(m["is_agency"]),
        created_at=int(m["created_at"]),
        last_used_at=m["last_used_at"],
        expires_at=m["expires_at"],
        revoked_at=m["revoked_at"],
        token_hash=m["token_hash"],
    )


class KeyStore:
    """Keys in the database, with a short-lived in-process cache of lookups by hash."""

    def __init__(
        self,
        engine: AsyncEngine,
        reader: Reader,
        cache_seconds: float = 5.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.reader = reader
        self.cache_seconds = cache_seconds
        self.clock = clock
        self._cache: dict[str, tuple[float, ApiKeyRecord | None]] = {}
        self._touched: dict[str, float] = {}

    async def authenticate(self, token: str) -> ApiKeyRecord | None:
        """The usable key behind `token`, or None (unknown, revoked or expired)."""
        digest = hash_secret(strip_prefix(token))
        now = self.clock()
        cached = self._cache.get(digest)
        if cached is not None and now - cached[0] < self.cache_seconds:
            record = cached[1]
        else:
            record = await self._lookup(digest)
            if len(self._cache) > 10_000:
                self._cache.clear()
            self._cache[digest] = (now, record)
        if record is None or not hmac.compare_digest(record.token_hash, digest):
            return None
        return record if record.usable(now) else None

    async def _lookup(self, digest: str) -> ApiKeyRecord | None:
        row = await self.reader.one(BY_HASH, digest=digest)
        return _record(row) if row is not None else None

    async def touch(self, record: ApiKeyRecord) -> None:
        """Stamp last_used_at at most about once a minute per key (best effort, no write per request)."""
        now = self.clock()
        if now - self._touched.get(record.id, 0.0) < LAST_USED_GRANULARITY:
            return
        self._touched[record.id] = now
        stamp = int(now)
        async with self.engine.begin() as connection:
            await connection.execute(
                update(api_keys)
                .where(api_keys.c.id == record.id)
                .where(
                    or_(
                        api_keys.c.last_used_at.is_(None),
                        api_keys.c.last_used_at <= stamp - LAST_USED_GRANULARITY,
                    )
                )
                .values(last_used_at=stamp)
            )

    async def create(
        self,
        *,
        org_id: int | None,
        name: str,
        mode: str,
        tier: str,
        scopes: Iterable[str],
        is_agency: bool = False,
        expires_at: int | None = None,
        list_ids: Iterable[int] | None = None,
        cap: int | None = None,
    ) -> tuple[ApiKeyRecord, str]:
        """A new key and its token; the token is not stored and cannot be shown again.

        `list_ids` narrows the key to those lists (None: the whole organisation). With `cap`,
        TooManyKeys when the organisation already holds that many unrevoked keys: the count and
        the insert share one transaction, serialised per organisation (a row lock on the
        organisation on PostgreSQL, the single writer on SQLite), so concurrent creations
        cannot pass the cap together.
        """
        token, digest = new_token(mode)
        values: dict[str, Any] = {
            "id": "key_" + secrets.token_hex(12),
            "org_id": org_id,
            "name": name,
            "mode": mode,
            "token_hash": digest,
            "tier": tier,
            "scopes": " ".join(sorted(set(scopes))),
            "is_agency": is_agency,
            "created_at": int(self.clock()),
            "last_used_at": None,
            "expires_at": expires_at,
            "revoked_at": None,
        }
        async with self.engine.begin() as connection:
            if cap is not None and org_id is not None:
                await lock_organization(connection, org_id)
                held = (await connection.execute(UNREVOKED_BY_ORG, {"org_id": org_id})).scalar()
                if int(held or 0) >= cap:
                    raise TooManyKeys(cap)
            await connection.execute(insert(api_keys).values(values))
            if list_ids is not None:
                rows = [
                    {"api_key_id": values["id"], "list_id": list_id}
                    for list_id in sorted(set(list_ids))
                ]
                if rows:
                    await connection.execute(insert(api_key_lists), rows)
        return _record(values), token

    async def revoke(self, key_id: str) -> bool:
        """Refuse the key from now on (other processes see it once their cache entry expires)."""
        async with self.engine.begin() as connection:
            result = await connection.execute(
                update(api_keys)
                .where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None))
                .values(revoked_at=int(self.clock()))
            )
        self._cache.clear()
        return bool(result.rowcount)

    async def list_for_org(self, org_id: int) -> list[ApiKeyRecord]:
        """At most MAX_LISTED_KEYS keys: every unrevoked one first, by creation.

        The ordering reads every key of the organisation (revoked ones an operator left
        included), so on SQLite it must not run on the event loop's thread (row 123): the
        Reader's `scan`, on a thread of its own.
        """
        rows = await self.reader.scan(BY_ORG, org_id=org_id)
        return [_record(row) for row in rows]

    async def count_for_org(self, org_id: int) -> int:
        """How many keys the organisation has, revoked ones included."""
        async with self.engine.connect() as connection:
            return int((await connection.execute(COUNT_BY_ORG, {"org_id": org_id})).scalar() or 0)
