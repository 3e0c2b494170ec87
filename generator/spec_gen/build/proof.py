"""What the last build's verify proved, by content hash, so a rebuild checks only what changed.

`.spec-gen-cache/verified.json` holds, for each role (server, client), the hash of every
module of the package the last passing check imported. A rebuild's probe is then sent:

- `"proven"` when the role's modules are exactly those, or differ from them only in prose
  (docstrings, `description=`...: `shape.py`; the proven text read back from the output
  directory): nothing to check;
- otherwise the modules that changed and every module that imports one of them (its
  `import` statements, read from the source, followed backwards; `from X import a` with `a` a
  submodule depends on `X.a`, not on `X`'s other imports): a module's check (it imports, its
  model classes' annotations resolve) depends on its source and the modules it imports;
- the server's probe mounts only the tag routers among those (`create_api_router` puts
  theirs together), unless `routers/__init__.py` or what it imports besides them and the
  interfaces (the route order) changed; and it builds the models module's validators
  lazily (only those the mounted routes use) when that module and the modules it imports
  are unchanged: the last check built every one of them from the same source.

The record holds for one interpreter, pydantic, FastAPI and httpx version, and one verify.py.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from .cache import read_record, sha, versions, write_record
from .shape import same_code

RECORD = "verified.json"
PROSE_BUDGET = 200_000  # characters of changed modules compared for prose-only changes
_FROM = re.compile(
    r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE
)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+)", re.MULTILINE)


def _key() -> str:
    here = Path(__file__).parent
    tools = versions({"pydantic": "pydantic", "fastapi": "fastapi", "httpx": "httpx"})
    code = b"".join(
        (here / name).read_bytes() for name in ("verify.py", "probe.py", "proof.py", "shape.py")
    )
    return sha(f"{sys.executable}\n{sys.version}\n{tools}\n".encode() + code)


def module_name(path: str) -> str:
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


Scan = list[list[str]]  # a module's `import X` names, then each `from` import's three parts


def scanned(source: str) -> Scan:
    """A module's import statements as `imported` reads them (the regular expressions' part,
    kept per source hash by `Proof`: the rest is cheap)."""
    return [[m.group(1) for m in _IMPORT.finditer(source)], *map(list, _FROM.findall(source))]


def imported(
    path: str,
    source: str,
    modules: set[str] | frozenset[str] = frozenset(),
    scan: Scan | None = None,
) -> set[str]:
    """The dotted names a module's import statements name (modules, or names in them).

    `from X import a`: `X.a` when that is one of `modules` (a submodule: X's `__init__` runs,
    as for any import of a submodule, but what it imports is not this module's concern),
    else `X` and `X.a`. `scan`: `scanned(source)`, when known."""
    name = module_name(path)
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    plain, *froms = scan if scan is not None else scanned(source)
    out = set(plain)
    for dots, module, names in froms:
        if dots:
            base = package.split(".")
            base = base[: len(base) - (len(dots) - 1)]
            target = ".".join([*base, module] if module else base)
        else:
            target = module
        words = [item.split(" as ")[0].strip() for item in names.strip("()").split(",")]
        named = {f"{target}.{word}" for word in words if word.isidentifier()}
        out |= named
        if not named or not named <= modules:
            out.add(target)
    return out


_TOP = re.compile(r"^(?=[^\s#])", re.MULTILINE)  # where a top-level statement starts
_CLASS = re.compile(r"class (\w+)\b")
_WORD = re.compile(r"[A-Za-z_]\w*")


def class_blocks(source: str) -> dict[str, str]:
    """A module's top-level classes, name -> their text, and under "" the rest of it."""
    blocks: dict[str, str] = {}
    rest = []
    for chunk in _TOP.split(source):
        match = _CLASS.match(chunk)
        if match and match.group(1) not in blocks:
            blocks[match.group(1)] = chunk
        else:
            rest.append(chunk)
    blocks[""] = "".join(rest)
    return blocks


def importers(
    sources: dict[str, str], changed: set[str], scans: dict[str, Scan] | None = None
) -> set[str]:
    """The modules among `sources` (path -> source) that import one of `changed` (dotted
    names), directly or through others, and those of `changed` that are among them
    (`scans`: path -> `scanned(source)`, where known)."""
    names = {module_name(path): path for path in sources}
    users: dict[str, set[str]] = {}
    modules = frozenset(names)
    for path, source in sources.items():
        for target in imported(path, source, modules, (scans or {}).get(path)):
            users.setdefault(target, set()).add(module_name(path))
    out = {name for name in changed if name in names}
    todo = list(changed)
    while todo:
        for user in users.get(todo.pop(), ()):
            if user not in out:
                out.add(user)
                todo.append(user)
    return out


def _defer(package: str, sources: dict[str, str], changed: set[str]) -> str | None:
    """The server's models module when it and what it imports are unchanged."""
    models = f"{package}/models.py"
    if models not in sources:
        return None
    reached = {module_name(models)} | imported(models, sources[models])
    return None if reached & changed else module_name(models)


def _mount(
    package: str, sources: dict[str, str], changed: set[str], reached: set[str]
) -> list[str] | None:
    """The tag router modules whose routes may have changed (`reached`: the changed modules
    and their importers), or None: the whole API router. `routers/__init__.py` puts the tags'
    routes together (`create_api_router`): mounting it is mounting each of theirs, unless its
    own source or what it imports besides them and the interfaces (the route order) changed."""
    routers = f"{package}.routers"
    path = f"{package}/routers/__init__.py"
    if path not in sources or routers in changed:
        return None
    own = {
        name
        for name in imported(path, sources[path])
        if not name.startswith((f"{routers}.", f"{package}.interfaces"))
    }
    if own & reached:
        return None
    depth = routers.count(".") + 1
    return sorted(n for n in reached if n.startswith(f"{routers}.") and n.count(".") == depth)


class Proof:
    """The last passing check's hashes (`cache_dir` None: nothing is reused or recorded)."""

    def __init__(self, cache_dir: Path | None) -> None:
        self.cache_dir = cache_dir
        self.last: dict[str, dict[str, str]] = {}
        self.now: dict[str, dict[str, str]] = {}
        self.twins: dict[str, str] = {}  # role/path -> hash of the formatted text
        self.scans: dict[str, Scan] = {}  # source hash -> its import statements (scanned)
        self.classes: dict[str, str] = {}  # the server's model classes' hashes ("": the rest)
        self.key = ""
        if cache_dir is None:
            return
        self.key = _key()
        self.last = read_record(cache_dir, RECORD, self.key, "roles")

    def frame(
        self,
        role: str,
        package: str,
        sources: dict[str, str],
        old: Callable[[str], str | None] | None = None,
    ) -> Any:
        """What the probe of `role` is sent for `sources` (module path -> source).

        `old(path)`: the module's source as the last passing check proved it (or as it was
        formatted), where known: a module that differs from it only in prose (`shape.py`)
        counts as unchanged."""
        hashes = {path: sha(text.encode("utf-8")) for path, text in sources.items()}
        self.now[role] = hashes
        models = f"{package}/models.py"
        if role == "server" and models in sources:
            blocks = class_blocks(sources[models])
            self.classes = {name: sha(text.encode("utf-8")) for name, text in blocks.items()}
        last = self.last.get(role)
        if last is None:
            return {"files": sources, "only": None, "defer": None}
        if last == hashes:
            return "proven"
        moved = {path for path in set(hashes) | set(last) if hashes.get(path) != last.get(path)}
        # the server's models module is compared class by class (`_by_class`); the others
        # whole, when they are few: parsing costs about 1 s per MB, more than their check
        whole = f"{package}/models.py" if role == "server" else ""
        compared = {path for path in moved if path != whole and path in sources and path in last}
        if old is not None and sum(len(sources[p]) for p in compared) <= PROSE_BUDGET:
            moved -= {path for path in compared if _prose_only(path, sources[path], old)}
        if not moved:
            return "proven"
        changed = {module_name(path) for path in moved}
        known: dict[str, Any] = self.last.get("scans") or {}
        scans: dict[str, Scan] = {}
        for path, digest in hashes.items():
            scan = known.get(digest)
            scans[path] = self.scans[digest] = (
                scan if isinstance(scan, list) else scanned(sources[path])
            )
        if role == "server":
            finer = self._by_class(package, sources, changed, scans, old)
            if finer is not None:
                return finer
        reached = importers(sources, changed, scans)
        if role == "client":
            return {"files": sources, "only": sorted(reached), "defer": None}
        return {
            "files": sources,
            "only": sorted(reached),
            "defer": _defer(package, sources, changed),
            "mount": _mount(package, sources, changed, reached),
        }

    def _by_class(
        self,
        package: str,
        sources: dict[str, str],
        changed: set[str],
        scans: dict[str, Scan],
        old: Callable[[str], str | None] | None = None,
    ) -> dict[str, Any] | str | None:
        """The server's frame when its models module changed only in some classes (the rest
        of the module as the last check proved it): the module imported
        with every class's validator built lazily, those classes and the classes naming
        them (transitively) built, and only the modules naming one of them, or importing
        a changed module, imported and mounted. None: the whole check (`frame`)."""
        models = f"{package}/models.py"
        blocks = class_blocks(sources[models]) if models in sources else {}
        last = self.last.get("classes")
        if module_name(models) not in changed or not last or last.get("") != self.classes.get(""):
            return None
        # a class added, changed or removed (a module naming a removed one must fail)
        moved = {
            n for n in set(self.classes) | set(last) if n and last.get(n) != self.classes.get(n)
        }
        before = old(models) if old is not None and moved else None
        if before is not None:  # a class whose docstring or field descriptions changed: proven
            was = class_blocks(before)
            moved = {
                n for n in moved if not (n in was and n in blocks and same_code(was[n], blocks[n]))
            }
        names = {n: set(_WORD.findall(text)) for n, text in blocks.items() if n}
        touched = set(moved)
        grew = True
        while grew:  # the classes naming a touched class are touched
            more = {n for n, words in names.items() if n not in touched and words & touched}
            touched |= more
            grew = bool(more)
        others = changed - {module_name(models)}
        if not touched and not others:
            return "proven"
        naming = {
            module_name(path)
            for path, source in sources.items()
            if path != models and set(_WORD.findall(source)) & touched
        }
        reached = importers(sources, others | naming, scans)
        return {
            "files": sources,
            "only": sorted(reached),
            "defer": module_name(models),
            "mount": _mount(package, sources, others, reached),
            "build": sorted(touched & set(names)),
        }

    def formatted(self, final: Mapping[str, str]) -> None:
        """Note, for each module checked before ruff formatted it, the hash of its final
        text (`final`: the output tree's paths), saved as `"formatted"` beside the roles: the
        formatted text means what the checked one does (Verifier.preload and Verifier._old
        read it)."""
        twins = {}
        for role, hashes in self.now.items():
            for path, checked in hashes.items():
                text = final.get(f"{role}/{path}")
                if text is not None and (digest := sha(text.encode("utf-8"))) != checked:
                    twins[f"{role}/{path}"] = digest
        self.twins = twins

    def save(self) -> None:
        if self.cache_dir is None or set(self.now) != {"server", "client"}:
            return
        known: dict[str, Any] = self.last.get("scans") or {}
        for hashes in self.now.values():  # the scans of a role proven unchanged: kept
            for digest in hashes.values():
                if digest not in self.scans and isinstance(known.get(digest), list):
                    self.scans[digest] = known[digest]
        write_record(
            self.cache_dir,
            RECORD,
            self.key,
            "roles",
            {**self.now, "formatted": self.twins, "scans": self.scans, "classes": self.classes},
        )


def _prose_only(path: str, source: str, old: Callable[[str], str | None]) -> bool:
    """Whether the module at `path` changed since the last check only in prose."""
    before = old(path)
    return before is not None and same_code(before, source)
