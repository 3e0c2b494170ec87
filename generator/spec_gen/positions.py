"""Where a node of the bundled document was written: file, line and column.

Source positions are only needed when something must be reported, so the files are
re-read lazily with ruamel's round-trip loader, which keeps them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from .pointer import split_pointer


class _Located(Protocol):
    """What a bundle records about where its parts came from (load.Bundle)."""

    origins: dict[str, tuple[Path, str]]
    moved: dict[str, str]


def source_line(path: Path, pointer: str) -> int:
    """The 1-based line of `pointer` inside one file (the deepest part that exists)."""
    return SourceMap.position_in(SourceMap.read_tree(path), split_pointer(pointer))[0]


class SourceMap:
    """Maps a pointer into the bundled document to file, line and column, reading lazily."""

    def __init__(self, bundle: _Located) -> None:
        self.bundle = bundle
        self._trees: dict[Path, Any] = {}

    @staticmethod
    def read_tree(path: Path) -> Any:
        from ruamel.yaml import YAML
        from ruamel.yaml.reader import Reader, ReaderError

        text = path.read_text(encoding="utf-8")
        try:
            return YAML(typ="rt").load(text)
        except ReaderError:
            # a control character YAML refuses (JSON allows it in strings): one space each,
            # so every line and column stays where it was
            return YAML(typ="rt").load(Reader.NON_PRINTABLE.sub(" ", text))

    def _tree(self, path: Path) -> Any:
        if path not in self._trees:
            try:
                self._trees[path] = self.read_tree(path)
            except Exception:  # noqa: BLE001  (the safe loader read it; a position is a nicety)
                self._trees[path] = None
        return self._trees[path]

    def original(self, pointer: str) -> str:
        """The pointer before the 3.0 upgrade moved anything."""
        for _ in range(64):
            for new, old in self.bundle.moved.items():
                if pointer == new or pointer.startswith(new + "/"):
                    pointer = old + pointer[len(new) :]
                    break
            else:
                return pointer
        return pointer

    def locate(self, pointer: str) -> tuple[Path, int, int]:
        pointer = self.original(pointer)
        origins = self.bundle.origins
        prefix = pointer
        while prefix not in origins:
            prefix = prefix.rsplit("/", 1)[0] if "/" in prefix else ""
        file, file_pointer = origins[prefix]
        rest = split_pointer(pointer[len(prefix) :]) if pointer != prefix else []
        tokens = split_pointer(file_pointer) + rest
        line, column = self.position_in(self._tree(file), tokens)
        return file, line, column

    def locate_in_file(self, file: Path, pointer: str) -> tuple[int, int]:
        return self.position_in(self._tree(file), split_pointer(pointer))

    @staticmethod
    def position_in(tree: Any, tokens: list[str]) -> tuple[int, int]:
        """1-based line and column of the deepest existing node on the path (its key)."""
        node, line, column = tree, 1, 1
        for token in tokens:
            lc = getattr(node, "lc", None)
            try:
                if isinstance(node, list):
                    index = int(token)
                    if lc is not None:
                        line, column = (x + 1 for x in lc.item(index))
                    node = node[index]
                elif isinstance(node, dict):
                    key: Any = token
                    if token not in node:
                        key = next((k for k in node if str(k) == token), token)
                    if lc is not None and key in node:
                        line, column = (x + 1 for x in lc.key(key))
                    node = node[key]
                else:
                    break
            except (KeyError, IndexError, ValueError, TypeError):
                break
        return line, column
