"""Which addresses a webhook may be delivered to: the IANA special-purpose registries.

An address is allowed only when it is globally reachable. Python's `ipaddress` answers that
from the registries as they stood when the interpreter was released (3.11.7 still calls
192.0.0.8 global), so the registries' non-global entries are listed here too (IANA IPv4 and
IPv6 Special-Purpose Address Registries, "Globally Reachable" = False or N/A, plus multicast),
and an IPv4 address embedded in an IPv6 one (IPv4-mapped, IPv4-compatible, NAT64 64:ff9b::/96,
6to4 2002::/16, Teredo 2001::/32) is checked as the IPv4 address it carries.
"""

from __future__ import annotations

import ipaddress

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

# IANA IPv4 Special-Purpose Address Registry: entries not globally reachable (or N/A)
_V4_NOT_GLOBAL = (
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "224.0.0.0/4",
    "240.0.0.0/4",
    "255.255.255.255/32",
)
# ... and the globally reachable exceptions inside those blocks
_V4_GLOBAL_EXCEPTIONS = ("192.0.0.9/32", "192.0.0.10/32")
# IANA IPv6 Special-Purpose Address Registry: entries not globally reachable (or N/A)
_V6_NOT_GLOBAL = (
    "::/128",
    "::1/128",
    "::ffff:0:0/96",
    "64:ff9b:1::/48",
    "100::/64",
    "100:0:0:1::/64",
    "2001::/23",
    "2001:2::/48",
    "2001:db8::/32",
    "3fff::/20",
    "5f00::/16",
    "fc00::/7",
    "fe80::/10",
    "fec0::/10",
    "ff00::/8",
)
_V6_GLOBAL_EXCEPTIONS = (
    "2001:1::1/128",
    "2001:1::2/128",
    "2001:1::3/128",
    "2001:3::/32",
    "2001:4:112::/48",
    "2001:20::/28",
    "2001:30::/28",
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_IPV4_COMPATIBLE = ipaddress.ip_network("::/96")
_TEREDO = ipaddress.ip_network("2001::/32")

_NOT_GLOBAL = tuple(ipaddress.ip_network(n) for n in _V4_NOT_GLOBAL + _V6_NOT_GLOBAL)
_EXCEPTIONS = tuple(ipaddress.ip_network(n) for n in _V4_GLOBAL_EXCEPTIONS + _V6_GLOBAL_EXCEPTIONS)


def embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4, Teredo)."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _TEREDO and ip.teredo is not None:
        return ip.teredo[1]
    if ip in _NAT64 or (ip in _IPV4_COMPATIBLE and int(ip) > 1):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def _in(ip: IPAddress, networks: tuple[IPNetwork, ...]) -> bool:
    return any(ip.version == net.version and ip in net for net in networks)


def is_public(ip: IPAddress) -> bool:
    """Globally reachable by the registries, and so is any IPv4 address it embeds."""
    inner = embedded_ipv4(ip)
    if inner is not None and not is_public(inner):
        return False
    if inner is not None and isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return True  # the mapped form is the IPv4 address itself
    if _in(ip, _EXCEPTIONS):
        return True
    if _in(ip, _NOT_GLOBAL):
        return False
    return ip.is_global and not ip.is_multicast
