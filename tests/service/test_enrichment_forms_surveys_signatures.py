"""Waterfall configs, form overviews, survey triggers, signature pushes, and their operator
commands. Every HTTP test runs on SQLite and on PostgreSQL; the fixtures are created with the
operator commands (`outreach-server admin ...`), run in process through click's runner.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from outreach_server.core.tables import lists
from outreach_server.feedback.tables import survey_triggers
from outreach_server.signatures.tables import mailboxes, signature_deployments
from service_support import Api, bearer, one_json, outreach_cli
from sqlalchemy import func, insert, select

CONFIGS = "/api/v1/enrichment/waterfall/configs"


def admin(database_url: str, *args: str) -> dict[str, Any]:
    return one_json(outreach_cli("admin", *args, database_url=database_url))


def admin_fails(database_url: str, *args: str) -> str:
    done = outreach_cli("admin", *args, database_url=database_url)
    assert done.returncode != 0, done.stdout
    return done.stderr


def run(api: Api, statement: Any) -> Any:
    async def go() -> Any:
        async with api.services.engine.begin() as connection:
            return await connection.execute(statement)

    return api.call(go)


def add_list(api: Api, org: int, name: str = "list") -> int:
    statement = (
        insert(lists)
        .values(org_id=org, name=name, type="contacts", created_at=int(time.time()))
        .returning(lists.c.id)
    )
    return int(run(api, statement).scalar_one())


def get(api: Api, path: str, token: str, **params: Any) -> Any:
    return api.client.get(path, params=params or None, headers=bearer(token))


# -- GET /enrichment/waterfall/configs -------------------------------------------------------


def test_configs_of_a_list_and_the_global_ones_with_credential_readiness(
    api: Api, database_url: str
) -> None:
    org, other = api.org("org"), api.org("other")
    token, other_token = api.key(org, tier="read", scopes=()), api.key(other)
    list_id, second_list = add_list(api, org), add_list(api, org, "second")
    other_list = add_list(api, other)

    emails = admin(
        database_url, "create-waterfall-config", "--org-id", str(org), "--name", "Work email",
        "--column-id", "work_email", "--list-id", str(list_id), "--data-type", "email",
        "--step", "hunter:byok", "--step", "Apollo:system", "--step", "hunter:system",
        "--step", "clearbit:byok",
    )  # fmt: skip
    phones = admin(
        database_url, "create-waterfall-config", "--org-id", str(org), "--name", "Phone",
        "--column-id", "phone_number", "--global", "--step", "dropcontact:byok", "--inactive",
    )  # fmt: skip
    admin(
        database_url, "create-waterfall-config", "--org-id", str(org), "--name", "Other list",
        "--column-id", "x", "--list-id", str(second_list), "--step", "apollo:system",
    )  # fmt: skip
    admin(
        database_url, "create-waterfall-config", "--org-id", str(other), "--name", "Foreign",
        "--column-id", "y", "--global", "--step", "apollo:system",
    )  # fmt: skip
    assert emails["config_id"] != phones["config_id"]
    active = admin(database_url, "add-provider-key", "--org-id", str(org), "--provider", "Hunter")
    admin(
        database_url,
        "add-provider-key",
        "--org-id",
        str(org),
        "--provider",
        "clearbit",
        "--inactive",
    )
    admin(database_url, "add-provider-key", "--org-id", str(other), "--provider", "dropcontact")
    assert isinstance(active["provider_key_id"], int)

    response = get(api, CONFIGS, token, list_id=list_id)
    assert response.status_code == 200, response.text
    data = response.json()["data"]
    assert data["count"] == 2 and data["list_id"] == list_id
    first, second = data["configs"]
    assert first["name"] == "Work email" and first["column_id"] == "work_email"
    assert (
        first["list_id"] == list_id and first["is_global"] is False and first["is_active"] is True
    )
    assert first["data_type"] == "email" and first["field_to_enrich"] is None
    assert first["step_count"] == 4
    assert first["providers"] == ["hunter", "apollo", "clearbit"]
    assert first["missing_credentials"] == ["clearbit"]  # its key is inactive
    assert first["providers_detail"] == [
        {"provider": "hunter", "is_system_provider": False, "credential_source": "byok", "credential_ready": True},
        {"provider": "apollo", "is_system_provider": True, "credential_source": "system", "credential_ready": True},
        {"provider": "hunter", "is_system_provider": True, "credential_source": "system", "credential_ready": True},
        {"provider": "clearbit", "is_system_provider": False, "credential_source": "byok", "credential_ready": False},
    ]  # fmt: skip
    assert second["name"] == "Phone" and second["is_global"] is True and second["list_id"] is None
    assert second["is_active"] is False
    assert second["missing_credentials"] == ["dropcontact"]  # another organisation's key

    only_global = get(api, CONFIGS, token, list_id=second_list).json()["data"]
    assert [c["name"] for c in only_global["configs"]] == ["Phone", "Other list"]  # by creation
    for unknown in (other_list, 999_999, 2**40):
        refused = get(api, CONFIGS, token, list_id=unknown)
        assert (refused.status_code, refused.json()) == (404, {"detail": "List not found"})
    theirs = get(api, CONFIGS, other_token, list_id=other_list).json()["data"]
    assert [c["name"] for c in theirs["configs"]] == ["Foreign"]
    assert theirs["configs"][0]["missing_credentials"] == []
    assert get(api, CONFIGS, token).status_code == 422  # list_id is required

    bad_step = admin_fails(
        database_url, "create-waterfall-config", "--org-id", str(org), "--name", "n",
        "--column-id", "c", "--global", "--step", "hunter:maybe",
    )  # fmt: skip
    assert "provider:system or provider:byok" in bad_step
    foreign_list = admin_fails(
        database_url, "create-waterfall-config", "--org-id", str(org), "--name", "n",
        "--column-id", "c", "--list-id", str(other_list), "--step", "hunter:byok",
    )  # fmt: skip
    assert f"no list {other_list}" in foreign_list


# -- GET /forms/{form_key}/overview ----------------------------------------------------------


def test_form_overview_is_scoped_by_source_and_organisation(api: Api, database_url: str) -> None:
    org, other = api.org("org"), api.org("other")
    token, other_token = api.key(org, tier="read", scopes=()), api.key(other)
    web = admin(
        database_url, "create-form", "--org-id", str(org), "--source-id", "web",
        "--form-key", "signup", "--display-name", "Newsletter signup", "--owner-id", "u1",
        "--placement-count", "3", "--metrics", '{"submissions_7d": 12, "rate": 0.5}',
    )  # fmt: skip
    app = admin(
        database_url, "create-form", "--org-id", str(org), "--source-id", "app",
        "--form-key", "signup",
    )  # fmt: skip
    assert web["form_id"] != app["form_id"]
    stderr = admin_fails(
        database_url,
        "create-form",
        "--org-id",
        str(org),
        "--source-id",
        "web",
        "--form-key",
        "signup",
    )
    assert stderr  # the key is unique within its source

    web_view = get(api, "/api/v1/forms/signup/overview", token, source_id="web")
    assert web_view.status_code == 200, web_view.text
    data = web_view.json()["data"]
    assert data["form_key"] == "signup" and data["source_id"] == "web"
    assert data["display_name"] == "Newsletter signup" and data["owner_id"] == "u1"
    assert data["placement_count"] == 3 and data["metrics"] == {"submissions_7d": 12, "rate": 0.5}
    assert data["last_destination_verified_at"] is None and data["delivery_health"] is None
    app_view = get(api, "/api/v1/forms/signup/overview", token, source_id="app").json()["data"]
    assert app_view["source_id"] == "app" and app_view["display_name"] is None
    assert app_view["placement_count"] == 0 and app_view["metrics"] == {}

    for path, source, key in (
        ("/api/v1/forms/signup/overview", "email", token),  # no such source
        ("/api/v1/forms/missing/overview", "web", token),
        ("/api/v1/forms/signup/overview", "web", other_token),  # another organisation
    ):
        refused = get(api, path, key, source_id=source)
        assert (refused.status_code, refused.json()) == (404, {"detail": "Form not found"})
    assert get(api, "/api/v1/forms/signup/overview", token).status_code == 422


def test_form_overview_dates_are_utc(api: Api) -> None:
    from outreach_server.forms.store import create_form

    org = api.org()
    token = api.key(org)
    api.call(
        create_form,
        api.services.engine,
        org_id=org,
        source_id="s",
        form_key="#contact-form",
        last_destination_verified_at=1_700_000_000,
        delivery_health="healthy",
    )
    data = get(api, "/api/v1/forms/%23contact-form/overview", token, source_id="s").json()["data"]
    assert data["last_destination_verified_at"] in (
        "2023-11-14T22:13:20Z",
        "2023-11-14T22:13:20+00:00",
    )
    assert data["delivery_health"] == "healthy" and data["form_key"] == "#contact-form"


# -- DELETE /feedback/surveys/{survey_id}/triggers/{trigger_id} ------------------------------


def test_survey_triggers_are_deleted_within_their_survey(api: Api, database_url: str) -> None:
    org, other = api.org("org"), api.org("other")
    token, other_token = api.key(org, tier="write", scopes=()), api.key(other)
    survey = admin(database_url, "create-survey", "--org-id", str(org), "--name", "NPS")[
        "survey_id"
    ]
    second = admin(database_url, "create-survey", "--org-id", str(org))["survey_id"]
    assert str(uuid.UUID(survey)) == survey
    trigger = admin(
        database_url, "create-survey-trigger", "--org-id", str(org), "--survey-id", survey
    )
    assert trigger["survey_id"] == survey
    kept = admin(database_url, "create-survey-trigger", "--org-id", str(org), "--survey-id", second)
    assert f"no survey {survey}" in admin_fails(
        database_url, "create-survey-trigger", "--org-id", str(other), "--survey-id", survey
    )

    def delete(survey_id: str, trigger_id: str, key: str = token) -> Any:
        return api.client.delete(
            f"/api/v1/feedback/surveys/{survey_id}/triggers/{trigger_id}", headers=bearer(key)
        )

    wrong_survey = delete(survey, kept["trigger_id"])  # a trigger of another survey
    assert (wrong_survey.status_code, wrong_survey.json()) == (
        404,
        {"detail": "Survey trigger not found"},
    )
    foreign = delete(survey, trigger["trigger_id"], other_token)
    assert (foreign.status_code, foreign.json()) == (404, {"detail": "Survey not found"})
    unknown = delete(str(uuid.uuid4()), trigger["trigger_id"])
    assert unknown.status_code == 404
    malformed = delete("not-a-uuid", trigger["trigger_id"])
    assert malformed.status_code == 422
    assert malformed.json()["detail"][0]["loc"] == ["path", "survey_id"]
    assert delete(survey, "x" * 300).status_code == 404

    deleted = delete(survey.upper(), trigger["trigger_id"])
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {
        "data": {"deleted": True, "trigger_id": trigger["trigger_id"], "survey_id": survey}
    }
    again = delete(survey, trigger["trigger_id"])
    assert (again.status_code, again.json()) == (404, {"detail": "Survey trigger not found"})
    remaining = run(api, select(survey_triggers.c.id)).scalars().all()
    assert remaining == [kept["trigger_id"]]


# -- POST /signatures/mailboxes/{mailbox_id}/push --------------------------------------------


def test_signature_push_checks_the_revision_and_queues_a_deployment(
    api: Api, database_url: str
) -> None:
    org, other = api.org("org"), api.org("other")
    token, other_token = api.key(org, tier="write", scopes=()), api.key(other)
    created = admin(
        database_url, "create-mailbox", "--org-id", str(org), "--email", "ada@example.com"
    )
    mailbox, revision = created["mailbox_id"], created["revision"]
    assert revision == 1

    def push(version: int, mailbox_id: int = mailbox, key: str = token) -> Any:
        return api.client.post(
            f"/api/v1/signatures/mailboxes/{mailbox_id}/push",
            json={"version": version},
            headers=bearer(key),
        )

    stale = push(revision + 5)
    assert stale.status_code == 409
    assert "revision 1, not 6" in stale.json()["detail"]
    assert push(2**40).status_code == 409

    first = push(revision)
    assert first.status_code == 200, first.text
    assert first.json()["data"] == {
        "status": "queued",
        "message": f"Re-compile and re-install queued for mailbox {mailbox}",
        "revision": 2,
    }
    replayed = push(revision)  # the token it read is now stale
    assert replayed.status_code == 409
    assert push(2).json()["data"]["revision"] == 3

    for refused in (
        push(3, key=other_token),
        push(3, mailbox_id=999_999),
        push(3, mailbox_id=2**40),
    ):
        assert (refused.status_code, refused.json()) == (404, {"detail": "Mailbox not found"})
    assert push(3, key=other_token).status_code == 404
    assert run(api, select(mailboxes.c.revision)).scalar_one() == 3
    deployments = run(
        api, select(signature_deployments.c.revision, signature_deployments.c.status)
    ).all()
    assert sorted(tuple(d) for d in deployments) == [(2, "queued"), (3, "queued")]
    assert push("one").status_code == 422  # type: ignore[arg-type]
    count = run(api, select(func.count()).select_from(signature_deployments)).scalar_one()
    assert count == 2
