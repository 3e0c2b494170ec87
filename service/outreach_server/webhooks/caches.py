"""The delivery worker's two short-lived caches: target resolutions and decrypted secrets.

A webhook URL's resolution and check (webhook_targets) is cached for at most one second,
refusals too, so a burst of attempts to one target resolves it once while a DNS change (or
a rebinding attempt) is seen within a second. A decrypted secret is cached in memory per
webhook id and ciphertext for at most 60 s: a rotated or re-encrypted secret is a new key.
Each cache is emptied when it grows past 10,000 entries.
"""

from __future__ import annotations

import time

from ..core.resolver import Resolver
from ..core.settings import Settings
from .store import open_secret
from .targets import ResolvedTarget, TargetRefused, resolve_target

RESOLVE_CACHE_SECONDS = 1.0
SECRET_CACHE_SECONDS = 60.0
MAX_ENTRIES = 10_000


class TargetCache:
    def __init__(self, settings: Settings, resolver: Resolver) -> None:
        self.settings = settings
        self.resolver = resolver
        self._resolved: dict[str, tuple[float, ResolvedTarget | TargetRefused]] = {}

    async def resolve(self, url: str) -> ResolvedTarget:
        """The checked target of `url`; raises TargetRefused."""
        now = time.monotonic()
        cached = self._resolved.get(url)
        if cached is None or cached[0] <= now:
            settings = self.settings
            result: ResolvedTarget | TargetRefused
            try:
                result = await resolve_target(
                    url,
                    allow_http=settings.webhook_allow_http,
                    allowed=settings.webhook_allowed_networks,
                    resolver=self.resolver,
                )
            except TargetRefused as exc:
                result = exc
            if len(self._resolved) > MAX_ENTRIES:
                self._resolved.clear()
            cached = self._resolved[url] = (now + RESOLVE_CACHE_SECONDS, result)
        if isinstance(cached[1], TargetRefused):
            raise cached[1]
        return cached[1]


class SecretCache:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._secrets: dict[tuple[str, str], tuple[float, str]] = {}

    def secret(self, webhook_id: str, ciphertext: str) -> str:
        """The signing secret; raises SecretKeyMissing or SecretUndecryptable."""
        key = (webhook_id, ciphertext)
        now = time.monotonic()
        cached = self._secrets.get(key)
        if cached is not None and cached[0] > now:
            return cached[1]
        secret = open_secret(self.settings, ciphertext)
        if len(self._secrets) > MAX_ENTRIES:
            self._secrets.clear()
        self._secrets[key] = (now + SECRET_CACHE_SECONDS, secret)
        return secret
