"""What a unit's key is made of beyond the build's context (targets/units.py): the values its
template is given, not the whole document.

A unit template reads only the variables its renderer passes it (tests/generator/targets/
test_units.py pins them with Jinja's own analysis), and the filters are functions of their
arguments. So a server tag's modules are a function of the tag's IR (its operations, with
their names, types, security, descriptions), the model classes they import and the target's
names; a client resource module of its namespaces, its operations' client views and the
classes they import. Their keys are the hash of those values' `repr` (the IR's and the views'
dataclasses write every field; dict order is the document's): an edit elsewhere in the
document (an operation added to another tag, a field of a schema they do not name) leaves
them as they are, and any edit that changes what they render changes their values.

A docs page is laid out from the whole IR (the tables of the schemas an operation reaches,
examples, credentials), too costly to build only to hash it; its key is made of what the
layout reads: the tag's IR and views, the anchors of its operations and of those its texts
link to, the model classes its operations reach (`SchemaClosure`), the credentials of the
security schemes they name, the API-wide facts the layout asks, and the document's nodes the
tag reaches (`Fingerprints.reach`) plus the document's skeleton without its paths, tags and
components (`Fingerprints.narrow`): docs/target.py, `docs_facts` and `docs_unit`.

The hashes are of `repr`s within one interpreter version (the build's context has it); a
set's is taken in order (its `repr` follows the process's hash seed).
"""

from __future__ import annotations

import dataclasses
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from ..core.graphs import reached
from ..document.openapi import SCHEMA_REF
from ..ir import Api, Operation

_SCHEMA_REFS = re.compile(re.escape(SCHEMA_REF) + r"([^'\"\\/\s]*)")
_OP_LINK = re.compile(r"\(op:([^)\s'\"]*)\)")


def text_sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def digest(*values: Any) -> str:
    """The hash of the values' `repr`."""
    return text_sha(repr(values))


@dataclass(frozen=True)
class Printed:
    """An IR value's hash, and what its text names: model classes (refs) and linked operations."""

    sha: str
    classes: tuple[str, ...]
    links: tuple[str, ...]


class IrKeys:
    """The hashes of the IR's operations and client views, each made once per build (the
    server, the client and the docs ask for the same ones), and of the values holding them."""

    def __init__(self) -> None:
        self._memo: dict[int, tuple[Any, Printed]] = {}  # id -> (the value, kept alive; print)

    def printed(self, value: Any) -> Printed:
        """An operation's (or a client view's, its operation's hash in place of it) print."""
        known = self._memo.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        # an operation's own repr (every field; its callbacks are its own); a client view's
        # with its operation's hash and its set in order; else the value's
        if isinstance(value, Operation):
            text = repr(value)
        elif type(value).__name__ == "ClientOp":
            view: Any = value
            ordered = tuple(sorted(view.body_enums))
            text = repr(dataclasses.replace(view, op=self.printed(view.op).sha, body_enums=ordered))
        else:
            text = repr(self.value(value, top=True))
        found = Printed(text_sha(text), tuple(names_referred(text)), tuple(op_links(text)))
        self._memo[id(value)] = (value, found)
        return found

    def value(self, value: Any, top: bool = False) -> Any:
        """`value` with every operation and client view in it as its hash (a set in order)."""
        if isinstance(value, (list, tuple)):
            return (type(value).__name__, [self.value(v) for v in value])
        if isinstance(value, frozenset | set):
            return sorted(repr(v) for v in value)
        if isinstance(value, Operation) and not top:
            return self.printed(value).sha
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            if not top and type(value).__name__ == "ClientOp":
                return self.printed(value).sha
            return [type(value).__name__] + [
                (f.name, self.value(getattr(value, f.name))) for f in dataclasses.fields(value)
            ]
        return value

    def digest(self, *values: Any) -> str:
        return text_sha(repr(self.value(list(values))))

    def reached(self, values: Any) -> tuple[set[str], set[str]]:
        """The model classes and the operations the operations and views in `values` name."""
        classes: set[str] = set()
        links: set[str] = set()
        for value in values:
            found = self.printed(value)
            classes.update(found.classes)
            links.update(found.links)
        return classes, links


class SchemaClosure:
    """The model classes (api.schemas) some names reach, transitively, each with its schema."""

    def __init__(self, api: Api) -> None:
        self.schemas = api.schemas
        self._known: dict[str, tuple[str, list[str]]] = {}  # name -> (hash, names it refers to)

    def _class(self, name: str) -> tuple[str, list[str]]:
        known = self._known.get(name)
        if known is None:
            schema = self.schemas.get(name)
            text = "missing" if schema is None else repr(schema)
            known = self._known[name] = (text_sha(text), names_referred(text))
        return known

    def of(self, names: Iterable[str]) -> str:
        """The hash of the classes named, and every class those refer to."""
        seen = reached(names, lambda name: self._class(name)[1])
        return digest(sorted((name, self._class(name)[0]) for name in seen))


def names_referred(text: str) -> list[str]:
    """The class names of the `#/components/schemas/<name>` refs in a text (as written and
    decoded: a name with `~1` or `%` escapes is looked up both ways)."""
    out = set()
    for raw in _SCHEMA_REFS.findall(text):
        out.add(raw)
        out.add(unquote(raw).replace("~1", "/").replace("~0", "~"))
    return sorted(out)


def op_links(text: str) -> list[str]:
    """The operationIds a text links to (`[...](op:<id>)`, percent-encoded)."""
    return sorted({unquote(found) for found in _OP_LINK.findall(text)})
