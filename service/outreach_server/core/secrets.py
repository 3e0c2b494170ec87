"""Webhook signing secrets: generated server-side, encrypted at rest with the server key.

The server key is `OUTREACH_SECRET_KEY`: one or more comma-separated Fernet keys
(`Fernet.generate_key()`), read through cryptography's MultiFernet. The first key encrypts,
every listed key decrypts. Rotation: put a new key first and keep the old ones after it
(`NEW,OLD`); restart; existing secrets keep decrypting with OLD and are re-encrypted
under NEW on their next write (or all at once with `MultiFernet.rotate`); drop OLD once
nothing is encrypted with it any more.

Without a configured key:
- on SQLite (the embedded default) a key file is created next to the database file on
  first use (`<database>.webhook-key`, mode 0600) and its path is logged (never the key);
- on PostgreSQL creating a webhook answers 503 "Webhook secret key not configured".
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
from pathlib import Path

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from sqlalchemy.engine import make_url

from .db import is_sqlite
from .settings import Settings

log = logging.getLogger("outreach_server.webhooks")

SECRET_PREFIX = "whsec_"
KEY_FILE_SUFFIX = ".webhook-key"
NOT_CONFIGURED = "Webhook secret key not configured"


class SecretKeyMissing(Exception):
    """No server key is configured and none can be created (PostgreSQL without the setting)."""


class SecretUndecryptable(Exception):
    """A stored secret does not decrypt with any configured key."""


def new_secret() -> str:
    """A fresh signing secret (256 bits from the OS's secure random source)."""
    return SECRET_PREFIX + secrets.token_urlsafe(32)


def server_fernet(value: str) -> MultiFernet:
    """The server key setting (comma-separated Fernet keys) as one cipher: the first key
    encrypts, every key decrypts (rotation: `NEW,OLD`). Raises ValueError when malformed."""
    keys = [part.strip() for part in value.split(",") if part.strip()]
    if not keys:
        raise ValueError("at least one Fernet key is needed")
    try:
        return MultiFernet([Fernet(key.encode()) for key in keys])
    except ValueError as error:
        raise ValueError(f"not a valid Fernet key list: {error}") from None


class SecretBox:
    def __init__(self, fernet: MultiFernet) -> None:
        self._fernet = fernet

    @classmethod
    def from_setting(cls, value: str) -> SecretBox:
        return cls(server_fernet(value))

    def encrypt(self, secret: str) -> str:
        return self._fernet.encrypt(secret.encode()).decode()

    def decrypt(self, token: str) -> str:
        try:
            return self._fernet.decrypt(token.encode()).decode()
        except InvalidToken:
            raise SecretUndecryptable("stored webhook secret does not decrypt") from None


_boxes: dict[tuple[str | None, str], SecretBox] = {}
_lock = threading.Lock()


def key_file_for(database_url: str) -> Path | None:
    """The key file of an SQLite database, None for PostgreSQL or in-memory SQLite."""
    if not is_sqlite(database_url):
        return None
    database = make_url(database_url).database
    if not database or database == ":memory:":
        return None
    return Path(database).with_name(Path(database).name + KEY_FILE_SUFFIX)


def _load_or_create_key_file(path: Path) -> str:
    try:
        return path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        pass
    key = Fernet.generate_key().decode()
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process created it first
        return path.read_text(encoding="ascii").strip()
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
    log.warning(
        "no OUTREACH_SECRET_KEY configured: created a webhook secret key file at %s (mode 0600); "
        "back it up with the database",
        path,
    )
    return key


def secret_box(settings: Settings) -> SecretBox:
    """The server's box for `settings`; raises SecretKeyMissing when none can be had."""
    cache_key = (settings.secret_key, settings.database_url)
    with _lock:
        box = _boxes.get(cache_key)
        if box is not None:
            return box
        if settings.secret_key:
            box = SecretBox.from_setting(settings.secret_key)
        else:
            path = key_file_for(settings.database_url)
            if path is None:
                raise SecretKeyMissing(NOT_CONFIGURED)
            box = SecretBox.from_setting(_load_or_create_key_file(path))
        _boxes[cache_key] = box
        return box
