"""`2XX` and `default` responses: the server answers 200 with the declared model."""

from __future__ import annotations

from harness import models, package, serve

M = models("status_ranges")


class Jobs:
    async def start_job(self, ctx: str) -> object:
        return M.Job(id="j1", state="queued")

    async def get_job(self, ctx: str, *, job_id: str) -> object:
        return M.Job(id=job_id, state="done")


def test_range_and_default_answer_200_with_the_model() -> None:
    client = serve("status_ranges", jobs=Jobs())
    started = client.post("/jobs")
    assert (started.status_code, started.json()) == (200, {"id": "j1", "state": "queued"})
    assert client.get("/jobs/j9").json() == {"id": "j9", "state": "done"}
    table = package("status_ranges").OPERATIONS
    assert (table["start_job"].success_status, table["get_job"].success_status) == (200, 200)
