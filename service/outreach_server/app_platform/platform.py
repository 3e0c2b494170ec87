"""The app platform's share of `Services`: tokens, principal verifier, registry, mint limiters."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.limiter import InProcessRateLimiter, Limits, RateLimiter, RedisRateLimiter
from ..core.settings import Settings
from .principals import PrincipalVerifier, load_key_set
from .registry import AppRegistry
from .tokens import AppTokens

EXCHANGE_PREFIX = "app-exchange:"
SERVICE_TOKEN_PREFIX = "app-service-token:"


@dataclass
class AppPlatform:
    tokens: AppTokens
    principals: PrincipalVerifier
    registry: AppRegistry
    exchange_limiter: RateLimiter  # keyed by principal and app
    service_token_limiter: RateLimiter  # keyed by client id

    @classmethod
    def create(cls, settings: Settings, engine: AsyncEngine) -> AppPlatform:
        return cls(
            tokens=AppTokens(
                engine,
                secret_key=settings.secret_key,
                issuer=settings.app_token_issuer,
                lifetime=settings.app_token_lifetime,
            ),
            principals=PrincipalVerifier(
                load_key_set(settings.app_idp_jwks),
                issuer=settings.app_idp_issuer,
                audience=settings.app_idp_audience,
            ),
            registry=AppRegistry(engine),
            exchange_limiter=_limiter(
                settings,
                Limits(
                    settings.app_exchange_rate_per_second, settings.app_exchange_rate_per_minute
                ),
                EXCHANGE_PREFIX,
            ),
            service_token_limiter=_limiter(
                settings,
                Limits(
                    settings.app_service_token_rate_per_second,
                    settings.app_service_token_rate_per_minute,
                ),
                SERVICE_TOKEN_PREFIX,
            ),
        )

    async def close(self) -> None:
        await self.exchange_limiter.close()
        await self.service_token_limiter.close()


def _limiter(settings: Settings, limits: Limits, prefix: str) -> RateLimiter:
    """Shared through Redis when the service has one (like the API-key limiter), else in process."""
    if settings.redis_url:
        return RedisRateLimiter.from_url(
            settings.redis_url, limits, prefix=settings.redis_prefix + prefix
        )
    return InProcessRateLimiter(limits)
