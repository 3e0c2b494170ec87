"""A url-encoded form login reaches the handler with its fields."""

from __future__ import annotations

from typing import Any

from harness import models, serve

M = models("form_login")


class Auth:
    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def login(self, ctx: str, *, body: Any) -> Any:
        self.seen.append(body)
        return M.LoginResponse(
            token=f"t-{body.username}", user=body.username, remember=body.remember
        )


def test_form_fields_reach_the_handler() -> None:
    auth = Auth()
    client = serve("form_login", auth=auth)
    response = client.post(
        "/login",
        data={"username": "ada", "password": "pw", "remember": "true", "scope": ["a", "b"]},
    )
    assert response.status_code == 200, response.text
    assert response.json() == {"token": "t-ada", "user": "ada", "remember": True}
    body = auth.seen[0]
    password = body.password.get_secret_value()  # format: password: a SecretStr, never logged
    assert (body.username, password, body.remember, body.scope) == ("ada", "pw", True, ["a", "b"])


def test_defaults_and_missing_fields() -> None:
    auth = Auth()
    client = serve("form_login", auth=auth)
    assert (
        client.post("/login", data={"username": "ada", "password": "pw"}).json()["remember"]
        is False
    )
    missing = client.post("/login", data={"username": "ada"})
    assert missing.status_code == 422
    assert client.post("/login", data={"username": "", "password": "pw"}).status_code == 422
    assert len(auth.seen) == 1
