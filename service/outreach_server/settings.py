"""Service settings: command-line flags over `OUTREACH_*` environment variables over defaults."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

DEFAULT_DATABASE_FILE = "outreach.sqlite3"


def _default_database_url() -> str:
    return f"sqlite+aiosqlite:///{Path(DEFAULT_DATABASE_FILE).resolve()}"


@dataclass(frozen=True)
class Settings:
    host: str = "127.0.0.1"
    port: int = 8000
    database_url: str = field(default_factory=_default_database_url)
    redis_url: str | None = None
    workers: int = 1

    @classmethod
    def from_env(cls, **overrides: object) -> Settings:
        env = os.environ
        values: dict[str, object] = {}
        if "OUTREACH_HOST" in env:
            values["host"] = env["OUTREACH_HOST"]
        if "OUTREACH_PORT" in env:
            values["port"] = int(env["OUTREACH_PORT"])
        if "OUTREACH_DATABASE_URL" in env:
            values["database_url"] = env["OUTREACH_DATABASE_URL"]
        if "OUTREACH_REDIS_URL" in env:
            values["redis_url"] = env["OUTREACH_REDIS_URL"]
        if "OUTREACH_WORKERS" in env:
            values["workers"] = int(env["OUTREACH_WORKERS"])
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**values)  # type: ignore[arg-type]
