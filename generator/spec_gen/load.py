"""Load an OpenAPI document spread over several YAML files and bundle it into one.

Parsing uses ruamel.yaml's fast safe loader. Source lines are only needed when
something must be reported, so `SourceMap` re-reads a file with the round-trip
loader (which keeps line numbers) on demand.

Bundling rule (the usual one of `bundle` tools): the root document is walked,
`components` first. A `$ref` into the root document stays a local reference. A
`$ref` into another file is inlined where it is first met (its "mount point");
every later reference to the same target points at that mount point. A schema
mounted under `components/schemas/Name` therefore keeps its name.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote


class SpecError(Exception):
    """A problem located in a source file (1-based line and column, 0 if unknown)."""

    def __init__(self, file: Path, line: int, column: int, message: str) -> None:
        super().__init__(f"{file}:{line}:{column}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


def escape_pointer_token(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def unescape_pointer_token(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def join_pointer(pointer: str, *tokens: str | int) -> str:
    return pointer + "".join("/" + escape_pointer_token(str(t)) for t in tokens)


def split_pointer(pointer: str) -> list[str]:
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"invalid JSON pointer {pointer!r}")
    return [unescape_pointer_token(t) for t in pointer[1:].split("/")]


def resolve_pointer(document: Any, pointer: str) -> Any:
    node = document
    for token in split_pointer(pointer):
        if isinstance(node, list):
            node = node[int(token)]
        else:
            node = node[token]
    return node


def _yaml_error(path: Path, exc: Exception) -> SpecError:
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    context = getattr(exc, "context", None)
    message = f"invalid YAML: {problem}" + (f" ({context})" if context else "")
    if mark is None:
        return SpecError(path, 0, 0, message)
    return SpecError(path, mark.line + 1, mark.column + 1, message)


def _has_clib() -> bool:
    try:
        import _ruamel_yaml  # noqa: F401  (ruamel.yaml.clib: the C parser, ~6x faster)
    except ImportError:
        return False
    return True


_HAS_CLIB = _has_clib()


def read_yaml(path: Path) -> Any:
    """Parse one YAML (or JSON) file into plain Python values."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SpecError(path, 0, 0, f"cannot read file: {exc.strerror}") from None
    if _HAS_CLIB:
        try:
            return YAML(typ="safe", pure=False).load(text)
        except YAMLError:
            pass  # libyaml's scanner is stricter than YAML 1.2 in corners; the pure parser decides
    try:
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError as exc:
        raise _yaml_error(path, exc) from None


@dataclass
class Bundle:
    """The resolved single document and where each part of it came from."""

    root: Path
    document: dict[str, Any]
    files: list[Path]
    # bundled pointer -> (file, pointer inside that file), for the root and every mount point
    origins: dict[str, tuple[Path, str]] = field(default_factory=dict)
    # bundled pointer -> (file, pointer) of a `$ref` that was inlined there
    ref_sites: dict[str, tuple[Path, str]] = field(default_factory=dict)


class _Bundler:
    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.files: dict[Path, Any] = {}
        self.mounts: dict[tuple[Path, str], str] = {}
        self.bundle = Bundle(root=self.root, document={}, files=[])

    def load(self, path: Path) -> Any:
        if path not in self.files:
            self.files[path] = read_yaml(path)
        return self.files[path]

    def run(self) -> Bundle:
        document = self.load(self.root)
        if not isinstance(document, dict):
            raise SpecError(self.root, 1, 1, "the root document must be a mapping")
        self.bundle.origins[""] = (self.root, "")
        keys = sorted(document, key=lambda k: (k != "components", list(document).index(k)))
        out: dict[str, Any] = {}
        for key in keys:
            out[key] = self.walk(
                document[key], self.root, join_pointer("", key), join_pointer("", key)
            )
        self.bundle.document = {k: out[k] for k in document}
        self.bundle.files = sorted(self.files)
        return self.bundle

    def walk(self, node: Any, base: Path, here: str, source: str) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                return self.reference(node, ref, base, here, source)
            return {
                k: self.walk(v, base, join_pointer(here, k), join_pointer(source, k))
                for k, v in node.items()
            }
        if isinstance(node, list):
            return [
                self.walk(v, base, join_pointer(here, i), join_pointer(source, i))
                for i, v in enumerate(node)
            ]
        return node

    def reference(self, node: dict[str, Any], ref: str, base: Path, here: str, source: str) -> Any:
        file_part, _, fragment = ref.partition("#")
        pointer = unquote(fragment)
        target_file = (base.parent / file_part).resolve() if file_part else base
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if target_file == self.root:
            return {"$ref": "#" + pointer, **siblings}
        mounted = self.mounts.get((target_file, pointer))
        if mounted is not None:
            return {"$ref": "#" + mounted, **siblings}
        if not target_file.is_file():
            raise SpecError(base, source_line(base, source), 0, f"$ref {ref!r}: no such file")
        try:
            target = resolve_pointer(self.load(target_file), pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            raise SpecError(
                base, source_line(base, source), 0, f"$ref {ref!r}: nothing at {pointer!r}"
            ) from None
        self.mounts[(target_file, pointer)] = here
        self.bundle.origins[here] = (target_file, pointer)
        self.bundle.ref_sites[here] = (base, source)
        inlined = self.walk(copy.deepcopy(target), target_file, here, pointer)
        if siblings and isinstance(inlined, dict):
            inlined.update(siblings)
        return inlined


def bundle(root: Path) -> Bundle:
    """Load `root` and every file it references; return the single resolved document."""
    return _Bundler(root).run()


def source_line(path: Path, pointer: str) -> int:
    """The 1-based line of `pointer` inside one file (the deepest part that exists)."""
    return SourceMap.line_in(SourceMap.read_tree(path), split_pointer(pointer))


class SourceMap:
    """Maps a pointer into the bundled document to a file and line, re-reading files lazily."""

    def __init__(self, bundle: Bundle) -> None:
        self.bundle = bundle
        self._trees: dict[Path, Any] = {}

    @staticmethod
    def read_tree(path: Path) -> Any:
        from ruamel.yaml import YAML

        return YAML(typ="rt").load(path.read_text(encoding="utf-8"))

    def _tree(self, path: Path) -> Any:
        if path not in self._trees:
            self._trees[path] = self.read_tree(path)
        return self._trees[path]

    def locate(self, pointer: str) -> tuple[Path, int]:
        origins = self.bundle.origins
        prefix = pointer
        while prefix not in origins:
            prefix = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        file, file_pointer = origins[prefix]
        rest = split_pointer(pointer[len(prefix) :]) if pointer != prefix else []
        tokens = split_pointer(file_pointer) + rest
        return file, self.line_in(self._tree(file), tokens)

    @staticmethod
    def line_in(tree: Any, tokens: list[str]) -> int:
        node, line = tree, 1
        for token in tokens:
            lc = getattr(node, "lc", None)
            try:
                if isinstance(node, list):
                    index = int(token)
                    if lc is not None:
                        line = lc.item(index)[0] + 1
                    node = node[index]
                elif isinstance(node, dict):
                    if lc is not None and token in node:
                        line = lc.key(token)[0] + 1
                    node = node[token]
                else:
                    break
            except (KeyError, IndexError, ValueError, TypeError):
                break
        return line
