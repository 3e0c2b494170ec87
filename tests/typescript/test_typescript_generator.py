"""The `typescript` target's parts that need no node: schema types, names, the opt-in setting,
the build's report with and without a compiler, and `spec-gen diff --generated`'s methods."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_gen.core.config import load_config
from spec_gen.diff.generated import compare_trees
from spec_gen.targets.typescript import OUTPUT_DIR, camel, ts_type
from spec_gen.targets.typescript_check import finish_typecheck, start_typecheck
from ts_support import ROOT, tsc_or_skip

GENERATED = ROOT / "generated" / OUTPUT_DIR


def test_schema_types_keep_wire_names_and_shapes() -> None:
    pet = {
        "type": "object",
        "required": ["pet-type", "id"],
        "properties": {
            "pet-type": {"type": "string"},
            "id": {"type": "integer"},
            "owner": {"type": ["string", "null"]},
            "photo": {"type": "string", "format": "binary"},
            "kind": {"enum": ["cat", "dog"]},
            "children": {"type": "array", "items": {"$ref": "#/components/schemas/Pet"}},
        },
        "additionalProperties": False,
    }
    assert ts_type(pet, depth=1) == (
        '{ "pet-type": string; id: number; owner?: (string | null); photo?: Blob; '
        'kind?: ("cat" | "dog"); children?: Pet[] }'
    )
    union = {
        "oneOf": [{"$ref": "#/components/schemas/Cat"}, {"$ref": "#/components/schemas/Dog"}],
        "discriminator": {
            "propertyName": "pet_type",
            "mapping": {"cat": "#/components/schemas/Cat", "dog": "#/components/schemas/Dog"},
        },
    }
    assert ts_type(union) == '((Cat & { pet_type: "cat" }) | (Dog & { pet_type: "dog" }))'
    both = {"allOf": [{"$ref": "#/components/schemas/A"}, {"$ref": "#/components/schemas/B"}]}
    assert ts_type(both, ns="T.") == "(T.A & T.B)"
    assert ts_type({"$ref": "#/components/schemas/Error"}) == "Error_"  # not the global


def test_names_are_the_python_clients_in_camel_case() -> None:
    assert camel("api_keys") == "apiKeys"
    assert camel("bulk_add") == "bulkAdd"
    assert camel("_1st_thing") == "_1stThing"
    assert camel("delete_") == "delete_"
    resources = (GENERATED / "src" / "resources.ts").read_text()
    assert "readonly apiKeys: ApiKeysResource;" in resources
    assert "  bulkAdd(params: { " in resources
    assert "  get(params: { contactId: number | string;" in resources


def test_the_target_is_opt_in(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.spec-gen]\nspec = "x.yaml"\n')
    assert load_config(tmp_path).targets == ("python",)
    (tmp_path / "pyproject.toml").write_text('[tool.spec-gen]\ntargets = ["python", "java"]\n')
    with pytest.raises(ValueError, match="unknown \\['java'\\]"):
        load_config(tmp_path)
    assert load_config(ROOT).targets == ("python", "typescript")


def test_without_a_compiler_the_build_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPEC_GEN_TSC", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("PATH", str(tmp_path))
    started = start_typecheck({"src/index.ts": "export {};\n"})
    assert started is None
    ok, report = finish_typecheck(started)
    assert ok and report.startswith("TypeScript client not type-checked: no tsc found")


def test_spec_gen_tsc_off_skips_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    tsc_or_skip()  # a compiler is there, and still not run
    monkeypatch.setenv("SPEC_GEN_TSC", "off")
    assert start_typecheck({"src/index.ts": "export {};\n"}) is None


def test_a_client_that_does_not_compile_fails_the_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPEC_GEN_TSC", str(tsc_or_skip()))
    files = {
        "tsconfig.json": (GENERATED / "tsconfig.json").read_text(),
        "src/index.ts": "const items: number[] = [];\nexport const first: number = items[0];\n",
    }
    ok, report = finish_typecheck(start_typecheck(files))
    assert not ok
    assert "TS2322" in report  # noUncheckedIndexedAccess: number | undefined


def test_diff_generated_lists_the_typescript_methods_a_change_touches() -> None:
    name = f"{OUTPUT_DIR}/src/resources.ts"
    old = {name: (GENERATED / "src" / "resources.ts").read_text()}
    new = {name: old[name].replace("limit?: number;", "limit?: string;")}
    files, symbols = compare_trees(old, new)
    assert [f.path for f in files] == [name]
    touched = {s.name: s for s in symbols}
    assert "ContactsResource.list" in touched
    change = touched["ContactsResource.list"]
    assert change.role == "TypeScript client method"
    assert change.operation == ("GET", "/api/v1/contacts")
    assert change.incompatible and change.change == "changed"
    assert "limit?: string" in change.markdown()


def test_enums_are_open_in_answers_and_closed_in_requests() -> None:
    kinds = {"enum": ["a", "b", 3]}
    assert ts_type(kinds) == '("a" | "b" | 3)'
    assert ts_type(kinds, answer=True) == '("a" | "b" | 3 | (string & {}) | (number & {}))'
    assert ts_type({"enum": [True, False]}, answer=True) == "(true | false)"
    types = (GENERATED / "src" / "types.ts").read_text()
    # answers reach ApiKeyMode, requests too: the request side gets a closed alias of its own
    assert 'export type ApiKeyMode = ("live" | "test" | (string & {}));' in types
    assert 'export type ApiKeyModeInput = ("live" | "test");' in types
    assert "  mode?: ApiKeyModeInput;" in types  # ApiKeyCreateRequest


def test_methods_take_the_body_fields_beside_the_parameters() -> None:
    resources = (GENERATED / "src" / "resources.ts").read_text()
    assert "bulkAdd(params: { xTargetOrgId?: string; contactIds: number[] }," in resources
    assert 'body: fields(p, {"contactIds": "contact_ids"}, true),' in resources  # wire names
    # a field named as a parameter (on the wire or as a key): the body stays whole
    safe = ROOT / "tests" / "features" / "safe_names" / "expected" / OUTPUT_DIR / "src"
    text = (safe / "resources.ts").read_text()
    assert "patchUsersId(params: { id_: number | string; body_?: string; body: T.Profile" in text
    uploads = ROOT / "tests" / "features" / "uploads" / "expected" / OUTPUT_DIR / "src"
    assert "uploadFile(params: { body: T." in (uploads / "resources.ts").read_text()  # multipart
