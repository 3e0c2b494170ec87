"""The client's models, split so that a call builds only the model classes it needs.

The API layer keeps one `models.py`; the client gets a package `models/` whose `__init__`
names every class (for type checkers and `from <package>.models import X`) and imports
each from its module on first use (PEP 562). The modules group the classes by *who uses
them* (the users are the client's operations, each importing its classes when it runs): a
class reached, directly or through the classes it refers to, by the operations `{a, b}`
lives in the module of `{a, b}`. A class refers only to classes used by at least the same
operations, so a module imports only modules of strictly larger groups: no import cycle,
and the first call of an operation builds exactly the classes it can take or return.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ...core.graphs import reached
from ...core.naming import MODULE_NAME_MAX, snake, unique

OTHER = "_other"  # the classes no operation reaches (the schemas' other components)


@dataclass
class _Chunk:
    """One top-level statement of the models module, with the text that precedes it."""

    text: str
    defines: list[str] = field(default_factory=list)
    refers: set[str] = field(default_factory=set)


def _defined(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
        return [stmt.name]
    if isinstance(stmt, ast.Assign):
        return [t.id for t in stmt.targets if isinstance(t, ast.Name)]
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _names(node: ast.AST, wanted: frozenset[str]) -> set[str]:
    """Every name of `wanted` a statement reads, quoted forward references included."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif (
            isinstance(sub, ast.Constant)
            and isinstance(sub.value, str)
            # parsing is the slow part: only a string naming a wanted class can matter
            and not wanted.isdisjoint(_WORD.findall(sub.value))
        ):
            try:
                expr = ast.parse(sub.value, mode="eval")
            except SyntaxError:
                continue
            found |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    return found & wanted


_WORD = re.compile(r"[^\W\d]\w*")


def _segment(lines: list[str], stmt: ast.stmt) -> str:
    """`ast.get_source_segment` for a statement, from the module's lines (that function
    splits the whole source again on every call)."""
    end = stmt.end_lineno or stmt.lineno
    end_col = stmt.end_col_offset if stmt.end_col_offset is not None else None
    chosen = [line.encode() for line in lines[stmt.lineno - 1 : end]]
    if len(chosen) == 1:
        return chosen[0][stmt.col_offset : end_col].decode()
    first = chosen[0][stmt.col_offset :]
    last = chosen[-1][:end_col]
    return b"".join([first, *chosen[1:-1], last]).decode()


def module_names(groups: Mapping[frozenset[str], list[str]]) -> dict[frozenset[str], str]:
    """Each group's module: `_other` for the classes no user reaches, else named after the
    group's first class (`ContactRecord` -> `_contact_record`), made unique in source order."""
    names: dict[frozenset[str], str] = {}
    taken = {OTHER}
    for users, classes in groups.items():
        if not users:
            names[users] = OTHER
            continue
        base = "_" + snake(classes[0]).strip("_")[:MODULE_NAME_MAX].rstrip("_")
        names[users] = unique(base, taken, separator="_")
    return names


def _reach(start: Iterable[str], graph: Mapping[str, set[str]]) -> set[str]:
    return reached((name for name in start if name in graph), graph.__getitem__)


# an enum class's `_missing_`: open while an answer is read (templates/client/_enums.py.j2)
OPEN_ENUM = """
    @classmethod
    def _missing_(cls, value: object) -> object:
        return open_member(cls, value)
"""
ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum"})


def _is_enum(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, ast.ClassDef):
        return False
    names = {b.id if isinstance(b, ast.Name) else getattr(b, "attr", "") for b in stmt.bases}
    return bool(names & ENUM_BASES)


def _client_imports(stmt: ast.Import | ast.ImportFrom, text: str) -> list[str]:
    """An import of the models module as the client's models modules write it: a relative
    one (`from ._formats import ...`) one package further up; pydantic's `BaseModel` the
    client's own (`_model.py`: the fields an answer's schema does not declare are kept)."""
    if not isinstance(stmt, ast.ImportFrom):
        return [text]
    if stmt.level:
        return [text.replace("from .", "from ..", 1)]
    if stmt.module != "pydantic" or not any(
        a.name == "BaseModel" and a.asname is None for a in stmt.names
    ):
        return [text]
    rest = [a for a in stmt.names if not (a.name == "BaseModel" and a.asname is None)]
    out = ["from .._model import AliasedModel, BaseModel"]
    if rest:
        names = ", ".join(a.name if a.asname is None else f"{a.name} as {a.asname}" for a in rest)
        out.append(f"from pydantic import {names}")
    return out


def _aliased_base(stmt: ast.ClassDef, aliased: set[str]) -> bool:
    """Whether a class needs `_model.AliasedModel` as a base of its own (noted in `aliased`):
    a field of its own read under another name than its attribute's (`Field(alias="Name")`
    on `name`), and no base of the module that has it already."""
    bases = {b.id for b in stmt.bases if isinstance(b, ast.Name)}
    if bases & aliased:
        aliased.add(stmt.name)
        return False
    for item in stmt.body:
        if not (isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name)):
            continue
        for call in ast.walk(item.annotation):
            if isinstance(call, ast.Call) and any(
                k.arg == "alias"
                and isinstance(k.value, ast.Constant)
                and k.value.value != item.target.id
                for k in call.keywords
            ):
                aliased.add(stmt.name)
                return True
    return False


def _with_aliased_base(text: str, stmt: ast.ClassDef, lines: list[str], start: int) -> str:
    """A class statement's text (from line `start`) with `AliasedModel` for its `BaseModel`
    base, or beside its other bases."""
    model = next((b for b in stmt.bases if isinstance(b, ast.Name) and b.id == "BaseModel"), None)
    anchor = model or stmt.bases[-1]
    head = "".join(lines[start : anchor.lineno - 1])
    line = lines[anchor.lineno - 1].encode()
    end = anchor.end_col_offset or 0
    if model is not None:
        edited = line[: anchor.col_offset] + b"AliasedModel" + line[end:]
    else:
        edited = line[:end] + b", AliasedModel" + line[end:]
    return head + edited.decode() + text[len(head) + len(lines[anchor.lineno - 1]) :]


def split_models(
    source: str, uses: Mapping[str, Iterable[str]]
) -> tuple[dict[str, str], dict[str, str]]:
    """`source` (one models module) split by `uses` (user -> model classes it names).

    Returns (module name -> source, class name -> module name), in source order."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    header = (
        [line for line in lines[: tree.body[0].lineno - 1] if line.startswith("#")]
        if tree.body
        else []
    )
    imports: list[str] = []
    statements: list[tuple[str, ast.stmt]] = []
    previous_end = 0
    aliased: set[str] = set()  # the classes `_model.AliasedModel` is a base of
    for stmt in tree.body:
        end = stmt.end_lineno or stmt.lineno
        text = "".join(lines[previous_end:end])  # comments and decorators included
        previous_start, previous_end = previous_end, end
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            # a relative import (`from ._formats import ...`) reaches one package further up
            # from the models package
            imports += _client_imports(stmt, _segment(lines, stmt))
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a module docstring
        if _is_enum(stmt):
            text += OPEN_ENUM
        elif isinstance(stmt, ast.ClassDef) and stmt.bases and _aliased_base(stmt, aliased):
            text = _with_aliased_base(text, stmt, lines, previous_start)
        statements.append((text, stmt))
    wanted = frozenset(name for _, stmt in statements for name in _defined(stmt))
    chunks = [_Chunk(text, _defined(stmt), _names(stmt, wanted)) for text, stmt in statements]
    defined = {name: chunk for chunk in chunks for name in chunk.defines}
    graph = {name: (chunk.refers & defined.keys()) - {name} for name, chunk in defined.items()}
    users = {user: _reach(names, graph) for user, names in sorted(uses.items())}
    users_of: dict[str, list[str]] = {}
    for user, seen in users.items():  # in user order, as the groups' keys were built
        for name in seen:
            users_of.setdefault(name, []).append(user)
    groups: dict[frozenset[str], list[str]] = {}  # in source order of their first class
    for name in defined:
        groups.setdefault(frozenset(users_of.get(name, ())), []).append(name)
    modules_of = module_names(groups)
    home = {name: modules_of[group] for group, names in groups.items() for name in names}
    owned: dict[str, set[str]] = {}
    for name, where in home.items():
        owned.setdefault(where, set()).add(name)
    bodies: dict[str, list[str]] = {}
    refs: dict[str, set[str]] = {}
    last = OTHER
    for chunk in chunks:
        owner = (
            chunk.defines[0]
            if chunk.defines
            else next((n for n in sorted(chunk.refers) if n in defined), None)
        )
        module = home[owner] if owner else last  # e.g. `Node.model_rebuild()`: with Node
        last = module
        bodies.setdefault(module, []).append(chunk.text)
        refs.setdefault(module, set()).update(chunk.refers & defined.keys())
    modules: dict[str, str] = {}
    for module in sorted(bodies):
        own = owned.get(module, set())
        cross: dict[str, list[str]] = {}
        for name in sorted(refs[module] - own):
            cross.setdefault(home[name], []).append(name)
        if module in cross:  # cannot happen: a class's module is where it is defined
            raise RuntimeError(f"model split: {module} imports itself")
        parts = [*header, *(f"{line}\n" for line in imports)]
        if any(OPEN_ENUM in body for body in bodies[module]):
            parts.append("\nfrom .._enums import open_member\n")
        parts += [
            f"from .{where} import {', '.join(names)}\n" for where, names in sorted(cross.items())
        ]
        parts += ["\n", *bodies[module]]
        modules[module] = "".join(parts).rstrip() + "\n"
    return modules, {name: home[name] for name in sorted(home)}
