"""Tables of the app_platform area (registered on db.metadata; migration revision 0006).

Apps, their installations in organisations (with the consent that app tokens require),
client credentials for the service token (only a SHA-256 of the secret is stored) and the
platform's token signing keys (private JWK encrypted with the server key; public JWK in
clear for the JWK Set).
"""

from __future__ import annotations

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from ..core.db import metadata

ORG_FK = "organizations.id"
APP_FK = "apps.id"

apps = Table(
    "apps",
    metadata,
    Column("id", String(40), primary_key=True),  # "app_<hex>"
    Column("name", String(200), nullable=False),
    Column("created_at", BigInteger, nullable=False),
)

app_installations = Table(
    "app_installations",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("app_id", String(40), ForeignKey(APP_FK, ondelete="CASCADE"), nullable=False),
    Column("consented_at", BigInteger, nullable=True),  # null: installed, not consented
    Column("created_at", BigInteger, nullable=False),
    UniqueConstraint("org_id", "app_id", name="uq_app_installations_org_id_app_id"),
)

app_credentials = Table(
    "app_credentials",
    metadata,
    Column("client_id", String(64), primary_key=True),
    Column("secret_hash", String(64), nullable=False),  # hex SHA-256 of the secret
    Column("org_id", Integer, ForeignKey(ORG_FK, ondelete="CASCADE"), nullable=False),
    Column("app_id", String(40), ForeignKey(APP_FK, ondelete="CASCADE"), nullable=False),
    Column("created_at", BigInteger, nullable=False),
    Column("revoked_at", BigInteger, nullable=True),
    Index("ix_app_credentials_org_id_app_id", "org_id", "app_id"),
)

app_signing_keys = Table(
    "app_signing_keys",
    metadata,
    Column("kid", String(64), primary_key=True),
    Column("alg", String(16), nullable=False),
    Column("public_jwk", Text, nullable=False),  # JSON of the public JWK (with kid, alg, use)
    Column("private_jwk", Text, nullable=False),  # Fernet token of the private JWK's JSON
    Column("active", Boolean, nullable=False),  # the one that signs; the others still verify
    Column("created_at", BigInteger, nullable=False),
)
