"""Rendering in proportion to the edit: the rendered text of each unit (a tag's server
modules, a client resource module, a tag's docs page and HTML section) reused from the last
build when none of its inputs changed.

A unit's key is the hash of its target's *scope* (`scope_of`: what the caller says the output
depends on beyond the document, the generator's sources, the templates, the tools' versions,
the settings; and what the target adds: its header, its settings) and of the unit's *own*
part: the values its template is given (targets/unit_keys.py), and for a docs page also the
nodes its path items and tags reach by local references (`Fingerprints.reach`: `"#/..."`
strings, `$ref`s and discriminator mappings, transitively, each with its descriptions) and
the document without its paths, tags and the components those references reach
(`Fingerprints.narrow`). An edit renders again only the units whose values it changes: an
operation added, a field, a scheme, a description reach the units that read them.

The pages that gather the whole API (indexes, guides, the overview, `status_docs`, the
operations and security modules) are not units: they are rendered on every build. The unit
templates read only the variables the renderers pass them (tests/generator/targets/
test_units.py pins them); with templates of the project's own folder, nothing is reused
(they may read anything).

The texts live in `.spec-gen-cache/units/`, one file per key, written when rendered; `units.json`
names the keys the last two builds used, and `save` removes the others.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..document.pointer import escape_pointer_token, resolve_pointer
from ..document.refs import ref_pointer
from .unit_keys import IrKeys, text_sha

UNITS_DIR = "units"
RECORD = "units.json"
PIECES = "indented.json"  # path items and schemas as the indented document writes them

# the components a unit reads only where a path item's references reach them (`reach`), or,
# the security schemes, through the IR (the schemes its operations name: targets/unit_keys.py)
REACHED = frozenset(
    (
        "schemas",
        "parameters",
        "responses",
        "requestBodies",
        "headers",
        "examples",
        "links",
        "callbacks",
        "pathItems",
        "securitySchemes",
    )
)
_LOCAL_REF = re.compile(r'"(#/[^"\\]*(?:\\.[^"\\]*)*)"')


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class Fingerprints:
    """The global and per-unit hashes of one document (see the module's docstring)."""

    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self._nodes: dict[str, tuple[str, list[str]]] = {}  # pointer -> (hash, local refs)
        self._reached: dict[tuple[str, ...], str] = {}  # the targets ask for the same tags
        narrow = hashlib.sha256()  # the document without paths, tags and reached components
        for key, value in document.items():
            narrow.update(_dumps(key).encode())
            if key == "paths" and isinstance(value, dict):
                for path, item in value.items():
                    self._remember(f"/paths/{escape_pointer_token(path)}", item)
            elif key == "components" and isinstance(value, dict):
                for kind, members in value.items():
                    if kind == "schemas" and isinstance(members, dict):
                        for name, schema in members.items():
                            self._remember(
                                f"/components/schemas/{escape_pointer_token(name)}", schema
                            )
                    elif kind not in REACHED:
                        narrow.update(_dumps(kind).encode() + _dumps(members).encode())
            elif key != "tags":
                narrow.update(_dumps(value).encode())
        self.narrow = narrow.hexdigest()

    def _remember(self, pointer: str, node: Any) -> None:
        """The node's hash and local refs, for `reach` and `node_hash`."""
        text = _dumps(node)
        self._nodes[pointer] = (text_sha(text), _refs(text))

    def node_hash(self, pointer: str) -> str:
        return self._node(pointer)[0]

    def _node(self, pointer: str) -> tuple[str, list[str]]:
        known = self._nodes.get(pointer)
        if known is None:
            try:
                text = _dumps(resolve_pointer(self.document, pointer))
            except (KeyError, IndexError, ValueError, TypeError):
                text = "missing"
            known = self._nodes[pointer] = (text_sha(text), _refs(text))
        return known

    def reach(self, pointers: Iterable[str]) -> str:
        """The hash of the nodes at `pointers` and of every node their local refs reach."""
        start = tuple(sorted(set(pointers)))
        known = self._reached.get(start)
        if known is None:
            known = self._reached[start] = self._reach(start)
        return known

    def _reach(self, pointers: tuple[str, ...]) -> str:
        seen: set[str] = set()
        todo = list(pointers)
        while todo:
            pointer = todo.pop()
            if pointer in seen:
                continue
            seen.add(pointer)
            todo.extend(self._node(pointer)[1])
        return text_sha("\n".join(f"{p} {self._node(p)[0]}" for p in sorted(seen)))

    def tag_nodes(self, names: Iterable[str]) -> list[str]:
        """The pointers of the document's tag objects with these names."""
        wanted = set(names)
        tags = self.document.get("tags")
        if not isinstance(tags, list):
            return []
        return [
            f"/tags/{n}"
            for n, tag in enumerate(tags)
            if isinstance(tag, dict) and tag.get("name") in wanted
        ]


def _indented(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False)


def _shift(text: str, depth: int) -> str:
    return text.replace("\n", "\n" + "  " * depth)


def _key(name: str) -> str:
    return json.dumps(name, ensure_ascii=False)


def _string_keys(document: dict[str, Any]) -> bool:
    """The keys the indented document is assembled along are all strings (json writes
    others its own way: `1`, `true`)."""
    levels = [document, document.get("paths"), document.get("components")]
    return all(
        all(isinstance(k, str) for k in level) for level in levels if isinstance(level, dict)
    )


def path_item(path: str) -> str:
    """The pointer of a path item (an operation's key: its path item, every method of it)."""
    return f"/paths/{escape_pointer_token(path)}"


def _refs(text: str) -> list[str]:
    out = []
    for raw in set(_LOCAL_REF.findall(text)):
        ref = json.loads(f'"{raw}"') if "\\" in raw else raw
        pointer = ref_pointer(ref) if "%" in ref else ref[1:]
        if pointer is not None:
            out.append(pointer)
    return out


class Units:
    """One build's rendered units, kept by key in `cache_dir`/units/ (None: nothing is reused
    or kept: `--no-cache`, `--check`, or templates of the project's own)."""

    def __init__(self, cache_dir: Path | None, context: str = "") -> None:
        self.cache_dir = cache_dir
        self.context = context  # what the output depends on beyond the document
        self.used: set[str] = set()
        self.rendered: dict[str, int] = {}  # kind -> units rendered this build
        self.reused: dict[str, int] = {}  # kind -> units read back
        self._prints: tuple[int, Fingerprints] | None = None
        self.keys = IrKeys()  # the IR values' hashes, shared by the targets (unit_keys.py)
        self._pieces: dict[str, str] | None = None  # node hash -> its indented text, last builds
        self._pieces_used: dict[str, str] = {}
        self._pieces_last: list[str] = []

    @property
    def enabled(self) -> bool:
        return self.cache_dir is not None

    def fingerprints(self, document: dict[str, Any]) -> Fingerprints:
        """The document's hashes, made once per build (the targets share them)."""
        if self._prints is None or self._prints[0] != id(document):
            self._prints = (id(document), Fingerprints(document))
        return self._prints[1]

    def scope_of(self, *extra: Any) -> str:
        """The global part of a target's keys keyed on what its units read (not the document):
        the context and `extra`."""
        return text_sha(_dumps([self.context, repr(extra)]))

    def text(self, kind: str, key: str, render: Callable[[], str]) -> str:
        """The unit's text: read back when a build rendered it under `key`, else rendered."""
        if self.cache_dir is None:
            return render()
        kept = self.kept(key)
        if kept is not None:
            self.count(kind, reused=True)
            return kept
        text = render()
        self.keep(key, text)
        self.count(kind, reused=False)
        return text

    def kept(self, key: str) -> str | None:
        """The text a build kept under `key`, if any."""
        if self.cache_dir is None:
            return None
        self.used.add(key)
        try:
            return self._path(key).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def keep(self, key: str, text: str) -> None:
        if self.cache_dir is None:
            return
        self.used.add(key)
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part")
        partial.write_bytes(text.encode("utf-8"))
        partial.replace(path)

    def count(self, kind: str, *, reused: bool) -> None:
        counts = self.reused if reused else self.rendered
        counts[kind] = counts.get(kind, 0) + 1

    def _path(self, key: str) -> Path:
        assert self.cache_dir is not None
        return self.cache_dir / UNITS_DIR / f"{text_sha(key)[:40]}.txt"

    def document_json(self, document: dict[str, Any]) -> str:
        """`json.dumps(document, indent=2, ensure_ascii=False)`, each path item and component
        read back from the last builds when its text is the same (json's indented encoder
        is written in Python: the whole of a large document costs more than the rest of
        the server's files)."""
        if self.cache_dir is None or not _string_keys(document):
            return _indented(document)
        prints = self.fingerprints(document)
        if self._pieces is None:
            try:
                kept = json.loads((self.cache_dir / PIECES).read_text(encoding="utf-8"))
                self._pieces, self._pieces_last = dict(kept["pieces"]), list(kept["used"])
            except (OSError, ValueError, KeyError, TypeError):
                self._pieces, self._pieces_last = {}, []
        pieces = self._pieces

        def piece(pointer: str, node: Any, depth: int) -> str:
            digest = prints.node_hash(pointer)
            text = pieces.get(digest)
            if not isinstance(text, str):
                text = _indented(node)
            self._pieces_used[digest] = text
            return text.replace("\n", "\n" + "  " * depth)

        def members(items: dict[str, Any], prefix: str, depth: int) -> str:
            if not items:
                return "{}"
            pad = "  " * (depth + 1)
            inner = [
                f"{pad}{_key(name)}: {piece(f'{prefix}/{escape_pointer_token(name)}', node, depth + 1)}"
                for name, node in items.items()
            ]
            return "{\n" + ",\n".join(inner) + "\n" + "  " * depth + "}"

        out = []
        for top, value in document.items():
            if top == "paths" and isinstance(value, dict):
                text = members(value, "/paths", 1)
            elif top == "components" and isinstance(value, dict) and value:
                kinds = []
                for kind, found in value.items():
                    if isinstance(found, dict) and all(isinstance(k, str) for k in found):
                        prefix = f"/components/{escape_pointer_token(kind)}"
                        kinds.append(f"    {_key(kind)}: {members(found, prefix, 2)}")
                    else:
                        kinds.append(f"    {_key(kind)}: {_shift(_indented(found), 2)}")
                text = "{\n" + ",\n".join(kinds) + "\n  }"
            else:
                text = _shift(_indented(value), 1)
            out.append(f"  {_key(top)}: {text}")
        return "{\n" + ",\n".join(out) + "\n}" if out else "{}"

    def summary(self) -> str:
        kinds = sorted(set(self.rendered) | set(self.reused))
        return ", ".join(
            f"{kind} {self.rendered.get(kind, 0)} of "
            f"{self.rendered.get(kind, 0) + self.reused.get(kind, 0)}"
            for kind in kinds
        )

    def save(self) -> None:
        """Keep the units this build and the last one used; remove the others."""
        if self.cache_dir is None:
            return
        record = self.cache_dir / RECORD
        try:
            last = json.loads(record.read_text(encoding="utf-8")).get("used", [])
        except (OSError, ValueError, AttributeError):
            last = []
        keep = {text_sha(str(k))[:40] for k in [*self.used, *last]}
        folder = self.cache_dir / UNITS_DIR
        if folder.is_dir():
            for path in folder.iterdir():
                if path.stem not in keep or path.suffix != ".txt":
                    path.unlink(missing_ok=True)
        record.write_text(json.dumps({"used": sorted(self.used)}), encoding="utf-8")
        old = self._pieces or {}
        changed = any(old.get(k) != v for k, v in self._pieces_used.items())
        if self._pieces_used and changed:  # this build's pieces and the last build's
            kept = {k: old[k] for k in self._pieces_last if k in old}
            kept |= self._pieces_used
            pieces = {"used": sorted(self._pieces_used), "pieces": kept}
            (self.cache_dir / PIECES).write_text(json.dumps(pieces), encoding="utf-8")


def unit_key(scope: str, *parts: str) -> str:
    """A unit's key: its target's scope and its own parts."""
    return text_sha("\n".join((scope, *parts)))
