"""Service settings: command-line flags over `OUTREACH_*` environment variables over defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from pathlib import Path

from outreach_api.constants import RATE_LIMIT_PER_MINUTE, RATE_LIMIT_PER_SECOND

DEFAULT_DATABASE_FILE = "outreach.sqlite3"


def default_database_url() -> str:
    return f"sqlite+aiosqlite:///{Path(DEFAULT_DATABASE_FILE).resolve()}"


@dataclass(frozen=True)
class Settings:
    """Every setting has an `OUTREACH_<NAME>` environment variable (e.g. OUTREACH_DATABASE_URL)."""

    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = field(default_factory=default_database_url)
    db_pool_size: int = 10  # PostgreSQL connections kept open per process, and as many for reads
    redis_url: str | None = None
    redis_prefix: str = "outreach:rl:"  # key prefix of the shared rate-limit windows
    workers: int = 1
    # the spec's limits; a benchmark may raise them, nothing else should
    rate_limit_per_second: int = RATE_LIMIT_PER_SECOND
    rate_limit_per_minute: int = RATE_LIMIT_PER_MINUTE
    key_cache_seconds: float = 5.0
    # apply migrations at start (always on the embedded SQLite default)
    auto_migrate: bool | None = None
    log_level: str = "INFO"
    json_logs: bool = True
    # one JSON line per request (costs about a third of the throughput of a cheap read)
    access_log: bool = False
    # request limits checked before routing, parsing or authentication (core/request_guard.py)
    max_body_bytes: int = 1024 * 1024  # larger bodies: 413
    max_header_bytes: int = 16 * 1024  # larger header sets: 431
    # slow clients and connection floods (app/connections.py, DECISIONS rows 125-127; 0: off):
    # seconds for a request's whole head, seconds for its whole body, open connections per process
    header_timeout: float = 10.0
    body_timeout: float = 30.0
    max_connections: int = 1000
    # the generated layer's strict contract mode: an undeclared status or error body is a
    # logged 500 (on in the tests; for staging, never needed in production)
    strict_contract: bool = False
    # server key (Fernet) encrypting webhook secrets and signing keys at rest; several
    # comma-separated keys rotate: the first encrypts, every one decrypts
    secret_key: str | None = None
    # webhooks: http targets only for development and tests; CIDRs exempt from the
    # private-address refusal (169.254.169.254 never is); a factor on the spec's retry delays
    webhook_allow_http: bool = False
    webhook_allowed_networks: str = ""
    webhook_retry_scale: float = 1.0
    webhook_timeout: float = 10.0
    # run the delivery worker inside `serve` (exactly one process); off for `outreach-server worker`
    webhook_worker: bool = True
    # MX lookups (resolver.py): a fixed table `domain=mx[,mx];...` or `@file` (empty: offline),
    # else real DNS with this timeout per lookup
    dns_fixed: str | None = None
    dns_timeout: float = 2.0
    # -- app platform (app_platform/tokens.py, principals.py); every value provisional --------------
    # the identity provider whose JWTs the app-session exchange accepts as principals: its public
    # JWK Set (JSON text or `@path`; unset: no principal is valid), and the `iss` / `aud` the
    # principal must carry (unset: not checked)
    app_idp_jwks: str | None = None
    app_idp_issuer: str | None = None
    app_idp_audience: str | None = None
    # the `iss` of the app tokens this service mints, and their lifetime in seconds
    app_token_issuer: str = "outreach-app-platform"
    app_token_lifetime: int = 900
    # mint limiters: per principal and app on the exchange, per credential on the service token
    app_exchange_rate_per_second: int = 5
    app_exchange_rate_per_minute: int = 30
    app_service_token_rate_per_second: int = 5
    app_service_token_rate_per_minute: int = 30
    # -- end app platform ---------------------------------------------------------------------

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        values: dict[str, object] = {}
        for spec in fields(cls):
            raw = os.environ.get(f"OUTREACH_{spec.name.upper()}")
            if raw is not None:
                values[spec.name] = _parse(raw, str(spec.type))
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]

    @property
    def migrate_on_start(self) -> bool:
        if self.auto_migrate is not None:
            return self.auto_migrate
        return self.database_url.startswith("sqlite")


def _parse(raw: str, kind: str) -> object:
    if kind.startswith("int"):
        return int(raw)
    if kind.startswith("float"):
        return float(raw)
    if kind.startswith("bool"):
        return raw.strip().lower() in ("1", "true", "yes", "on")
    return raw
