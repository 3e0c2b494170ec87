"""Reading one file of a document: JSON by the json module, YAML 1.2 composed by ruamel's C
parser and turned into JSON values in one walk (ruamel's constructor only for what that
walk leaves: merge keys, explicit tags, duplicate keys, %YAML 1.1), refused with a located
`SpecError` when it cannot be read or is too deep, too big expanded or cyclic."""

from __future__ import annotations

import hashlib
import json
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any


class SpecError(Exception):
    """A problem located in a source file (1-based line and column, 0 if unknown)."""

    def __init__(self, file: Path, line: int, column: int, message: str) -> None:
        super().__init__(f"{file}:{line}:{column}: {message}")
        self.file = file
        self.line = line
        self.column = column
        self.message = message


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


def _json_types_constructor() -> Any:
    """ruamel's safe constructor reading YAML 1.2 as JSON types: a date-looking scalar stays a
    string (JSON has no dates), so do a plain `=` and `!!binary` data, and every mapping key
    is a string (`200:` -> "200")."""
    from ruamel.yaml.constructor import SafeConstructor

    class JsonTypesConstructor(SafeConstructor):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            mapping = super().construct_mapping(node, deep=deep)
            if all(type(k) is str for k in mapping):
                return mapping
            return {_key(k): v for k, v in mapping.items()}

    JsonTypesConstructor.add_constructor(
        "tag:yaml.org,2002:timestamp", SafeConstructor.construct_yaml_str
    )
    # a plain `=` (YAML 1.1's "value key" type, which ruamel still resolves) is the string
    # "="; `!!binary` stays its base64 text (JSON has no bytes)
    for tag in ("tag:yaml.org,2002:value", "tag:yaml.org,2002:binary"):
        JsonTypesConstructor.add_constructor(tag, SafeConstructor.construct_yaml_str)
    JsonTypesConstructor.add_constructor(
        "tag:yaml.org,2002:map", JsonTypesConstructor.construct_yaml_map
    )
    return JsonTypesConstructor


def _key(key: Any) -> str:
    if isinstance(key, bool):
        return "true" if key else "false"
    return "null" if key is None else str(key)


_CONSTRUCTOR: Any = None
_RESOLVER: Any = None


def _json_types_resolver() -> Any:
    """ruamel's resolver with its table of implicit types looked up once per file, not once
    per scalar (the lookup re-reads the YAML version each time: a third of the parse)."""
    from ruamel.yaml.resolver import VersionedResolver

    class OncePerFileResolver(VersionedResolver):
        @property
        def versioned_resolver(self) -> Any:
            table = self.__dict__.get("_spec_gen_table")
            if table is None:
                table = VersionedResolver.versioned_resolver.fget(self)  # type: ignore[attr-defined]
                self.__dict__["_spec_gen_table"] = table
            return table

    return OncePerFileResolver


def _loader(pure: bool) -> Any:
    global _CONSTRUCTOR
    from ruamel.yaml import YAML

    global _RESOLVER
    if _CONSTRUCTOR is None:
        _CONSTRUCTOR = _json_types_constructor()
        _RESOLVER = _json_types_resolver()
    yaml = YAML(typ="safe", pure=pure)
    yaml.Constructor = _CONSTRUCTOR
    yaml.Resolver = _RESOLVER
    return yaml


_TAG = "tag:yaml.org,2002:"
_AS_STRING = frozenset(_TAG + t for t in ("str", "timestamp", "value", "binary"))


class _NotPlain(Exception):
    """A node `_plain` leaves to ruamel's constructor (a merge key, a cycle, a duplicate key,
    an explicit or unknown tag, a `%YAML 1.1` document)."""


def _fast_load(text: str) -> Any:
    """`_loader(pure=False).load(text)`, faster: the C parser composes the nodes and `_plain`
    turns them into JSON values in one recursive walk, without ruamel's constructor and its
    two-step generator per mapping (on DigitalOcean's 1,500 files: 0.3 s of 1.5 s of
    bundling). What that walk does not know goes to the constructor, as before."""
    yaml = _loader(pure=False)
    if "%YAML" in text:  # a version directive: the constructor reads what it says
        return yaml.load(text)
    node = yaml.compose(text)
    if node is None:
        return None
    try:
        return _plain(node)
    except _NotPlain:
        return yaml.load(text)


def _plain(root: Any) -> Any:
    """The JSON value of a composed YAML 1.2 document (see _json_types_constructor): a
    mapping or list met again through an alias is the same object, as the constructor makes
    it; anything else raises _NotPlain."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    built: dict[int, Any] = {}
    open_: set[int] = set()

    def value(node: Any) -> Any:
        tag = node.ctag
        name = tag.suffix if tag.handle is None else None
        kind = type(node)
        if kind is ScalarNode:
            if name in _AS_STRING:
                return node.value
            if name == _TAG + "int":
                return _yaml_int(node.value)
            if name == _TAG + "float":
                return _yaml_float(node.value)
            if name == _TAG + "bool":
                return node.value.lower() == "true"
            if name == _TAG + "null":
                return None
            raise _NotPlain
        key = id(node)
        if key in built:
            return built[key]
        if key in open_:
            raise _NotPlain
        open_.add(key)
        out: Any
        if kind is MappingNode and name == _TAG + "map":
            out = {}
            for key_node, value_node in node.value:
                if type(key_node) is not ScalarNode:
                    raise _NotPlain
                item = value(key_node)
                if type(item) is not str:
                    item = _key(item)
                if item in out or key_node.ctag.suffix == _TAG + "merge":
                    raise _NotPlain
                out[item] = value(value_node)
        elif kind is SequenceNode and name == _TAG + "seq":
            out = [value(item) for item in node.value]
        else:
            raise _NotPlain
        open_.discard(key)
        built[key] = out
        return out

    return value(root)


def _yaml_int(text: str) -> int:
    """A YAML 1.2 int as ruamel's safe constructor reads it (`0x1F`, `0o17`, `1_000`)."""
    digits = text.replace("_", "")
    sign = -1 if digits[0] == "-" else 1
    if digits[0] in "+-":
        digits = digits[1:]
    for prefix, base in (("0b", 2), ("0x", 16), ("0o", 8)):
        if digits.startswith(prefix):
            return sign * int(digits[2:], base)
    return sign * int(digits)


def _yaml_float(text: str) -> float:
    """A YAML 1.2 float as ruamel's safe constructor reads it (`.inf`, `-.Inf`, `.nan`)."""
    digits = text.replace("_", "").lower()
    sign = -1.0 if digits[0] == "-" else 1.0
    if digits[0] in "+-":
        digits = digits[1:]
    if digits == ".inf":
        return sign * float("inf")
    if digits == ".nan":
        return float("nan")
    return sign * float(digits)


# what one file may be: deeper than this, the recursive steps after loading would run out of
# stack (real documents stay under 40); its YAML aliases may not add more than MAX_ALIASED
# values when expanded (a "billion laughs" document: a few lines that expand to billions)
MAX_DEPTH = 200
MAX_ALIASED = 1_000_000


def _shape_problem(value: Any) -> str | None:
    """Why `value` (as loaded, aliases shared) is too deep, too big expanded, or cyclic.

    Measured without expanding anything: each mapping or list once (by identity), its
    height and expanded size from its children's.
    """
    measured: dict[int, tuple[int, int]] = {}  # id -> (height, values when expanded)
    written = 0  # values as written: each mapping or list once, with its scalars
    open_: set[int] = set()
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, closing = stack.pop()
        key = id(node)
        if key in measured:
            continue
        children = list(node.values()) if isinstance(node, dict) else node
        if not closing:
            if key in open_:
                return "a YAML alias refers to a mapping or list that contains it (a cycle)"
            open_.add(key)
            stack.append((node, True))
            for child in children:
                if isinstance(child, (dict, list)):
                    if id(child) in open_:
                        return "a YAML alias refers to a mapping or list that contains it (a cycle)"
                    stack.append((child, False))
            continue
        height, size = 1, 1
        written += 1
        for child in children:
            if isinstance(child, (dict, list)):
                child_height, child_size = measured[id(child)]
                height = max(height, child_height + 1)
                size += child_size
            else:
                size += 1
                written += 1
        open_.discard(key)
        measured[key] = (height, size)
        if height > MAX_DEPTH:
            return f"nested more than {MAX_DEPTH} levels deep"
        if size - written > MAX_ALIASED:
            return f"its YAML aliases expand it by more than {MAX_ALIASED:,} values"
    return None


def read_yaml(path: Path, parsed: MutableMapping[str, str] | None = None) -> Any:
    """Parse one YAML (or JSON) file into plain JSON values (YAML 1.2, strings for dates).

    A file nested deeper than MAX_DEPTH, or whose aliases add more than MAX_ALIASED values or
    make a cycle, is refused (SpecError) before anything walks it.

    `parsed` (a build's cache: `parse_key(text)` -> the values in JSON, a snapshot the build
    cannot change): a YAML file whose text was parsed before is read from there (10x faster
    than parsing it), one parsed now is added, unless it has anchors (what an alias shares
    would be copied) or was refused; JSON is not kept (the json module reads it as fast).
    """
    text = _read_text(path)
    key = None
    if parsed is not None and text.lstrip()[:1] not in ("{", "[") and "&" not in text:
        key = parse_key(text)
        if key in parsed:
            return json.loads(parsed[key])
    try:
        value, measured = _parse(path, text)
    except RecursionError:
        raise SpecError(path, 1, 1, f"refused: nested more than {MAX_DEPTH} levels deep") from None
    if isinstance(value, (dict, list)) and not measured:
        problem = _shape_problem(value)
        if problem is not None:
            raise SpecError(path, 1, 1, f"refused: {problem}")
    if key is not None and parsed is not None:
        parsed[key] = json.dumps(value)
    return value


def parse_key(text: str) -> str:
    """The key of a file's parsed values: its text, this module and ruamel's version."""
    from importlib.metadata import version

    global _PARSER
    if _PARSER is None:
        _PARSER = hashlib.sha256(
            Path(__file__).read_bytes() + version("ruamel.yaml").encode()
        ).hexdigest()
    return hashlib.sha256(f"{_PARSER}\n{text}".encode()).hexdigest()


_PARSER: str | None = None


def _nests_deeper(node: dict[str, Any] | list[Any], room: int) -> bool:
    """Whether JSON values (no aliases: nothing shared, no cycle) nest more than `room` levels
    deep: all `_shape_problem` would measure of them, 10x faster."""
    if room == 0:
        return True
    for child in node.values() if isinstance(node, dict) else node:
        if isinstance(child, (dict, list)) and _nests_deeper(child, room - 1):
            return True
    return False


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise SpecError(path, 0, 0, f"cannot read file: {reason}") from None


def _parse(path: Path, text: str) -> tuple[Any, bool]:
    """The file's values (its `text`), and whether their shape is already measured (JSON: its
    depth)."""
    from ruamel.yaml.error import YAMLError

    if text.lstrip()[:1] in (
        "{",
        "[",
    ):  # JSON (a subset of YAML 1.2): the json module is 10x faster
        try:
            value = json.loads(text)
        except ValueError:
            pass  # YAML flow style after all
        else:
            if isinstance(value, (dict, list)) and _nests_deeper(value, MAX_DEPTH):
                raise SpecError(path, 1, 1, f"refused: nested more than {MAX_DEPTH} levels deep")
            return value, True
    if _has_clib():
        try:
            return _fast_load(text), False
        except YAMLError:
            pass  # libyaml's scanner is stricter than YAML 1.2 in corners; the pure parser decides
    try:
        return _loader(pure=True).load(text), False
    except YAMLError as exc:
        raise _yaml_error(path, exc) from None
