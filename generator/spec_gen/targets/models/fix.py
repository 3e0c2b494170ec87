"""The models module datamodel-code-generator wrote, fixed through its syntax tree so it
passes mypy --strict (bare generics typed, JSON defaults on typed fields, base classes that
disagree), and read for the names of its classes."""

from __future__ import annotations

import ast
import re

_IGNORE_BASES = "# type: ignore[misc, unused-ignore]"
_MANY_BASES = re.compile(r"^class \w+\(\s*\w+\s*,", re.MULTILINE)


# an edit of the models module's text: (line, column, end line, end column, new text), lines
# from 1 and columns in UTF-8 bytes, as the ast module gives them
_Edit = tuple[int, int, int, int, str]


def post_processed(source: str) -> tuple[str, int]:
    """datamodel-code-generator's module made to pass mypy --strict (bare generics typed, JSON
    defaults on typed fields, base classes that disagree) and to keep the data as it came
    (kept.py: string formats as checked text, numbers by type), and the longest chain of its
    classes pydantic may build one inside the other (model_depth.build_depth). The module is
    parsed once for all of it: on a large document (DigitalOcean: 24,000 lines) each parse
    costs some 0.2 s on the build's critical path."""
    from .depth import build_depth_of
    from .kept import kept_edits

    source = bare_generics_typed(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:  # the import probe reports it, at its line
        return source, 0
    typed = _typed_default_edits(tree)
    kept, _ = kept_edits(tree)
    edits = typed + kept + _deprecated_root_edits(tree)
    edits += _base_conflict_edits(source, tree) if _MANY_BASES.search(source) else []
    needed = bool(typed) or (_FIELD_ALIASED in source and _calls_field(tree))
    return _with_field_import(_edited(source, edits), tree, needed), build_depth_of(tree)


def _deprecated_root_edits(tree: ast.Module) -> list[_Edit]:
    """`Field(deprecated=True)` on a `RootModel`'s `root` (a deprecated property hoisted into
    a class of its own) without `deprecated`: pydantic makes a deprecated field a read-only
    descriptor, so validation could not set `root` and every value was refused
    (`AttributeError: root`). The property that uses the class says it is deprecated."""
    edits: list[_Edit] = []
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or not any(
            isinstance(b, ast.Subscript) and getattr(b.value, "id", None) == "RootModel"
            for b in node.bases
        ):
            continue
        for field in node.body:
            if not (
                isinstance(field, ast.AnnAssign) and getattr(field.target, "id", None) == "root"
            ):
                continue
            for call in ast.walk(field.annotation):
                if not (
                    isinstance(call, ast.Call)
                    and getattr(call.func, "id", None) == "Field"
                    and any(k.arg == "deprecated" for k in call.keywords)
                ):
                    continue
                kept = ast.Call(
                    call.func, call.args, [k for k in call.keywords if k.arg != "deprecated"]
                )
                edits.append(
                    (
                        call.lineno,
                        call.col_offset,
                        call.end_lineno or call.lineno,
                        call.end_col_offset or 0,
                        ast.unparse(kept),
                    )
                )
    return edits


# datamodel-code-generator imports pydantic's Field under another name when a property is
# named `Field`, but still calls it `Field(...)` in a RootModel's `root` (NameError: the
# class was never complete; met by the mutation fuzzer)
_FIELD_ALIASED = "Field as Field_aliased"


def _calls_field(tree: ast.Module) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Field"
        for node in ast.walk(tree)
    )


def _edited(source: str, edits: list[_Edit]) -> str:
    """`source` with each edit made (they do not overlap)."""
    if not edits:
        return source
    lines = source.splitlines(keepends=True)
    for line, start, end_line, end, text in sorted(edits, reverse=True):
        first, last = lines[line - 1].encode(), lines[end_line - 1].encode()
        lines[line - 1 : end_line] = [(first[:start] + text.encode() + last[end:]).decode()]
    return "".join(lines)


def base_conflicts_ignored(source: str) -> str:
    """Classes whose bases declare one field with different types, marked for mypy.

    datamodel-code-generator writes `allOf: [Base, {anyOf: [...], properties: ...}]` as
    `class X4(X1, X3)`, where X1 (an anyOf branch with the properties) narrows a field X3
    inherits from Base (`object: ObjectEnum` against `object: str`). pydantic takes the first
    base's field, as the document means; mypy wants the same type in both bases (`Definition
    of "object" in base class "X1" is incompatible with definition in base class "X3"`,
    [misc]). Such a class header gets a `type: ignore` on its first line (ruff keeps a comment
    after the opening parenthesis there); `unused-ignore` keeps it quiet where mypy finds the
    two types equivalent after all.
    """
    if not _MANY_BASES.search(source):  # the common case: not worth parsing the module
        return source
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    return _edited(source, _base_conflict_edits(source, tree))


def _base_conflict_edits(source: str, tree: ast.Module) -> list[_Edit]:
    """The class headers `base_conflicts_ignored` marks, as edits."""
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    declared: dict[str, dict[str, str]] = {}

    def fields(name: str) -> dict[str, str]:  # only the classes a multi-base class inherits
        if name not in declared:
            declared[name] = _declared(classes[name])
        return declared[name]

    bases = {
        name: [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
        for name, node in classes.items()
    }
    orders: dict[str, list[str]] = {}

    def order(name: str, around: frozenset[str] = frozenset()) -> list[str]:
        """The class and its ancestors in this module, nearest first (depth first, each once:
        close enough to the MRO for telling ancestors apart)."""
        if name not in orders:
            found = [name]
            for base in bases[name]:
                if base not in around:
                    found += [c for c in order(base, around | {name}) if c not in found]
            orders[name] = found
        return orders[name]

    lines = source.split("\n")
    edits: list[_Edit] = []
    for name, node in classes.items():
        if len(node.bases) < 2:
            continue
        mro = order(name)[1:]
        own = fields(name)
        if not any(
            field not in own
            and field in fields(other)
            and other not in order(base)
            and fields(base)[field] != fields(other)[field]
            for i, base in enumerate(mro)
            for field in fields(base)
            for other in mro[i + 1 :]
        ):
            continue
        start, end = node.lineno - 1, node.body[0].lineno - 1
        header = " ".join(line.strip() for line in lines[start:end])
        head, paren, rest = header.partition("(")
        if not paren or not rest.endswith("):"):
            continue
        text = f"{head}(  {_IGNORE_BASES}\n    {rest[:-2]}\n):\n"
        edits.append((start + 1, 0, end + 1, 0, text))
    return edits


class _Unannotated(ast.NodeTransformer):
    """`Annotated[T, ...]` read as `T`: mypy compares the types, not the constraints."""

    def visit_Subscript(self, node: ast.Subscript) -> ast.AST:
        if isinstance(node.value, ast.Name) and node.value.id == "Annotated":
            inner = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) else node.slice
            found: ast.AST = self.visit(inner)
            return found
        return self.generic_visit(node)


def _union(node: ast.expr) -> list[ast.expr]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union(node.left) + _union(node.right)
    return [node]


def _declared(node: ast.ClassDef) -> dict[str, str]:
    """Fields a class body declares, each with its type (members of a union sorted)."""
    found = {}
    for stmt in node.body:
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            annotation = _Unannotated().visit(stmt.annotation)
            members = sorted(ast.dump(member) for member in _union(annotation))
            found[stmt.target.id] = " | ".join(members)
    return found


_BARE = re.compile(r"(?<![\w.\"'])(list|dict)(?=\]|\s*$|\s*\||\s*=|,)", re.MULTILINE)


# the Python types datamodel-code-generator gives string formats (date-time, duration, uuid,
# uri, ipv4, decimal...): a str default written as it is does not type-check against them
_FORMAT_CLASSES = frozenset(
    {
        "AwareDatetime",
        "NaiveDatetime",
        "datetime",
        "date",
        "time",
        "timedelta",
        "UUID",
        "UUID1",
        "UUID3",
        "UUID4",
        "UUID5",
        "AnyUrl",
        "AnyHttpUrl",
        "HttpUrl",
        "IPv4Address",
        "IPv6Address",
        "IPv4Network",
        "IPv6Network",
        "IPv4Interface",
        "IPv6Interface",
        "Decimal",
    }
)


def typed_string_defaults(source: str) -> str:
    """Defaults datamodel-code-generator writes as JSON values mypy refuses for their field:

    - a str default on a string format's class (`ttl: timedelta = "PT1H"`);
    - an object or array default on a field typed with one of the module's classes
      (`meta: Annotated[ObjectMeta, Field(validate_default=True)] = {}`, `items: list[Foo]
      = [{"text": "abc"}]`: the schema's `default: {}` on an `allOf: [$ref]` property).

    Each is written `Field(default=..., validate_default=True)`, so mypy accepts it and
    pydantic turns it into the field's type (the repair step dropped the defaults it would
    refuse)."""
    tree = ast.parse(source)
    edits = _typed_default_edits(tree)
    return _with_field_import(_edited(source, edits), tree, bool(edits))


def _typed_default_edits(tree: ast.Module) -> list[_Edit]:
    """The defaults `typed_string_defaults` rewrites, as edits."""
    classes = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    edits: list[_Edit] = []
    todo = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    while todo:
        node = todo.pop()
        for field in node.body:
            if isinstance(field, ast.ClassDef):
                todo.append(field)
            if not isinstance(field, ast.AnnAssign) or field.value is None:
                continue
            value = field.value
            # only a str, an object or an array can be one: the annotation's names are read
            # for those alone (most fields have no default, or None)
            if not (
                isinstance(value, ast.Dict | ast.List)
                or (isinstance(value, ast.Constant) and isinstance(value.value, str))
            ):
                continue
            names = {n.id for n in ast.walk(field.annotation) if isinstance(n, ast.Name)}
            if not (_str_on_format(value, names) or _json_on_class(value, names, classes)):
                continue
            text = f"Field(default={ast.unparse(value)}, validate_default=True)"
            edits.append(
                (
                    value.lineno,
                    value.col_offset,
                    value.end_lineno or value.lineno,
                    value.end_col_offset or 0,
                    text,
                )
            )
    return edits


def _with_field_import(source: str, tree: ast.Module, needed: bool) -> str:
    """`source` importing pydantic's `Field` when `needed` and `tree` (its module before the
    edits) does not."""
    if not needed:
        return source
    imported = {
        alias.asname or alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "pydantic"
        for alias in node.names
    }
    if "Field" in imported:
        return source
    return re.sub(
        r"^from pydantic import ",
        "from pydantic import Field\n\\g<0>",
        source,
        count=1,
        flags=re.MULTILINE,
    )


def _str_on_format(value: ast.expr, names: set[str]) -> bool:
    """A str default on a field typed with a string format's class, and not with `str`."""
    return (
        isinstance(value, ast.Constant)
        and isinstance(value.value, str)
        and "str" not in names
        and "Literal" not in names
        and bool(names & _FORMAT_CLASSES)
    )


def _json_on_class(value: ast.expr, names: set[str], classes: set[str]) -> bool:
    """An object, or an array holding values, as the default of a field whose type names one
    of the module's classes (`[]` type-checks as any list; `[Kind.A]` is already typed)."""
    if not (isinstance(value, (ast.Dict, ast.List)) and names & classes):
        return False
    return isinstance(value, ast.Dict) or any(
        isinstance(n, (ast.Dict, ast.Constant)) for n in ast.walk(value)
    )


def bare_generics_typed(source: str) -> str:
    """`RootModel[list]` / `root: list` (an untyped array datamodel-code-generator leaves
    bare) spelled `list[Any]` / `dict[str, Any]`, so the module passes mypy --strict."""
    lines = []
    changed = False
    for line in source.split("\n"):
        code = line.lstrip()
        is_code = (code.startswith("class ") or re.match(r"\w+: ", code)) and '"""' not in code
        if is_code:
            new = _BARE.sub(
                lambda m: "list[Any]" if m.group(1) == "list" else "dict[str, Any]", line
            )
            changed |= new != line
            line = new
        lines.append(line)
    out = "\n".join(lines)
    if changed and not re.search(r"^from typing import .*\bAny\b", out, re.MULTILINE):
        out = out.replace(
            "from __future__ import annotations\n",
            "from __future__ import annotations\n\nfrom typing import Any\n",
            1,
        )
    return out


def any_classes(source: str, names: list[str]) -> str:
    """`source` with a `RootModel[Any]` class for each of `names`: schemas datamodel-code-
    generator wrote no class for (a contradiction such as an object `$ref` with boolean
    `enum` values beside it). The build goes on with them as any value, each a `models`
    warning, rather than stopping on an internal error."""
    imports = "from typing import Any\n\nfrom pydantic import RootModel\n"
    future = "from __future__ import annotations\n"
    if future in source:
        source = source.replace(future, future + "\n" + imports, 1)
    else:
        source = imports + source
    classes = "".join(f"\n\nclass {name}(RootModel[Any]):\n    root: Any\n" for name in names)
    return source.rstrip("\n") + "\n" + classes


def model_names(source: str) -> set[str]:
    return set(re.findall(r"^class (\w+)\(", source, re.MULTILINE))


_CLASS_HEADER = re.compile(r"^class (\w+)\(([^)]*)\):", re.MULTILINE)
_ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "Flag", "IntFlag"})


def enum_class_names(source: str) -> set[str]:
    """The classes of a models module that are enums: based on `Enum`, `StrEnum`, `IntEnum`
    (or `str, Enum`), or on another of its enum classes."""
    bases = {
        name: {base.strip().rsplit(".", 1)[-1] for base in written.split(",")}
        for name, written in _CLASS_HEADER.findall(source)
    }
    found: set[str] = set()
    while True:
        more = {n for n, b in bases.items() if n not in found and b & (_ENUM_BASES | found)}
        if not more:
            return found
        found |= more
