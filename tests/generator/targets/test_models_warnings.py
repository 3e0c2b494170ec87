"""What datamodel-code-generator warns about while it writes the models is a located
warning of the `models` rule (it went to stderr as a raw Python warning): the build goes on,
`--strict` stops it, a rebuild that reuses the cached models says it again; an unknown
`format` (legal, open-ended) is not warned about."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

from spec_gen.targets.models.run import warning_notes
from spec_helpers import line_of, run_in, write

SPEC = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      description: first
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Pet'}
components:
  schemas:
    Pet:
      type: object
      properties:
        price: {type: string, format: currency}
        name: {type: string}
      allOf:
        - properties:
            name: {type: integer}
"""
WARNING = "warning [models] Field name `name` is duplicated on Pet (at /components/schemas/Pet)"


def test_a_models_warning_is_located_and_strict_stops_the_build(tmp_path: Path) -> None:
    write(tmp_path / "api.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    assert f"api.yaml:{line_of(SPEC, '    Pet:')}:5: {WARNING}" in output, output
    assert "currency" not in output and "UserWarning" not in output
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "strict", "--strict")
    assert code == 1 and WARNING in output, output
    assert not (tmp_path / "strict").exists()


def test_the_cached_models_keep_their_warnings(tmp_path: Path) -> None:
    write(tmp_path / "api.yaml", SPEC)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0 and WARNING in output, output
    cached = sorted((tmp_path / ".spec-gen-cache").glob("models-*.json"))
    assert len(cached) == 1
    stamp = cached[0].stat().st_mtime_ns
    # an edit outside the schemas: the models come from the cache this time
    write(tmp_path / "api.yaml", SPEC.replace("description: first", "description: second"))
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0 and WARNING in output, output
    assert re.search(r"\b[1-9]\d* changed", output), output  # the docs say "second" now
    assert sorted((tmp_path / ".spec-gen-cache").glob("models-*.json")) == cached
    assert cached[0].stat().st_mtime_ns == stamp  # read, not written again


def test_notes_are_one_line_each_once_without_the_tools_own_options() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.warn(
            "Unresolved local $ref '#/x' in <input>: JSON pointer was not found.\n"
            "Generated a fallback Any model; use --strict-refs to fail instead.",
            stacklevel=1,
        )
        warnings.warn(
            "format of 'uint64' not understood for 'integer' - using default", stacklevel=1
        )
        warnings.warn("Field name `a` is duplicated on X", stacklevel=1)
        warnings.warn("Field name `a` is duplicated on X", stacklevel=1)
    assert warning_notes(caught) == [
        (
            "Unresolved local $ref '#/x' in <input>: JSON pointer was not found. "
            "Generated a fallback Any model"
        ),
        "Field name `a` is duplicated on X",
    ]


def test_a_const_object_or_array_is_read_as_its_type_with_a_warning(tmp_path: Path) -> None:
    spec = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /x:
    get:
      operationId: getX
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/X'}
components:
  schemas:
    X:
      type: object
      properties:
        fixed: {const: {a: 1}}
        pair: {const: [1, 2]}
        kind: {const: dog}
"""
    write(tmp_path / "api.yaml", spec)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out", "--typecheck")
    assert code == 0, output
    for name in ("fixed", "pair"):
        line = spec.splitlines()[line_of(spec, f"{name}: ") - 1]
        assert (
            f"api.yaml:{line_of(spec, f'{name}: ')}:{line.index('const') + 1}: warning [models] "
            "a `const` object or array is not checked by the generated models: read as its type"
        ) in output, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "fixed: dict[str, Any] | None = None" in models
    assert "pair: list[Any] | None = None" in models
    assert "Literal['dog']" in models or 'Literal["dog"]' in models  # a scalar const is kept


def test_an_enum_with_object_or_array_members_is_read_as_its_type(tmp_path: Path) -> None:
    # datamodel-code-generator wrote enum classes with members `LIST___ = []`, `VALUE_1 = {}`:
    # mypy --strict refused them ("Need type annotation"); the IR called the named one an
    # enum class too
    spec = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /x:
    post:
      operationId: putX
      requestBody:
        content:
          application/json:
            schema: {$ref: '#/components/schemas/X'}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Shapes'}
components:
  schemas:
    X:
      type: object
      properties:
        mixed: {enum: [[], {}, a, 1, null]}
        lists: {type: array, enum: [[], [1, 2]]}
        objects: {enum: [{a: 1}, {}]}
        plain: {enum: [a, b]}
    Shapes: {enum: [[], {}, x]}
"""
    write(tmp_path / "api.yaml", spec)
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out", "--typecheck")
    assert code == 0, output
    for name in ("mixed", "lists", "objects", "Shapes"):
        line = spec.splitlines()[line_of(spec, f"{name}: ") - 1]
        assert (
            f"api.yaml:{line_of(spec, f'{name}: ')}:{line.index('enum') + 1}: warning [models] "
            "an `enum` with object or array members is not checked by the generated models"
        ) in output, output
    models = (tmp_path / "out/server/api_server/models.py").read_text(encoding="utf-8")
    assert "= []" not in models and "= {}" not in models
    assert "class Lists(RootModel[list[Any]])" in models
    objects = models[models.index("class Objects(BaseModel)") :].split("\n\n\n")[0]
    assert 'extra="allow"' in objects  # any object: its members are kept
    assert "class Plain(Enum)" in models  # an enum of scalars stays an enum class
