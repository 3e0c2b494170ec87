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


def _parameters(text: str) -> tuple[dict[str, tuple[str, bool]], str] | None:
    """A signature's parameters (name -> annotation, has a default) and its return annotation."""
    try:
        node = ast.parse(text.removeprefix("async ") + ": ...").body[0]
    except SyntaxError:
        return None
    if not isinstance(node, ast.FunctionDef):
        return None
    args = node.args
    positional = [*args.posonlyargs, *args.args]
    defaults = [False] * (len(positional) - len(args.defaults)) + [True] * len(args.defaults)
    found = {
        a.arg: (ast.unparse(a.annotation) if a.annotation else "", d)
        for a, d in zip(positional, defaults, strict=True)
    }
    for a, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        found[a.arg] = (ast.unparse(a.annotation) if a.annotation else "", default is not None)
    return found, ast.unparse(node.returns) if node.returns else ""


def incompatible(kind: str, old: Symbol | None, new: Symbol | None) -> bool:
    """Does this change break code written against OLD (a call, or a read of a field)?"""
    if old is None:
        return False  # something added breaks nobody
    if new is None:
        return True
    if kind != "method" and kind != "function":
        return old.text != new.text
    before, after = _parameters(old.text), _parameters(new.text)
    if before is None or after is None:
        return old.text != new.text
    (old_params, old_return), (new_params, new_return) = before, after
    if old_return != new_return:
        return True
    for name, (annotation, _) in old_params.items():
        if name not in new_params or new_params[name][0] != annotation:
            return True
    return any(
        not has_default and name not in old_params for name, (_, has_default) in new_params.items()
    )


_TS_CLASS = re.compile(r"^export class (\w+) \{$", re.MULTILINE)
_TS_METHOD = re.compile(
    r"^  /\*\*\n(?P<doc>(?:   \*.*\n)+?)   \*/\n  (?P<sig>(?P<name>[A-Za-z_$][\w$]*)\(.*\): .+) \{$",
    re.MULTILINE,
)
_TS_OPERATION = re.compile(r"^   \* ([A-Z]+) (/\S*)$", re.MULTILINE)


def typescript_symbols(source: str) -> dict[str, Symbol]:
    """The methods of the TypeScript client's resource classes (`client-ts/src/resources.ts`):
    `Class.method` -> its signature and the operation its doc comment names (`GET /path`)."""
    found: dict[str, Symbol] = {}
    classes = list(_TS_CLASS.finditer(source))
    for index, match in enumerate(classes):
        end = classes[index + 1].start() if index + 1 < len(classes) else len(source)
        for method in _TS_METHOD.finditer(source, match.end(), end):
            operation = _TS_OPERATION.search(method.group("doc"))
            text = method.group("sig")
            name = f"{match.group(1)}.{method.group('name')}"
            where = (operation.group(1), normalise(operation.group(2))) if operation else None
            found[name] = Symbol(name, "ts-method", text, where, _names(text))
    return found
