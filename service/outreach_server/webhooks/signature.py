"""Webhook signatures: `X-Webhook-Signature` is the lowercase hex HMAC-SHA256 of the raw
request body, keyed with the webhook's secret (UTF-8). `verify_signature` is the receiver's
check (constant-time comparison)."""

from __future__ import annotations

import hashlib
import hmac


def sign(payload: bytes, secret: str) -> str:
    return hmac.new(secret.encode(), payload, hashlib.sha256).hexdigest()


def verify_signature(payload: bytes, signature: str, secret: str) -> bool:
    """True when `signature` is the signature of exactly `payload` under `secret`."""
    expected = sign(payload, secret)
    return hmac.compare_digest(expected.encode(), signature.strip().lower().encode())
