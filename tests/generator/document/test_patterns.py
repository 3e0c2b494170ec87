"""`pattern`s written for JavaScript (ECMA-262) that pydantic's regular expression engines
refuse: look-around and back-references (Rust's engine, FastAPI's), `\\p{..}` classes
(Python's), `[\\w-.]` (both). The generated code imports, mounts and checks what it can; a
pattern no engine compiles is a `pattern` warning at its node."""

from __future__ import annotations

import re
from pathlib import Path

from spec_gen.document.patterns import readable, rewritten
from spec_helpers import line_of, run_in, run_json, write


def test_ecma_spellings_are_rewritten_to_their_meaning() -> None:
    assert rewritten(r"^[\w-.]+$") == r"^[\w\-.]+$"
    assert rewritten(r"^[.-\d]$") == r"^[.\-\d]$"
    assert rewritten(r"^(?<x>a)\k<x>$") == r"^(?P<x>a)(?P=x)$"
    assert rewritten(r"^[a-z-]+(?<=s)$") == r"^[a-z-]+(?<=s)$"  # a range, a look-behind
    hyphen = readable(r"^[\w-.]+$")
    assert hyphen is not None and hyphen[1] == "rust-regex"
    assert re.search(hyphen[0], "a-b.c") and not re.search(hyphen[0], "a b")


def test_each_pattern_gets_the_engine_that_compiles_it() -> None:
    assert readable(r"^\d{3}$") == (r"^\d{3}$", "rust-regex")
    assert readable(r"^\p{L}+$") == (r"^\p{L}+$", "rust-regex")
    assert readable(r"^(?!api/).*") == (r"^(?!api/).*", "python-re")
    assert readable(r"^(\w)\1$") == (r"^(\w)\1$", "python-re")
    assert readable("[a-") is None


SPEC = r"""openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /files/{path}:
    get:
      operationId: get_file
      parameters:
        - {name: path, in: path, required: true, schema: {type: string, pattern: '^(?!api).*$'}}
        - {name: code, in: query, schema: {type: string, pattern: '^(\w)\1$'}}
        - {name: slug, in: query, schema: {type: string, pattern: '^[\w-.]+$'}}
        - {name: count, in: query, schema: {type: integer, pattern: '^\d+$', minLength: 1}}
        - {name: broken, in: query, schema: {type: string, pattern: '[a-'}}
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Thing'}
components:
  schemas:
    Thing:
      type: object
      properties:
        name: {type: string, pattern: '^(?!admin).+$'}
        letters: {type: string, pattern: '^\p{L}+$'}
        slug: {type: string, pattern: '^[\w-.]+$'}
        broken: {type: string, pattern: '(?<'}
"""

SCRIPT = r"""
import json
from fastapi import FastAPI
from fastapi.testclient import TestClient
import api_server
from api_server.models import Thing

class Impl:
    async def get_file(self, ctx, path, code=None, slug=None, count=None, broken=None):
        return Thing(name=path)

async def ctx(): return None
app = FastAPI()
app.include_router(api_server.create_api_router(context=lambda op: ctx, default=Impl()))
c = TestClient(app)
out = {}
for url in ["/files/x", "/files/api", "/files/x?code=aa", "/files/x?code=ab",
            "/files/x?slug=a-b.c", "/files/x?slug=a%20b", "/files/x?count=12", "/files/x?broken=b"]:
    r = c.get(url)
    out[url] = [r.status_code, [e["type"] for e in r.json().get("detail", [])] if r.status_code == 422 else []]
def valid(**kw):
    try:
        Thing(**kw)
        return True
    except Exception:
        return False
out["models"] = [valid(name="admin1"), valid(name="bob"), valid(slug="a-b.c"), valid(slug="a b"), valid(broken="x")]
print(json.dumps(out))
"""


def test_patterns_pydantic_refused_build_and_are_checked(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    warnings = [line for line in output.splitlines() if "[pattern]" in line]
    assert len(warnings) == 2, output
    assert warnings[0].startswith(f"openapi.yaml:{line_of(SPEC, '[a-')}:"), warnings
    assert warnings[1].startswith(f"openapi.yaml:{line_of(SPEC, '(?<')}:"), warnings
    answers = run_json(tmp_path / "out/server", SCRIPT)
    mismatch = [422, ["string_pattern_mismatch"]]
    assert answers == {
        "/files/x": [200, []],
        "/files/api": mismatch,  # look-ahead, checked by Python's engine
        "/files/x?code=aa": [200, []],
        "/files/x?code=ab": mismatch,  # back-reference
        "/files/x?slug=a-b.c": [200, []],
        "/files/x?slug=a%20b": mismatch,  # `[\w-.]`: a literal hyphen
        "/files/x?count=12": [200, []],  # string constraints on an integer: not applied
        "/files/x?broken=b": [200, []],  # no engine compiles it: not checked
        "models": [False, True, True, False, True],
    }


def test_a_pattern_over_rusts_size_limit_gets_pythons_engine(tmp_path: Path) -> None:
    text = (
        "openapi: 3.1.0\ninfo: {title: T, version: '1'}\npaths:\n  /a:\n    get:\n"
        "      operationId: get_a\n      responses:\n        '200':\n          description: ok\n"
        "          content:\n            application/json:\n              schema:\n"
        "                type: object\n                properties:\n"
        "                  xhtml: {type: string, pattern: '^.{0,262144}$'}\n"
    )
    write(tmp_path / "openapi.yaml", text)
    code, output = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--output", "out")
    assert code == 0, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert 'pattern="(?=)^.{0,262144}$"' in models
    assert 'regex_engine="python-re"' in models
