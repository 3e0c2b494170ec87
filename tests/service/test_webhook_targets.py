"""Webhook targets against the IANA special-purpose registries, ports and URL shape (issue 12)."""

from __future__ import annotations

import asyncio
import ipaddress

import pytest
from outreach_server.core.resolver import FixedResolver
from outreach_server.webhooks.addresses import is_public
from outreach_server.webhooks.targets import TargetRefused, resolve_target


@pytest.mark.parametrize(
    "address",
    [
        "192.0.0.8",  # IPv4 dummy address (Python 3.11.7 calls it global)
        "192.0.0.170",
        "198.18.0.1",
        "240.0.0.1",
        "255.255.255.255",
        "100.64.0.1",
        "224.0.0.1",
        "2002:7f00:1::1",  # 6to4 embedding 127.0.0.1
        "2002:a9fe:a9fe::1",  # 6to4 embedding 169.254.169.254
        "2001:0:4136:e378:8000:63bf:80ff:fffe",  # Teredo
        "64:ff9b::7f00:1",  # NAT64 of 127.0.0.1
        "64:ff9b:1::1",
        "::ffff:127.0.0.1",
        "::127.0.0.1",
        "2001:db8::1",
        "3fff::1",
        "5f00::1",
        "fd00:ec2::254",
        "fe80::1",
        "ff02::1",
        "100::1",
    ],
)
def test_special_purpose_addresses_are_not_public(address: str) -> None:
    assert not is_public(ipaddress.ip_address(address))


@pytest.mark.parametrize(
    "address",
    [
        "8.8.8.8",
        "192.0.0.9",
        "2606:4700::1111",
        "2002:808:808::1",
        "64:ff9b::808:808",
        "::ffff:8.8.8.8",
    ],
)
def test_public_addresses_are_public(address: str) -> None:
    assert is_public(ipaddress.ip_address(address))


def refusal(url: str, resolver: FixedResolver | None = None, allowed: str = "") -> str:
    async def run() -> str:
        try:
            await resolve_target(
                url, allow_http=False, allowed=allowed, resolver=resolver or FixedResolver({})
            )
        except TargetRefused as exc:
            return str(exc)
        return ""

    return asyncio.run(run())


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("https://[2002:7f00:1::1]/", "not allowed"),
        ("https://[2002:a9fe:a9fe::1]/", "not allowed"),
        ("https://192.0.0.8/", "not allowed"),
        ("https://93.184.216.34:22/", "port is not allowed"),
        ("https://93.184.216.34:6379/", "port is not allowed"),
        ("https://93.184.216.34:0/", "port is not allowed"),
        ("https://93.184.216.34/h#frag", "fragment"),
        ("https://93.184.216.34/a\r\nX-Injected: 1", "control characters"),
        ("https://93.184.216.34/a b", "whitespace"),
    ],
)
def test_refused_targets(url: str, reason: str) -> None:
    assert reason in refusal(url)


def test_allowed_ports_and_a_refusal_never_names_the_resolved_address() -> None:
    public = FixedResolver({"addr:ok.example": ["93.184.216.34"], "addr:in.example": ["10.9.8.7"]})
    assert refusal("https://ok.example/", public) == ""
    assert refusal("https://ok.example:8443/", public) == ""
    message = refusal("https://in.example/", public)
    assert message == "Webhook URL points to an address that is not allowed"
    assert "10.9.8.7" not in message
    # other ports only inside the networks exempted for development
    assert refusal("https://127.0.0.1:9000/", allowed="127.0.0.0/8") == ""
