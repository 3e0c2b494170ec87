"""Where a node of the bundled document was written: file, line and column.

Source positions are only needed when something must be reported, so the files are
re-read lazily: a YAML file with ruamel's round-trip loader, which keeps them; a JSON file
by `JsonPositions`, which walks its text along the pointers asked for (ruamel reads JSON as
flow-style YAML, in pure Python: 12 s for GitHub's 3 MB REST description, for 3 warnings).
"""

from __future__ import annotations

import bisect
import json
import re
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
        if text.lstrip()[:1] in ("{", "["):
            try:
                return JsonPositions(text)
            except ValueError:  # not JSON after all: YAML's flow style, comments, ...
                pass
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
        if isinstance(tree, JsonPositions):
            return tree.position(tokens)
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


_SPACE = re.compile(r"[ \t\n\r]*")


class JsonPositions:
    """Positions in a JSON text, found by walking the text along a pointer: an object's
    keys and where their values start are read once (each value skipped by the json
    module's C scanner), so the cost is the size of the objects on the paths asked for,
    not a pure-Python parse of the whole file."""

    def __init__(self, text: str) -> None:
        self._decoder = json.JSONDecoder(strict=False)
        self._decoder.decode(text)  # ValueError unless the whole text is JSON
        self.text = text
        self._line_starts = [0] + [m.end() for m in re.finditer("\n", text)]
        self._members: dict[int, dict[str, tuple[int, int]]] = {}
        self._items: dict[int, list[int]] = {}

    def _line_column(self, offset: int) -> tuple[int, int]:
        line = bisect.bisect_right(self._line_starts, offset)
        return line, offset - self._line_starts[line - 1] + 1

    def _skip(self, offset: int) -> int:
        return _SPACE.match(self.text, offset).end()  # type: ignore[union-attr]

    def _object(self, offset: int) -> dict[str, tuple[int, int]]:
        """key -> (offset of the key, offset of its value), for the object at `offset`."""
        if offset not in self._members:
            text, members = self.text, {}
            at = self._skip(offset + 1)
            while text[at] == '"':
                key, end = json.decoder.scanstring(text, at + 1, False)  # type: ignore[attr-defined]
                value = self._skip(self._skip(end) + 1)  # past the colon
                members[key] = (at, value)  # a repeated key: the last one, as json reads it
                at = self._skip(self._decoder.raw_decode(text, value)[1])
                at = self._skip(at + 1) if text[at] == "," else at
            self._members[offset] = members
        return self._members[offset]

    def _array(self, offset: int) -> list[int]:
        """Where each item of the array at `offset` starts."""
        if offset not in self._items:
            text, items = self.text, []
            at = self._skip(offset + 1)
            while text[at] != "]":
                items.append(at)
                at = self._skip(self._decoder.raw_decode(text, at)[1])
                at = self._skip(at + 1) if text[at] == "," else at
            self._items[offset] = items
        return self._items[offset]

    def position(self, tokens: list[str]) -> tuple[int, int]:
        """1-based line and column of the deepest existing node on the path (its key)."""
        offset = self._skip(0)
        line, column = 1, 1
        for token in tokens:
            opening = self.text[offset]
            if opening == "{" and token in (members := self._object(offset)):
                key, offset = members[token]
                line, column = self._line_column(key)
            elif (
                opening == "["
                and token.isdigit()
                and int(token) < len(items := self._array(offset))
            ):
                offset = items[int(token)]
                line, column = self._line_column(offset)
            else:
                break
        return line, column
