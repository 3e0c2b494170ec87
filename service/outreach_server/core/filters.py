"""The filter language of fetch, verify, unlock and merge: AG Grid's `filterModel` / `sortModel`.

`filterModel` is a JSON object from column id to a filter; `sortModel` a JSON array of
`{"colId", "sort": "asc"|"desc"}`. Both compile to SQLAlchemy expressions over the columns a
caller declares, so values are always bound parameters, never SQL text. Anything unknown
(column, filter type, operator, a value of the wrong type) is a 422 in the API's
validation format, never a 500.

Filters, per column (several columns are ANDed):
- text:   {"filterType": "text", "type": op, "filter": "abc"}; op in equals, notEqual,
          contains, notContains, startsWith, endsWith, blank, notBlank (case-insensitive)
- number: {"filterType": "number", "type": op, "filter": 5, "filterTo": 9}; op in equals,
          notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual, inRange,
          blank, notBlank
- set:    {"filterType": "set", "values": ["a", "b"]}
- two or more conditions: {"filterType": ..., "operator": "AND"|"OR", "conditions": [...]}
  (or the older "condition1"/"condition2" form)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from sqlalchemy import String, and_, false, func, not_, or_, true
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import operators
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import FunctionElement

from .errors import ApiValidationError

MAX_JSON_LENGTH = 20_000
MAX_OPENINGS = 1_000  # objects and arrays in one JSON query parameter
MAX_CONDITIONS = 50
MAX_SET_VALUES = 1_000
# bounds on a whole filter model, checked before anything is compiled: how deep combined
# filters nest, how many conditions and set values it holds in all (each becomes a bound
# parameter; both databases cap those, and compiling is CPU work on the event loop)
MAX_DEPTH = 3
MAX_TOTAL_CONDITIONS = 200
MAX_TOTAL_VALUES = 5_000
MAX_NUMBER = 2**53  # beyond it a number is not exact as a float, and may not bind as an integer
TEXT, NUMBER = "text", "number"


@dataclass(frozen=True)
class FilterColumn:
    """A column callers may filter and sort on: its SQL expression and its kind (text|number)."""

    expression: Any
    kind: str


Columns = Mapping[str, FilterColumn]


def _fail(loc: list[str | int], msg: str) -> ApiValidationError:
    return ApiValidationError(loc, msg, "value_error")


def parse_json(raw: str | None, loc: list[str | int], expected: type) -> Any:
    """The JSON value of a query parameter (None when absent or empty)."""
    if raw is None or not raw.strip():
        return None
    if len(raw) > MAX_JSON_LENGTH:
        raise _fail(loc, f"longer than {MAX_JSON_LENGTH} characters")
    if raw.count("[") + raw.count("{") > MAX_OPENINGS:  # refused before the parser recurses
        raise _fail(loc, "nested too deeply")
    try:
        value = json.loads(raw)
    except ValueError:
        raise _fail(loc, "not valid JSON") from None
    except RecursionError:
        raise _fail(loc, "nested too deeply") from None
    if not isinstance(value, expected):
        raise _fail(loc, f"must be a JSON {'object' if expected is dict else 'array'}")
    return value


def compile_filter(model: Any, columns: Columns, loc: list[str | int]) -> ColumnElement[bool]:
    """One boolean expression for a whole filter model (true when the model is empty)."""
    return build_filter(plan_filter(model, columns, loc), columns)


@dataclass(frozen=True)
class FilterPlan:
    """A filter model validated, without its values: `shape` (hashable: the columns, filter
    kinds and operators, each value a numbered slot, with the Python type of the value where
    the type of its bound parameter depends on it), `values` (the slots' values, as bound),
    and whether every value binds as one parameter (a set filter binds a list: not)."""

    shape: tuple[Any, ...]
    values: tuple[Any, ...]
    bindable: bool


# (left expression, operator, value) -> what the expression compares with: the value itself
# (SQLAlchemy binds it as a literal), or a bound parameter standing for it
Slot = Callable[[Any, Any, Any, int], Any]


def _literal(left: Any, operator: Any, value: Any, index: int) -> Any:
    return value


def build_filter(plan: FilterPlan, columns: Columns, slot: Slot = _literal) -> ColumnElement[bool]:
    """The expression of a plan; `slot` gives what stands for each value (by default the
    value itself: the expression compile_filter has always built)."""
    values = plan.values

    def bind(index: int) -> Callable[[Any, Any], Any]:
        return lambda left, operator: slot(left, operator, values[index], index)

    def node(shape: tuple[Any, ...]) -> ColumnElement[bool]:
        kind = shape[0]
        if kind == "true":
            return true()
        if kind == "all":
            return and_(true(), *(node(part) for part in shape[1]))
        if kind in ("AND", "OR"):
            parts = [node(part) for part in shape[1]]
            return and_(*parts) if kind == "AND" else or_(*parts)
        expression = columns[shape[1]].expression
        if kind == "blank":
            return _blank(expression, shape[2], shape[3])
        if kind == "set":
            _, _, present, with_none = shape
            clauses = [expression.in_(values[present])] if present is not None else []
            if with_none:
                clauses.append(expression.is_(None))
            return or_(*clauses) if clauses else false()
        if kind == "range":
            return and_(
                operators.ge(expression, bind(shape[2])(expression, operators.ge)),
                operators.le(expression, bind(shape[3])(expression, operators.le)),
            )
        table = TEXT_OPERATORS if kind == TEXT else NUMBER_OPERATORS
        return table[shape[2]].build(expression, bind(shape[3]))

    return node(plan.shape)


def plan_filter(model: Any, columns: Columns, loc: list[str | int]) -> FilterPlan:
    """A filter model validated (the 422s of compile_filter, in its order) into a plan."""
    values: list[Any] = []
    sets = [False]
    if model is None:
        return FilterPlan(("true",), (), True)
    if not isinstance(model, dict):
        raise _fail(loc, "must be a JSON object")
    if len(model) > MAX_CONDITIONS:
        raise _fail(loc, f"more than {MAX_CONDITIONS} columns")
    check_bounds(model, loc)
    clauses = []
    for column_id, spec in model.items():
        column = columns.get(column_id)
        if column is None:
            raise _fail([*loc, column_id], f"unknown column {column_id!r}")
        clauses.append(_column_filter(column_id, column, spec, [*loc, column_id], values, sets))
    return FilterPlan(("all", tuple(clauses)), tuple(values), not sets[0])


def check_bounds(model: dict[Any, Any], loc: list[str | int]) -> None:
    """Depth, conditions and set values of a whole model within bounds (422 otherwise),
    counted without recursion, so no input can make the check itself expensive."""
    conditions = values = 0
    stack: list[tuple[Any, int]] = [(spec, 1) for spec in model.values()]
    while stack:
        spec, depth = stack.pop()
        if not isinstance(spec, dict):
            continue
        inner = spec.get("conditions")
        if inner is None and "condition1" in spec:
            inner = [spec.get("condition1"), spec.get("condition2")]
        if isinstance(inner, list):
            if depth > MAX_DEPTH:
                raise _fail(loc, f"filters nest at most {MAX_DEPTH} levels deep")
            stack.extend((item, depth + 1) for item in inner[: MAX_CONDITIONS + 1])
            continue
        conditions += 1
        if isinstance(spec.get("values"), list):
            values += len(spec["values"])
        if conditions > MAX_TOTAL_CONDITIONS:
            raise _fail(loc, f"at most {MAX_TOTAL_CONDITIONS} conditions in one filter")
        if values > MAX_TOTAL_VALUES:
            raise _fail(loc, f"at most {MAX_TOTAL_VALUES} set values in one filter")


def _word(spec: dict[str, Any], key: str, default: str, loc: list[str | int]) -> str:
    """A string-valued member (operator, type, filterType): anything else is a 422."""
    value = spec.get(key, default)
    if not isinstance(value, str):
        raise _fail([*loc, key], f"{key} must be a string")
    return value


def _column_filter(
    column_id: str,
    column: FilterColumn,
    spec: Any,
    loc: list[str | int],
    values: list[Any],
    sets: list[bool],
) -> tuple[Any, ...]:
    if not isinstance(spec, dict):
        raise _fail(loc, "a filter is a JSON object")
    conditions = spec.get("conditions")
    if conditions is None and "condition1" in spec:
        conditions = [c for c in (spec.get("condition1"), spec.get("condition2")) if c is not None]
    if conditions is not None:
        return _combined(column_id, column, spec, conditions, loc, values, sets)
    kind = _word(spec, "filterType", column.kind, loc)
    if kind == "set":
        sets[0] = True
        return _set_filter(column_id, column, spec, loc, values)
    if kind != column.kind:
        raise _fail([*loc, "filterType"], f"column takes {column.kind!r} filters, not {kind!r}")
    condition = _text_condition if kind == TEXT else _number_condition
    return condition(column_id, spec, loc, values)


def _combined(
    column_id: str,
    column: FilterColumn,
    spec: dict[str, Any],
    conditions: Any,
    loc: list[str | int],
    values: list[Any],
    sets: list[bool],
) -> tuple[Any, ...]:
    operator = _word(spec, "operator", "AND", loc)
    if operator not in ("AND", "OR"):
        raise _fail([*loc, "operator"], f"unknown operator {operator!r} (AND or OR)")
    if not isinstance(conditions, list) or not conditions or len(conditions) > MAX_CONDITIONS:
        raise _fail([*loc, "conditions"], f"1 to {MAX_CONDITIONS} conditions")
    parts = tuple(
        _column_filter(
            column_id,
            column,
            {"filterType": _word(spec, "filterType", column.kind, loc), **c},
            [*loc, "conditions", i],
            values,
            sets,
        )
        if isinstance(c, dict)
        else _column_filter(column_id, column, c, [*loc, "conditions", i], values, sets)
        for i, c in enumerate(conditions)
    )
    return (operator, parts)


def _set_filter(
    column_id: str, column: FilterColumn, spec: dict[str, Any], loc: list[str | int],
    values: list[Any],
) -> tuple[Any, ...]:  # fmt: skip
    chosen = spec.get("values")
    if not isinstance(chosen, list) or len(chosen) > MAX_SET_VALUES:
        raise _fail([*loc, "values"], f"a list of at most {MAX_SET_VALUES} values")
    want = float if column.kind == NUMBER else str
    for index, value in enumerate(chosen):
        if value is not None and not _is(value, want):
            raise _fail([*loc, "values", index], f"values of this column are {column.kind}s")
    present = [v for v in chosen if v is not None]
    slot = None
    if present:
        slot = len(values)
        values.append(present)
    return ("set", column_id, slot, None in chosen)


def _is(value: Any, want: type) -> bool:
    if want is float:
        return _is_number(value)
    return isinstance(value, str)


def _is_number(value: Any) -> TypeGuard[int | float]:
    """A JSON number the databases can bind exactly (not a boolean, not huge, not NaN)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return -MAX_NUMBER <= value <= MAX_NUMBER


def _escape_like(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


# what a condition compares with, given its left side and operator (build_filter's slot)
Bind = Callable[[Any, Any], Any]


@dataclass(frozen=True)
class Operator:
    """A condition of the filter language: the value as bound, from the value sent, and the
    expression, from the column's and what stands for the bound value."""

    value: Callable[[Any], Any]
    build: Callable[[Any, Bind], ColumnElement[bool]]


class like_pattern(FunctionElement[str]):
    """The pattern of a LIKE, as it is; on SQLite written `+pattern` (the no-op unary plus).

    SQLite recompiles a statement whose LIKE pattern is a bare bound parameter each time the
    parameter is bound (its value might allow an index on the left side), so each read of a
    cached statement paid a compilation (about 7 µs). The left side here is `lower(column)`,
    which no index serves, so there is nothing to plan by the value: the unary plus keeps
    the value and keeps SQLite from planning by it."""

    type = String()
    inherit_cache = True


@compiles(like_pattern)
def _pattern(element: like_pattern, compiler: Any, **kw: Any) -> str:
    return str(compiler.process(element.clauses, **kw))


@compiles(like_pattern, "sqlite")
def _pattern_sqlite(element: like_pattern, compiler: Any, **kw: Any) -> str:
    return "+" + str(compiler.process(element.clauses, **kw))


def _like(expression: Any, bind: Bind) -> ColumnElement[bool]:
    lowered = func.lower(expression)
    return lowered.like(like_pattern(bind(lowered, operators.like_op)), escape="\\")


def _lower_compare(operator: Any) -> Callable[[Any, Bind], ColumnElement[bool]]:
    def build(expression: Any, bind: Bind) -> ColumnElement[bool]:
        lowered = func.lower(expression)
        return operator(lowered, bind(lowered, operator))  # type: ignore[no-any-return]

    return build


def _compare(operator: Any) -> Callable[[Any, Bind], ColumnElement[bool]]:
    def build(expression: Any, bind: Bind) -> ColumnElement[bool]:
        return operator(expression, bind(expression, operator))  # type: ignore[no-any-return]

    return build


TEXT_OPERATORS: dict[str, Operator] = {
    "equals": Operator(str.lower, _lower_compare(operators.eq)),
    "notEqual": Operator(
        str.lower, lambda e, b: or_(e.is_(None), _lower_compare(operators.ne)(e, b))
    ),
    "contains": Operator(lambda v: f"%{_escape_like(v.lower())}%", _like),
    "notContains": Operator(
        lambda v: f"%{_escape_like(v.lower())}%", lambda e, b: or_(e.is_(None), not_(_like(e, b)))
    ),
    "startsWith": Operator(lambda v: f"{_escape_like(v.lower())}%", _like),
    "endsWith": Operator(lambda v: f"%{_escape_like(v.lower())}", _like),
}
NUMBER_OPERATORS: dict[str, Operator] = {
    "equals": Operator(float, _compare(operators.eq)),
    "notEqual": Operator(float, lambda e, b: or_(e.is_(None), _compare(operators.ne)(e, b))),
    "lessThan": Operator(float, _compare(operators.lt)),
    "lessThanOrEqual": Operator(float, _compare(operators.le)),
    "greaterThan": Operator(float, _compare(operators.gt)),
    "greaterThanOrEqual": Operator(float, _compare(operators.ge)),
}


def _blank(expression: Any, operator: str, kind: str) -> ColumnElement[bool]:
    empty = or_(expression.is_(None), expression == "") if kind == TEXT else expression.is_(None)
    return empty if operator == "blank" else not_(empty)


def _text_condition(
    column_id: str, spec: dict[str, Any], loc: list[str | int], values: list[Any]
) -> tuple[Any, ...]:
    operator = _word(spec, "type", "contains", loc)
    if operator in ("blank", "notBlank"):
        return ("blank", column_id, operator, TEXT)
    if operator not in TEXT_OPERATORS:
        raise _fail([*loc, "type"], f"unknown text operator {operator!r}")
    value = spec.get("filter")
    if not isinstance(value, str):
        raise _fail([*loc, "filter"], "a text filter takes a string")
    values.append(TEXT_OPERATORS[operator].value(value))
    return (TEXT, column_id, operator, len(values) - 1)


def _number_condition(
    column_id: str, spec: dict[str, Any], loc: list[str | int], values: list[Any]
) -> tuple[Any, ...]:
    operator = _word(spec, "type", "equals", loc)
    if operator in ("blank", "notBlank"):
        return ("blank", column_id, operator, NUMBER)
    value = spec.get("filter")
    if not _is_number(value):
        raise _fail([*loc, "filter"], "a number filter takes a number between -2^53 and 2^53")
    if operator == "inRange":
        upper = spec.get("filterTo")
        if not _is_number(upper):
            raise _fail([*loc, "filterTo"], "inRange takes a number filterTo")
        values.extend((value, upper))
        # the bound parameters' types follow the values' (an int, a float), as for a literal
        first = len(values) - 2
        return ("range", column_id, first, first + 1, type(value).__name__, type(upper).__name__)
    if operator not in NUMBER_OPERATORS:
        raise _fail([*loc, "type"], f"unknown number operator {operator!r}")
    values.append(NUMBER_OPERATORS[operator].value(value))
    return (NUMBER, column_id, operator, len(values) - 1)


def compile_sort(model: Any, columns: Columns, loc: list[str | int]) -> list[Any]:
    """ORDER BY clauses for a sort model (empty when absent)."""
    if model is None:
        return []
    if not isinstance(model, list) or len(model) > MAX_CONDITIONS:
        raise _fail(loc, f"a list of at most {MAX_CONDITIONS} sort entries")
    clauses = []
    for index, entry in enumerate(model):
        col_id = entry.get("colId") if isinstance(entry, dict) else None
        if not isinstance(col_id, str) or col_id not in columns:
            raise _fail(
                [*loc, index, "colId"],
                f"unknown column {entry.get('colId') if isinstance(entry, dict) else entry!r}",
            )
        direction = entry.get("sort", "asc")
        if not isinstance(direction, str) or direction not in ("asc", "desc"):
            raise _fail([*loc, index, "sort"], "sort is asc or desc")
        expression = columns[entry["colId"]].expression
        clauses.append(expression.asc() if direction == "asc" else expression.desc())
    return clauses
