"""The baseline of bench/serve_throughput.py: a bare FastAPI route returning the same JSON
envelope through a response_model, with no authentication, limiter or database."""

from fastapi import FastAPI
from outreach_api.models import ApiKey, ApiKeyList, ApiKeyListResponse, ApiKeyMode, Tier

app = FastAPI()
KEY = ApiKey(
    api_key_id="key_0123456789abcdef01234567",
    name="bench",
    mode=ApiKeyMode.LIVE,
    is_agency=False,
    created_at=1_700_000_000,
    last_used_at=1_700_000_000,
    tier=Tier.BILLABLE,
    scopes=["contacts:read", "contacts:write", "enrichment:run"],
)


@app.get("/v1/api-keys", response_model=ApiKeyListResponse)
async def list_api_keys() -> ApiKeyListResponse:
    return ApiKeyListResponse(data=ApiKeyList(keys=[KEY], total=1))
