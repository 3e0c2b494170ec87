"""The spec says what the source document says (sections 2-9), checked on the bundled document."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from spec_gen.build.pipeline import load_and_validate
from spec_gen.core.config import load_config
from spec_gen.ir import Api, Operation, build_ir

ROOT = Path(__file__).resolve().parents[2]
EVENTS = [
    "campaign.created", "campaign.updated", "campaign.deleted", "campaign.launched",
    "campaign.status_changed", "document.created", "document.updated", "document.generated",
    "intelligence.completed", "research.completed", "company.enriched", "person.enriched",
    "company_intelligence.completed",
]  # fmt: skip
SECTION_4 = {
    ("get", "/contacts/{contact_id}/suppression"), ("get", "/contacts/suppressions"),
    ("post", "/contacts/{contact_id}/suppress"), ("post", "/contacts/{contact_id}/unsuppress"),
    ("post", "/contacts/suppressions/bulk-add"), ("post", "/contacts/suppressions/reinstate"),
    ("get", "/contacts/column-definitions"), ("get", "/contacts/custom-column-definitions"),
    ("get", "/contacts/searchable-fields"), ("get", "/contacts/base-columns"),
    ("get", "/contacts/column-names"), ("get", "/contacts/form-fields"),
    ("get", "/contacts/dashboard-stats"), ("get", "/contacts/columns"),
    ("post", "/contacts/fetch"), ("post", "/contacts/profile-pictures"),
    ("post", "/contacts/column-values"), ("post", "/contacts/bulk-update"),
    ("post", "/contacts/assign-owner"), ("post", "/contacts/merge-filtered"),
    ("post", "/contacts/withdraw-from-sequences"), ("post", "/contacts/verify-email"),
    ("post", "/contacts/verify-email/async"), ("post", "/contacts/unlock-info"),
    ("post", "/enrichment/verify-email"), ("get", "/enrichment/waterfall/configs"),
    ("get", "/forms/{form_key}/overview"),
    ("delete", "/feedback/surveys/{survey_id}/triggers/{trigger_id}"),
    ("post", "/signatures/mailboxes/{mailbox_id}/push"),
    ("get", "/webhooks/events"), ("get", "/webhooks"), ("post", "/webhooks"),
    ("get", "/webhooks/{webhook_id}"), ("patch", "/webhooks/{webhook_id}"),
    ("delete", "/webhooks/{webhook_id}"), ("get", "/webhooks/{webhook_id}/deliveries"),
    ("post", "/api-keys"), ("get", "/api-keys"),
    ("post", "/app-sessions/exchange"), ("post", "/service-token"),
    ("get", "/app-platform/.well-known/jwks.json"),
}  # fmt: skip
PROVISIONAL_OPERATIONS = {
    ("post", "/contacts"), ("get", "/contacts"), ("get", "/contacts/{contact_id}"),
    ("post", "/lists"), ("get", "/lists"),
}  # fmt: skip


@pytest.fixture(scope="module")
def api() -> Api:
    return build_ir(load_and_validate(load_config(ROOT)).document)


def by_route(api: Api) -> dict[tuple[str, str], Operation]:
    return {(op.method, op.path): op for op in api.operations}


def schema(api: Api, name: str) -> dict[str, Any]:
    return api.schemas[name]


def test_every_operation_of_section_4_and_the_named_provisional_ones(api: Api) -> None:
    assert len(SECTION_4) == 41
    assert set(by_route(api)) == SECTION_4 | PROVISIONAL_OPERATIONS
    for route in PROVISIONAL_OPERATIONS:
        assert by_route(api)[route].provisional, route


def test_api_key_paths_under_v1_and_the_rest_under_api_v1(api: Api) -> None:
    for op in api.operations:
        expected = "/v1" if op.path == "/api-keys" else "/api/v1"
        assert op.prefix == expected, op.operation_id
    assert [s.description for s in api.servers] == ["Production", "QA"]
    assert all(s.variables for s in api.servers)


def test_status_codes_follow_section_7(api: Api) -> None:
    routes = by_route(api)

    def success(method: str, path: str) -> str:
        return routes[(method, path)].success.status

    for created in [
        ("post", "/webhooks"),
        ("post", "/api-keys"),
        ("post", "/contacts"),
        ("post", "/lists"),
    ]:
        assert success(*created) == "201", created
    assert success("post", "/contacts/verify-email/async") == "202"
    assert success("delete", "/webhooks/{webhook_id}") == "204"
    assert routes[("delete", "/webhooks/{webhook_id}")].success.model is None
    assert success("delete", "/feedback/surveys/{survey_id}/triggers/{trigger_id}") == "200"
    for conflict in [
        ("post", "/signatures/mailboxes/{mailbox_id}/push"),
        ("post", "/contacts/merge-filtered"),
    ]:
        assert "409" in {r.status for r in routes[conflict].responses}, conflict
    for bad_request in [
        ("post", "/contacts"),
        ("post", "/lists"),
        ("patch", "/webhooks/{webhook_id}"),
    ]:
        assert "400" in {r.status for r in routes[bad_request].responses}, bad_request


def test_key_authenticated_operations_document_401_403_422_429(api: Api) -> None:
    keyed = [op for op in api.operations if any("ApiKey" in alt for alt in op.security)]
    assert len(keyed) == 43
    for op in keyed:
        statuses = {r.status for r in op.responses}
        assert {"401", "403", "422", "429"} <= statuses, op.operation_id
        too_many = next(r for r in op.responses if r.status == "429")
        assert {h.name for h in too_many.headers} == {
            "Retry-After", "X-RateLimit-Limit-Minute", "X-RateLimit-Limit-Second",
        }  # fmt: skip
        assert "X-Target-Org-Id" in {p.name for p in op.context_params}, op.operation_id


def test_security_of_the_token_operations(api: Api) -> None:
    routes = by_route(api)
    assert routes[("post", "/service-token")].security == ()
    assert routes[("get", "/app-platform/.well-known/jwks.json")].security == ()
    exchange = routes[("post", "/app-sessions/exchange")]
    assert exchange.security == (("IdentityProviderPrincipal",),)
    assert "X-Org-Id" in {p.name for p in exchange.params}
    assert {"401", "403", "404", "429"} <= {r.status for r in exchange.responses}


def test_preview_operations_are_gated(api: Api) -> None:
    preview = [op for op in api.operations if op.lifecycle == "preview"]
    assert {op.path for op in preview} == {
        "/app-sessions/exchange", "/service-token", "/app-platform/.well-known/jwks.json",
    }  # fmt: skip
    for op in preview:
        assert op.feature_flag == "M6_APP_TOKENS_ENABLED"
        gated = op.path != "/app-platform/.well-known/jwks.json"  # names no organisation
        assert ("404" in {r.status for r in op.responses}) == gated, op.path


def test_extensions_on_every_operation(api: Api) -> None:
    seen = {"contacts:read", "contacts:write", "enrichment:run"}  # "Scopes seen" in the source
    provisional = {"webhooks:manage"}  # spec/DECISIONS.md row 130
    for op in api.operations:
        assert op.tier in ("read", "write", "billable"), op.operation_id
        assert op.scope is None or op.scope in seen | provisional
        assert op.scope not in provisional or op.provisional, op.operation_id
        assert op.pagination in ("page", "offset", "none")
    routes = by_route(api)
    assert routes[("post", "/contacts/fetch")].tier == "read"
    assert routes[("post", "/contacts/fetch")].scope == "contacts:read"
    assert routes[("post", "/contacts/unlock-info")].tier == "billable"
    assert routes[("post", "/contacts/unlock-info")].scope == "enrichment:run"
    assert routes[("get", "/contacts/suppressions")].pagination == "offset"
    assert routes[("get", "/webhooks/{webhook_id}/deliveries")].pagination == "page"
    assert routes[("post", "/webhooks")].provisional  # the source gives no tier for webhooks


def test_root_numbers(api: Api) -> None:
    ext = api.extensions
    assert ext["x-rate-limit"]["per_second"] == 10 and ext["x-rate-limit"]["per_minute"] == 200
    delivery = ext["x-webhook-delivery"]
    assert (delivery["max_active_per_org"], delivery["max_attempts"]) == (10, 3)
    assert delivery["retry_delays_seconds"] == [10, 60, 300]
    assert delivery["signature_header"] == "X-Webhook-Signature"
    assert ext["x-api-key-format"]["x-provisional"] is True
    assert ext["x-limits"]["verify_email_max_contacts"] == 1000


def test_enumerations_exactly(api: Api) -> None:
    assert schema(api, "WebhookEventKind")["enum"] == EVENTS
    assert schema(api, "SuppressionChannel")["enum"] == ["all", "email", "phone", "linkedin"]
    assert schema(api, "SuppressionCategory")["enum"] == [
        "contact_initiated",
        "org_initiated",
        "system",
    ]
    assert schema(api, "ListType")["enum"] == [
        "contacts",
        "companies",
        "suppressions",
        "deals",
        "leads",
    ]
    assert schema(api, "DeliveryStatus")["enum"] == ["success", "failed", "pending"]
    assert schema(api, "ApiKeyMode")["enum"] == ["live", "test"]
    assert schema(api, "Tier")["enum"] == ["read", "write", "billable"]
    assert schema(api, "EntityType")["enum"] == ["contact", "company"]


def test_resource_fields_and_nullability(api: Api) -> None:
    webhook = schema(api, "Webhook")["properties"]
    assert set(webhook) == {"id", "name", "url", "events", "is_active", "created_at", "updated_at"}
    assert "secret" in schema(api, "WebhookWithSecret")["required"]
    delivery = schema(api, "WebhookDelivery")["properties"]
    assert set(delivery) == {
        "id", "event", "status", "attempts", "max_attempts", "response_code", "error_message",
        "created_at", "completed_at",
    }  # fmt: skip
    assert delivery["response_code"]["type"] == ["integer", "null"]
    key = schema(api, "ApiKey")["properties"]
    assert key["created_at"]["type"] == "integer"
    assert key["last_used_at"]["type"] == ["integer", "null"]
    timestamp = schema(api, "NaiveTimestamp")
    assert timestamp["type"] == "string" and "pattern" in timestamp and "format" not in timestamp


def test_business_400_inputs_are_not_rejected_first_by_the_schema(api: Api) -> None:
    """The service answers these with the document's named 400 messages, so the schema must let them in."""
    routes = by_route(api)
    create_contact = routes[("post", "/contacts")].body
    assert create_contact is not None and "list_id" not in create_contact.schema.get("required", [])
    create_list = routes[("post", "/lists")].body
    assert create_list is not None and "enum" not in create_list.schema["properties"]["type"]
    patch = routes[("patch", "/webhooks/{webhook_id}")].body
    assert (
        patch is not None
        and not patch.schema.get("required")
        and "minProperties" not in patch.schema
    )


def test_webhook_delivery_callback_is_described(api: Api) -> None:
    (callback,) = api.webhooks
    assert callback.method == "post"
    assert "X-Webhook-Signature" in {h.name for h in callback.headers}


def test_decisions_file_lists_provisional_choices() -> None:
    decisions = (ROOT / "spec" / "DECISIONS.md").read_text()
    for needle in ("x-api-key-format", "list_webhooks", "IdentityProviderPrincipal", "403"):
        assert needle in decisions, needle
