"""Validating the identity-provider principal of the app-session exchange (provisional design).

The principal is a JWT sent as `Authorization: Bearer <jwt>`, signed (RS256 or ES256 only) by
an identity provider whose public JWK Set is configured (`OUTREACH_APP_IDP_JWKS`, JSON text or
`@path`). It must carry `sub`, `org_id` (an organisation id, integer or digit string), `role`
and `exp`; `iss` and `aud` must match `app_idp_issuer` / `app_idp_audience` when those are set.
Anything else (no header, an API key, garbage, a bad signature, an unknown key, an expired or
not-yet-valid token, a missing claim) is no valid principal: None, and the handler answers 401.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from joserfc import jwt
from joserfc.errors import JoseError
from joserfc.jwk import KeySet

from ..core.identifiers import org_id_from_text

PRINCIPAL_ALGORITHMS = ["RS256", "ES256"]
MAX_PRINCIPAL_LENGTH = 8192
MAX_CLAIM_LENGTH = 200
CLOCK_LEEWAY = 30  # seconds


@dataclass(frozen=True)
class Principal:
    """Who the identity provider says the caller is: the only source of identity."""

    issuer: str
    subject: str
    org_id: int
    role: str

    @property
    def limiter_key(self) -> str:
        return json.dumps([self.issuer, self.subject, self.org_id], separators=(",", ":"))


def load_key_set(setting: str | None) -> KeySet | None:
    """The IdP's JWK Set from the setting (JSON text or `@path`); None when unset."""
    if setting is None or not setting.strip():
        return None
    text = setting.strip()
    if text.startswith("@"):
        text = Path(text[1:]).read_text(encoding="utf-8")
    data = json.loads(text)
    if not isinstance(data, dict) or not isinstance(data.get("keys"), list):
        raise TypeError("app_idp_jwks must be a JWK Set: a JSON object with a `keys` array")
    return KeySet.import_key_set(data)  # type: ignore[arg-type]


def _text_claim(claims: dict[str, Any], name: str) -> str | None:
    value = claims.get(name)
    if not isinstance(value, str) or not value or len(value) > MAX_CLAIM_LENGTH:
        return None
    return value


def _org_claim(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if 0 < value < 2**31 else None
    if isinstance(value, str):  # ASCII digits only: "١" (U+0661) is not organisation 1
        return org_id_from_text(value)
    return None


class PrincipalVerifier:
    def __init__(
        self,
        key_set: KeySet | None,
        *,
        issuer: str | None,
        audience: str | None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.key_set = key_set
        self.issuer = issuer
        self.audience = audience
        self.clock = clock

    def verify(self, token: str) -> Principal | None:
        """The principal of a valid IdP JWT, else None."""
        if self.key_set is None or not token or len(token) > MAX_PRINCIPAL_LENGTH:
            return None
        try:
            decoded = jwt.decode(token, self.key_set, algorithms=PRINCIPAL_ALGORITHMS)
            options: dict[str, Any] = {
                "exp": {"essential": True},
                "sub": {"essential": True},
            }
            if self.issuer is not None:
                options["iss"] = {"essential": True, "value": self.issuer}
            if self.audience is not None:
                options["aud"] = {"essential": True, "value": self.audience}
            registry = jwt.JWTClaimsRegistry(
                now=lambda: int(self.clock()), leeway=CLOCK_LEEWAY, **options
            )
            registry.validate(decoded.claims)
        except (JoseError, ValueError, TypeError, KeyError):
            return None
        claims = decoded.claims
        subject = _text_claim(claims, "sub")
        role = _text_claim(claims, "role")
        org_id = _org_claim(claims.get("org_id"))
        if subject is None or role is None or org_id is None:
            return None
        issuer = claims.get("iss")
        return Principal(
            issuer=issuer if isinstance(issuer, str) else "",
            subject=subject,
            org_id=org_id,
            role=role,
        )
