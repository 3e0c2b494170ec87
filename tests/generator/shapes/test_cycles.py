"""Schemas of real public documents that refer to themselves: recursive unions and maps in the
docs, allOf and union cycles refused at the `$ref` closing them, long cycles of classes and
the recursion limit.

Each document, under fixtures/shapes/cycles/, is small and hand-written and reproduces a shape
met in real public OpenAPI documents (large public APIs, the test documents of peer tools),
named below or in the test: the build exits 0 (or 1 with located findings) and the output says
what the document meant.

- a named union or map that contains itself (`ErrorDetails = oneOf[map of ErrorDetails,
  InnerErrors]`, `Tree = anyOf[array of Tree, string]`): the docs spell it out once and name it
  where it recurs (it recursed until the stack ran out).
- a long cycle of classes (HubSpot's property expressions: some 75 operators, each taking
  any operator as input): pydantic builds the classes of a cycle one inside the other when
  the last of them is created, about 25 Python frames each, and beyond some 40 classes the
  default recursion limit was exceeded: RecursionError on import, so the build stopped
  ("generated code does not import or mount", exit 2). A models module (the server's, each
  of the client's) whose classes need it now raises the recursion limit at its top, by
  enough frames for its longest chain of classes built inline (never lowering it).
- and the import probe hung on it: a probe whose first package failed with a long
  traceback (a RecursionError's runs to some 100 KB) blocked writing it to stderr while the
  build, waiting for its writer thread to send the second package, read nothing: the build
  never ended. The probes' output is now read while the writer writes.
- a schema that is only itself through an anyOf or oneOf of one member (ogen's negative
  documents cyclic/anyOf_single, oneOf_single: `Test: {anyOf: [{$ref: Test}]}`): an
  internal error, exit 2 ("Models not found in the input data"), and through two such
  schemas (anyOf_double) a pair of classes each only the other, exit 0. Both are now the
  `schema-cycle` error allOf cycles were already: exit 1, at the `$ref` closing the cycle.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from spec_gen.build.verify import GeneratedCodeBroken, Verifier
from spec_gen.targets.models.depth import build_depth
from spec_helpers import SHAPES, build_shape, line_of, run_json


def test_recursive_unions_and_maps_are_documented_by_name(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "cycles/recursive_unions.yaml")
    assert code == 0, output
    reference = (tmp_path / "out/docs/default.md").read_text(encoding="utf-8")
    assert "| `tree` | array of `Tree` or string | no |" in reference
    errors = (tmp_path / "out/docs/guides/errors.md").read_text(encoding="utf-8")
    assert "| `errors` | map of string to `ErrorDetails` or `InnerErrors` | no |" in errors
    # the object the union leads to still gets its own table
    assert "`_errors`" in errors


def test_an_allof_cycle_is_refused_with_a_finding_at_its_ref(tmp_path: Path) -> None:
    """A schema that extends itself (through other schemas, an alias, an inline allOf) has
    no class: the build stopped on a RecursionError (exit 2). Recursion through properties
    (`Tree`) is fine and not reported."""
    code, output = build_shape(tmp_path, "cycles/allof_cycle.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (SHAPES / "cycles/allof_cycle.yaml").read_text(encoding="utf-8")
    cycles = [line for line in output.splitlines() if "[schema-cycle]" in line]
    assert len(cycles) == 2, output
    pet_line = line_of(text, "$ref: '#/components/schemas/Pet'", 2)
    pet = f"openapi.yaml:{pet_line}:"
    assert cycles[0].startswith(pet), cycles
    assert "allOf cycle Pet -> Creature -> Pet" in cycles[0]
    assert cycles[0].endswith("(at /components/schemas/Creature/allOf/1/allOf/0/$ref)")
    assert cycles[1].startswith(f"openapi.yaml:{line_of(text, 'schemas/Node')}:")
    assert "allOf cycle Node -> Node" in cycles[1]
    assert not (tmp_path / "out").exists()


def test_a_union_that_is_its_own_member_is_refused_with_a_finding_at_its_ref(
    tmp_path: Path,
) -> None:
    """ogen's negative documents: `Test: oneOf [Test]` ended in an internal error (exit 2,
    datamodel-code-generator's "Models not found"); `Left: anyOf [Right]`, `Right: anyOf
    [string, Left]` (through an alias) built models that refuse every value (pydantic's
    `recursion_loop`). Checking a value against such a union goes round for ever: each is an
    error at the `$ref` closing the cycle. The usual polymorphism (a union of several
    subclasses that extend it with allOf) and recursion through items or additionalProperties
    are not."""
    code, output = build_shape(tmp_path, "cycles/union_cycle.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (SHAPES / "cycles/union_cycle.yaml").read_text(encoding="utf-8")
    cycles = [line for line in output.splitlines() if "[schema-cycle]" in line]
    assert len(cycles) == 2, output
    test_line = line_of(text, "- $ref: '#/components/schemas/Test'")
    assert cycles[0].startswith(f"openapi.yaml:{test_line}:")
    assert (
        "oneOf cycle Test -> Test: a schema cannot extend itself (oneOf with one member"
        in (cycles[0])
    )
    assert cycles[0].endswith("(at /components/schemas/Test/oneOf/0/$ref)")
    assert "oneOf/anyOf cycle Left -> Right -> Left" in cycles[1]
    assert cycles[1].endswith("(at /components/schemas/Right/anyOf/1/$ref)")
    assert "Pet" not in output and "Json" not in output
    assert not (tmp_path / "out").exists()


def test_a_schema_that_is_only_itself_through_one_member_is_refused(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "cycles/one_member_cycles.yaml")
    assert code == 1, output
    assert "internal error" not in output
    text = (SHAPES / "cycles/one_member_cycles.yaml").read_text()
    findings = [line for line in output.splitlines() if "error [" in line]
    self_ref = line_of(text, "- $ref: '#/components/schemas/Self'")
    ping_ref = line_of(text, "- $ref: '#/components/schemas/Ping'")
    assert findings == [
        (
            f"openapi.yaml:{self_ref}:11: error [schema-cycle] anyOf cycle Self -> Self: a"
            " schema cannot extend itself (anyOf with one member is that member)"
            " (at /components/schemas/Self/anyOf/0/$ref)"
        ),
        (
            f"openapi.yaml:{ping_ref}:15: error [schema-cycle] allOf cycle Ping -> Pong -> Ping:"
            " a schema cannot extend itself (at /components/schemas/Pong/oneOf/0/allOf/0/$ref)"
        ),
    ]  # Tree, recursive through a property and a two-member anyOf, is no cycle
    assert not (tmp_path / "out").exists()


def test_a_long_cycle_of_classes_builds_imports_and_validates(tmp_path: Path) -> None:
    code, output = build_shape(tmp_path, "cycles/long_class_cycle.yaml", "--typecheck")
    assert code == 0, output
    assert "Success: no issues found" in output
    out = tmp_path / "out"
    server_models = (out / "server" / "api_server" / "models.py").read_text()
    assert "sys.setrecursionlimit(max(sys.getrecursionlimit(), " in server_models
    client_models = [
        path.name
        for path in (out / "client" / "api_client" / "models").glob("_*.py")
        if "sys.setrecursionlimit(" in path.read_text()
    ]
    assert client_models == ["_op01.py"]
    nested: dict[str, object] = {"value": 64}
    for value in range(63, 0, -1):
        nested = {"value": value, "inputs": [nested]}
    data = json.dumps({"value": 0, "inputs": [nested]})
    # a fresh interpreter with the default limit, each package as a user imports it
    script = (
        "import json, sys\n"
        "from {package}.models import Op01\n"
        "op = Op01.model_validate_json({data!r})\n"
        "depth = 0\n"
        "while op.inputs:\n"
        "    op, depth = op.inputs[0], depth + 1\n"
        "print(json.dumps([depth, type(op).__name__]))\n"
    )
    for part, package in (("server", "api_server"), ("client", "api_client")):
        assert run_json(out / part, script.format(package=package, data=data)) == [64, "Op01"]


def test_short_cycles_leave_the_recursion_limit_alone() -> None:
    source = (
        "from __future__ import annotations\n\nfrom pydantic import BaseModel\n\n\n"
        "class Node(BaseModel):\n    children: list[Node] | None = None\n\n\n"
        "class A(BaseModel):\n    b: B | None = None\n\n\n"
        "class B(BaseModel):\n    a: A | None = None\n    node: Node | None = None\n\n\n"
        "class Leaf(BaseModel):\n    value: int\n\n\n"
        "class Tree(BaseModel):\n    leaf: Leaf\n"
    )
    # Node is complete when created (it refers only to itself), A and B build each other
    assert build_depth(source) == 2


def test_a_probe_failing_with_a_long_traceback_does_not_hang_the_build() -> None:
    verifier = Verifier("deep_server", "deep_client")
    verifier.start(together=True)
    # mutual recursion: a traceback of some 1000 distinct frames, over a pipe's 64 KB
    server = {
        "server/deep_server/__init__.py": (
            "def ping(n):\n    return pong(n + 1)\n\n\n"
            "def pong(n):\n    return ping(n + 1)\n\n\nping(0)\n"
        )
    }
    client = {"client/deep_client/__init__.py": f"PADDING = {'x' * 300_000!r}\n"}
    outcome: list[BaseException] = []

    def check() -> None:
        try:
            verifier.check({**server, **client})
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread
            outcome.append(exc)

    worker = threading.Thread(target=check, daemon=True)
    worker.start()
    worker.join(timeout=120)
    if worker.is_alive():
        verifier.close()
        pytest.fail("the verifier hung on a probe's long traceback")
    assert len(outcome) == 1 and isinstance(outcome[0], GeneratedCodeBroken)
    assert "RecursionError" in str(outcome[0])
