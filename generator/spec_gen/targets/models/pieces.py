"""The models module in pieces, one per class, and put together again.

datamodel-code-generator writes one module for the schemas it is given. `split` cuts it into
one piece per schema (the statement defining its class or alias, the statements that only
call on it after it, `X.model_rebuild()`, the imports its text uses, the classes it names),
so that a piece can be kept (build/models_cache.py) and a module assembled from pieces made
by different runs. `assembled` writes them in one order that is a function of the pieces
alone (`canonical_order`): a class after every class it names, the members of a group of
classes naming each other (a strongly connected component) together and in the order the
tool wrote them (its `model_rebuild()` lines after the group), ties broken by the models
document's order. A cold build goes through the same split and assembly as a rebuild: the
module is the same, whichever run made each piece.

A run whose classes are not exactly the schemas it was given (a class the tool named itself,
for an inline schema, a schema it renamed) cannot be split: `split` answers None.
"""

from __future__ import annotations

import ast
import heapq
from collections.abc import Iterable, Mapping
from typing import Any

from ..client.models import _WORD, _defined
from .depth import _components, depth_of

Piece = dict[str, Any]  # JSON: text, after, imports, refers, index, notes

FUTURE = "from __future__ import annotations"


def _bound(stmt: ast.Import | ast.ImportFrom) -> dict[str, list[Any]]:
    """The names an import statement binds -> [module (dots for a relative one), name, as]."""
    out: dict[str, list[Any]] = {}
    for alias in stmt.names:
        if isinstance(stmt, ast.Import):
            out[alias.asname or alias.name.split(".")[0]] = ["", alias.name, alias.asname]
        else:
            module = "." * stmt.level + (stmt.module or "")
            out[alias.asname or alias.name] = [module, alias.name, alias.asname]
    return out


def _text(lines: list[str], stmt: ast.stmt) -> str:
    first = min([stmt.lineno, *(d.lineno for d in getattr(stmt, "decorator_list", []))])
    return "\n".join(lines[first - 1 : stmt.end_lineno or stmt.lineno])


def split(source: str, names: Iterable[str], notes: list[str]) -> dict[str, Piece] | None:
    """The pieces of `source`, one per name of `names` (the schemas of the run), each with
    the notes (the tool's warnings) that name its class, a note naming none with every
    piece; None when the module is not made of exactly those classes."""
    wanted = frozenset(names)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines()
    imported: dict[str, list[Any]] = {}
    pieces: dict[str, Piece] = {}
    statements: dict[str, list[ast.stmt]] = {}
    for stmt in tree.body:
        if isinstance(stmt, ast.Import | ast.ImportFrom):
            if not (isinstance(stmt, ast.ImportFrom) and stmt.module == "__future__"):
                imported.update(_bound(stmt))
            continue
        defined = _defined(stmt)
        if len(defined) == 1 and defined[0] in wanted and defined[0] not in pieces:
            name = defined[0]
            pieces[name] = {"text": _text(lines, stmt), "after": [], "index": len(pieces)}
            statements[name] = [stmt]
            continue
        called = _called_on(stmt)
        if called in pieces:
            pieces[called]["after"].append(_text(lines, stmt))
            statements[called].append(stmt)
            continue
        return None
    if set(pieces) != wanted:
        return None
    words = {note: set(_WORD.findall(note)) for note in notes}
    for name, piece in pieces.items():
        own = _read(statements[name][0])
        used = own.union(*map(_read, statements[name][1:]))
        piece["imports"] = sorted(imported[n] for n in used if n in imported)
        # every name its statement reads (the classes among them are picked when assembled:
        # a piece's text, and so its names, do not depend on the run that made it)
        piece["refers"] = sorted(own - imported.keys() - {name})
        piece["notes"] = [n for n in notes if name in words[n] or not words[n] & wanted]
    return pieces


def _read(stmt: ast.stmt) -> set[str]:
    """The names a statement reads (`ast.walk`'s nodes, walked here at half its cost)."""
    found: set[str] = set()
    stack: list[Any] = [stmt]
    name, constant, load, tree = ast.Name, ast.Constant, ast.Load, ast.AST
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is name:
            if type(node.ctx) is load:  # not a field's or an enum member's own name
                found.add(node.id)
        elif kind is not constant:
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    stack.extend(v for v in value if isinstance(v, tree))
                elif isinstance(value, tree):
                    stack.append(value)
    return found


def _called_on(stmt: ast.stmt) -> str | None:
    """`X` of a statement `X.method(...)`."""
    if (
        isinstance(stmt, ast.Expr)
        and isinstance(stmt.value, ast.Call)
        and isinstance(stmt.value.func, ast.Attribute)
        and isinstance(stmt.value.func.value, ast.Name)
    ):
        return stmt.value.func.value.id
    return None


def canonical_order(pieces: Mapping[str, Piece], order: list[str]) -> list[list[str]]:
    """The pieces' classes in groups (a strongly connected component of the classes naming
    each other), each group after the groups it names, ties broken by `order` (the models
    document's); inside a group in the order the tool wrote them."""
    names = [name for name in order if name in pieces]
    graph = {name: [r for r in pieces[name]["refers"] if r in pieces] for name in names}
    position = {name: i for i, name in enumerate(names)}
    components = _components(names, graph)
    component_of = {name: i for i, members in enumerate(components) for name in members}
    needs: list[set[int]] = [set() for _ in components]
    needed_by: list[list[int]] = [[] for _ in components]
    for i, members in enumerate(components):
        for name in members:
            for target in graph[name]:
                j = component_of[target]
                if j != i and j not in needs[i]:
                    needs[i].add(j)
                    needed_by[j].append(i)
    first = [min(position[name] for name in members) for members in components]
    ready = [(first[i], i) for i, needed in enumerate(needs) if not needed]
    heapq.heapify(ready)
    out: list[list[str]] = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(sorted(components[i], key=lambda name: pieces[name]["index"]))
        for j in needed_by[i]:
            needs[j].discard(i)
            if not needs[j]:
                heapq.heappush(ready, (first[j], j))
    return out


def _import_lines(pieces: Iterable[Piece]) -> list[str]:
    plain: set[str] = set()
    by_module: dict[str, set[str]] = {}
    for piece in pieces:
        for module, name, alias in piece["imports"]:
            spelled = name if alias is None else f"{name} as {alias}"
            if module:
                by_module.setdefault(module, set()).add(spelled)
            else:
                plain.add(spelled)
    lines = [f"import {name}" for name in sorted(plain)]
    modules = sorted(m for m in by_module if not m.startswith("."))
    modules += sorted(m for m in by_module if m.startswith("."))
    lines += [f"from {m} import {', '.join(sorted(by_module[m]))}" for m in modules]
    return lines


def assembled(
    pieces: Mapping[str, Piece], order: list[str], header: str
) -> tuple[str, list[str], int]:
    """The models module made of `pieces` (`header`: its first comment lines), the notes of
    its pieces (each once, in the module's order) and its build depth (depth.py)."""
    groups = canonical_order(pieces, order)
    chosen = [pieces[name] for group in groups for name in group]
    blocks: list[str] = []
    for group in groups:
        blocks += [pieces[name]["text"] for name in group]
        after = [line for name in group for line in pieces[name]["after"]]
        if after:
            blocks.append("\n".join(after))
    head = [header, "", FUTURE, "", *_import_lines(chosen)]
    source = "\n".join(head) + "\n\n\n" + "\n\n\n".join(blocks) + "\n"
    notes: list[str] = []
    for piece in chosen:
        notes += [note for note in piece["notes"] if note not in notes]
    sequence = [name for group in groups for name in group]
    depth = depth_of(
        sequence, {name: set(pieces[name]["refers"]) & set(pieces) for name in sequence}
    )
    return source, notes, depth
