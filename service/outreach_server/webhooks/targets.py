"""Webhook target URLs: the scheme rule and the refusal of internal addresses (SSRF).

A target is `https://` (`http://` only with the webhook_allow_http setting), has a host, no
user-info, no fragment, no whitespace or control character, and an allowed port: 443 or 8443
(80 or 8080 for http); any other port only when every address lies in one of the
webhook_allowed_networks CIDRs (development and tests). Every address the host resolves to
(through the service's resolver) must be globally reachable by the IANA special-purpose
registries (`addresses.is_public`, embedded IPv4 included), unless it lies in one of the
webhook_allowed_networks CIDRs. The metadata addresses (169.254.169.254, fd00:ec2::254) are
refused even then. A refusal says the address is not allowed, never what the host resolved
to. The check runs when a webhook is created or its URL changed, and again
before every delivery attempt, whose connection then goes to the checked address (no second
lookup an attacker's DNS could answer differently).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from ..core.resolver import LookupUnavailable, Resolver, ip_literal
from .addresses import IPAddress, IPNetwork, embedded_ipv4, is_public

METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
MAX_URL_LENGTH = 2048
# spec/DECISIONS.md row 118
ALLOWED_PORTS = {"https": frozenset({443, 8443}), "http": frozenset({80, 8080})}
NOT_ALLOWED = "Webhook URL points to an address that is not allowed"


class TargetRefused(ValueError):
    """The URL may not be a webhook target; the message says why (safe to show)."""


@dataclass(frozen=True)
class Target:
    url: str
    scheme: str
    host: str  # as written (IDNA/lowercase), without brackets
    port: int
    path: str  # path and query, at least "/"


@dataclass(frozen=True)
class ResolvedTarget:
    target: Target
    address: str  # the checked address to connect to


def parse_target(url: str, *, allow_http: bool) -> Target:
    if len(url) > MAX_URL_LENGTH:
        raise TargetRefused(f"Webhook URL is longer than {MAX_URL_LENGTH} characters")
    url = url.strip()
    if any(ch.isspace() or ord(ch) < 0x20 or ord(ch) == 0x7F for ch in url):
        raise TargetRefused("Webhook URL must not contain whitespace or control characters")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise TargetRefused("Webhook URL is not a valid URL") from None
    if parts.fragment or "#" in url:
        raise TargetRefused("Webhook URL must not contain a fragment")
    if port == 0:
        raise TargetRefused("Webhook URL port is not allowed")
    scheme = parts.scheme.lower()
    if scheme != "https" and not (scheme == "http" and allow_http):
        raise TargetRefused("Webhook URL must use https")
    if parts.username is not None or parts.password is not None:
        raise TargetRefused("Webhook URL must not contain credentials")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise TargetRefused("Webhook URL has no host")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(
        url=url,
        scheme=scheme,
        host=host,
        port=port or (443 if scheme == "https" else 80),
        path=path,
    )


@lru_cache(maxsize=64)
def allowed_networks(setting: str) -> tuple[IPNetwork, ...]:
    networks: list[IPNetwork] = []
    for part in setting.replace(";", ",").split(","):
        if part.strip():
            networks.append(ipaddress.ip_network(part.strip(), strict=False))
    return tuple(networks)


def _exempt(ip: IPAddress, allowed: tuple[IPNetwork, ...]) -> bool:
    return any(ip.version == net.version and ip in net for net in allowed)


def address_refusal(address: str, allowed: tuple[IPNetwork, ...]) -> str | None:
    """Why `address` may not be a target (None: it may). The reason never names the address."""
    ip: IPAddress = ipaddress.ip_address(address)
    inner = embedded_ipv4(ip)
    if ip in METADATA_ADDRESSES or (inner is not None and inner in METADATA_ADDRESSES):
        return NOT_ALLOWED
    if _exempt(ip, allowed) or (inner is not None and _exempt(inner, allowed)):
        return None
    return None if is_public(ip) else NOT_ALLOWED


async def resolve_target(
    url: str, *, allow_http: bool, allowed: str, resolver: Resolver
) -> ResolvedTarget:
    """Parse and check `url`, resolving its host; raises TargetRefused."""
    target = parse_target(url, allow_http=allow_http)
    networks = allowed_networks(allowed)
    literal = ip_literal(target.host)
    if literal is not None:
        addresses = [literal]
    else:
        try:
            addresses = await resolver.addresses(target.host)
        except LookupUnavailable as exc:
            raise TargetRefused(f"Webhook URL host could not be resolved: {exc.reason}") from None
    for address in addresses:
        refusal = address_refusal(address, networks)
        if refusal is not None:
            raise TargetRefused(refusal)
    if target.port not in ALLOWED_PORTS[target.scheme] and not all(
        _exempt(ipaddress.ip_address(address), networks) for address in addresses
    ):
        raise TargetRefused("Webhook URL port is not allowed (443 or 8443; 80 or 8080 for http)")
    return ResolvedTarget(target, addresses[0])
