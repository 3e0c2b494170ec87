"""Names written with accents become readable ASCII identifiers (not fragments), and a
`$ref` that only ever leads to other `$ref`s (a loop) is an error at validate time instead
of a parameter without a name."""

from __future__ import annotations

from pathlib import Path

import pytest
from spec_gen.core.naming import module_name, pascal, snake
from spec_helpers import line_of, run_in, write


@pytest.mark.parametrize(
    ("text", "snake_name", "pascal_name"),
    [
        ("élèves", "eleves", "Eleves"),
        ("getÉlève", "get_eleve", "GetEleve"),
        ("crème-brûlée", "creme_brulee", "CremeBrulee"),
        ("Straße", "strasse", "Strasse"),
        ("Łódź", "lodz", "Lodz"),
        ("listContacts", "list_contacts", "ListContacts"),  # ASCII: as before
        ("学生", "value", "Value"),  # nothing to spell in ASCII: the fallback, made unique later
    ],
)
def test_accented_names_fold_to_their_letters(text: str, snake_name: str, pascal_name: str) -> None:
    assert (snake(text), pascal(text)) == (snake_name, pascal_name)


@pytest.mark.parametrize(
    ("text", "snake_name"),
    [
        # a word keeps the digits that follow it: `ipv4_address` was `ipv_4_address`, the
        # handler of `GET /api/v1/users` `get_api_v_1_users`
        ("ipv4_address", "ipv4_address"),
        ("get /api/v1/users", "get_api_v1_users"),
        ("getV2Users", "get_v2_users"),
        ("sha256", "sha256"),
        ("HTTP2Settings", "http2_settings"),
        ("S3Bucket", "s3_bucket"),
        ("X-Api-V2", "x_api_v2"),
        ("2fa", "_2_fa"),  # a leading number is still its own word, the name starts with _
        ("listAPIKeys", "list_api_keys"),
        # an acronym keeps its plural s: `userIDs` was `user_i_ds`, `listAPIs` `list_ap_is`
        ("userIDs", "user_ids"),
        ("listAPIs", "list_apis"),
        ("URLsList", "urls_list"),
        ("HTTPServer", "http_server"),
    ],
)
def test_digits_stay_with_their_word(text: str, snake_name: str) -> None:
    assert snake(text) == snake_name


def test_an_accented_spec_builds_with_readable_names(tmp_path: Path) -> None:
    write(
        tmp_path / "api.yaml",
        """openapi: 3.0.3
info: {title: École, version: '1'}
tags: [{name: Élèves}]
paths:
  /élèves/{élève}:
    get:
      operationId: obtenirÉlève
      tags: [Élèves]
      parameters:
        - {name: élève, in: path, required: true, schema: {type: string}}
        - {name: année, in: query, schema: {type: integer}}
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/Élève'}
components:
  schemas:
    Élève:
      type: object
      properties:
        prénom: {type: string}
""",
    )
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 0, output
    assert module_name("Élèves") == "eleves"
    routes = (tmp_path / "out/server/api_server/routers/eleves.py").read_text(encoding="utf-8")
    assert "async def obtenir_eleve(" in routes
    # Starlette reads ASCII placeholders only: the route names it by its Python name
    assert '"/élèves/{eleve}",' in routes and "eleve: Annotated[str, Path()]," in routes
    assert 'annee: Annotated[int | None, Query(alias="année")] = None' in routes
    assert "-> Eleve:" in routes


def test_a_ref_loop_is_an_error_at_each_ref_that_enters_it(tmp_path: Path) -> None:
    text = """openapi: 3.1.0
info: {title: T, version: '1'}
paths:
  /a:
    get:
      parameters:
        - $ref: '#/components/parameters/Limit'
      responses:
        "200":
          description: ok
          content:
            application/json:
              schema: {$ref: '#/components/schemas/A'}
components:
  parameters:
    Limit: {$ref: '#/components/parameters/Limit'}
  schemas:
    A: {$ref: '#/components/schemas/B'}
    B: {$ref: '#/components/schemas/A'}
    Tree:  # recursion through a property is fine
      type: object
      properties:
        child: {$ref: '#/components/schemas/Tree'}
"""
    write(tmp_path / "api.yaml", text)
    code, output = run_in(tmp_path, "validate", "api.yaml")
    assert code == 1, output
    loop = "leads back to itself through $refs only: it never reaches a definition"
    for needle in (
        "- $ref: '#/components/parameters/Limit'",
        "Limit: {$ref",
        "schema: {$ref: '#/components/schemas/A'}",
        "A: {$ref",
        "B: {$ref",
    ):
        assert f"api.yaml:{line_of(text, needle)}:" in output, (needle, output)
    assert output.count(loop) == 5, output
    assert "Tree" not in output
    code, output = run_in(tmp_path, "build", "--spec", "api.yaml", "--output", "out")
    assert code == 1 and not (tmp_path / "out").exists(), output
