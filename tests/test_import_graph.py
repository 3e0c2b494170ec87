"""The import graph of the hand-written service and of the generator: no cycle, layers one way.

Every import counts: module-level, inside functions, and under `TYPE_CHECKING` (a type-only
cycle still ties two modules together). `from package import name` is an edge to the
submodule when `name` is one, else to the package.

The service (`outreach_server`, see ARCHITECTURE.md) is layered; a module may import only
from its own layer or below:

    0 core            settings, storage, errors, filters, limiter, logging, server key
    1 <domain>        tables, store, logic of one domain (keys, contacts, ledger, ...)
    2 runtime         Services (what a serving process shares) and the request context
    3 <domain>.handlers*  the operation handlers of a domain
    4 app, schema, migrate, migrations   the application factory and the schema
    5 cli             the `outreach-server` command line

and a domain uses another only through the other's package (`outreach_server.ledger`, its
`__init__`), never its modules; only the app factory imports a domain's handlers.

The generator (`spec_gen`) is layered the same way, one package per step of its flow:

    0 core       names, settings, timings, the node being worked on (no OpenAPI)
    1 document   load, positions, pointers, refs, upgrade, repair, walks
    2 lint       structure, schemas, rules, profiles, findings
    3 ir         the intermediate representation
    4 targets    server, models, client (each a function of the IR)
    5 docs       the reference pages (they show the client's examples)
    6 build      pipeline, cache, tree, worker, verify
    7 diff       revisions compared, their generated code too (builds both sides)
    8 commands   init, upgrade, the internal-error line
    9 cli        the command line (and `__main__`); the package `__init__` sits above all
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SERVICE = ROOT / "service" / "outreach_server"
GENERATOR = ROOT / "generator" / "spec_gen"

DOMAINS = frozenset(
    {
        "app_platform",
        "billing",
        "contacts",
        "enrichment",
        "feedback",
        "forms",
        "keys",
        "ledger",
        "orgs",
        "signatures",
        "webhooks",
    }
)
TOP = {"core": 0, "runtime": 2, "app": 4, "schema": 4, "migrate": 4, "migrations": 4, "cli": 5}
GENERATOR_LAYERS = {
    "core": 0,
    "document": 1,
    "lint": 2,
    "ir": 3,
    "targets": 4,
    "docs": 5,
    "build": 6,
    "diff": 7,
    "commands": 8,
    "cli": 9,
    "__main__": 9,
}


def module_name(package_dir: Path, path: Path) -> str:
    parts = [package_dir.name, *path.relative_to(package_dir).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (every import statement)."""
    files = {module_name(package_dir, path): path for path in sorted(package_dir.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                edges.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = name.split(".") if is_package else name.split(".")[:-1]
                    base = base[: len(base) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                for alias in node.names:
                    submodule = f"{target}.{alias.name}"
                    edges.add(submodule if submodule in files else target)
        graph[name] = {edge for edge in edges if edge in files and edge != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def layer(module: str) -> tuple[int, str | None]:
    """(rank, domain) of a service module; the package itself is above everything."""
    parts = module.split(".")[1:]
    if not parts:
        return 9, None
    head = parts[0]
    if head in DOMAINS:
        is_handlers = len(parts) > 1 and parts[1].startswith("handlers")
        return (3 if is_handlers else 1), head
    if head not in TOP:
        raise AssertionError(f"{module}: not in a known layer (add it to ARCHITECTURE.md)")
    return TOP[head], None


def layer_violations(graph: dict[str, set[str]]) -> list[str]:
    problems = []
    for module, targets in sorted(graph.items()):
        rank, domain = layer(module)
        for target in sorted(targets):
            target_rank, target_domain = layer(target)
            if target_rank > rank:
                problems.append(f"{module} (layer {rank}) imports {target} (layer {target_rank})")
            if target_domain is None or target_domain == domain:
                continue
            parts = target.split(".")
            if len(parts) == 2:
                continue  # the other domain's package: its public face
            if parts[2].startswith("handlers") and module.split(".")[1] == "app":
                continue  # the app factory binds every domain's handlers
            if parts[2].startswith("handlers") and rank == 3:
                continue  # one tag's handlers composed of another's (contacts + billing)
            problems.append(f"{module} reaches into {target} (use outreach_server.{parts[1]})")
    return problems


def generator_rank(module: str) -> int:
    parts = module.split(".")[1:]
    if not parts:
        return 10  # the package's public surface names what every layer offers
    if parts[0] not in GENERATOR_LAYERS:
        raise AssertionError(f"{module}: not in a known layer of the generator")
    return GENERATOR_LAYERS[parts[0]]


def generator_violations(graph: dict[str, set[str]]) -> list[str]:
    return [
        f"{module} (layer {generator_rank(module)}) imports {target} "
        f"(layer {generator_rank(target)})"
        for module, targets in sorted(graph.items())
        for target in sorted(targets)
        if generator_rank(target) > generator_rank(module)
    ]


def domain_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Cycles between the store layers of domains (handlers excluded: they sit above)."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        rank, domain = layer(module)
        if rank != 1 or domain is None:
            continue
        for target in targets:
            target_rank, target_domain = layer(target)
            if target_rank == 1 and target_domain is not None and target_domain != domain:
                packages.setdefault(domain, set()).add(target_domain)
    return cycles(packages)


@pytest.mark.parametrize("package_dir", [SERVICE, GENERATOR], ids=["service", "generator"])
def test_no_import_cycle(package_dir: Path) -> None:
    assert cycles(import_graph(package_dir)) == []


def test_service_layers_point_down_and_domains_meet_at_their_packages() -> None:
    assert layer_violations(import_graph(SERVICE)) == []


def test_generator_layers_point_down() -> None:
    assert generator_violations(import_graph(GENERATOR)) == []


def test_the_generator_layer_check_sees_an_upward_import() -> None:
    graph = {"spec_gen.document.load": {"spec_gen.lint.rules"}, "spec_gen.lint.rules": set()}
    assert generator_violations(graph) == [
        "spec_gen.document.load (layer 1) imports spec_gen.lint.rules (layer 2)"
    ]


def test_no_cycle_between_domains() -> None:
    assert domain_cycles(import_graph(SERVICE)) == []


def test_every_domain_is_a_package_with_a_public_face() -> None:
    found = {path.name for path in SERVICE.iterdir() if (path / "__init__.py").exists()}
    assert DOMAINS <= found
    assert found - DOMAINS - {"migrations"} <= set(TOP)


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def names(found: Iterable[list[str]]) -> list[list[str]]:
    return [sorted(component) for component in found]


def test_the_checker_sees_type_checking_and_function_level_cycles(tmp_path: Path) -> None:
    package = write(
        tmp_path / "pkg",
        {
            "__init__.py": "",
            "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
            "b.py": "def f():\n    from . import a\n",
            "c.py": "from .a import *\n",
        },
    )
    assert names(cycles(import_graph(package))) == [["pkg.a", "pkg.b"]]


def test_the_checker_refuses_upward_imports_and_reaching_into_a_domain(tmp_path: Path) -> None:
    package = write(
        tmp_path / "outreach_server",
        {
            "__init__.py": "",
            "core/__init__.py": "",
            "core/db.py": "from ..runtime import services\n",
            "runtime/__init__.py": "",
            "runtime/services.py": "",
            "keys/__init__.py": "from .store import KeyStore\n",
            "keys/store.py": "from ..contacts.store import scope\n",
            "contacts/__init__.py": "from .store import scope\n",
            "contacts/store.py": "from ..keys import KeyStore\n",
        },
    )
    problems = layer_violations(import_graph(package))
    assert problems == [
        "outreach_server.core.db (layer 0) imports outreach_server.runtime.services (layer 2)",
        (
            "outreach_server.keys.store reaches into outreach_server.contacts.store"
            " (use outreach_server.contacts)"
        ),
    ]
    assert domain_cycles(import_graph(package)) == [["contacts", "keys"]]
