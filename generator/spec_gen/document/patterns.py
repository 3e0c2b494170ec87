"""`pattern` regular expressions (ECMA-262 in JSON Schema) as pydantic can compile them.

pydantic compiles a `pattern` with one of two engines: Rust's `regex` (the default: no
look-around, no back-references) or Python's `re` (`regex_engine="python-re"`, no `\\p{..}`
classes). Real documents hold patterns written for JavaScript that one or both refuse: a
generated module that holds one does not import (a model class, a FastAPI parameter), or
answers 500 when the parameter arrives. `readable` says which engine compiles a pattern, as
written or with a few ECMA-262 spellings rewritten to their meaning in both engines:

- `-` beside a class escape in a character class (`[\\w-.]`) is a literal hyphen in
  JavaScript: escaped (`[\\w\\-.]`);
- a named group `(?<name>...)` is spelled `(?P<name>...)`, a back-reference to it
  `\\k<name>` is `(?P=name)`.

A pattern neither engine compiles is not checked (the `pattern` rule warns at its node).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Literal

Engine = Literal["rust-regex", "python-re"]
ENGINES: tuple[Engine, ...] = ("rust-regex", "python-re")
_CLASS_ESCAPES = frozenset("dDwWsS")


@lru_cache(maxsize=4096)
def compiles(pattern: str, engine: Engine) -> bool:
    """Whether pydantic compiles `pattern` with `engine` (`rust-regex` or `python-re`)."""
    from pydantic_core import SchemaValidator, core_schema

    try:
        SchemaValidator(
            core_schema.str_schema(pattern=pattern), core_schema.CoreConfig(regex_engine=engine)
        )
    except Exception:  # noqa: BLE001  (pydantic_core's SchemaError, or the engine's own)
        return False
    return True


@lru_cache(maxsize=4096)
def readable(pattern: str) -> tuple[str, Engine] | None:
    """`(pattern, engine)`: the pattern as written, else rewritten from ECMA-262 spellings,
    and the first engine that compiles it (Rust's first: pydantic's default); None when
    neither compiles it."""
    for candidate in dict.fromkeys((pattern, rewritten(pattern))):
        for engine in ENGINES:
            if compiles(candidate, engine):
                return candidate, engine
    return None


def rewritten(pattern: str) -> str:
    """`pattern` with the ECMA-262 spellings above written as both engines read them."""
    out: list[str] = []
    in_class = False
    previous_class_escape = False  # the last item of the current class was `\d`, `\w`, ...
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\" and i + 1 < len(pattern):
            escape = pattern[i : i + 2]
            named = re.match(r"\\k<([A-Za-z_][A-Za-z0-9_]*)>", pattern[i:])
            if named and not in_class:
                out.append(f"(?P={named.group(1)})")
                i += len(named.group(0))
                continue
            out.append(escape)
            previous_class_escape = in_class and escape[1] in _CLASS_ESCAPES
            i += 2
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char == "-" and (previous_class_escape or _class_escape_at(pattern, i + 1)):
                out.append("\\-")
                previous_class_escape = False
                i += 1
                continue
            previous_class_escape = False
            out.append(char)
            i += 1
            continue
        if char == "[":
            in_class = True
            out.append(char)
            i += 1
            if pattern[i : i + 1] == "^":
                out.append("^")
                i += 1
            continue
        if pattern.startswith("(?<", i) and pattern[i + 3 : i + 4] not in ("=", "!"):
            out.append("(?P<")
            i += 3
            continue
        out.append(char)
        i += 1
    return "".join(out)


def _class_escape_at(pattern: str, i: int) -> bool:
    return pattern[i : i + 1] == "\\" and pattern[i + 1 : i + 2] in _CLASS_ESCAPES
