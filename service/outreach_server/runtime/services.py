"""What the handlers and the request context share: storage, key store, limiter."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from ..app_platform import AppPlatform
from ..billing import VerificationWorker
from ..core.db import Reader, create_engine
from ..core.limiter import InProcessRateLimiter, Limits, RateLimiter, RedisRateLimiter
from ..core.resolver import Resolver, create_resolver
from ..core.settings import Settings
from ..keys import KeyStore
from ..orgs import OrgStore
from ..webhooks import DeliveryWorker, end_agency_webhooks


@dataclass
class Services:
    settings: Settings
    engine: AsyncEngine
    reader: Reader
    keys: KeyStore
    orgs: OrgStore
    limiter: RateLimiter
    resolver: Resolver
    verification: VerificationWorker
    webhooks: DeliveryWorker
    app_platform: AppPlatform  # app platform: tokens, principals, registry, mint limiters

    @classmethod
    def create(cls, settings: Settings) -> Services:
        engine = create_engine(settings.database_url, settings.db_pool_size)
        reader = Reader(engine, settings.database_url, settings.db_pool_size)
        resolver = create_resolver(settings.dns_fixed, settings.dns_timeout)
        return cls(
            settings=settings,
            engine=engine,
            reader=reader,
            keys=KeyStore(engine, reader, cache_seconds=settings.key_cache_seconds),
            orgs=OrgStore(engine, on_unlink=[end_agency_webhooks]),
            limiter=create_limiter(settings),
            resolver=resolver,
            verification=VerificationWorker(engine, resolver),
            webhooks=DeliveryWorker(engine, settings, resolver),
            app_platform=AppPlatform.create(settings, engine),  # app platform
        )

    async def start(self) -> None:
        """Background work of a serving process (call once the database is migrated)."""
        await self.verification.start()
        if self.settings.webhook_worker:
            await self.webhooks.start()

    async def close(self) -> None:
        await self.webhooks.close()
        await self.verification.close()
        await self.app_platform.close()  # app platform
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
