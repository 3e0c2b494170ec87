"""Generic output speaks only of what the spec has: no tier, scope or lifecycle columns and
badges for a document without those extensions, no pacing sentence without rate limits,
servers named after their URL or position, and every operationId (`find pet by id`, the
public Petstore's) a valid, unique anchor in the Markdown pages and the HTML page."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from spec_gen.docs import DocsSettings, build_site
from spec_gen.docs.markup import PAGE_IDS, op_anchors
from spec_gen.docs.model import Table
from spec_gen.ir import build_ir
from spec_gen.targets.client.facts import environments
from spec_helpers import run_in, write

ROOT = Path(__file__).resolve().parents[3]

# A Petstore-like document: no x- extension, a server without description, operationIds
# with spaces, one whose slug another operation already has, one named like a page section.
PLAIN = """\
openapi: 3.0.3
info: {title: Pets, version: '1'}
servers:
  - url: https://petstore.example.org/v2
paths:
  /pets:
    get:
      operationId: findPets
      responses:
        '200': {description: ok}
  /pets/{id}:
    get:
      operationId: find pet by id
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '200': {description: ok}
        default: {description: unexpected error}
    delete:
      operationId: find-pet-by-id
      parameters:
        - {name: id, in: path, required: true, schema: {type: integer}}
      responses:
        '204': {description: gone}
  /overview:
    get:
      operationId: overview
      responses:
        '200': {description: ok}
"""


def _anchors(text: str) -> list[str]:
    return re.findall(r'<a id="([^"]+)"></a>', text)


def test_a_document_without_extensions_gets_no_house_columns_badges_or_pacing(
    tmp_path: Path,
) -> None:
    spec = write(tmp_path / "openapi.yaml", PLAIN)
    code, out = run_in(tmp_path, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    docs = tmp_path / "out" / "docs"
    index = (docs / "README.md").read_text("utf-8")
    assert "| Method | Path | Operation |\n|---|---|---|\n" in index
    pages = {p: p.read_text("utf-8") for p in docs.rglob("*.md")}
    html = (docs / "index.html").read_text("utf-8")
    body = re.sub(r"<style>.*?</style>", "", html, flags=re.DOTALL)  # CSS names every badge
    for text in [*pages.values(), body]:
        assert "lifecycle" not in text.lower() and "Tier" not in text and "Scope" not in text
    # every Markdown link leads to a file and an anchor it has; anchors are unique per page
    for page, text in pages.items():
        assert len(_anchors(text)) == len(set(_anchors(text))), page
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            assert not target.startswith("op:"), (page.name, target)
            if target.startswith(("http://", "https://")):
                continue
            path, _, anchor = target.partition("#")
            linked = (page.parent / path).resolve() if path else page
            assert linked.is_file(), (page.name, target)
            if anchor:
                assert anchor in _anchors(linked.read_text("utf-8")), (page.name, target)
    # the HTML page: ids unique, no space in one, every fragment link resolves
    ids = re.findall(r'\sid="([^"]+)"', html)
    assert len(ids) == len(set(ids)) and not [i for i in ids if " " in i]
    for target in re.findall(r'href="#([^"]*)"', html):
        assert target in ids, target
    assert {"find-pet-by-id", "find-pet-by-id-2", "op-overview"} <= set(ids)
    assert 'href="#find-pet-by-id"' in html
    # the client README: no pacing sentence without limits; the server named from its host
    readme = (tmp_path / "out" / "client" / "README.md").read_text("utf-8")
    assert "pacing" not in readme and "stay under" not in readme
    assert "picks a server of the spec (petstore)" in readme
    guide = (docs / "guides" / "environments.md").read_text("utf-8")
    assert '`Client(environment="petstore")`' in guide and "| `petstore` |" in guide


def test_an_operation_id_that_is_no_identifier_is_a_warning(tmp_path: Path) -> None:
    spec = write(tmp_path / "openapi.yaml", PLAIN)
    code, out = run_in(tmp_path, "validate", str(spec))
    assert code == 0, out
    found = [line for line in out.splitlines() if "[operation-id-name]" in line]
    assert len(found) == 1 and "'find pet by id'" in found[0] and "warning" in found[0], out
    assert "find_pet_by_id" in found[0] and "openapi.yaml:13:" in found[0]


def _api(extensions: dict[str, Any], **root: Any) -> Any:
    op = {"responses": {"200": {"description": "ok"}}}
    document = {
        "openapi": "3.1.0",
        "info": {"title": "t", "version": "1"},
        "paths": {
            "/a": {"get": {**op, "operationId": "get_a", **extensions}},
            "/b": {"get": {**op, "operationId": "get_b"}},
        },
        **root,
    }
    return build_ir(document)


def _overview_columns(api: Any) -> tuple[str, ...]:
    site = build_site(api, DocsSettings(client_package="t_client", env_prefix="T_"))
    tables = [b for b in site.overview if isinstance(b, Table)]
    return tables[-1].columns


def test_columns_and_badges_follow_the_extensions_the_spec_carries() -> None:
    assert _overview_columns(_api({})) == ("Method", "Path", "Operation")
    api = _api({"x-tier": "read", "x-lifecycle": "preview"})
    assert _overview_columns(api) == ("Method", "Path", "Operation", "Tier", "Lifecycle")
    site = build_site(api, DocsSettings(client_package="t_client", env_prefix="T_"))
    badges = {doc.op.operation_id: [b.text for b in doc.badges] for doc in site.operations}
    # the spec speaks of lifecycles: the operation that says none is `active`
    assert badges["get_a"][:2] == ["tier: read", "lifecycle: preview"]
    assert badges["get_b"][0] == "lifecycle: active"
    scoped = _api({"x-scope": "pets:read"})
    assert _overview_columns(scoped) == ("Method", "Path", "Operation", "Scope")


def test_servers_are_named_by_extension_description_host_or_position() -> None:
    servers = [
        {"url": "https://api.acme.example/v1", "x-environment": "production"},
        {"url": "https://sandbox.acme.example/v1", "description": "Sandbox"},
        {"url": "https://api.acme.example/v2"},
        {"url": "http://localhost:8080"},
        {"url": "/relative"},
        {"url": "https://{region}.pets.example", "variables": {"region": {"default": "eu"}}},
        {"url": "https://sandbox.acme.example/v2"},
        {"url": "https://books.example.com", "description": "The Books API serves every book."},
    ]
    envs = environments(_api({}, servers=servers))
    assert list(envs) == [
        "production",
        "sandbox",
        "acme",
        "local",
        "server4",
        "eu",
        "sandbox_6",
        "books",  # a description that is a sentence names nothing
    ]
    assert envs["eu"] == "https://eu.pets.example"


def test_anchors_are_valid_unique_and_keep_plain_operation_ids() -> None:
    ids = ["list_things", "find pet by id", "find-pet-by-id", "search", "2fa code", "tag-x", "é"]
    op = {"responses": {"200": {"description": "ok"}}}
    paths = {f"/p{i}": {"get": {**op, "operationId": op_id}} for i, op_id in enumerate(ids)}
    api = build_ir({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": paths})
    anchors = op_anchors(api)
    by_id = {op.operation_id: anchors[op.operation_id] for op in api.operations}
    assert by_id["list_things"] == "list_things" and by_id["find-pet-by-id"] == "find-pet-by-id"
    assert by_id["find pet by id"] == "find-pet-by-id-2"
    assert by_id["search"] == "op-search" and by_id["2fa code"] == "op-2fa-code"
    assert by_id["tag-x"] == "op-tag-x"
    values = list(anchors.values())
    assert len(values) == len(set(values)) and not set(values) & PAGE_IDS
    assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9_.-]*", a) for a in values), values


def test_this_repository_keeps_its_columns_and_pacing_numbers() -> None:
    index = (ROOT / "generated" / "docs" / "README.md").read_text("utf-8")
    assert "| Method | Path | Operation | Tier | Scope | Lifecycle |" in index
    readme = (ROOT / "generated" / "client" / "README.md").read_text("utf-8")
    assert (
        "`pacing=True`\n  to stay under 10 requests per second and 200 requests per minute"
        in readme
    )


def _authentication(extensions: dict[str, Any]) -> Any:
    schemes = {"securitySchemes": {"key": {"type": "apiKey", "in": "header", "name": "X-Key"}}}
    api = _api(extensions, components=schemes, security=[{"key": []}])
    site = build_site(api, DocsSettings(client_package="t_client", env_prefix="T_"))
    return next(g for g in site.guides if g.slug == "authentication")


def test_the_authentication_guide_names_only_what_it_holds() -> None:
    plain = _authentication({})
    assert plain.summary == "Security schemes."
    assert not [b for b in plain.blocks if "Tier" in getattr(b, "text", "")]
    tiered = _authentication({"x-tier": "read"})
    assert tiered.summary == "Security schemes and tiers."
    headings = [b.text for b in tiered.blocks if type(b).__name__ == "Heading"]
    assert "Tiers" in headings and "Tiers and scopes" not in headings
    own = (ROOT / "generated" / "docs" / "README.md").read_text("utf-8")
    assert "| Security schemes, key format, headers, tiers and scopes. |" in own
