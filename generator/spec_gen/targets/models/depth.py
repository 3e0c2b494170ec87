"""Room on the Python stack for pydantic to build a models module's recursive classes.

pydantic builds a class's validator when the class is created, if every name it refers to
is defined by then, and otherwise when `model_rebuild()` is called at the end of the module.
A class built then that refers to classes not built yet builds them inline, depth first,
about 25 Python frames each: through a strongly connected group of classes (a formula
language whose every operator takes any operator as input, as HubSpot's property
expressions do) that is one nested build per class of the group, and beyond 40 classes or so
the interpreter's default recursion limit (1000) is exceeded: `RecursionError` on import.

`recursion_headroom` measures, in one module's source, the longest chain of classes such a
build can go through (the classes not complete when created, in the order
datamodel-code-generator wrote them; a group of mutually recursive classes counts with all
its members) and, when it is long, raises the recursion limit at the top of the module
(never lowering it) by enough frames for that chain.
"""

from __future__ import annotations

import ast

from ..client.models import _defined, _names

FRAMES_PER_CLASS = 40  # measured: about 25 frames per nested class build (pydantic 2.14)
BASE_FRAMES = 1000  # the interpreter's default limit: what the importing code may be using
LONGEST_SAFE_CHAIN = 30  # this many nested builds fit in the default limit (40 do)


def build_depth(source: str) -> int:
    """The longest chain of classes a class's validator build may go through in `source`."""
    return build_depth_of(ast.parse(source))


def build_depth_of(tree: ast.Module) -> int:
    """`build_depth` of a module already parsed."""
    order: list[str] = []
    refers: dict[str, set[str]] = {}
    for stmt in tree.body:
        for name in _defined(stmt):
            if name not in refers:
                order.append(name)
                refers[name] = set()
    wanted = frozenset(order)
    for stmt in tree.body:
        names = _defined(stmt)
        if names:
            found = _names(stmt, wanted)
            for name in names:
                refers[name] |= found - {name}  # a class refers to itself when created
    return depth_of(order, refers)


def depth_of(order: list[str], refers: dict[str, set[str]]) -> int:
    """`build_depth` of the classes defined in `order`, each referring to `refers[name]`."""
    # complete when created: everything it refers to is defined before it and complete
    complete: set[str] = set()
    for name in order:
        if refers[name] <= complete:
            complete.add(name)
    pending = [name for name in order if name not in complete]
    graph = {name: sorted(refers[name] - complete) for name in pending}
    return _longest_chain(pending, graph)


def _longest_chain(nodes: list[str], graph: dict[str, list[str]]) -> int:
    """The heaviest path through the graph's strongly connected components, each weighing
    its number of nodes (a depth-first walk may go through every node of one)."""
    components = _components(nodes, graph)
    component_of = {node: index for index, members in enumerate(components) for node in members}
    # Tarjan's components come out in reverse topological order: successors first
    weight: list[int] = []
    for index, members in enumerate(components):
        after = {
            component_of[target]
            for node in members
            for target in graph[node]
            if component_of[target] != index
        }
        weight.append(len(members) + max((weight[i] for i in after), default=0))
    return max(weight, default=0)


def _components(nodes: list[str], graph: dict[str, list[str]]) -> list[list[str]]:
    """Tarjan's strongly connected components, without recursion."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for root in nodes:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, position = work.pop()
            if position == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            targets = graph[node]
            if position < len(targets):
                work.append((node, position + 1))
                target = targets[position]
                if target not in index:
                    work.append((target, 0))
                elif target in on_stack:
                    low[node] = min(low[node], index[target])
                continue
            if low[node] == index[node]:
                members = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    members.append(member)
                    if member == node:
                        break
                components.append(members)
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return components


def needs_headroom(depth: int) -> bool:
    """Whether a module whose longest chain is `depth` classes needs a higher limit.

    A module split from another (the client's models, from the one datamodel-code-generator
    wrote) never needs it when that one does not: its classes are a subset, in the same order,
    and the classes it imports are complete when imported, so its chains are among the
    other's."""
    return depth > LONGEST_SAFE_CHAIN


def recursion_headroom(source: str, depth: int | None = None) -> str:
    """`source`, with the recursion limit raised at its top when its classes need it
    (`depth`: its `build_depth` when known)."""
    if depth is None:
        depth = build_depth(source)
    if not needs_headroom(depth):
        return source
    frames = BASE_FRAMES + FRAMES_PER_CLASS * depth
    guard = (
        f"# pydantic may build up to {depth} of the recursive classes below one inside the\n"
        "# other, some 25 frames each: more than the default recursion limit allows\n"
        f"sys.setrecursionlimit(max(sys.getrecursionlimit(), {frames}))\n\n\n"
    )
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    first = next(
        stmt for stmt in tree.body if not isinstance(stmt, ast.Import | ast.ImportFrom | ast.Expr)
    )
    start = first.lineno - 1
    if isinstance(first, ast.ClassDef) and first.decorator_list:
        start = first.decorator_list[0].lineno - 1
    future = "from __future__ import annotations\n"
    head = "".join(lines[:start])
    if future in head:
        head = head.replace(future, f"{future}\nimport sys\n", 1)
    else:
        head = f"import sys\n{head}"
    return head + guard + "".join(lines[start:])
