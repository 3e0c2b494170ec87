"""The client's models, split so that a namespace builds only the model classes it needs.

The API layer keeps one `models.py`; the client gets a package `models/` whose `__init__`
names every class (for type checkers and `from <package>.models import X`) and imports
each from its module on first use (PEP 562). The modules group the classes by *who uses
them*: a class reached (directly or through the classes it refers to) by the namespaces
`{a, b}` lives in the module of `{a, b}`. A class refers only to classes used by at least
the same namespaces, so a module imports only modules of strictly larger groups: no import
cycle, and touching a namespace builds exactly the classes its operations can return or take.
"""

from __future__ import annotations

import ast
import hashlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

COMMON = "_common"  # the classes every user reaches
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


def _names(node: ast.AST) -> set[str]:
    """Every name a statement reads, quoted forward references included."""
    found: set[str] = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name):
            found.add(sub.id)
        elif isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            try:
                expr = ast.parse(sub.value, mode="eval")
            except SyntaxError:
                continue
            found |= {n.id for n in ast.walk(expr) if isinstance(n, ast.Name)}
    return found


def module_name(users: frozenset[str], everyone: frozenset[str]) -> str:
    """The module of the classes reached by exactly `users` (stable, short, importable)."""
    if not users:
        return OTHER
    if users == everyone and len(everyone) > 1:
        return COMMON
    ordered = sorted(users)
    joined = "__".join(ordered)
    if len(ordered) <= 3 and len(joined) <= 48:
        return f"_for_{joined}"
    return f"{COMMON}_{hashlib.sha1(','.join(ordered).encode()).hexdigest()[:8]}"


def _reach(start: Iterable[str], graph: Mapping[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = [name for name in start if name in graph]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph[name] - seen)
    return seen


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
    chunks: list[_Chunk] = []
    previous_end = 0
    for stmt in tree.body:
        end = stmt.end_lineno or stmt.lineno
        text = "".join(lines[previous_end:end])  # comments and decorators included
        previous_end = end
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            imports.append(ast.get_source_segment(source, stmt) or "")
            continue
        if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
            continue  # a module docstring
        chunks.append(_Chunk(text, _defined(stmt), _names(stmt)))
    defined = {name: chunk for chunk in chunks for name in chunk.defines}
    graph = {name: (chunk.refers & defined.keys()) - {name} for name, chunk in defined.items()}
    users = {user: _reach(names, graph) for user, names in sorted(uses.items())}
    everyone = frozenset(users)
    home: dict[str, str] = {}
    for name in defined:
        home[name] = module_name(
            frozenset(u for u, seen in users.items() if name in seen), everyone
        )
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
        own = {name for name, where in home.items() if where == module}
        cross: dict[str, list[str]] = {}
        for name in sorted(refs[module] - own):
            cross.setdefault(home[name], []).append(name)
        if module in cross:  # cannot happen: a class's module is where it is defined
            raise RuntimeError(f"model split: {module} imports itself")
        parts = [*header, *(f"{line}\n" for line in imports)]
        parts += [
            f"from .{where} import {', '.join(names)}\n" for where, names in sorted(cross.items())
        ]
        parts += ["\n", *bodies[module]]
        modules[module] = "".join(parts).rstrip() + "\n"
    return modules, {name: home[name] for name in sorted(home)}
