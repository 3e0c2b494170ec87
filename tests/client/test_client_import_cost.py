"""What a first call loads, in a fresh process: only its operation's model classes (not the
~120 of the spec), and httpx without its command-line extras (click, rich, pygments),
whose `httpx.main` still works when called. Speed itself is measured by
`bench/client_speed.py`, not here."""

from __future__ import annotations

import json
import subprocess
import sys

FIRST_CALL = r"""
import json, sys
from outreach_client import Client
import httpx

answer = httpx.Response(200, json={"data": {"id": 1}})
transport = httpx.MockTransport(lambda request: answer)
client = Client(api_key="k", base_url="http://h/api/v1", http_client=httpx.Client(transport=transport))
assert client.contacts.get(contact_id=1).id == 1
from pydantic import BaseModel

built, todo = [], [BaseModel]
while todo:
    for sub in todo.pop().__subclasses__():
        todo.append(sub)
        # the models' own base (`_model.BaseModel`: keeps undeclared fields) has no field
        if sub.__module__.startswith("outreach_client.") and sub.__module__ != "outreach_client._model":
            built.append(sub.__name__)
cli = [name for name in ("click", "rich", "pygments", "httpx._main") if name in sys.modules]
main_before = httpx.main.__module__
import httpx._main  # still importable: nothing left blocked in sys.modules
print(json.dumps({"built": sorted(built), "cli": cli, "main": main_before,
                  "real_main": type(httpx._main.main).__name__}))
"""


def run(script: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", script], check=False, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_first_call_builds_only_its_operations_models_and_skips_httpx_cli() -> None:
    seen = run(FIRST_CALL)
    assert seen["built"] == ["ContactRecord", "ContactResponse"]
    assert seen["cli"] == []
    assert seen["main"] == "outreach_client._http"  # imports httpx's own when called
    assert seen["real_main"] == "Command"  # click's, as if nothing had been held back


def test_every_model_is_still_reachable_from_the_models_package() -> None:
    seen = run(
        "import json, outreach_client.models as m\n"
        "names = m.__all__\n"
        "classes = [getattr(m, n) for n in names]\n"
        "print(json.dumps({'count': len(names), 'modules': sorted({c.__module__ for c in classes}),"
        " 'same': m.ContactRecord is __import__('outreach_client.models._contact_record',"
        " fromlist=['x']).ContactRecord}))"
    )
    assert isinstance(seen["count"], int) and seen["count"] > 100
    modules = seen["modules"]
    assert isinstance(modules, list) and all(
        name.startswith("outreach_client.models._") for name in modules
    )
    assert seen["same"] is True
