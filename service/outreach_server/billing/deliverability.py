"""Deliverability of an email address: syntax first, then an MX lookup through the resolver.

Verdicts (provisional names): `valid` (well-formed, the domain has mail exchangers),
`invalid_syntax`, `no_mx` (the domain has no MX record or does not exist), `unknown` (no
lookup could be made; `reason` says why). Nothing here stores anything.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..core.resolver import LookupUnavailable, Resolver

VALID = "valid"
INVALID_SYNTAX = "invalid_syntax"
NO_MX = "no_mx"
UNKNOWN = "unknown"
STATUSES = (VALID, INVALID_SYNTAX, NO_MX, UNKNOWN)

MAX_ADDRESS = 254
MAX_LOCAL = 64
MAX_DOMAIN = 253
LOOKUP_CONCURRENCY = 16
LOCAL_ATOM = re.compile(r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+$")
DOMAIN_LABEL = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$")


@dataclass(frozen=True)
class Verdict:
    status: str
    reason: str | None = None
    domain: str | None = None
    mx_hosts: tuple[str, ...] = ()


def address_key(email: str) -> str:
    """The form addresses are compared (and counted, and charged) in."""
    return email.strip().lower()


def check_syntax(email: str) -> tuple[str | None, str | None]:
    """(ASCII domain, None) for a well-formed address, else (None, what is wrong)."""
    address = email.strip()
    if not address:
        return None, "empty address"
    if len(address) > MAX_ADDRESS:
        return None, f"longer than {MAX_ADDRESS} characters"
    local, at, domain = address.rpartition("@")
    if not at:
        return None, "no @"
    if not local or len(local) > MAX_LOCAL:
        return None, f"the local part must have 1 to {MAX_LOCAL} characters"
    if not all(LOCAL_ATOM.match(atom) for atom in local.split(".")):
        return None, "the local part has a character or dot that is not allowed"
    try:
        ascii_domain = domain.rstrip(".").encode("idna").decode("ascii").lower()
    except UnicodeError:
        return None, "the domain is not a valid host name"
    labels = ascii_domain.split(".")
    if len(ascii_domain) > MAX_DOMAIN or len(labels) < 2:
        return None, "the domain must be a host name with at least two labels"
    if not all(DOMAIN_LABEL.match(label) for label in labels) or labels[-1].isdigit():
        return None, "the domain is not a valid host name"
    return ascii_domain, None


async def _lookup(domain: str, resolver: Resolver, gate: asyncio.Semaphore) -> Verdict:
    async with gate:
        try:
            hosts = await resolver.mx(domain)
        except LookupUnavailable as exc:
            return Verdict(UNKNOWN, f"no DNS lookup possible: {exc.reason}", domain)
    if not hosts:
        return Verdict(NO_MX, "the domain has no MX record", domain)
    return Verdict(VALID, None, domain, tuple(hosts))


async def verify_addresses(emails: Iterable[str], resolver: Resolver) -> dict[str, Verdict]:
    """A verdict per distinct address (keyed by `address_key`); one lookup per domain."""
    verdicts: dict[str, Verdict] = {}
    by_domain: dict[str, list[str]] = {}
    seen: set[str] = set()
    for email in emails:
        key = address_key(email)
        if key in seen:
            continue
        seen.add(key)
        domain, problem = check_syntax(email)
        if domain is None:
            verdicts[key] = Verdict(INVALID_SYNTAX, problem)
        else:
            by_domain.setdefault(domain, []).append(key)
    gate = asyncio.Semaphore(LOOKUP_CONCURRENCY)
    domains = list(by_domain)
    results = await asyncio.gather(*(_lookup(domain, resolver, gate) for domain in domains))
    for domain, verdict in zip(domains, results):
        for key in by_domain[domain]:
            verdicts[key] = verdict
    return verdicts


async def verify_address(email: str, resolver: Resolver) -> Verdict:
    return (await verify_addresses([email], resolver))[address_key(email)]
