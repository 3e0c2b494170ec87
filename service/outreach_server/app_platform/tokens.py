"""App tokens: the platform's signing keys, its public JWK Set, and minting signed JWTs.

Signing keys are ES256 (P-256) keys made with joserfc. The private JWK is stored encrypted
with the server key (`secret_key`, Fernet; several comma-separated keys rotate: the first
encrypts, every one decrypts); without a server key no signing key can be created. The newest
key created is the active one and signs; every key stays in the JWK Set so that tokens signed
before a rotation still verify.

An app token is a JWT with header `alg`, `kid` (the active key), `typ: JWT` and the claims
`iss`, `sub`, `aud` (the app id), `org_id`, `iat`, `exp`, `jti`, `token_use` ("session" or
"service") and, for a session, `role`. All of it is provisional: the source does not show
token lifetime or claims.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cryptography.fernet import InvalidToken, MultiFernet
from joserfc import jwt
from joserfc.jwk import ECKey
from sqlalchemy import insert, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from ..core.secrets import server_fernet
from .tables import app_signing_keys

SIGNING_ALGORITHM = "ES256"
SIGNING_CURVE = "P-256"
TOKEN_TYPE = "Bearer"


class SigningKeyUnavailable(Exception):
    """No signing key exists, or the server key cannot decrypt it (the service answers 503)."""


def server_cipher(secret_key: str | None) -> MultiFernet | None:
    """The Fernet cipher of the server key setting, or None when it is not set."""
    if not secret_key or not secret_key.strip():
        return None
    try:
        return server_fernet(secret_key)
    except ValueError as error:
        raise ValueError(f"secret_key: {error}") from None


@dataclass(frozen=True)
class IssuedToken:
    access_token: str
    expires_in: int
    claims: dict[str, Any]

    def response(self) -> dict[str, Any]:
        """The fields of the token response (`AppToken`)."""
        return {
            "access_token": self.access_token,
            "token_type": TOKEN_TYPE,
            "expires_in": self.expires_in,
        }


class AppTokens:
    """Signing keys in the database; mints app tokens with the active key."""

    def __init__(
        self,
        engine: AsyncEngine,
        *,
        secret_key: str | None,
        issuer: str,
        lifetime: int,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.engine = engine
        self.issuer = issuer
        self.lifetime = lifetime
        self.clock = clock
        self._secret_key = secret_key
        self._private: dict[str, ECKey] = {}  # decrypted keys by kid

    # -- keys ------------------------------------------------------------------------------

    async def create_signing_key(self) -> str:
        """Create a key, make it the active one (older keys stay published); return its kid."""
        cipher = server_cipher(self._secret_key)
        if cipher is None:
            raise SigningKeyUnavailable(
                "no server key: set OUTREACH_SECRET_KEY (a Fernet key) to create signing keys"
            )
        kid = f"ak_{secrets.token_hex(12)}"
        key = ECKey.generate_key(
            SIGNING_CURVE, parameters={"kid": kid, "alg": SIGNING_ALGORITHM, "use": "sig"}
        )
        public = json.dumps(key.as_dict(private=False), sort_keys=True)
        private = cipher.encrypt(json.dumps(key.as_dict(private=True)).encode()).decode()
        async with self.engine.begin() as connection:
            await connection.execute(update(app_signing_keys).values(active=False))
            await connection.execute(
                insert(app_signing_keys).values(
                    kid=kid,
                    alg=SIGNING_ALGORITHM,
                    public_jwk=public,
                    private_jwk=private,
                    active=True,
                    created_at=int(self.clock()),
                )
            )
        return kid

    async def jwks(self) -> dict[str, Any]:
        """The public JWK Set: every key, oldest first; `{"keys": []}` while there are none."""
        query = select(app_signing_keys.c.public_jwk).order_by(
            app_signing_keys.c.created_at, app_signing_keys.c.kid
        )
        async with self.engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return {"keys": [json.loads(row.public_jwk) for row in rows]}

    async def _active_key(self) -> ECKey:
        query = (
            select(app_signing_keys.c.kid, app_signing_keys.c.private_jwk)
            .where(app_signing_keys.c.active.is_(True))
            .order_by(app_signing_keys.c.created_at.desc(), app_signing_keys.c.kid.desc())
            .limit(1)
        )
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        if row is None:
            raise SigningKeyUnavailable("no app signing key: run `admin create-signing-key`")
        cached = self._private.get(row.kid)
        if cached is not None:
            return cached
        cipher = server_cipher(self._secret_key)
        if cipher is None:
            raise SigningKeyUnavailable("no server key to decrypt the app signing key")
        try:
            data = json.loads(cipher.decrypt(row.private_jwk.encode()))
        except InvalidToken:
            raise SigningKeyUnavailable("the server key cannot decrypt the signing key") from None
        key = ECKey.import_key(data)
        self._private[row.kid] = key
        return key

    # -- minting ---------------------------------------------------------------------------

    async def mint(
        self,
        *,
        subject: str,
        org_id: int,
        app_id: str,
        token_use: str,
        role: str | None = None,
    ) -> IssuedToken:
        """A signed app token for `subject` in `org_id`, audience `app_id`."""
        key = await self._active_key()
        now = int(self.clock())
        claims: dict[str, Any] = {
            "iss": self.issuer,
            "sub": subject,
            "aud": app_id,
            "org_id": org_id,
            "iat": now,
            "nbf": now,
            "exp": now + self.lifetime,
            "jti": secrets.token_urlsafe(16),
            "token_use": token_use,
        }
        if role is not None:
            claims["role"] = role
        header = {"alg": SIGNING_ALGORITHM, "kid": key.kid, "typ": "JWT"}
        token = jwt.encode(header, claims, key, algorithms=[SIGNING_ALGORITHM])
        return IssuedToken(token, self.lifetime, claims)
