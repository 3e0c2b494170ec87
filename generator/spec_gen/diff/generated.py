"""`spec-gen diff --generated`: what a spec change does to the generated code.

Both sides are rendered in memory with the current templates (so only the spec's change
shows), through one call into the build pipeline (`build_files`). Generated Python modules
are compared symbol by symbol with `ast`: client methods and their signatures, models and
their fields, the service interface methods a service must update. Each symbol is tied
to the operation its docstring names (`GET /api/v1/contacts`), and a model to the
operations whose signatures mention it.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..core.config import Config
from .model import Change
from .symbols import Symbol, incompatible, module_symbols, normalise, typescript_symbols

MAX_LINES = 12  # symbols listed under one change before "and N more"


def build_files(config: Config, spec_root: Path) -> dict[str, str]:
    """The generated tree for SPEC_ROOT, in memory (the only call into the build pipeline)."""
    from ..build.pipeline import render_tree

    return render_tree(config.with_overrides(spec=spec_root), None).files


TYPESCRIPT_RESOURCES = "client-ts/src/resources.ts"  # the `typescript` target's methods


def role_of(path: str) -> str:
    parts = path.split("/")
    if path == TYPESCRIPT_RESOURCES:
        return "TypeScript client method"
    if parts[0] == "client" and "resources" in parts:
        return "client method"
    if parts[0] == "server" and "interfaces" in parts:
        return "service interface"
    if parts[-1] == "models.py":
        return f"{parts[0]} model"
    return f"{parts[0]} code"


@dataclass(frozen=True)
class SymbolChange:
    file: str
    name: str
    change: str  # added, removed, changed
    old: Symbol | None
    new: Symbol | None

    @property
    def role(self) -> str:
        return role_of(self.file)

    @property
    def operation(self) -> tuple[str, str] | None:
        symbol = self.new or self.old
        return symbol.operation if symbol is not None else None

    @property
    def incompatible(self) -> bool:
        symbol = self.old or self.new
        return incompatible(symbol.kind if symbol else "", self.old, self.new)

    @property
    def mentions(self) -> frozenset[str]:
        return (self.old.names if self.old else frozenset()) | (
            self.new.names if self.new else frozenset()
        )

    def markdown(self) -> str:
        text = f"{self.role} `{self.name}` {self.change}"
        if self.change == "changed" and self.old and self.new:
            return f"{text}: `{self.new.text}` (was `{self.old.text}`)"
        shown = self.new or self.old
        return f"{text}: `{shown.text}`" if shown else text

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "role": self.role,
            "symbol": self.name,
            "change": self.change,
            "incompatible": self.incompatible,
            "old": self.old.text if self.old else None,
            "new": self.new.text if self.new else None,
        }


@dataclass
class FileSummary:
    path: str
    status: str  # added, removed, changed
    added_lines: int
    removed_lines: int
    symbols: dict[str, int] = field(default_factory=dict)  # change -> count


@dataclass
class GeneratedView:
    files: list[FileSummary]
    symbols: list[SymbolChange]
    changes: list[Change]
    reach: dict[tuple[str, str], frozenset[str]] = field(default_factory=dict)  # op -> model names
    flags: dict[tuple[str, str], str] = field(default_factory=dict)
    _first: set[int] = field(default_factory=set)

    def __post_init__(self) -> None:
        seen: set[tuple[str, str]] = set()
        for change in self.changes:
            key = (change.method, normalise(change.path))
            if key not in seen:
                seen.add(key)
                self._first.add(id(change))
        for key in seen:
            flag = self._flag(key)
            if flag:
                self.flags[key] = flag

    def related(self, method: str, path: str) -> list[SymbolChange]:
        """The symbol changes of one operation: its methods, then the models they reach."""
        key = (method, normalise(path))
        own = [s for s in self.symbols if s.operation == key]
        reach = self.reach.get(key, frozenset())
        models = [
            s
            for s in self.symbols
            if s.operation is None and s.role.endswith("model") and s.name.split(".")[0] in reach
        ]
        return own + models

    def _flag(self, key: tuple[str, str]) -> str:
        ops = [c for c in self.changes if (c.method, normalise(c.path)) == key]
        breaking = any(c.level == "breaking" for c in ops)
        client = [s for s in self.related(*key) if s.role in ("client method", "client model")]
        broken = [s for s in client if s.incompatible]
        if breaking and not any(s.change != "added" for s in client) and ops[0].method:
            return (
                "breaking, yet no generated client signature or model changes:"
                " callers find out at run time"
            )
        if broken and not breaking:
            names = ", ".join(f"`{s.name}`" for s in broken[:3])
            return f"the generated client changes incompatibly ({names}), yet no change here is breaking"
        return ""

    def markdown_for(self, change: Change) -> list[str]:
        if id(change) not in self._first:
            return []
        key = (change.method, normalise(change.path))
        lines = [f"**Flag:** {self.flags[key]}"] if key in self.flags else []
        related = [s for s in self.related(change.method, change.path) if not _twin(s)]
        lines += [s.markdown() for s in related[:MAX_LINES]]
        if len(related) > MAX_LINES:
            lines.append(f"and {len(related) - MAX_LINES} more")
        return lines

    def json_for(self, change: Change) -> dict[str, Any]:
        key = (change.method, normalise(change.path))
        return {
            "flag": self.flags.get(key),
            "symbols": [s.as_json() for s in self.related(change.method, change.path)],
        }

    def markdown_summary(self) -> list[str]:
        lines = ["### Generated code", ""]
        if not self.files:
            return [*lines, "The generated code does not change."]
        lines += ["| File | Change | Lines | Symbols |", "|---|---|---|---|"]
        for f in self.files:
            symbols = ", ".join(f"{n} {k}" for k, n in sorted(f.symbols.items())) or "-"
            lines.append(
                f"| `{f.path}` | {f.status} | +{f.added_lines} -{f.removed_lines} | {symbols} |"
            )
        return lines

    def json_summary(self) -> dict[str, Any]:
        return {
            "files": [
                {
                    "path": f.path,
                    "status": f.status,
                    "added_lines": f.added_lines,
                    "removed_lines": f.removed_lines,
                    "symbols": dict(sorted(f.symbols.items())),
                }
                for f in self.files
            ],
            "flags": [
                {"operation": f"{method} {path}", "flag": text}
                for (method, path), text in sorted(self.flags.items())
            ],
        }


def _twin(symbol: SymbolChange) -> bool:
    """The async twin of a sync client method (listed once, under the sync name)."""
    return symbol.role == "client method" and symbol.name.startswith("Async")


def logical_module(path: str) -> str:
    """The module a symbol is compared under: the client's models are split into a
    `models/` package by which operations use each class (a spec change can move a class to
    another file), so every module of such a package counts as one `models.py`."""
    parts = path.split("/")
    if len(parts) >= 2 and parts[-2] == "models" and parts[-1] != "__init__.py":
        return "/".join([*parts[:-2], "models.py"])
    return path


def _symbols(tree: dict[str, str], groups: set[str]) -> dict[str, dict[str, tuple[str, Symbol]]]:
    """For each logical module in GROUPS, its symbols and the real file each lives in."""
    found: dict[str, dict[str, tuple[str, Symbol]]] = {}
    for path in sorted(tree):
        group = logical_module(path)
        if group not in groups:
            continue
        if path.endswith(".py"):
            for name, symbol in module_symbols(tree[path]).items():
                found.setdefault(group, {})[name] = (path, symbol)
        elif path == TYPESCRIPT_RESOURCES:
            for name, symbol in typescript_symbols(tree[path]).items():
                found.setdefault(group, {})[name] = (path, symbol)
    return found


def compare_trees(
    old: dict[str, str], new: dict[str, str]
) -> tuple[list[FileSummary], list[SymbolChange]]:
    files: dict[str, FileSummary] = {}
    for path in sorted(set(old) | set(new)):
        before, after = old.get(path), new.get(path)
        if before == after:
            continue
        status = "added" if before is None else "removed" if after is None else "changed"
        diff = list(difflib.ndiff((before or "").splitlines(), (after or "").splitlines()))
        files[path] = FileSummary(
            path,
            status,
            sum(1 for line in diff if line.startswith("+ ")),
            sum(1 for line in diff if line.startswith("- ")),
        )
    groups = {
        logical_module(path)
        for path in files
        if path.endswith(".py") or path == TYPESCRIPT_RESOURCES
    }
    old_groups, new_groups = _symbols(old, groups), _symbols(new, groups)
    symbols: list[SymbolChange] = []
    for group in sorted(groups, key=lambda g: (g == TYPESCRIPT_RESOURCES, g)):  # Python first
        old_s, new_s = old_groups.get(group, {}), new_groups.get(group, {})
        for name in sorted(set(old_s) | set(new_s)):
            a, b = old_s.get(name), new_s.get(name)
            if a is not None and b is not None and a[1].text == b[1].text:
                continue
            kind = "added" if a is None else "removed" if b is None else "changed"
            symbols.append(
                SymbolChange(group, name, kind, a[1] if a else None, b[1] if b else None)
            )
            homes = [pair[0] for pair in (b, a) if pair is not None]
            summary = next((files[home] for home in homes if home in files), None)
            if summary is not None:
                summary.symbols[kind] = summary.symbols.get(kind, 0) + 1
    return list(files.values()), symbols


def reach(*trees: dict[str, str]) -> dict[tuple[str, str], frozenset[str]]:
    """For each operation, every name its generated methods mention, followed through the
    models' fields (a method returning `VerifyEmailResponse` reaches `VerifyEmailResult`)."""
    direct: dict[tuple[str, str], set[str]] = {}
    fields: dict[str, set[str]] = {}
    for tree in trees:
        for path, source in tree.items():
            if not path.endswith(".py"):
                continue
            for symbol in module_symbols(source).values():
                if symbol.operation is not None:
                    direct.setdefault(symbol.operation, set()).update(symbol.names)
                elif symbol.kind == "field":
                    fields.setdefault(symbol.name.split(".")[0], set()).update(symbol.names)
    found: dict[tuple[str, str], frozenset[str]] = {}
    for key, names in direct.items():
        seen, pending = set(names), [n for n in names if n in fields]
        while pending:
            for name in fields.get(pending.pop(), set()):
                if name not in seen:
                    seen.add(name)
                    pending.append(name)
        found[key] = frozenset(seen)
    return found


def _neutral(files: dict[str, str], shown: str, project: str) -> dict[str, str]:
    """The spec's path as the generated headers name it, made the project's own."""
    if shown == project:
        return files
    return {path: text.replace(shown, project) for path, text in files.items()}


def generated_view(
    config: Config, old_root: Path, new_root: Path, changes: list[Change]
) -> GeneratedView:
    project = config.relative(config.spec)
    old = _neutral(build_files(config, old_root), config.relative(old_root), project)
    new = _neutral(build_files(config, new_root), config.relative(new_root), project)
    files, symbols = compare_trees(old, new)
    return GeneratedView(files, symbols, changes, reach(old, new))
