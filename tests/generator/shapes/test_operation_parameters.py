"""Parameters of real public documents: a `style` its location does not allow, a schema that
annotates a `$ref`, untyped parameters with defaults, path parameters under a callback.

Each document, under fixtures/shapes/operation_parameters/, is small and hand-written and
reproduces a shape met in real public OpenAPI documents (large public APIs, the test documents
of peer tools), named below or in the test: the build exits 0 (or 1 with located findings) and
the output says what the document meant.

- a parameter schema without `type` but with a scalar default (`page: {default: 1,
  minimum: 1}`, Cloudflare's paging parameters): read as a str with the default 1
  (`page: Annotated[str, Query()] = 1`, mypy --strict failed) and without its bounds. It now
  takes the default's type, and the bounds that type takes.
- a query array without `items` and a default mixing strings and numbers (`type: array,
  default: [test1, test2, 1]`): the parameter is `list[str]` (each value arrives as a
  string) but the default was written as is, `= ["test1", "test2", 1]`, and mypy --strict
  refused the router (list-item). A default is now checked against the item type the
  annotation reads (strings for untyped items) and left out when it does not fit, as any
  other default that does not fit; a default of strings stays.
"""

from __future__ import annotations

from pathlib import Path

from spec_helpers import SHAPES, build_shape, line_of


def test_a_style_its_location_does_not_allow_is_read_as_the_default(tmp_path: Path) -> None:
    """Stripe as Ballerina publishes it: `style: simple` on a query parameter. The document
    was refused ([openapi] error); the style is dropped (the location's default applies) with
    a warning at it, once for a shared component."""
    code, output = build_shape(
        tmp_path, "operation_parameters/parameter_styles.yaml", "--typecheck"
    )
    assert code == 0, output
    text = (SHAPES / "operation_parameters/parameter_styles.yaml").read_text(encoding="utf-8")
    styles = [line for line in output.splitlines() if "[parameter-repair] style" in line]
    expected = {
        "{name: id, in: path": ("'form'", "a path", "'simple'", "delete/parameters/0/style"),
        "{name: expand, in: query": ("'simple'", "a query", "'form'", "delete/parameters/1/style"),
        "Trace: {name: X-Trace": ("'form'", "a header", "'simple'", "components"),
    }
    assert len(styles) == len(expected), styles
    for needle, (style, where, default, pointer) in expected.items():
        hits = [s for s in styles if s.startswith(f"openapi.yaml:{line_of(text, needle)}:")]
        assert len(hits) == 1, (needle, styles)
        assert f"style {style} is not one {where} parameter may have" in hits[0]
        assert f"read as the default, {default}" in hits[0] and pointer in hits[0]
    assert "/get/parameters/0/style" not in output  # an allowed style is left alone


def test_a_parameter_schema_that_annotates_a_ref_is_that_type(tmp_path: Path) -> None:
    """Elasticsearch's parameters: `schema: {default: or, allOf: [$ref: Operator]}` (3.0's way
    to put a default beside a $ref) was hoisted as a class of its own, which
    datamodel-code-generator does not write (an alias): the build stopped (exit 2)."""
    code, output = build_shape(
        tmp_path, "operation_parameters/annotated_ref_parameters.yaml", "--typecheck"
    )
    assert code == 0, output
    router = (tmp_path / "out/server/api_server/routers/default.py").read_text(encoding="utf-8")
    assert 'default_operator: Annotated[Operator, Query()] = Operator("or"),' in router
    assert "size: Annotated[int | None, Query()] = None," in router


def test_untyped_parameters_take_their_default_type(tmp_path: Path) -> None:
    code, output = build_shape(
        tmp_path, "operation_parameters/untyped_parameter_defaults.yaml", "--typecheck"
    )
    assert code == 0, output
    assert "Success: no issues found" in output
    router = (tmp_path / "out" / "server" / "api_server" / "routers" / "default.py").read_text()
    assert "page: Annotated[int, Query(ge=1)] = 1," in router
    assert "ratio: Annotated[float, Query()] = 0.5," in router
    assert "exact: Annotated[bool, Query()] = True," in router
    assert 'x_mode: Annotated[str, Header(alias="X-Mode")] = "fast",' in router
    resources = tmp_path / "out" / "client" / "api_client" / "resources" / "default.py"
    assert "page: int | None = None," in resources.read_text()


def test_an_untyped_array_parameter_keeps_only_a_default_of_strings(tmp_path: Path) -> None:
    code, output = build_shape(
        tmp_path, "operation_parameters/untyped_array_param_default.yaml", "--typecheck"
    )
    assert code == 0, output
    assert "Success: no issues found" in output
    router = (tmp_path / "out" / "server" / "api_server" / "routers" / "search.py").read_text()
    assert "words: Annotated[list[str] | None, Query()] = None" in router, router
    assert 'labels: Annotated[list[str], Query()] = ["red", "blue"]' in router, router
    assert "sizes: Annotated[list[int], Query()] = [1, 2]" in router, router


def test_a_callback_under_a_templated_path_needs_no_path_parameters(tmp_path: Path) -> None:
    """Meraki's live tools: a callback under `/devices/{serial}/...` was checked as if its
    runtime expression were that path, and refused for not declaring `serial`."""
    code, output = build_shape(
        tmp_path, "operation_parameters/callback_under_template.yaml", "--typecheck"
    )
    assert code == 0, output
    assert "path-params" not in output and "parameter-repair" not in output
    webhooks = (tmp_path / "out/server/api_server/webhooks.py").read_text(encoding="utf-8")
    assert '("pingDevice", "pingDone"): PingDevicePingDoneRequest' in webhooks
