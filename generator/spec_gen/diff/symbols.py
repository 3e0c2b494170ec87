"""The symbols of a generated Python module, read with `ast`: functions with their
signatures, classes with their fields, enum members and methods."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

OPERATION_LINE = re.compile(
    r"^\s*(GET|PUT|POST|DELETE|OPTIONS|HEAD|PATCH|TRACE) (/\S*)\s*$", re.MULTILINE
)


@dataclass(frozen=True)
class Symbol:
    name: str  # `Class.method`, `Class.field`, `Class`, `function`
    kind: str  # method, field, class, function
    text: str  # what identifies its shape: the signature, `field: type = default`, bases
    operation: tuple[str, str] | None = None  # (METHOD, path with `{}`) a docstring names
    names: frozenset[str] = frozenset()  # identifiers its text mentions (to find models)


def normalise(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def _names(text: str) -> frozenset[str]:
    return frozenset(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))


def _signature(node: ast.FunctionDef | ast.AsyncFunctionDef) -> str:
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


def _operation(node: ast.AST) -> tuple[str, str] | None:
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return None
    doc = ast.get_docstring(node) or ""
    found = OPERATION_LINE.search(doc)
    return (found.group(1), normalise(found.group(2))) if found else None


def module_symbols(source: str) -> dict[str, Symbol]:
    """Every top-level function and class of SOURCE, and what each class holds."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    found: dict[str, Symbol] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            text = _signature(node)
            found[node.name] = Symbol(node.name, "function", text, _operation(node), _names(text))
        elif isinstance(node, ast.ClassDef):
            bases = ", ".join(ast.unparse(b) for b in node.bases)
            found[node.name] = Symbol(node.name, "class", f"class {node.name}({bases})")
            for item in node.body:
                symbol = _member(node.name, item)
                if symbol is not None:
                    found[symbol.name] = symbol
    return found


def _member(owner: str, item: ast.stmt) -> Symbol | None:
    if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef):
        if item.name.startswith("_"):
            return None
        text = _signature(item)
        return Symbol(f"{owner}.{item.name}", "method", text, _operation(item), _names(text))
    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
        text = f"{item.target.id}: {ast.unparse(item.annotation)}"
        if item.value is not None:
            text += f" = {ast.unparse(item.value)}"
        return Symbol(f"{owner}.{item.target.id}", "field", text, None, _names(text))
    if (
        isinstance(item, ast.Assign)
        and len(item.targets) == 1
        and isinstance(item.targets[0], ast.Name)
        and not item.targets[0].id.startswith("_")
        and item.targets[0].id != "model_config"
    ):
        text = f"{item.targets[0].id} = {ast.unparse(item.value)}"
        return Symbol(f"{owner}.{item.targets[0].id}", "field", text, None, _names(text))
    return None
