"""The service's DNS resolver interface (MX lookups), its dnspython implementation, and a fixed one.

Every network lookup of the service goes through a `Resolver`, so tests and offline
deployments replace it. `mx(domain)` answers the domain's mail exchangers, most preferred
first; an empty list means the domain has none (no MX record, a null MX, or no such
domain). When no lookup can be made at all (timeout, no network, no resolver configured,
a fixed resolver without an entry for the domain) it raises `LookupUnavailable`, so a
caller can tell "no MX" from "could not ask".

`addresses(host)` answers the host's IP addresses (A and AAAA, as strings); it raises
`LookupUnavailable` when the host cannot be resolved or no lookup can be made. An IP literal
is answered as itself. The webhook delivery path checks every address it connects to.

Settings: `OUTREACH_DNS_FIXED` selects the fixed resolver, e.g.
`example.com=mx1.example.com,mx2.example.com;other.org=` (other.org has no MX); a value
starting with `@` names a file with one such entry per line (`#` starts a comment). An empty
value is an offline deployment: every lookup is unavailable. Unset: real DNS
(`dns.asyncresolver`), each lookup bounded by `OUTREACH_DNS_TIMEOUT` seconds (default 2).
In the fixed table an entry `addr:HOST=IP[,IP...]` gives the addresses of HOST (for
`addresses`), e.g. `addr:hooks.example.com=203.0.113.7`.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol


class LookupUnavailable(Exception):
    """No lookup could be made; `reason` says why (never "the domain has no MX")."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Resolver(Protocol):
    async def mx(self, domain: str) -> list[str]:
        """MX hosts of `domain`, most preferred first; [] when it has none.

        Raises LookupUnavailable when no lookup could be made.
        """
        ...

    async def addresses(self, host: str) -> list[str]:
        """IP addresses of `host` (an IP literal answers itself); never empty.

        Raises LookupUnavailable when the host does not resolve or no lookup could be made.
        """
        ...


ADDRESS_PREFIX = "addr:"


def ip_literal(host: str) -> str | None:
    """`host` as a normalised IP address string when it is one (brackets allowed), else None."""
    try:
        return str(ipaddress.ip_address(host.strip("[]")))
    except ValueError:
        return None


class DnsResolver:
    """Real DNS through dnspython's asyncio resolver (system configuration unless given)."""

    def __init__(
        self, timeout: float = 2.0, nameservers: Sequence[str] | None = None, port: int = 53
    ) -> None:
        self.timeout = timeout
        self.nameservers = list(nameservers) if nameservers is not None else None
        self.port = port
        self._resolver: Any = None

    def _get(self) -> Any:
        import dns.asyncresolver

        if self._resolver is None:
            if self.nameservers is None:
                resolver = dns.asyncresolver.Resolver()  # reads /etc/resolv.conf
            else:
                resolver = dns.asyncresolver.Resolver(configure=False)
                resolver.nameservers = self.nameservers
                resolver.port = self.port
            resolver.lifetime = self.timeout
            resolver.timeout = self.timeout
            self._resolver = resolver
        return self._resolver

    async def mx(self, domain: str) -> list[str]:
        import dns.exception
        import dns.resolver

        try:
            answer = await self._get().resolve(domain, "MX", lifetime=self.timeout, search=False)
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            return []
        except dns.resolver.NoResolverConfiguration:
            raise LookupUnavailable("no DNS resolver is configured") from None
        except dns.exception.Timeout:
            raise LookupUnavailable(f"DNS lookup timed out after {self.timeout:g} s") from None
        except dns.resolver.NoNameservers:
            raise LookupUnavailable("no DNS server answered") from None
        except (dns.exception.DNSException, OSError) as exc:
            raise LookupUnavailable(f"DNS lookup failed ({type(exc).__name__})") from None
        records = sorted(answer, key=lambda r: (r.preference, str(r.exchange)))
        hosts = [str(record.exchange).rstrip(".") for record in records]
        return [host for host in hosts if host]  # a null MX (".") accepts no mail

    async def addresses(self, host: str) -> list[str]:
        literal = ip_literal(host)
        if literal is not None:
            return [literal]
        loop = asyncio.get_running_loop()
        try:
            infos = await asyncio.wait_for(
                loop.getaddrinfo(host, None, type=socket.SOCK_STREAM), self.timeout
            )
        except TimeoutError:
            raise LookupUnavailable(f"DNS lookup timed out after {self.timeout:g} s") from None
        except (socket.gaierror, OSError, UnicodeError) as exc:
            raise LookupUnavailable(f"host does not resolve ({type(exc).__name__})") from None
        found: list[str] = []
        for info in infos:
            address = str(ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]))
            if address not in found:
                found.append(address)
        if not found:
            raise LookupUnavailable("host has no address")
        return found


class FixedResolver:
    """Answers from a mapping domain -> MX hosts; a domain not in it cannot be looked up."""

    def __init__(self, entries: Mapping[str, Sequence[str]]) -> None:
        self.entries = {
            domain.lower().rstrip("."): list(hosts)
            for domain, hosts in entries.items()
            if not domain.startswith(ADDRESS_PREFIX)
        }
        self.address_entries = {
            name[len(ADDRESS_PREFIX) :].lower().rstrip("."): list(addresses)
            for name, addresses in entries.items()
            if name.startswith(ADDRESS_PREFIX)
        }

    async def addresses(self, host: str) -> list[str]:
        literal = ip_literal(host)
        if literal is not None:
            return [literal]
        found = self.address_entries.get(host.lower().rstrip("."))
        if not found:
            raise LookupUnavailable("no DNS lookup possible (offline resolver has no entry)")
        return list(found)

    async def mx(self, domain: str) -> list[str]:
        hosts = self.entries.get(domain.lower().rstrip("."))
        if hosts is None:
            raise LookupUnavailable("no DNS lookup possible (offline resolver has no entry)")
        return list(hosts)


def parse_fixed(spec: str) -> dict[str, list[str]]:
    """`a.com=mx1,mx2;b.org=` (or `@path` to a file of such entries) as a mapping."""
    if spec.startswith("@"):
        spec = Path(spec[1:]).read_text(encoding="utf-8")
    entries: dict[str, list[str]] = {}
    for raw in spec.replace("\n", ";").split(";"):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        domain, sep, hosts = entry.partition("=")
        if not sep or not domain.strip():
            raise ValueError(f"fixed DNS entry {entry!r} is not domain=host[,host...]")
        entries[domain.strip().lower().rstrip(".")] = [
            host.strip().rstrip(".") for host in hosts.split(",") if host.strip()
        ]
    return entries


def create_resolver(fixed: str | None, timeout: float) -> Resolver:
    """The fixed resolver when `fixed` is set (even empty: offline), else real DNS."""
    if fixed is not None:
        return FixedResolver(parse_fixed(fixed))
    return DnsResolver(timeout=timeout)
