"""Where a node of the bundled document was written: file, line and column.

Source positions are only needed when something must be reported, so the files are
re-read lazily: a YAML file as the node graph of ruamel's C parser (`YamlPositions`: every
node has its mark), a JSON file by `JsonPositions`, which walks the text along the pointers
asked for. ruamel's round-trip loader, used before, is pure Python: 12 to 14 s for GitHub's
3 MB REST description as JSON or YAML, to place 3 warnings; now about 1.5 s for the YAML
form, 0.4 s for the JSON one.
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
    def read_tree(path: Path) -> JsonPositions | YamlPositions:
        from ruamel.yaml.reader import Reader, ReaderError

        text = path.read_text(encoding="utf-8")
        if text.lstrip()[:1] in ("{", "["):
            try:
                return JsonPositions(text)
            except ValueError:  # not JSON after all: YAML's flow style, comments, ...
                pass
        try:
            return YamlPositions(text)
        except ReaderError:
            # a control character YAML refuses (JSON allows it in strings): one space each,
            # so every line and column stays where it was
            return YamlPositions(Reader.NON_PRINTABLE.sub(" ", text))

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
    def position_in(
        tree: JsonPositions | YamlPositions | None, tokens: list[str]
    ) -> tuple[int, int]:
        """1-based line and column of the deepest existing node on the path (its key)."""
        return tree.position(tokens) if tree is not None else (1, 1)


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


class YamlPositions:
    """Positions in a YAML text: the node graph of ruamel's safe composer (its C parser
    where installed), each node with its start mark; a mapping's keys are indexed the
    first time a pointer passes through it. Merge keys (`<<: *base`) give the keys they
    bring the position of their own mapping's key."""

    def __init__(self, text: str) -> None:
        from ruamel.yaml import YAML
        from ruamel.yaml.error import YAMLError

        try:
            self.root = YAML(typ="safe").compose(text)
        except YAMLError:
            # libyaml's scanner is stricter than YAML 1.2 in corners (`[a, b:3]` in flow
            # style): the pure parser, which read the document (load.py), composes it too
            self.root = YAML(typ="safe", pure=True).compose(text)
        self._members: dict[int, dict[str, tuple[tuple[int, int], Any]]] = {}

    def _mapping(self, node: Any) -> dict[str, tuple[tuple[int, int], Any]]:
        from ruamel.yaml.nodes import MappingNode, ScalarNode

        if id(node) not in self._members:
            members: dict[str, tuple[tuple[int, int], Any]] = {}
            merged: list[Any] = []
            for key, value in node.value:
                if key.tag == "tag:yaml.org,2002:merge":
                    merged += value.value if not isinstance(value, MappingNode) else [value]
                elif isinstance(key, ScalarNode):
                    mark = key.start_mark
                    members[str(key.value)] = ((mark.line + 1, mark.column + 1), value)
            for base in merged:
                if isinstance(base, MappingNode):
                    for name, found in self._mapping(base).items():
                        members.setdefault(name, found)
            self._members[id(node)] = members
        return self._members[id(node)]

    def position(self, tokens: list[str]) -> tuple[int, int]:
        """1-based line and column of the deepest existing node on the path (its key)."""
        from ruamel.yaml.nodes import MappingNode, SequenceNode

        node, where = self.root, (1, 1)
        for token in tokens:
            if isinstance(node, MappingNode) and token in (members := self._mapping(node)):
                where, node = members[token]
            elif (
                isinstance(node, SequenceNode) and token.isdigit() and int(token) < len(node.value)
            ):
                node = node.value[int(token)]
                where = (node.start_mark.line + 1, node.start_mark.column + 1)
            else:
                break
        return where
