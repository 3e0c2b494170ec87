"""One organisation's keys are bounded, and so is what one listing builds (issue 30, hole 3),
on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from typing import Any

from outreach_server.keys import MAX_KEYS_PER_ORG, MAX_LISTED_KEYS, TooManyKeys
from service_support import Api, bearer

KEYS = "/v1/api-keys"


def make_keys(api: Api, org: int, count: int, **extra: Any) -> list[str]:
    """`count` keys made directly in the store (no cap), their ids."""

    async def go() -> list[str]:
        made = []
        for i in range(count):
            record, _ = await api.services.keys.create(
                org_id=org, name=f"k{i}", mode="live", tier="read", scopes=(), **extra
            )
            made.append(record.id)
        return made

    return list(api.call(go))


def test_keys_minting_keys_stop_at_the_cap(api: Api) -> None:
    """The reproduction: every key could mint more, without end."""
    org, other = api.org("mine"), api.org("other")
    token = api.key(org, tier="write")
    make_keys(api, org, MAX_KEYS_PER_ORG - 2)  # with `token`: one place left
    created = api.client.post(KEYS, json={"name": "last"}, headers=bearer(token))
    assert created.status_code == 201, created.text
    child = created.json()["data"]["api_key_token"]
    for minter in (token, child):  # a new key mints no more than its parent could
        refused = api.client.post(KEYS, json={"name": "one more"}, headers=bearer(minter))
        assert refused.status_code == 403, refused.text
        assert f"at most {MAX_KEYS_PER_ORG} unrevoked keys" in refused.json()["detail"]
    other_token = api.key(other, tier="write")  # the cap is per organisation
    assert api.client.post(KEYS, json={"name": "x"}, headers=bearer(other_token)).status_code == 201


def test_revoked_keys_free_their_place(api: Api) -> None:
    org = api.org()
    token = api.key(org, tier="write")
    spare = make_keys(api, org, MAX_KEYS_PER_ORG - 1)
    assert api.client.post(KEYS, json={"name": "x"}, headers=bearer(token)).status_code == 403
    assert api.call(api.services.keys.revoke, spare[0])
    assert api.client.post(KEYS, json={"name": "x"}, headers=bearer(token)).status_code == 201


def test_concurrent_creations_cannot_pass_the_cap_together(api: Api) -> None:
    org = api.org()
    make_keys(api, org, MAX_KEYS_PER_ORG - 5)

    async def many() -> list[Any]:
        keys = api.services.keys
        attempts = [
            keys.create(
                org_id=org, name="c", mode="live", tier="read", scopes=(), cap=MAX_KEYS_PER_ORG
            )
            for _ in range(20)
        ]
        return await asyncio.gather(*attempts, return_exceptions=True)

    outcomes = api.call(many)
    assert sum(isinstance(o, TooManyKeys) for o in outcomes) == 15
    assert len(api.call(api.services.keys.list_for_org, org)) == MAX_KEYS_PER_ORG


def test_the_listing_is_bounded_and_shows_every_usable_key_first(api: Api) -> None:
    """The reproduction: a listing of every key, however many, built on the event loop."""
    org = api.org()
    revoked = make_keys(api, org, MAX_LISTED_KEYS + 30)
    for key_id in revoked:
        api.call(api.services.keys.revoke, key_id)
    token = api.key(org, tier="read")
    usable = make_keys(api, org, 5)
    listing = api.client.get(KEYS, headers=bearer(token))
    assert listing.status_code == 200, listing.text
    data = listing.json()["data"]
    assert len(data["keys"]) == MAX_LISTED_KEYS
    assert data["total"] == MAX_LISTED_KEYS + 30 + 6  # the real count
    listed = [key["api_key_id"] for key in data["keys"]]
    assert set(usable) <= set(listed[:6])  # the usable keys lead, made after the revoked ones
