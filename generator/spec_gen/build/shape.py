"""Whether two versions of a generated module differ only in prose: the same code to import.

A description edited in a spec changes a docstring of the interfaces and the client's
resources, a model class's docstring, a `Field(description=...)`: text the probe's checks
(the module imports, its classes' annotations resolve, its routes mount) do not depend on.
`same_code(old, new)` compares the two sources' syntax trees with that prose blanked:
docstrings (a string statement first in a module, class or function body) and the string
values of the `description`, `summary` and `title` keyword arguments. Comments and layout
are not in a syntax tree. A source that does not parse is never the same as anything.
"""

from __future__ import annotations

import ast

PROSE_KEYWORDS = frozenset({"description", "summary", "title"})
_BODIES = (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


class _Blank(ast.NodeTransformer):
    def generic_visit(self, node: ast.AST) -> ast.AST:
        if isinstance(node, _BODIES) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                first.value.value = ""
        if (
            isinstance(node, ast.keyword)
            and node.arg in PROSE_KEYWORDS
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            node.value.value = ""
        return super().generic_visit(node)


def code_of(source: str) -> str | None:
    """The module's syntax tree with its prose blanked, dumped (None: it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    return ast.dump(_Blank().visit(tree))


def same_code(old: str, new: str) -> bool:
    """Whether `old` and `new` are one module's code, differing at most in prose."""
    if old == new:
        return True
    before = code_of(old)
    return before is not None and before == code_of(new)
