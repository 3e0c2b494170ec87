"""Hostile inputs for tests/contract/test_hostile_input.py: each names the operation(s) it hits.

A case is one raw HTTP request (method, path, headers, body bytes) and the statuses that are
a correct, declared refusal. Bodies are built as bytes, so lone surrogates, NUL characters and
malformed JSON reach the server exactly as an attacker would send them.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

MiB = 1024 * 1024


@dataclass(frozen=True)
class Case:
    name: str
    method: str
    path: str
    body: bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    expect: tuple[int, ...] = (422,)
    auth: bool = True
    mode: str = "live"  # whose key: the demo's live key or its test-mode key
    # send only the head and this many body bytes, announcing `announce` bytes (huge uploads)
    announce: int | None = None


def js(value: object) -> bytes:
    """JSON text with non-ASCII escaped: `"\\ud800"` stays a lone-surrogate escape."""
    return json.dumps(value).encode()


def nested(depth: int) -> dict[str, object]:
    node: dict[str, object] = {"filterType": "text", "type": "contains", "filter": "a"}
    for _ in range(depth):
        node = {"filterType": "text", "operator": "AND", "conditions": [node]}
    return node


def wide_filter(columns: list[str], conditions: int) -> dict[str, object]:
    one = {"filterType": "text", "type": "contains", "filter": "x"}
    return {
        c: {"filterType": "text", "operator": "OR", "conditions": [one] * conditions}
        for c in columns
    }


def big_nested_filter() -> dict[str, object]:
    """The issue's 3 MB filter: 20 x 50 x 50 nested conditions."""
    leaf = {"filterType": "text", "type": "contains", "filter": "abc"}
    mid = {"filterType": "text", "operator": "OR", "conditions": [leaf] * 50}
    top = {"filterType": "text", "operator": "OR", "conditions": [mid] * 50}
    return {"email": {"filterType": "text", "operator": "AND", "conditions": [top] * 20}}


SURROGATE = '"a\\ud800b"'
NUL = '"a\\u0000b"'


def with_string(template: str, raw_json_string: str) -> bytes:
    return template.replace("STR", raw_json_string).encode()


# (operation path, body template with STR for a string field): every body with a string field
STRING_FIELDS: list[tuple[str, str, str]] = [
    ("POST", "/api/v1/lists", '{"name": STR, "type": "contacts"}'),
    ("POST", "/v1/api-keys", '{"name": STR, "mode": "test"}'),
    ("POST", "/api/v1/contacts", '{"list_id": LIST, "email": STR}'),
    ("POST", "/api/v1/contacts/fetch", '{"list_id": LIST, "columns": [STR]}'),
    (
        "POST",
        "/api/v1/contacts/fetch",
        '{"list_id": LIST, "filter_model": {"email": {"filterType": "text", "type": "contains", "filter": STR}}}',
    ),
    ("POST", "/api/v1/contacts/profile-pictures", '{"linkedin_urls": [STR]}'),
    ("POST", "/api/v1/contacts/assign-owner", '{"contact_ids": [1], "owner_id": STR}'),
    ("POST", "/api/v1/contacts/bulk-update", '[{"id": 1, "first_name": STR}]'),
    (
        "POST",
        "/api/v1/contacts/withdraw-from-sequences",
        '{"contact_ids": [1], "sequence_id": STR}',
    ),
    ("POST", "/api/v1/contacts/1/suppress", '{"reason": STR}'),
    ("POST", "/api/v1/enrichment/verify-email", '{"email": STR}'),
    ("POST", "/api/v1/webhooks", '{"url": STR, "events": ["campaign.created"]}'),
    (
        "POST",
        "/api/v1/webhooks",
        '{"url": "https://example.com/h", "events": ["campaign.created"], "name": STR}',
    ),
    ("POST", "/api/v1/service-token", '{"client_id": STR, "client_secret": "x"}'),
]


def per_operation() -> list[Case]:
    """Inputs every operation gets, walked from the generated operation table (a new operation
    is covered without anyone adding it here): an undeclared method (405), and for every
    operation with a body a 50 MB announced body without a key (413 before authentication),
    a lone surrogate and a NUL (422)."""
    from outreach_api.operations import OPERATIONS

    out: list[Case] = []
    for op in sorted(OPERATIONS.values(), key=lambda o: o.operation_id):
        path = re.sub(r"\{[^}]+\}", "1", op.path)
        out.append(Case(f"{op.operation_id}: TRACE", "TRACE", path, expect=(405,)))
        if op.method not in ("POST", "PUT", "PATCH"):
            continue
        out.append(
            Case(
                f"{op.operation_id}: 50 MB, no key",
                op.method,
                path,
                b"{" * 1024,
                expect=(413,),
                auth=False,
                announce=50 * MiB,
            )
        )
        for label, raw in (("lone surrogate", SURROGATE), ("NUL", NUL)):
            out.append(
                Case(
                    f"{op.operation_id}: {label}",
                    op.method,
                    path,
                    with_string('{"name": STR, "x": [STR]}', raw),
                )
            )
    return out


def cases(list_id: int) -> list[Case]:
    out: list[Case] = per_operation()
    add = out.append
    # -- integer overflow ------------------------------------------------------------------
    add(
        Case(
            "offset past int64",
            "GET",
            "/api/v1/contacts/suppressions?offset=1929868103733609429467136",
        )
    )
    add(Case("page past int64", "GET", "/api/v1/webhooks/wh_x/deliveries?page=9223372036854775807"))
    add(Case("contacts page past int64", "GET", "/api/v1/contacts?page=99999999999999999999999"))
    add(Case("contact id past int64", "GET", "/api/v1/contacts/99999999999999999999999"))
    add(
        Case(
            "bulk-add id past int64",
            "POST",
            "/api/v1/contacts/suppressions/bulk-add",
            b'{"contact_ids": [99999999999999999999999]}',
            expect=(404, 422),  # an id no contact has: "Contact not found"
        )
    )
    # -- sizes -------------------------------------------------------------------------------
    add(
        Case(
            "3 MB nested filter (20x50x50)",
            "POST",
            "/api/v1/contacts/fetch",
            js({"list_id": list_id, "filter_model": big_nested_filter()}),
            expect=(413, 422),
        )
    )
    add(
        Case(
            "8 columns x 2,500 conditions",
            "POST",
            "/api/v1/contacts/fetch",
            js(
                {
                    "list_id": list_id,
                    "filter_model": wide_filter(
                        [
                            "email",
                            "first_name",
                            "last_name",
                            "company",
                            "title",
                            "city",
                            "country",
                            "phone",
                        ],
                        2500,
                    ),
                }
            ),
            expect=(413, 422),
        )
    )
    add(
        Case(
            "1,200 OR'ed terms",
            "POST",
            "/api/v1/contacts/fetch",
            js({"list_id": list_id, "filter_model": wide_filter(["email"], 1200)}),
        )
    )
    add(
        Case(
            "250,000 set values",
            "POST",
            "/api/v1/contacts/fetch",
            js(
                {
                    "list_id": list_id,
                    "filter_model": {"email": {"filterType": "set", "values": ["a"] * 250_000}},
                }
            ),
            expect=(413, 422),
        )
    )
    add(
        Case(
            "40,000 set values in 40 columns",
            "POST",
            "/api/v1/contacts/fetch",
            js(
                {
                    "list_id": list_id,
                    "filter_model": {
                        f"c{i}": {"filterType": "set", "values": ["a"] * 1000} for i in range(40)
                    },
                }
            ),
            expect=(413, 422),
        )
    )
    add(
        Case(
            "300,000 LinkedIn URLs",
            "POST",
            "/api/v1/contacts/profile-pictures",
            js({"linkedin_urls": ["https://www.linkedin.com/in/x"] * 300_000}),
            expect=(413,),
        )
    )
    add(
        Case(
            "1,001 LinkedIn URLs",
            "POST",
            "/api/v1/contacts/profile-pictures",
            js({"linkedin_urls": ["https://www.linkedin.com/in/x"] * 1001}),
        )
    )
    add(
        Case(
            "50 MB body (announced)",
            "POST",
            "/api/v1/contacts/fetch",
            b"{" * 65536,
            expect=(413,),
            announce=50 * MiB,
        )
    )
    add(
        Case(
            "10 MB unauthenticated body (announced)",
            "POST",
            "/api/v1/service-token",
            b"{" * 65536,
            expect=(413,),
            auth=False,
            announce=10 * MiB,
        )
    )
    add(
        Case(
            "1 MB bulk-add of bad ids",
            "POST",
            "/api/v1/contacts/suppressions/bulk-add",
            ('{"contact_ids": [' + ",".join(['"x"'] * 200_000) + "]}").encode(),
            expect=(413, 422),
        )
    )
    add(
        Case(
            "64 KB Authorization header",
            "GET",
            "/api/v1/contacts",
            headers={"Authorization": "Bearer " + "a" * 65536},
            expect=(431,),
            auth=False,
        )
    )
    add(
        Case(
            "10,000 unknown ids (the most one bulk-add takes)",
            "POST",
            "/api/v1/contacts/suppressions/bulk-add",
            js({"contact_ids": list(range(10**9, 10**9 + 10_000))}),
            expect=(404,),
        )
    )
    add(
        Case(
            "10,001 ids",
            "POST",
            "/api/v1/contacts/suppressions/reinstate",
            js({"contact_ids": list(range(1, 10_002))}),
        )
    )
    # -- type confusion ----------------------------------------------------------------------
    for bad in ([], {}, ["contains"], {"a": 1}, 7, None):
        add(
            Case(
                f"filter type {json.dumps(bad)}",
                "POST",
                "/api/v1/contacts/fetch",
                js(
                    {
                        "list_id": list_id,
                        "filter_model": {
                            "email": {"filterType": "text", "type": bad, "filter": "a"}
                        },
                    }
                ),
            )
        )
        add(
            Case(
                f"filterType {json.dumps(bad)}",
                "POST",
                "/api/v1/contacts/fetch",
                js(
                    {
                        "list_id": list_id,
                        "filter_model": {
                            "email": {"filterType": bad, "type": "contains", "filter": "a"}
                        },
                    }
                ),
            )
        )
        add(
            Case(
                f"operator {json.dumps(bad)}",
                "POST",
                "/api/v1/contacts/fetch",
                js(
                    {
                        "list_id": list_id,
                        "filter_model": {
                            "email": {
                                "operator": bad,
                                "conditions": [{"type": "contains", "filter": "a"}],
                            }
                        },
                    }
                ),
            )
        )
        add(
            Case(
                f"sort colId {json.dumps(bad)}",
                "POST",
                "/api/v1/contacts/fetch",
                js({"list_id": list_id, "sort_model": [{"colId": bad, "sort": "asc"}]}),
            )
        )
        add(
            Case(
                f"sort direction {json.dumps(bad)}",
                "POST",
                "/api/v1/contacts/fetch",
                js({"list_id": list_id, "sort_model": [{"colId": "email", "sort": bad}]}),
            )
        )
    add(
        Case(
            "filter column as list",
            "POST",
            "/api/v1/contacts/fetch",
            js({"list_id": list_id, "filter_model": [1, 2]}),
        )
    )
    add(Case("name as list", "POST", "/api/v1/lists", js({"name": ["a"], "type": "contacts"})))
    add(Case("name as object", "POST", "/v1/api-keys", js({"name": {"a": 1}})))
    add(
        Case(
            "ids as strings",
            "POST",
            "/api/v1/contacts/suppressions/reinstate",
            js({"contact_ids": "1,2"}),
        )
    )
    add(Case("body is a list", "POST", "/api/v1/webhooks", js([1, 2, 3])))
    add(Case("body is a string", "POST", "/api/v1/contacts/fetch", js("x")))
    add(Case("body not JSON", "POST", "/api/v1/lists", b"{'name':", expect=(400, 422)))
    add(
        Case(
            "body not UTF-8",
            "POST",
            "/api/v1/lists",
            b'{"name": "\xff\xfe", "type": "contacts"}',
            expect=(400, 422),
        )
    )
    # -- recursion ---------------------------------------------------------------------------
    add(
        Case(
            "400-deep body filter",
            "POST",
            "/api/v1/contacts/fetch",
            js({"list_id": list_id, "filter_model": {"email": nested(400)}}),
        )
    )
    add(Case("5,000 [ in a body", "POST", "/api/v1/contacts/fetch", b"[" * 5000, expect=(400, 422)))
    add(
        Case(
            "5,000 [ in filterModel",
            "POST",
            f"/api/v1/contacts/unlock-info?filterModel={'[' * 5000}",
            js({"list_id": list_id, "all_matching": True}),
        )
    )
    add(
        Case(
            "400-deep filterModel query",
            "POST",
            "/api/v1/contacts/verify-email?list_id=1&filterModel="
            + json.dumps({"email": nested(400)}).replace(" ", ""),
            js({"contact_ids": [1]}),
            expect=(413, 414, 422, 431),
        )
    )
    # -- headers -----------------------------------------------------------------------------
    # issue 30 hole 8: digits of other scripts (int() reads "١", "１", "𝟙" and "१" as 1)
    for raw in ("²", "١", "１", "𝟙", "१", "1" * 40, "-1", "+1", "0x1", "1e3", "1_0", "1 1"):
        add(
            Case(
                f"X-Target-Org-Id {raw!r}",
                "GET",
                "/api/v1/contacts",
                headers={"X-Target-Org-Id": raw},
                expect=(403, 422),
            )
        )
    # -- strings: lone surrogates and NUL in every string field --------------------------------
    for method, path, template in STRING_FIELDS:
        template = template.replace("LIST", str(list_id))
        for label, raw in (("lone surrogate", SURROGATE), ("NUL", NUL)):
            add(
                Case(
                    f"{label} in {path} {template[:40]}",
                    method,
                    path,
                    with_string(template, raw),
                    auth=("service-token" not in path),
                )
            )
    add(
        Case(
            "verify-email a@\\udcff.com",
            "POST",
            "/api/v1/enrichment/verify-email",
            b'{"email": "a@\\udcff.com"}',
        )
    )
    add(
        Case(
            "NUL in query",
            "GET",
            "/api/v1/contacts/custom-column-definitions?entity_type=contact%00",
            expect=(400, 422),
        )
    )
    add(
        Case(
            "name of 100,000 characters",
            "POST",
            "/api/v1/lists",
            js({"name": "n" * 100_000, "type": "contacts"}),
        )
    )
    add(
        Case(
            "key name of 201 characters",
            "POST",
            "/v1/api-keys",
            js({"name": "n" * 201, "mode": "test"}),
        )
    )
    add(
        Case(
            "contact first_name of 100,000 characters",
            "POST",
            "/api/v1/contacts",
            js({"list_id": list_id, "email": "long@example.com", "first_name": "n" * 100_000}),
            expect=(400, 422),
        )
    )
    add(
        Case(
            "bulk-update last_name of 100,000 characters",
            "POST",
            "/api/v1/contacts/bulk-update",
            js([{"id": 1, "last_name": "n" * 100_000}]),
            expect=(200, 400, 422),  # 200: refused per contact in the body, nothing written
        )
    )
    add(
        Case(
            "webhook name of 201 characters",
            "POST",
            "/api/v1/webhooks",
            js(
                {
                    "url": "https://93.184.216.34/h",
                    "events": ["campaign.created"],
                    "name": "n" * 201,
                }
            ),
        )
    )
    # -- methods -----------------------------------------------------------------------------
    add(Case("OPTIONS", "OPTIONS", "/api/v1/contacts", expect=(405,)))
    add(Case("TRACE", "TRACE", "/api/v1/lists", expect=(405,)))
    add(Case("PROPFIND", "PROPFIND", "/v1/api-keys", expect=(405,)))
    # -- webhook targets ---------------------------------------------------------------------
    for url in (
        "https://[2002:7f00:1::1]/",
        "https://[2002:a9fe:a9fe::1]/",
        "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
        "https://[64:ff9b::7f00:1]/",
        "https://[::ffff:127.0.0.1]/",
        "https://192.0.0.8/",
        "https://198.18.0.1/",
        "https://240.0.0.1/",
        "https://0.0.0.0/",
        "https://127.1/",
        "https://2130706433/",
        "https://example.com:22/",
        "https://example.com:6379/",
        "https://example.com:0/",
        "https://example.com/h#frag",
        "https://example.com/a\r\nX-Injected: 1",
        "https://user:pw@example.com/",
        "http://example.com/",
        "ftp://example.com/",
    ):
        add(
            Case(
                f"webhook target {url!r}",
                "POST",
                "/api/v1/webhooks",
                js({"url": url, "events": ["campaign.created"]}),
                expect=(400, 422),
            )
        )
    # -- webhook authority (issue 30, hole 4): a test-mode key takes no event stream --------
    for method, path, body in (
        (
            "POST",
            "/api/v1/webhooks",
            {"url": "https://example.com/x", "events": ["person.enriched"]},
        ),
        ("PATCH", "/api/v1/webhooks/wh_x", {"url": "https://example.com/x"}),
        ("PATCH", "/api/v1/webhooks/wh_x", {"is_active": True}),
        ("DELETE", "/api/v1/webhooks/wh_x", None),
        ("GET", "/api/v1/webhooks", None),
    ):
        add(
            Case(
                f"test-mode key: {method} {path} {body}",
                method,
                path,
                None if body is None else js(body),
                expect=(403,),
                mode="test",
            )
        )
    return out
