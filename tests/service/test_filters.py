"""The filter language: compiled to SQL with bound parameters; anything unknown is a 422."""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from outreach_server.core.errors import ApiValidationError
from outreach_server.core.filters import FilterColumn, compile_filter, compile_sort, parse_json
from sqlalchemy import Column, Integer, MetaData, String, Table, select
from sqlalchemy.dialects import postgresql, sqlite

people = Table(
    "people",
    MetaData(),
    Column("id", Integer, primary_key=True),
    Column("name", String),
    Column("age", Integer),
)
COLUMNS = {
    "name": FilterColumn(people.c.name, "text"),
    "age": FilterColumn(people.c.age, "number"),
    "id": FilterColumn(people.c.id, "number"),
}
ROWS = [(1, "Ada", 36), (2, "Grace", 85), (3, "alan", 41), (4, None, None), (5, "50%_off", 7)]


def matching(model: Any, sort: Any = None) -> list[int]:
    """Run the compiled query against a real SQLite database."""
    connection = sqlite3.connect(":memory:")
    connection.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, age INTEGER)")
    connection.executemany("INSERT INTO people VALUES (?, ?, ?)", ROWS)
    query = select(people.c.id).where(compile_filter(model, COLUMNS, ["query", "filterModel"]))
    query = query.order_by(*compile_sort(sort, COLUMNS, ["query", "sortModel"]), people.c.id)
    compiled = query.compile(dialect=sqlite.dialect(), compile_kwargs={"render_postcompile": True})
    params = compiled.construct_params()
    sql = str(compiled)
    positional = [params[name] for name in compiled.positiontup or []]
    return [row[0] for row in connection.execute(sql, positional)]


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        (None, [1, 2, 3, 4, 5]),
        ({}, [1, 2, 3, 4, 5]),
        ({"name": {"filterType": "text", "type": "contains", "filter": "A"}}, [1, 2, 3]),
        ({"name": {"filterType": "text", "type": "equals", "filter": "ALAN"}}, [3]),
        ({"name": {"filterType": "text", "type": "startsWith", "filter": "gr"}}, [2]),
        ({"name": {"filterType": "text", "type": "notContains", "filter": "a"}}, [4, 5]),
        (
            {"name": {"filterType": "text", "type": "contains", "filter": "%_"}},
            [5],
        ),  # LIKE wildcards are literal
        ({"name": {"filterType": "text", "type": "blank"}}, [4]),
        ({"age": {"filterType": "number", "type": "greaterThan", "filter": 40}}, [2, 3]),
        (
            {"age": {"filterType": "number", "type": "inRange", "filter": 30, "filterTo": 41}},
            [1, 3],
        ),
        ({"age": {"filterType": "set", "values": [7, 85]}}, [2, 5]),
        ({"name": {"filterType": "set", "values": []}}, []),
        (
            {
                "age": {
                    "filterType": "number",
                    "operator": "OR",
                    "conditions": [
                        {"type": "lessThan", "filter": 10},
                        {"type": "greaterThan", "filter": 80},
                    ],
                }
            },
            [2, 5],
        ),
        (
            {
                "name": {"filterType": "text", "type": "contains", "filter": "a"},
                "age": {"filterType": "number", "type": "lessThan", "filter": 40},
            },
            [1],
        ),
    ],
)
def test_filters_select_the_right_rows(model: Any, expected: list[int]) -> None:
    assert matching(model) == expected


def test_sort_model() -> None:
    assert matching(None, [{"colId": "age", "sort": "desc"}]) == [4, 2, 3, 1, 5] or matching(
        None, [{"colId": "age", "sort": "desc"}]
    ) == [2, 3, 1, 5, 4]


@pytest.mark.parametrize(
    ("model", "loc"),
    [
        (
            {"email": {"filterType": "text", "type": "contains", "filter": "x"}},
            ["query", "filterModel", "email"],
        ),
        (
            {"name": {"filterType": "text", "type": "regex", "filter": "x"}},
            ["query", "filterModel", "name", "type"],
        ),
        (
            {"name": {"filterType": "number", "type": "equals", "filter": 1}},
            ["query", "filterModel", "name", "filterType"],
        ),
        (
            {"age": {"filterType": "number", "type": "equals", "filter": "1; DROP TABLE people"}},
            ["query", "filterModel", "age", "filter"],
        ),
        (
            {"age": {"filterType": "number", "type": "equals", "filter": True}},
            ["query", "filterModel", "age", "filter"],
        ),
        ({"name": "contains x"}, ["query", "filterModel", "name"]),
        (
            {"name": {"filterType": "text", "operator": "XOR", "conditions": [{"type": "blank"}]}},
            ["query", "filterModel", "name", "operator"],
        ),
        ([1, 2], ["query", "filterModel"]),
    ],
)
def test_unknown_or_wrong_filters_are_422(model: Any, loc: list[str]) -> None:
    with pytest.raises(ApiValidationError) as error:
        compile_filter(model, COLUMNS, ["query", "filterModel"])
    assert error.value.items[0]["loc"] == loc


def test_parse_json_and_sort_errors() -> None:
    assert parse_json(None, ["query", "filterModel"], dict) is None
    assert parse_json('{"a": 1}', ["query", "filterModel"], dict) == {"a": 1}
    for raw, expected in [("{not json", dict), ("[1]", dict), ("x" * 30_000, dict)]:
        with pytest.raises(ApiValidationError):
            parse_json(raw, ["query", "filterModel"], expected)
    with pytest.raises(ApiValidationError):
        compile_sort([{"colId": "nope"}], COLUMNS, ["query", "sortModel"])
    with pytest.raises(ApiValidationError):
        compile_sort([{"colId": "age", "sort": "sideways"}], COLUMNS, ["query", "sortModel"])


def test_values_are_bound_parameters_never_sql_text() -> None:
    model = {"name": {"filterType": "text", "type": "equals", "filter": "x' OR '1'='1"}}
    for dialect in (sqlite.dialect(), postgresql.dialect()):
        sql = str(
            select(people.c.id).where(compile_filter(model, COLUMNS, [])).compile(dialect=dialect)
        )
        assert "OR '1'='1" not in sql


def test_a_like_pattern_is_no_bare_parameter_on_sqlite() -> None:
    """SQLite recompiles a statement at every bind of a LIKE pattern that is a bare parameter:
    on SQLite the pattern is `+?` (the same value), elsewhere the parameter as it is."""
    model = {"name": {"filterType": "text", "type": "contains", "filter": "a"}}
    query = select(people.c.id).where(compile_filter(model, COLUMNS, []))
    assert "LIKE +?" in str(query.compile(dialect=sqlite.dialect()))
    assert "LIKE %(" in str(query.compile(dialect=postgresql.dialect()))
    assert "+" not in str(query.compile(dialect=postgresql.dialect()))


def test_numbers_that_cannot_bind_exactly_are_422() -> None:
    for value in (2**63, -(2**64), float("nan"), float("inf")):
        with pytest.raises(ApiValidationError):
            compile_filter(
                {"age": {"filterType": "number", "type": "equals", "filter": value}}, COLUMNS, []
            )


# -- bounds and type confusion (issue 12) ------------------------------------------------------


def test_filter_bounds_are_checked_before_compiling() -> None:
    from outreach_server.core.errors import ApiValidationError
    from outreach_server.core.filters import (
        MAX_TOTAL_CONDITIONS,
        MAX_TOTAL_VALUES,
        check_bounds,
        parse_json,
    )

    leaf = {"filterType": "text", "type": "contains", "filter": "a"}
    deep: dict[str, object] = leaf
    for _ in range(5):
        deep = {"operator": "AND", "conditions": [deep]}
    wide = {f"c{i}": {"operator": "OR", "conditions": [leaf] * 50} for i in range(5)}
    values = {f"c{i}": {"filterType": "set", "values": ["a"] * 1000} for i in range(6)}
    for model, message in (
        ({"email": deep}, "nest at most"),
        (wide, f"at most {MAX_TOTAL_CONDITIONS} conditions"),
        (values, f"at most {MAX_TOTAL_VALUES} set values"),
    ):
        with pytest.raises(ApiValidationError) as refused:
            check_bounds(model, ["body", "filter_model"])
        assert message in refused.value.items[0]["msg"]
    check_bounds({"email": {"operator": "OR", "conditions": [leaf] * 50}}, ["x"])  # fine
    with pytest.raises(ApiValidationError) as refused:
        parse_json("[" * 5000, ["query", "filterModel"], list)
    assert refused.value.items[0]["msg"] == "nested too deeply"
