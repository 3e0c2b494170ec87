"""What the handlers and the request context share: storage, key store, limiter."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from .db import Reader, create_engine
from .keys import KeyStore
from .orgs import OrgStore
from .rate_limit import InProcessRateLimiter, Limits, RateLimiter, RedisRateLimiter
from .settings import Settings


@dataclass
class Services:
    settings: Settings
    engine: AsyncEngine
    reader: Reader
    keys: KeyStore
    orgs: OrgStore
    limiter: RateLimiter

    @classmethod
    def create(cls, settings: Settings) -> Services:
        engine = create_engine(settings.database_url)
        reader = Reader(engine, settings.database_url)
        return cls(
            settings=settings,
            engine=engine,
            reader=reader,
            keys=KeyStore(engine, reader, cache_seconds=settings.key_cache_seconds),
            orgs=OrgStore(engine),
            limiter=create_limiter(settings),
        )

    async def close(self) -> None:
        await self.limiter.close()
        await self.reader.close()
        await self.engine.dispose()


def create_limiter(settings: Settings) -> RateLimiter:
    limits = Limits(
        per_second=settings.rate_limit_per_second, per_minute=settings.rate_limit_per_minute
    )
    if settings.redis_url:
        return RedisRateLimiter.from_url(settings.redis_url, limits, prefix=settings.redis_prefix)
    return InProcessRateLimiter(limits)
