"""The schema walk: `$ref`s, types, properties, items, `allOf`/`oneOf`/`anyOf`, sub-schemas.

Schemas are judged by direction: a request schema that accepts less breaks clients that
send what it used to accept; a response schema that returns more breaks clients that
parse what it used to return. The rule ids say which (`request-*`, `response-*`).
"""

from __future__ import annotations

from typing import Any

from .document import MAX_DEPTH, Doc, parse_sunset
from .keywords import KeywordDiffer
from .model import Where, child

SCALARS = frozenset({"number", "integer", "boolean"})

# keywords that describe a schema without constraining what is valid
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "example",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "default",
        "$comment",
        "externalDocs",
        "xml",
        "discriminator",
    }
)


def schema_types(schema: dict[str, Any]) -> tuple[frozenset[str], bool]:
    """The non-null types a schema names (inferred from properties/items when unnamed), and nullability."""
    declared = schema.get("type")
    names = (
        {str(t) for t in declared}
        if isinstance(declared, list)
        else ({str(declared)} if declared is not None else set())
    )
    nullable = "null" in names or schema.get("nullable") is True
    names.discard("null")
    if not names and "properties" in schema:
        names = {"object"}
    if not names and "items" in schema:
        names = {"array"}
    return frozenset(names), nullable


def _accepts(types: frozenset[str], kind: str) -> bool:
    return kind in types or (kind == "integer" and "number" in types)


def type_relation(
    old_types: frozenset[str], old_format: Any, new_types: frozenset[str], new_format: Any
) -> str:
    """`same`, `widened` (new accepts everything old did), `narrowed`, or `changed`."""
    widened = all(_accepts(new_types, t) for t in old_types)
    narrowed = all(_accepts(old_types, t) for t in new_types)
    if old_types == new_types:
        widened = narrowed = True
    if old_format != new_format and old_types & new_types:
        widened = widened and new_format is None  # dropping a format widens; anything else narrows
        narrowed = narrowed and old_format is None
    if widened and narrowed:
        return "same"
    return "widened" if widened else "narrowed" if narrowed else "changed"


def _type_text(types: frozenset[str], fmt: Any) -> str:
    text = "|".join(sorted(types)) or "any"
    return f"`{text}` (format `{fmt}`)" if fmt is not None else f"`{text}`"


def branch_keys(doc: Doc, value: Any) -> dict[str, Any]:
    """`oneOf`/`anyOf`/`allOf` members keyed by the schema they name (`$ref` name, `null`, or position)."""
    branches: dict[str, Any] = {}
    for index, branch in enumerate(value if isinstance(value, list) else []):
        if isinstance(branch, dict) and isinstance(branch.get("$ref"), str):
            key = branch["$ref"].rsplit("/", 1)[-1]
        elif doc.node(branch).get("type") == "null":
            key = "null"
        else:
            key = f"#{index}"
        branches[key] = branch
    return branches


def flatten(doc: Doc, schema: dict[str, Any], refs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Merge `allOf` parts into one schema: properties and required lists united."""
    if not isinstance(schema.get("allOf"), list):
        return schema
    merged = {k: v for k, v in schema.items() if k != "allOf"}
    properties = dict(merged.get("properties") or {})
    required = list(merged.get("required") or [])
    for part in schema["allOf"]:
        resolved, ref = doc.deref(part)
        if not isinstance(resolved, dict) or ref in refs:
            continue  # an allOf that includes itself adds nothing more
        resolved = flatten(doc, resolved, refs | {ref} if ref else refs)
        for name, prop in (resolved.get("properties") or {}).items():
            properties.setdefault(name, prop)
        required += [r for r in resolved.get("required") or [] if r not in required]
        for key, value in resolved.items():
            if key not in ("properties", "required"):
                merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


class SchemaDiffer(KeywordDiffer):
    def schema(
        self,
        old_raw: Any,
        new_raw: Any,
        where: Where,
        path: str = "",
        seen: frozenset[tuple[str, str]] = frozenset(),
        depth: int = 0,
    ) -> None:
        old, old_ref = self.old.deref(old_raw)
        new, new_ref = self.new.deref(new_raw)
        if old_ref is not None and new_ref is not None:
            if (old_ref, new_ref) in seen:
                return  # a recursive schema, already being compared further up
            seen = seen | {(old_ref, new_ref)}
        if depth > MAX_DEPTH or not isinstance(old, dict) or not isinstance(new, dict):
            return
        branch = self._wrapping_branch(old, old_ref, new)
        if branch is not None:
            self.emit(
                f"{where.family(path)}-wrapped-in-one-of",
                f"{where.subject(path)} moved into a `oneOf` branch",
            )
            self.schema(old_raw, branch, where, path, seen, depth + 1)
            return
        self.all_of(old, new, where, path)
        old, new = flatten(self.old, old), flatten(self.new, new)
        if self.list_of_types(old, new, where, path):
            self.values(old, new, where, path)
            return
        if not self.types(old, new, where, path):
            self.enum(old, new, where, path)  # e.g. string to an integer enum: became-enum too
            return
        self.values(old, new, where, path)
        self.properties(old, new, where, path, seen, depth)
        if isinstance(old.get("items"), dict) and isinstance(new.get("items"), dict):
            self.schema(old["items"], new["items"], where, f"{path}[]", seen, depth + 1)
        self.subschemas(old, new, where, path, seen, depth)
        for keyword, part in (("oneOf", "one-of"), ("anyOf", "any-of")):
            if keyword in old or keyword in new:
                self.branches(keyword, part, old, new, where, path, seen, depth)

    def _wrapping_branch(
        self, old: dict[str, Any], old_ref: str | None, new: dict[str, Any]
    ) -> Any:
        """The `oneOf` branch of NEW that is OLD itself (same `$ref`, or equal inline), if any."""
        if "oneOf" in old or not isinstance(new.get("oneOf"), list):
            return None
        for branch in new["oneOf"]:
            if old_ref is not None and isinstance(branch, dict) and branch.get("$ref") == old_ref:
                return branch
            if self.new.node(branch) == old and old.get("properties"):
                return branch
        return None

    @staticmethod
    def type_list(schema: dict[str, Any]) -> frozenset[str] | None:
        """The types of a list of types (`type: [a, b]`, or `oneOf`/`anyOf` of bare types)."""
        types, _ = schema_types(schema)
        if len(types) > 1:
            return types
        for keyword in ("oneOf", "anyOf"):
            branches = schema.get(keyword)
            if not isinstance(branches, list) or not branches:
                continue
            found: set[str] = set()
            for branch in branches:
                if not isinstance(branch, dict) or set(branch) != {"type"}:
                    return None
                found |= schema_types(branch)[0]
            return frozenset(found)
        return None

    def list_of_types(
        self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str
    ) -> bool:
        """Report a change to a list of types; True when either side is one."""
        old_list, new_list = self.type_list(old), self.type_list(new)
        if old_list is None and new_list is None:
            return False
        old_types = old_list if old_list is not None else schema_types(old)[0]
        new_types = new_list if new_list is not None else schema_types(new)[0]
        family, subject = where.family(path), where.subject(path)
        lost, gained = sorted(old_types - new_types), sorted(new_types - old_types)
        if lost:
            self.emit(
                f"{family}-list-of-types-narrowed", f"{subject} no longer accepts {', '.join(lost)}"
            )
        if gained:
            self.emit(
                f"{family}-list-of-types-widened", f"{subject} now accepts {', '.join(gained)}"
            )
        if not lost and not gained:
            return False  # the same list: compared as any schema
        self.nullability(old, new, where, path)
        return True

    def types(self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str) -> bool:
        """Report type and nullability changes; False when the types share nothing more to compare."""
        family, subject = where.family(path), where.subject(path)
        old_types, _ = schema_types(old)
        new_types, _ = schema_types(new)
        if old_types and new_types:
            relation = type_relation(old_types, old.get("format"), new_types, new.get("format"))
            query_text = family.startswith("request-parameter") and old_types == {"string"}
            if query_text and relation == "changed" and new_types <= SCALARS:
                relation = "narrowed"  # a query's text must now be a number or a boolean
            text = (
                f"{subject} changed type from {_type_text(old_types, old.get('format'))}"
                f" to {_type_text(new_types, new.get('format'))}"
            )
            as_text = new_types if where.side == "request" else old_types
            if where.loose and old_types != new_types and as_text == {"string"}:
                relation = "compatible"  # in XML or text any value travels as a string
                self.emit(f"{family}-type-compatible", text)
            if relation == "widened":
                self.emit(f"{family}-type-generalized", text)
            elif relation == "narrowed":
                # oasdiff: narrowing a request type is a change, except inside a parameter
                specialized = where.side == "response" or family == "request-parameter-property"
                suffix = "type-specialized" if specialized else "type-changed"
                self.emit(f"{family}-{suffix}", text)
            elif relation == "changed":
                self.emit(f"{family}-type-changed", text)
            comparable = any(_accepts(new_types, t) for t in old_types) or any(
                _accepts(old_types, t) for t in new_types
            )
            if not comparable:
                return False  # e.g. object to string: nothing inside is worth comparing
        self.nullability(old, new, where, path)
        return True

    def nullability(
        self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str
    ) -> None:
        old_null, new_null = schema_types(old)[1], schema_types(new)[1]
        if old_null != new_null:
            became = "became-nullable" if new_null else "became-not-nullable"
            self.emit(
                f"{where.family(path)}-{became}",
                f"{where.subject(path)} {'is now' if new_null else 'is no longer'} nullable",
            )

    def all_of(self, old: dict[str, Any], new: dict[str, Any], where: Where, path: str) -> None:
        if "allOf" not in old and "allOf" not in new:
            return
        family, subject = where.family(path), where.subject(path)
        old_m = branch_keys(self.old, old.get("allOf"))
        new_m = branch_keys(self.new, new.get("allOf"))
        for doc, members, others, change in (
            (self.old, old_m, new_m, "removed"),
            (self.new, new_m, old_m, "added"),
        ):
            for key, member in members.items():
                if key in others:
                    continue
                keys = set(doc.node(member))
                only = bool(keys) and all(k in ANNOTATIONS or k.startswith("x-") for k in keys)
                rule = f"{family}-all-of-{change}" + ("-annotation-only" if only else "")
                word = "removed from" if change == "removed" else "added to"
                self.emit(rule, f"`allOf` member `{key}` {word} {subject}")

    def properties(
        self,
        old: dict[str, Any],
        new: dict[str, Any],
        where: Where,
        path: str,
        seen: frozenset[tuple[str, str]],
        depth: int,
    ) -> None:
        request = where.side == "request"
        # a request never carries readOnly properties; a response never writeOnly ones
        hidden = "readOnly" if request else "writeOnly"
        old_all = _mapping(old.get("properties"))
        new_all = _mapping(new.get("properties"))
        old_req, new_req = set(old.get("required") or []), set(new.get("required") or [])
        for name, old_prop in old_all.items():
            subject = where.subject(child(path, name))
            old_node = self.old.node(old_prop)
            if name not in new_all:
                if old_node.get(hidden):
                    continue
                if request:
                    self.emit("request-property-removed", f"removed {subject}")
                elif name in old_req:
                    self.emit(
                        "response-required-property-removed", f"removed the required {subject}"
                    )
                else:
                    self.emit(
                        "response-optional-property-removed", f"removed the optional {subject}"
                    )
                continue
            new_node = self.new.node(new_all[name])
            flipped = self.mutability(old_node, new_node, name in new_req, where, subject)
            if flipped or (old_node.get(hidden) and new_node.get(hidden)):
                continue
            self.requiredness(name in old_req, name in new_req, where, subject)
            if bool(old_node.get("deprecated")) != bool(new_node.get("deprecated")):
                change = "deprecated" if new_node.get("deprecated") else "reactivated"
                sunset = parse_sunset(new_node.get("x-sunset"))
                if change == "deprecated" and isinstance(sunset, str):
                    self.emit(
                        f"{where.side}-property-deprecated-sunset-invalid",
                        f"{subject} deprecated with `x-sunset: {sunset}`, not a date",
                    )
                else:
                    self.emit(f"{where.side}-property-{change}", f"{subject} {change}")
            self.schema(old_prop, new_all[name], where, child(path, name), seen, depth + 1)
        for name in new_all:
            if name in old_all or self.new.node(new_all[name]).get(hidden):
                continue
            subject = where.subject(child(path, name))
            required = name in new_req
            if request:
                rule = (
                    "new-required-request-property" if required else "new-optional-request-property"
                )
            else:
                rule = (
                    "response-required-property-added"
                    if required
                    else "response-optional-property-added"
                )
            self.emit(rule, f"added the {'required' if required else 'optional'} {subject}")

    def mutability(
        self, old: dict[str, Any], new: dict[str, Any], required: bool, where: Where, subject: str
    ) -> bool:
        """readOnly/writeOnly flips (not a removal or an addition); True when one happened."""
        flipped = False
        for keyword, word in (("readOnly", "read-only"), ("writeOnly", "write-only")):
            if bool(old.get(keyword)) == bool(new.get(keyword)):
                continue
            flipped = True
            kind = "required" if required else "optional"
            state = word if new.get(keyword) else f"not-{word}"
            self.emit(
                f"{where.side}-{kind}-property-became-{state}",
                f"{subject} {'became' if new.get(keyword) else 'is no longer'} `{keyword}`",
            )
        return flipped

    def requiredness(self, was: bool, now: bool, where: Where, subject: str) -> None:
        if was == now:
            return
        change = "required" if now else "optional"
        self.emit(f"{where.side}-property-became-{change}", f"{subject} became {change}")

    def branches(
        self,
        keyword: str,
        part: str,
        old: dict[str, Any],
        new: dict[str, Any],
        where: Where,
        path: str,
        seen: frozenset[tuple[str, str]],
        depth: int,
    ) -> None:
        family, subject = where.family(path), where.subject(path)
        old_b = branch_keys(self.old, old.get(keyword))
        new_b = branch_keys(self.new, new.get(keyword))
        for key, branch in old_b.items():
            if key not in new_b:
                self.emit(
                    f"{family}-{part}-removed",
                    f"removed the `{keyword}` branch `{key}` of {subject}",
                )
            else:
                self.schema(branch, new_b[key], where, path, seen, depth + 1)
        for key in new_b:
            if key not in old_b:
                self.emit(
                    f"{family}-{part}-added", f"added the `{keyword}` branch `{key}` to {subject}"
                )
