"""`spec-gen diff` on the command line: exit codes, formats, git revisions."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from diff_support import (
    BASE,
    DELETE_ONE,
    LIST,
    NEW_OPTIONAL_PARAM,
    OP_LIST,
    THING,
    WIDGETS,
    Q,
    both,
    drop,
    push,
    set_,
    write_specs,
)
from spec_gen.cli import main


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["diff", *args])
    return result.exit_code, result.output


def test_cli_exit_0_without_fail_on_even_when_breaking(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, drop(DELETE_ONE))
    code, out = run(str(old), str(new))
    assert code == 0, out
    assert out.startswith("## API changes: 1 breaking, 0 warnings, 0 non-breaking\n")
    assert "### Breaking (1)" in out
    assert "| `DELETE /api/v1/things/{thing_id}` | `api-removed-without-deprecation` |" in out


def test_cli_fail_on_breaking_exits_1_on_a_breaking_change(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, drop(Q))
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 1, out
    assert "`request-parameter-removed`" in out


def test_cli_fail_on_breaking_exits_0_on_warnings_and_additions(tmp_path: Path) -> None:
    before = set_((*Q, "schema", "pattern"), "^[a-z]+$")
    mutation = both(
        set_((*Q, "schema", "pattern"), "^[a-z0-9]+$"), set_(("paths", "/widgets"), WIDGETS)
    )
    old, new = write_specs(tmp_path, mutation, before)
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 0, out
    assert "### Warnings (1)" in out and "### Non-breaking (1)" in out
    code, out = run(str(old), str(new), "--fail-on", "warning")
    assert code == 1, out


def test_cli_json_format(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, both(drop(Q), push((*LIST, "parameters"), NEW_OPTIONAL_PARAM)))
    code, out = run(str(old), str(new), "--format", "json")
    assert code == 0, out
    report = json.loads(out)
    assert report["summary"] == {"breaking": 1, "warning": 0, "non-breaking": 1}
    assert [(c["level"], c["rule"], c["operation"]) for c in report["changes"]] == [
        ("breaking", "request-parameter-removed", OP_LIST),
        ("non-breaking", "new-optional-request-parameter", OP_LIST),
    ]
    assert report["changes"][0]["method"] == "GET"
    assert report["changes"][0]["path"] == "/api/v1/things"


def test_cli_no_changes(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, lambda d: None)
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 0
    assert "No changes to the API." in out


def test_cli_bad_argument_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    old, _ = write_specs(tmp_path, lambda d: None)
    code, out = run(str(old), "no-such-thing")
    assert code == 2
    assert "neither a file nor a git revision" in out


def test_cli_unloadable_spec_exits_2(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, lambda d: None)
    new.write_text("openapi: [unclosed\n")
    result = CliRunner().invoke(main, ["diff", str(old), str(new)])
    assert result.exit_code == 2
    assert "new.json:" in result.output and "invalid YAML" in result.output


def test_cli_removed_bound_reports_unset_instead_of_crashing(tmp_path: Path) -> None:
    old, new = write_specs(tmp_path, drop((*Q, "schema", "maxLength")))
    code, out = run(str(old), str(new), "--fail-on", "breaking")
    assert code == 0, out
    assert "| `GET /api/v1/things` | `request-parameter-max-length-unset` |" in out


@pytest.mark.parametrize(
    ("fail_on", "code"), [("warning", 1), ("WARN", 1), ("breaking", 0), ("ERR", 0)]
)
def test_cli_fail_on_levels_and_oasdiff_names(tmp_path: Path, fail_on: str, code: int) -> None:
    """An optional response header removed is a WARN: it fails `--fail-on warning` only."""
    before = set_(
        (*DELETE_ONE, "responses", "204", "headers"), {"X-Trace": {"schema": {"type": "string"}}}
    )
    old, new = write_specs(tmp_path, drop((*DELETE_ONE, "responses", "204", "headers")), before)
    got, out = run(str(old), str(new), "--fail-on", fail_on)
    assert got == code, out
    assert "`optional-response-header-removed`" in out


HOSTILE: list[tuple[str, Any]] = [
    ("paths is a list", {"paths": ["/x"]}),
    ("an operation is a list", {"paths": {"/x": {"get": ["nope"]}}}),
    ("responses is a list", {"paths": {"/x": {"get": {"responses": ["200"]}}}}),
    ("parameters hold null", {"paths": {"/x": {"get": {"parameters": [None], "responses": {}}}}}),
    (
        "a schema is a string",
        {
            "paths": {
                "/x": {
                    "post": {
                        "requestBody": {"content": {"application/json": {"schema": "x"}}},
                        "responses": {},
                    }
                }
            }
        },
    ),
    (
        "properties is a list",
        {"components": {"schemas": {"Thing": {"type": "object", "properties": ["id"]}}}},
    ),
    ("a dangling $ref", {"components": {"schemas": {"Thing": {"$ref": "#/nowhere"}}}}),
    ("servers hold a number", {"servers": [{"url": 5}]}),
    ("webhooks is a list", {"webhooks": ["x"]}),
    ("enum is a string", {"components": {"schemas": {"Status": {"enum": "open"}}}}),
    (
        "x-sunset is a number",
        {"paths": {"/things": {"get": {"deprecated": True, "x-sunset": 5, "responses": {}}}}},
    ),
]


@pytest.mark.parametrize("overlay", [h[1] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_cli_never_shows_a_traceback(tmp_path: Path, overlay: dict[str, Any]) -> None:
    """Whatever the documents hold, the command exits 0, 1 or 2 and names no Python internals."""
    old, new = write_specs(tmp_path, lambda d: d.update(copy.deepcopy(overlay)))
    for pair in ((old, new), (new, old)):
        result = CliRunner().invoke(main, ["diff", *map(str, pair), "--fail-on", "warning"])
        assert result.exit_code in (0, 1, 2), result.output
        assert "Traceback" not in result.output
        assert not isinstance(result.exception, Exception) or isinstance(
            result.exception, SystemExit
        )
        if result.exit_code == 2:
            assert result.stderr.count("\n") == 1 and result.stderr.startswith("spec-gen diff: ")


# -- git revisions ----------------------------------------------------------------------


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout


def write_split_spec(repo: Path, doc: dict[str, Any]) -> None:
    """The root file references its schemas in another file, as the project's spec does."""
    schemas = doc["components"]["schemas"]
    (repo / "spec" / "schemas").mkdir(parents=True, exist_ok=True)
    text = json.dumps(schemas, indent=1).replace("#/components/", "../openapi.yaml#/components/")
    (repo / "spec" / "schemas" / "things.json").write_text(text)
    root = copy.deepcopy(doc)
    root["components"]["schemas"] = {
        name: {"$ref": f"schemas/things.json#/{name}"} for name in schemas
    }
    (repo / "spec" / "openapi.yaml").write_text(json.dumps(root, indent=1))


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git repository: a first commit without a spec, then the spec, then an edit to it."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "README").write_text("x\n")
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "no spec yet")
    write_split_spec(repo, BASE)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "spec")
    edited = copy.deepcopy(BASE)
    drop((*THING, "properties", "name"))(edited)  # in schemas/things.json: breaking
    set_(("paths", "/widgets"), WIDGETS)(edited)  # in openapi.yaml: non-breaking
    write_split_spec(repo, edited)
    git(repo, "commit", "-qam", "edit")
    monkeypatch.chdir(repo)
    return repo


def test_cli_git_revisions(repo: Path) -> None:
    code, out = run("HEAD~1", "HEAD", "--fail-on", "breaking")
    assert code == 1, out
    assert "Comparing `HEAD~1` with `HEAD`." in out
    assert "`response-required-property-removed`" in out
    assert "| `GET /api/v1/widgets` | `endpoint-added` |" in out
    code, out = run("HEAD", "HEAD", "--fail-on", "breaking")
    assert code == 0, out
    assert "No changes to the API." in out


def test_cli_revision_against_working_file(repo: Path) -> None:
    """A revision on one side and a spec file on the other (the working tree's)."""
    code, out = run("HEAD~1", "spec/openapi.yaml", "--format", "json")
    assert code == 0, out
    rules = {c["rule"] for c in json.loads(out)["changes"]}
    assert rules == {"response-required-property-removed", "endpoint-added"}


def test_cli_a_file_wins_over_a_revision_name(repo: Path) -> None:
    """A file named `HEAD` holding the first spec: read as the file, there is nothing to report."""
    (repo / "HEAD").write_text(json.dumps(BASE))
    code, out = run("HEAD~1", "HEAD", "--format", "json")
    assert code == 0, out
    assert json.loads(out)["changes"] == []


def test_cli_revision_without_the_spec_exits_2(repo: Path) -> None:
    code, out = run("HEAD~2", "HEAD")
    assert code == 2
    assert "spec/openapi.yaml does not exist at revision 'HEAD~2'" in out


def test_cli_unknown_revision_in_a_repository_exits_2(repo: Path) -> None:
    code, out = run("HEAD", "no-such-branch")
    assert code == 2
    assert out == "spec-gen diff: NEW: 'no-such-branch' is neither a file nor a git revision\n"
