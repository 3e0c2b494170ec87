"""`spec-gen diff --generated` on this repository's own spec: real edits, both sides built,
the generated symbols they change listed under each spec change, flags, JSON."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from diff_support import ROOT
from spec_gen.cli import main

LIST_CONTACTS = "      x-client-method: list\n      parameters:\n        - $ref: '#/components/parameters/Page'\n"
REGION = (
    "        - name: region\n          in: query\n          required: true\n"
    "          schema: {type: string, maxLength: 8}\n"
)
VERIFIED = (
    "  properties:\n    verified:\n      type: integer\n"
    "      description: Number of contacts verified; results are written back to the contacts.\n"
    "  required: [verified]\nVerifyEmailResponse:"
)


@pytest.fixture
def chdir_root(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.chdir(ROOT)  # the project's pyproject.toml names the templates
    yield


def copy_spec(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name / "spec"
    shutil.copytree(ROOT / "spec", target)
    return target


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["diff", *args, "--generated"])
    return result.exit_code, result.stdout, result.stderr


def test_required_parameter_and_removed_property(tmp_path: Path, chdir_root: None) -> None:
    new = copy_spec(tmp_path, "new")
    edit(new / "openapi.yaml", LIST_CONTACTS, LIST_CONTACTS + REGION)
    edit(new / "schemas" / "contacts.yaml", VERIFIED, "  properties: {}\nVerifyEmailResponse:")
    code, out, err = run("spec/openapi.yaml", str(new / "openapi.yaml"), "--fail-on", "ERR")
    assert code == 1, err
    lines = out.splitlines()
    start = lines.index(
        "- `GET /api/v1/contacts` `new-required-request-parameter`: added the required query"
        " parameter `region`"
    )
    under = lines[start + 1 : start + 3]
    assert under[0].startswith(
        "  - client method `ContactsResource.list` changed: `def list(self, *, region: str,"
    )
    assert under[1].startswith(
        "  - service interface `ContactsApi.list_contacts` changed: `async def list_contacts("
    )
    assert "region: str" in under[1]
    verify = lines.index(
        "- `POST /api/v1/contacts/verify-email` `response-required-property-removed`: removed the"
        " required response property `data.verified` (200)"
    )
    assert lines[verify + 1 : verify + 3] == [
        "  - client model `VerifyEmailResult.verified` removed: `verified: int`",
        "  - server model `VerifyEmailResult.verified` removed: `verified: int`",
    ]
    summary = lines[lines.index("### Generated code") :]
    assert (
        "| `client/outreach_client/resources/contacts.py` | changed | +4 -0 | 2 changed |"
        in summary
    )
    assert (
        "| `server/outreach_api/interfaces/contacts.py` | changed | +1 -0 | 1 changed |" in summary
    )
    assert not any("`server/outreach_api/constants.py`" in line for line in summary)  # untouched
    assert "**Flag:**" not in out  # both breaking changes show in the client


def test_json_carries_symbols_and_file_summary(tmp_path: Path, chdir_root: None) -> None:
    new = copy_spec(tmp_path, "new")
    edit(new / "openapi.yaml", LIST_CONTACTS, LIST_CONTACTS + REGION)
    code, out, _ = run("spec/openapi.yaml", str(new / "openapi.yaml"), "--format", "json")
    assert code == 0
    payload = json.loads(out)
    (change,) = payload["changes"]
    assert change["rule"] == "new-required-request-parameter"
    symbols = {(s["role"], s["symbol"], s["change"]) for s in change["generated"]["symbols"]}
    assert ("client method", "ContactsResource.list", "changed") in symbols
    assert ("client method", "AsyncContactsResource.list", "changed") in symbols
    assert ("service interface", "ContactsApi.list_contacts", "changed") in symbols
    assert all(s["incompatible"] for s in change["generated"]["symbols"])
    paths = [f["path"] for f in payload["generated"]["files"]]
    assert paths == sorted(paths) and "client/outreach_client/resources/contacts.py" in paths
    assert payload["generated"]["flags"] == []


def test_flags_a_breaking_change_the_client_does_not_show(tmp_path: Path, chdir_root: None) -> None:
    new = copy_spec(tmp_path, "new")
    get_contact = "      operationId: get_contact\n      tags: [contacts]\n      x-tier: read\n"
    edit(new / "openapi.yaml", get_contact, get_contact.replace("read", "write"))
    code, out, _ = run("spec/openapi.yaml", str(new / "openapi.yaml"))
    assert code == 0
    assert (
        "  - **Flag:** breaking, yet no generated client signature or model changes:"
        " callers find out at run time"
    ) in out.splitlines()


def test_flags_an_incompatible_client_change_that_is_not_breaking(
    tmp_path: Path, chdir_root: None
) -> None:
    old = copy_spec(tmp_path, "old")
    deprecated = REGION.replace("required: true", "required: false\n          deprecated: true")
    edit(old / "openapi.yaml", LIST_CONTACTS, LIST_CONTACTS + deprecated)
    code, out, _ = run(str(old / "openapi.yaml"), "spec/openapi.yaml")
    assert code == 0
    assert "`request-parameter-removed-with-deprecation`" in out
    assert (
        "  - **Flag:** the generated client changes incompatibly (`AsyncContactsResource.list`,"
        " `ContactsResource.list`), yet no change here is breaking"
    ) in out.splitlines()


def test_identical_sides_say_the_generated_code_does_not_change(chdir_root: None) -> None:
    code, out, _ = run("spec/openapi.yaml", "spec/openapi.yaml")
    assert code == 0
    assert out.endswith("### Generated code\n\nThe generated code does not change.\n")


def test_a_side_that_does_not_build_exits_2_with_one_line(tmp_path: Path, chdir_root: None) -> None:
    new = copy_spec(tmp_path, "new")
    edit(  # a dangling $ref: refused under every rule profile
        new / "openapi.yaml",
        "$ref: '#/components/parameters/ContactId'",
        "$ref: '#/components/parameters/Missing'",
    )
    code, out, err = run("spec/openapi.yaml", str(new / "openapi.yaml"))
    assert code == 2
    assert out == ""
    assert (
        err.startswith("spec-gen diff: --generated: the spec does not build")
        and err.count("\n") == 1
    )


def test_git_revisions_are_built_too(chdir_root: None) -> None:
    """A revision's spec is extracted with `git archive` and built like a file."""
    code, out, err = run("HEAD", "HEAD", "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["changes"] == []
    assert payload["generated"] == {"files": [], "flags": []}


def test_a_client_model_moved_between_files_of_the_models_package_is_no_symbol_change() -> None:
    from spec_gen.diff.generated import compare_trees

    a = "class Contact(BaseModel):\n    id: int\n"
    b = "class Note(BaseModel):\n    text: str\n"
    old = {"client/pkg/models/_contact.py": a + "\n" + b}
    new = {"client/pkg/models/_contact.py": a, "client/pkg/models/_note.py": b}
    files, symbols = compare_trees(old, new)
    assert {f.path for f in files} == set(new)  # both files changed on disk
    assert symbols == []  # ... but no model was added, removed or changed
    new["client/pkg/models/_note.py"] = b.replace("text: str", "text: int")
    _, symbols = compare_trees(old, new)
    assert [(s.file, s.name, s.change, s.role) for s in symbols] == [
        ("client/pkg/models.py", "Note.text", "changed", "client model")
    ]
