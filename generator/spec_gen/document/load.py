"""Load an OpenAPI document spread over several YAML files and bundle it into one.

Parsing uses ruamel.yaml's fast safe loader. Source lines are only needed when
something must be reported, so `SourceMap` re-reads a file with the round-trip
loader (which keeps line numbers) on demand.

Bundling rule (the usual one of `bundle` tools): the root document is walked,
`components` first. A `$ref` into the root document stays a local reference, unless a schema refers to
a schema that lives outside `components/schemas` (a parameter's, a response's:
`#/components/parameters/kind/schema`), which is hoisted as an external one is. A
`$ref` into another file is inlined where it is first met (its "mount point");
every later reference to the same target points at that mount point. A schema
mounted under `components/schemas/Name` therefore keeps its name.
"""

from __future__ import annotations

import re
from collections.abc import MutableMapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from ..core.lint_rules import Repair
from ..core.naming import unique
from .openapi import DATA_KEYS, NAME_MAPS, SCHEMA_LISTS, SCHEMA_MAPS, SCHEMA_ONE
from .pointer import (
    escape_pointer_token,
    join_pointer,
    resolve_pointer,
    split_pointer,
    unescape_pointer_token,
)
from .positions import SourceMap, source_line
from .read import MAX_ALIASED, MAX_DEPTH, SpecError, read_yaml
from .refs import copied
from .repair import repair
from .upgrade import upgrade

__all__ = [
    "MAX_ALIASED",
    "MAX_DEPTH",
    "Bundle",
    "SourceMap",
    "SpecError",
    "bundle",
    "escape_pointer_token",
    "join_pointer",
    "read_yaml",
    "resolve_pointer",
    "source_line",
    "split_pointer",
    "unescape_pointer_token",
]


@lru_cache(maxsize=4096)
def _resolved(folder: Path, relative: str) -> Path:
    """`folder / relative`, absolute and with symbolic links followed (a multi-file spec
    refers to the same few files thousands of times)."""
    return (folder / relative).resolve()


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
    # the version the document was written in ("3.0.3" for an upgraded one)
    source_version: str = ""
    # pointers the 3.0 -> 3.1 upgrade moved: new prefix -> old prefix
    moved: dict[str, str] = field(default_factory=dict)
    # references that could not be followed: (file, pointer in that file, message)
    problems: list[tuple[Path, str, str]] = field(default_factory=list)
    # what repair.py changed so that JSON Schema 2020-12 reads it: (pointer, rule, message)
    repairs: list[Repair] = field(default_factory=list)


SCHEMA_MANY = frozenset(SCHEMA_MAPS + SCHEMA_LISTS)
SCHEMA_NAME = re.compile(r"[^A-Za-z0-9._-]+")


def is_schema_pointer(pointer: str) -> bool:
    """Whether `pointer` (into a bundled document) is a Schema Object's place."""
    tokens = split_pointer(pointer)
    starts = [i + 1 for i, t in enumerate(tokens) if t == "schema"]
    if tokens[:2] == ["components", "schemas"] and len(tokens) >= 3:
        starts.insert(0, 3)
    for start in starts:
        rest, ok = tokens[start:], True
        while rest and ok:
            if rest[0] in SCHEMA_ONE:
                rest = rest[1:]
            elif rest[0] in SCHEMA_MANY and len(rest) >= 2:
                rest = rest[2:]
            else:
                ok = False
        if ok:
            return True
    return False


def _reference_allowed(pointer: str) -> bool:
    """Whether a `$ref` may stand at `pointer` (a Reference Object's place): not when it
    replaces a whole map such as `properties` or `content`, as multi-file specs often do."""
    tokens = split_pointer(pointer)
    if len(tokens) >= 2 and tokens[-2] in NAME_MAPS:
        return True
    return not tokens or tokens[-1] not in NAME_MAPS


class _Bundler:
    def __init__(self, root: Path, parsed: MutableMapping[str, str] | None = None) -> None:
        self.parsed = parsed
        self.root = root.resolve()
        self.files: dict[Path, Any] = {}
        self.mounts: dict[tuple[Path, str], str] = {}
        self.bundle = Bundle(root=self.root, document={}, files=[])
        self.taken: set[str] = set()
        self.hoisted: dict[str, Any] = {}
        # root-document pointer -> whether a schema's `$ref` to it hoists it (`local`)
        self.locals: dict[str, bool] = {}

    def load(self, path: Path) -> Any:
        if path not in self.files:
            self.files[path] = read_yaml(path, self.parsed)
        return self.files[path]

    def run(self) -> Bundle:
        document = self.load(self.root)
        if not isinstance(document, dict):
            raise SpecError(self.root, 1, 1, "the root document must be a mapping")
        self.bundle.origins[""] = (self.root, "")
        components = document.get("components")
        schemas = components.get("schemas") if isinstance(components, dict) else None
        self.taken = set(schemas) if isinstance(schemas, dict) else set()
        keys = sorted(document, key=lambda k: (k != "components", list(document).index(k)))
        out: dict[str, Any] = {}
        for key in keys:
            if str(key).startswith("x-"):  # extensions are left as written, `$ref`s included
                out[key] = document[key]
                continue
            out[key] = self.walk(
                document[key], self.root, join_pointer("", key), join_pointer("", key), key
            )
        self.bundle.document = {k: out[k] for k in document}
        if self.hoisted:
            bundled_components = self.bundle.document.setdefault("components", {})
            if isinstance(bundled_components, dict):
                bundled_schemas = bundled_components.setdefault("schemas", {})
                if isinstance(bundled_schemas, dict):
                    bundled_schemas.update(self.hoisted)
        self.refer_to_locals()
        self.bundle.files = sorted(self.files)
        return self.bundle

    def walk(self, node: Any, base: Path, here: str, source: str, parent: str) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                return self.reference(node, ref, base, here, source)
            names = parent in NAME_MAPS
            out = {
                k: (
                    v
                    if (not names and (str(k).startswith("x-") or k in DATA_KEYS))
                    or (k == "examples" and isinstance(v, list))
                    else self.walk(v, base, join_pointer(here, k), join_pointer(source, k), k)
                )
                for k, v in node.items()
            }
            discriminator = out.get("discriminator") if not names else None
            mapping = discriminator.get("mapping") if isinstance(discriminator, dict) else None
            if isinstance(mapping, dict):  # after the members: their files are mounted
                mapped = {k: self.mapped(v, base) for k, v in mapping.items()}
                out["discriminator"] = {**out["discriminator"], "mapping": mapped}
            return out
        if isinstance(node, list):
            return [
                self.walk(v, base, join_pointer(here, i), join_pointer(source, i), "")
                for i, v in enumerate(node)
            ]
        return node

    def reference(self, node: dict[str, Any], ref: str, base: Path, here: str, source: str) -> Any:
        file_part, _, fragment = ref.partition("#")
        pointer = unquote(fragment)
        target_file = _resolved(base.parent, unquote(file_part)) if file_part else base
        siblings = {k: v for k, v in node.items() if k != "$ref"}
        if target_file == self.root:
            if is_schema_pointer(here) and _reference_allowed(here):
                final = self.followed(pointer)
                if self.local(final):
                    return {"$ref": "#" + self.hoist_local(final), **siblings}
                if final != pointer and final.startswith("/components/schemas/"):
                    return {"$ref": "#" + final, **siblings}
            return {"$ref": "#" + pointer, **siblings}
        replaces_a_map = not _reference_allowed(here)
        mounted = None if replaces_a_map else self.mounts.get((target_file, pointer))
        if mounted is not None:
            return {"$ref": "#" + mounted, **siblings}
        if "://" in file_part:
            self.bundle.problems.append(
                (base, source, f"$ref {ref!r}: remote references are not fetched")
            )
            return {}
        if not target_file.is_file():
            self.bundle.problems.append((base, source, f"$ref {ref!r}: no such file"))
            return {}
        try:
            target = resolve_pointer(self.load(target_file), pointer)
        except (KeyError, IndexError, ValueError, TypeError):
            self.bundle.problems.append((base, source, f"$ref {ref!r}: nothing at {pointer!r}"))
            return {}
        hoist = (
            isinstance(target, dict)
            and is_schema_pointer(here)
            and not (here.count("/") == 3 and here.startswith("/components/schemas/"))
        )
        mount = (
            join_pointer("/components/schemas", self.name_for(target_file, pointer))
            if hoist
            else here
        )
        if not replaces_a_map:  # a map (`properties: {$ref: ...}`) is copied at each use
            self.mounts[(target_file, pointer)] = mount
        if hoist:
            self.hoisted[split_pointer(mount)[-1]] = None  # its place: the order first met
        self.bundle.origins[mount] = (target_file, pointer)
        self.bundle.ref_sites[mount] = (base, source)
        inlined = self.walk(copied(target), target_file, mount, pointer, "")
        if hoist:
            self.hoisted[split_pointer(mount)[-1]] = inlined
            return {"$ref": "#" + mount, **siblings}
        if siblings and isinstance(inlined, dict):
            inlined.update(siblings)
        return inlined

    def mapped(self, value: Any, base: Path) -> Any:
        """A discriminator mapping's value written in another file (`models/attach.yml`, a
        reference relative to it): the place its schema was mounted (`#/components/schemas/
        attach`), as the members' `$ref`s read. A value naming nothing mounted (a schema name)
        is left as written."""
        if not isinstance(value, str):
            return value
        file_part, _, fragment = value.partition("#")
        target_file = _resolved(base.parent, unquote(file_part)) if file_part else base
        mount = self.mounts.get((target_file, unquote(fragment)))
        return "#" + mount if mount is not None else value

    def local(self, pointer: str) -> bool:
        """Whether `pointer` names a schema of the root document that lives outside
        `components/schemas`: a parameter's, a header's, a media type's (`#/components/
        parameters/kind/schema`, `#/paths/~1pets/get/responses/200/content/application~1json/
        schema`, or a member of one). Only component schemas become model classes, so a
        schema's `$ref` to one is hoisted under `components/schemas` as an external schema
        is, and the place it came from refers to it (the generated code had `Any`, each
        finding inside it came twice). A ref that points at nothing is left to the `ref`
        rule; a ref to a `$ref` is followed to its end (`followed`)."""
        if pointer in self.locals:
            return self.locals[pointer]
        found = False
        if not pointer.startswith("/components/schemas/") and is_schema_pointer(pointer):
            try:
                target = resolve_pointer(self.load(self.root), pointer)
            except (KeyError, IndexError, ValueError, TypeError):
                target = None
            found = isinstance(target, dict) and not isinstance(target.get("$ref"), str)
        self.locals[pointer] = found
        return found

    def followed(self, pointer: str) -> str:
        """Where a chain of local `$ref`s starting at the root document's `pointer` ends
        (`#/components/parameters/kind/schema` being `{$ref: '#/components/schemas/Kind'}`)."""
        for _ in range(32):
            try:
                target = resolve_pointer(self.load(self.root), pointer)
            except (KeyError, IndexError, ValueError, TypeError):
                return pointer
            ref = target.get("$ref") if isinstance(target, dict) else None
            if not (isinstance(ref, str) and ref.startswith("#") and len(target) == 1):
                return pointer
            pointer = unquote(ref[1:])
        return pointer

    def hoist_local(self, pointer: str) -> str:
        """Where the root document's schema at `pointer` (`local`) is mounted, hoisting it
        under `components/schemas` the first time."""
        mount = self.mounts.get((self.root, pointer))
        if mount is not None:
            return mount
        name = self.local_name(pointer)
        mount = join_pointer("/components/schemas", name)
        self.mounts[(self.root, pointer)] = mount
        self.hoisted[name] = None  # its place: the order first met
        self.bundle.origins[mount] = (self.root, pointer)
        target = resolve_pointer(self.load(self.root), pointer)
        self.hoisted[name] = self.walk(target, self.root, mount, pointer, "")
        return mount

    def refer_to_locals(self) -> None:
        """Each place a schema was hoisted from (`local`) refers to its component, so it is
        read once: in the document, or inside the component hoisted from around it."""
        hoisted = sorted(p for p in self.locals if self.locals[p] and (self.root, p) in self.mounts)
        for pointer in hoisted:
            around = [q for q in hoisted if pointer.startswith(q + "/")]
            place = (
                self.mounts[(self.root, around[-1])] + pointer[len(around[-1]) :]
                if around
                else pointer
            )
            *head, last = split_pointer(place)
            parent = resolve_pointer(self.bundle.document, join_pointer("", *head))
            if isinstance(parent, list):
                parent[int(last)] = {"$ref": "#" + self.mounts[(self.root, pointer)]}
            elif isinstance(parent, dict) and last in parent:
                parent[last] = {"$ref": "#" + self.mounts[(self.root, pointer)]}

    def local_name(self, pointer: str) -> str:
        """A unique components/schemas name for a schema hoisted from elsewhere in the root
        document: the names its pointer walks through, in PascalCase (`/components/
        parameters/kind/schema`: Kind; `.../responses/Thing/content/application~1json/
        schema/oneOf/0`: ThingOneOf0; `/paths/~1pets/get/.../schema`: PetsGet200)."""
        tokens = split_pointer(pointer)
        words = [
            token
            for n, token in enumerate(tokens)
            if token not in _STRUCTURE and (n == 0 or tokens[n - 1] != "content")  # media type
        ]
        base = SCHEMA_NAME.sub("_", _pascal(" ".join(words))).strip("_") or "Schema"
        return unique(base, self.taken, separator="_")

    def name_for(self, file: Path, pointer: str) -> str:
        """A stable, unique components/schemas name for an external schema: the last token
        of its pointer, or its file's name in PascalCase (droplet.yml: Droplet); on a clash,
        qualified by the file (Region_regions) or the folder (other/error.yaml: OtherError)."""
        tokens = split_pointer(pointer)
        stem = file.name.split(".")[0]
        if tokens:
            candidates = [tokens[-1], f"{tokens[-1]}_{stem}"]
        else:
            candidates = [_pascal(stem), _pascal(file.parent.name) + _pascal(stem)]
        candidates = [SCHEMA_NAME.sub("_", c).strip("_") or "Schema" for c in candidates]
        for candidate in candidates:
            if candidate not in self.taken:
                self.taken.add(candidate)
                return candidate
        return unique(candidates[0], self.taken, separator="_")


# the tokens of a pointer that say where a schema sits, not what it is called
_STRUCTURE = frozenset(
    {"components", "parameters", "headers", "requestBodies", "responses", "content", "schema",
     "paths", "webhooks", "callbacks", "pathItems", "properties", "items", "mediaTypes"}
)  # fmt: skip


def _pascal(text: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in re.split(r"[^A-Za-z0-9]+", text))


def bundle(
    root: Path, inapplicable: bool = True, parsed: MutableMapping[str, str] | None = None
) -> Bundle:
    """Load `root` and every file it references; one resolved document, upgraded to 3.1.
    Without `inapplicable`, keywords of another type are kept (repair.repair). `parsed`: the
    YAML files parsed by an earlier build (read.read_yaml)."""
    result = _Bundler(root, parsed).run()
    result.source_version = str(result.document.get("openapi", ""))
    result.moved = upgrade(result.document)
    moved, result.repairs = repair(result.document, result.source_version, inapplicable)
    result.moved.update(moved)
    return result
