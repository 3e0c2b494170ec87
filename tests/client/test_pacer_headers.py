"""The client's pacing reads the server's rate-limit headers (issue 12)."""

from __future__ import annotations

import time

import httpx
from outreach_client.base import Pacer


def test_a_spent_window_holds_the_next_request_for_the_reset_time() -> None:
    pacer = Pacer(limits=((10, 1.0),))
    slot, wait = pacer.reserve()
    assert wait == 0
    pacer.done(slot, httpx.Headers({"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": "2"}))
    _, wait = pacer.reserve()
    assert 1.9 < wait <= 2.0


def test_remaining_requests_or_no_headers_do_not_hold() -> None:
    pacer = Pacer(limits=((10, 1.0),))
    slot, _ = pacer.reserve()
    pacer.done(slot, httpx.Headers({"X-RateLimit-Remaining": "3", "X-RateLimit-Reset": "5"}))
    slot, wait = pacer.reserve()
    assert wait == 0
    pacer.done(slot, None)
    started = time.monotonic()
    _, wait = pacer.reserve()
    assert wait == 0 and time.monotonic() - started < 0.5
