"""A minimal webhook receiver for bench/webhook_throughput.py: answers 204 to every POST and
counts them by delivery attempt id, so the bench can check no attempt was sent twice
(GET /count -> {"posts": n, "distinct_attempts": m}; DELETE /count resets)."""

import json

POSTS: list[bytes] = []


async def app(scope, receive, send):  # type: ignore[no-untyped-def]
    if scope["type"] != "http":
        return
    while True:
        message = await receive()
        if not message.get("more_body"):
            break
    if scope["path"] == "/count":
        if scope["method"] == "DELETE":
            POSTS.clear()
        body = json.dumps({"posts": len(POSTS), "distinct_attempts": len(set(POSTS))}).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json")],
            }
        )
        await send({"type": "http.response.body", "body": body})
        return
    headers = dict(scope["headers"])
    POSTS.append(headers.get(b"x-webhook-delivery-id", b""))
    await send({"type": "http.response.start", "status": 204, "headers": []})
    await send({"type": "http.response.body", "body": b""})
