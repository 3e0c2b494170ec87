"""Webhook target URLs: the scheme rule and the refusal of internal addresses (SSRF).

A target is `https://` (`http://` only with the webhook_allow_http setting), has a host, no
user-info and no fragment. Every address the host resolves to (through the service's
resolver) must be public: loopback, private, link-local, shared (CGNAT), multicast, reserved,
unspecified and cloud metadata addresses are refused, unless they lie in one of the
webhook_allowed_networks CIDRs. The metadata addresses (169.254.169.254, fd00:ec2::254) are
refused even then. The check runs when a webhook is created or its URL changed, and again
before every delivery attempt, whose connection then goes to the checked address (no second
lookup an attacker's DNS could answer differently).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from functools import lru_cache
from urllib.parse import urlsplit

from ..core.resolver import LookupUnavailable, Resolver, ip_literal

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_ADDRESSES = frozenset(
    {ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("fd00:ec2::254")}
)
MAX_URL_LENGTH = 2048


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
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        raise TargetRefused("Webhook URL is not a valid URL") from None
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
        url=url.strip(),
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


def address_refusal(address: str, allowed: tuple[IPNetwork, ...]) -> str | None:
    """Why `address` may not be a target (None: it may)."""
    ip: IPAddress = ipaddress.ip_address(address)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in METADATA_ADDRESSES:
        return f"Webhook URL resolves to a metadata address ({ip})"
    if any(ip.version == net.version and ip in net for net in allowed):
        return None
    if ip.is_unspecified:
        return f"Webhook URL resolves to a non-public address ({ip})"
    if ip.is_loopback:
        return f"Webhook URL resolves to a loopback address ({ip})"
    if ip.is_link_local:
        return f"Webhook URL resolves to a link-local address ({ip})"
    if ip.is_private or ip in ipaddress.ip_network("100.64.0.0/10"):
        return f"Webhook URL resolves to a private address ({ip})"
    if ip.is_multicast or ip.is_unspecified or ip.is_reserved or not ip.is_global:
        return f"Webhook URL resolves to a non-public address ({ip})"
    return None


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
    return ResolvedTarget(target, addresses[0])
