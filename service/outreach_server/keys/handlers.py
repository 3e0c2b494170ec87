"""The `api-keys` operations: create (token shown once, never escalating) and list."""

from __future__ import annotations

from outreach_api.constants import SCOPES
from outreach_api.models import (
    ApiKeyCreated,
    ApiKeyCreatedResponse,
    ApiKeyCreateRequest,
    ApiKeyListResponse,
    ApiKeyMode,
    Tier,
)

from ..core.errors import ApiError
from ..runtime.context import RequestContext, contact_scope
from .store import MAX_KEYS_PER_ORG, MAX_LISTED_KEYS, TIER_RANK, ApiKeyRecord, TooManyKeys

# spec/DECISIONS.md rows 116-117: a test key's keys are test keys; keys of an organisation are
# made by its own keys (an agency acting for a client makes none, so no access outlives the link)
TEST_KEYS_MINT_TEST_KEYS = "Test-mode API keys create only test-mode keys"
OWN_ORGANIZATION_ONLY = "API keys are created only by the organization's own keys"
# rows 122-123: the keys one organisation can hold, and the keys one listing shows
TOO_MANY_KEYS = (
    f"API key limit reached: an organization holds at most {MAX_KEYS_PER_ORG} unrevoked keys"
)


def _listed(record: ApiKeyRecord) -> dict[str, object]:
    """A key as the listing shows it, as data for `ApiKey` (validated by pydantic at once)."""
    return {
        "api_key_id": record.id,
        "name": record.name,
        "mode": record.mode,
        "is_agency": record.is_agency,
        "created_at": record.created_at,
        "last_used_at": record.last_used_at,
        "tier": record.tier,
        "scopes": sorted(record.scopes),
    }


def granted(
    caller: ApiKeyRecord, tier: Tier | None, scopes: list[str] | None
) -> tuple[str, frozenset[str]]:
    """The tier and scopes of a new key: at most the caller's (never an escalation)."""
    wanted_tier = tier.value if tier is not None else caller.tier
    if TIER_RANK[wanted_tier] > TIER_RANK[caller.tier]:
        raise ApiError(
            403, f"Cannot create a key with tier '{wanted_tier}' from a '{caller.tier}' key"
        )
    wanted_scopes = frozenset(scopes) if scopes is not None else caller.scopes
    unknown = sorted(wanted_scopes - set(SCOPES))
    if unknown:
        raise ApiError(400, f"Unknown scope: {', '.join(unknown)}")
    missing = sorted(wanted_scopes - caller.scopes)
    if missing:
        raise ApiError(403, f"Cannot grant scopes the calling key lacks: {', '.join(missing)}")
    return wanted_tier, wanted_scopes


class ApiKeysHandlers:
    """Organization API keys, live and test modes (served under /v1)."""

    async def list_api_keys(self, ctx: RequestContext) -> ApiKeyListResponse:
        _, org_id = ctx.require_org()
        keys = ctx.services.keys
        records = await keys.list_for_org(org_id)  # at most MAX_LISTED_KEYS (row 123)
        total = len(records)
        if total >= MAX_LISTED_KEYS:
            total = await keys.count_for_org(org_id)
        # one validation of the whole answer (modes and tiers checked against their enums)
        return ApiKeyListResponse.model_validate(
            {"data": {"keys": [_listed(record) for record in records], "total": total}}
        )

    async def create_api_key(
        self, ctx: RequestContext, *, body: ApiKeyCreateRequest
    ) -> ApiKeyCreatedResponse:
        caller, org_id = ctx.require_org()
        if caller.mode == "test" and body.mode.value != "test":
            raise ApiError(403, TEST_KEYS_MINT_TEST_KEYS)
        if caller.org_id != org_id:
            raise ApiError(403, OWN_ORGANIZATION_ONLY)
        name = body.name.strip()
        if not name:
            raise ApiError(400, "name must not be empty")
        tier, scopes = granted(caller, body.tier, body.scopes)
        narrowed_to = (await contact_scope(ctx)).list_ids  # a narrowed key's keys stay narrowed
        try:
            record, token = await ctx.services.keys.create(
                org_id=org_id,
                name=name,
                mode=body.mode.value,
                tier=tier,
                scopes=scopes,
                list_ids=narrowed_to,
                cap=MAX_KEYS_PER_ORG,
            )
        except TooManyKeys:
            raise ApiError(403, TOO_MANY_KEYS) from None
        created = ApiKeyCreated(
            api_key_id=record.id,
            api_key_token=token,
            name=record.name,
            mode=ApiKeyMode(record.mode),
            tier=Tier(record.tier),
            scopes=sorted(record.scopes),
        )
        return ApiKeyCreatedResponse(data=created)
