"""Schemas: safe class names for components, hoisting inline schemas that need a class.

Every model class datamodel-code-generator writes is named here, before it runs: the
component schemas under a safe name (`Response` -> `ResponseModel`, `com.example.Thing`
-> `ComExampleThing`), and every inline schema that would otherwise become a class it
names itself (an object or enum inside a property) hoisted under `<Parent><Property>`.
So the name a router imports is the class of that spec node, bound by JSON pointer.
"""

from __future__ import annotations

from typing import Any

from ..core.naming import class_name, pascal
from ..core.where import at
from ..document.openapi import NAME_MAPS, SCHEMA_DATA_KEYWORDS, SCHEMA_REF
from ..document.pointer import escape_pointer_token as escape
from ..document.refs import copied


def rewrite_refs(node: Any, renames: dict[str, str], names: bool = False) -> Any:
    """A copy of `node` with `#/components/schemas/<old>` refs pointing at the new names.

    `x-` extensions are left as written: they are not schemas. `names`: `node` maps names to
    objects (a schema's `properties`, `components.schemas`): its keys are not keywords, so
    a property called `mapping` or `x-total` is a schema like any other. A discriminator's
    `mapping` holds refs as plain strings.
    """
    if isinstance(node, dict):
        if names:
            return {key: rewrite_refs(value, renames) for key, value in node.items()}
        out = {}
        for key, value in node.items():
            if isinstance(key, str) and key.startswith("x-"):
                out[key] = value
            elif key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_REF):
                target = value[len(SCHEMA_REF) :]
                head, sep, rest = target.partition("/")
                name = _unescape(head)
                out[key] = SCHEMA_REF + escape(renames.get(name, name)) + sep + rest
            elif key == "discriminator" and isinstance(value, dict):
                mapping = value.get("mapping")
                out[key] = {
                    **rewrite_refs(value, renames),
                    **(
                        {"mapping": {k: _rewrite_mapping(v, renames) for k, v in mapping.items()}}
                        if isinstance(mapping, dict)
                        else {}
                    ),
                }
            else:
                out[key] = rewrite_refs(value, renames, key in NAME_MAPS)
        return out
    if isinstance(node, list):
        return [rewrite_refs(v, renames) for v in node]
    return node


def _rewrite_mapping(value: Any, renames: dict[str, str]) -> Any:
    if isinstance(value, str) and value.startswith(SCHEMA_REF):
        name = _unescape(value[len(SCHEMA_REF) :])
        return SCHEMA_REF + escape(renames.get(name, name))
    if isinstance(value, str) and value in renames:
        return renames[value]
    return value


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


def _ref_class(ref: str) -> str:
    """The component a `#/components/schemas/...` ref names, also when it points inside it."""
    return _unescape(ref[len(SCHEMA_REF) :].partition("/")[0])


def component_names(schemas: dict[str, Any]) -> dict[str, str]:
    """Component schema name -> safe, unique class name, in document order."""
    taken: set[str] = set()
    return {name: class_name(str(name), taken) for name in schemas}


def needs_class(schema: Any) -> bool:
    """Whether datamodel-code-generator would write a class for this inline schema."""
    if not isinstance(schema, dict) or "$ref" in schema:
        return False
    if "enum" in schema and len(schema["enum"]) > 0:
        return True
    if schema.get("properties"):
        return True
    return any(k in schema for k in ("allOf", "oneOf", "anyOf")) and any(
        isinstance(m, dict) and "$ref" not in m and (m.get("properties") or "enum" in m)
        for k in ("allOf", "oneOf", "anyOf")
        for m in schema.get(k) or []
    )


class SchemaSet:
    """The model classes of a document: components plus hoisted inline schemas."""

    def __init__(self, components: dict[str, Any]) -> None:
        self.schemas: dict[str, dict[str, Any]] = {}
        self.children: dict[str, list[str]] = {}  # class -> classes hoisted out of it
        self.top: list[str] = []  # components, then classes hoisted from operations
        self.variants: dict[tuple[str, str], str] = {}  # (class, dropped flag) -> class
        # variant()'s answers: the same class comes back for every media type using it
        self.variant_of: dict[tuple[str, str], str] = {}
        self.pointers: dict[str, str] = {}  # class name -> JSON pointer of its spec node
        # per class, its schema object and what _refs / _has_flag found in it
        self.refs_of: dict[str, tuple[dict[str, Any], set[str]]] = {}
        self.flag_of: dict[tuple[str, str], tuple[dict[str, Any], bool]] = {}
        self.hoisted: set[str] = set()
        self.taken: set[str] = set()
        self.renames = component_names(components)
        self.taken.update(self.renames.values())
        for name, schema in components.items():
            cls = self.renames[name]
            node = rewrite_refs(schema, self.renames) if isinstance(schema, dict) else {}
            self.schemas[cls] = node
            self.pointers[cls] = "/components/schemas/" + escape(str(name))
            self.top.append(cls)
        for name in list(components):
            cls = self.renames[name]
            with at(self.pointers[cls]):
                self.schemas[cls] = self.hoist_nested(self.schemas[cls], cls, self.pointers[cls])

    def ref(self, cls: str) -> dict[str, Any]:
        return {"$ref": SCHEMA_REF + escape(cls)}

    def ordered(self) -> dict[str, dict[str, Any]]:
        """Every class, each one's hoisted parts just before it: a stable, readable order."""
        out: dict[str, dict[str, Any]] = {}

        def emit(cls: str) -> None:
            if cls in out:
                return
            out[cls] = {}  # a recursive schema: placed once
            for child in self.children.get(cls, []):
                emit(child)
            del out[cls]
            out[cls] = self.schemas[cls]

        for cls in self.top:
            emit(cls)
        return out

    def add(self, name: str, schema: dict[str, Any], pointer: str, owner: str = "") -> str:
        """Hoist `schema` (a copy) as a class named after `name`; its nested classes too."""
        cls = class_name(name, self.taken)
        if owner:
            self.children.setdefault(owner, []).append(cls)
        else:
            self.top.append(cls)
        self.schemas[cls] = {}
        self.pointers[cls] = pointer
        self.hoisted.add(cls)
        self.schemas[cls] = self.hoist_nested(copied(schema), cls, pointer)
        return cls

    def hoist_nested(
        self, schema: dict[str, Any], owner: str, pointer: str, parent: str = ""
    ) -> dict[str, Any]:
        """Inline objects and enums inside `schema` replaced by refs to hoisted classes.

        `owner` names them; `parent` is the class they belong to when `owner` is a
        property of it rather than a class (an array property's items)."""
        parent = parent or owner
        out = dict(schema)
        props = schema.get("properties")
        if isinstance(props, dict):
            new_props = {}
            for key, sub in props.items():
                where = f"{pointer}/properties/{escape(str(key))}"
                new_props[key] = self.child(sub, parent, pascal(str(key)), where)
            out["properties"] = new_props
        for key in ("items", "additionalProperties"):
            sub = schema.get(key)
            if isinstance(sub, dict):
                suffix = _singular(owner) if key == "items" else owner + "Value"
                out[key] = self.child(sub, parent, suffix, f"{pointer}/{key}")
        # allOf members are merged into one class by datamodel-code-generator: left inline,
        # their own nested objects and enums hoisted
        if isinstance(schema.get("allOf"), list):
            out["allOf"] = [
                self.hoist_nested(m, owner, f"{pointer}/allOf/{n}", parent)
                if isinstance(m, dict) and "$ref" not in m
                else m
                for n, m in enumerate(schema["allOf"])
            ]
        for key in ("oneOf", "anyOf"):
            members = schema.get(key)
            if isinstance(members, list):
                out[key] = [
                    self.child(m, parent, f"{owner}{n + 1}", f"{pointer}/{key}/{n}")
                    if isinstance(m, dict) and (m.get("properties") or "enum" in m)
                    else m
                    for n, m in enumerate(members)
                ]
        return out

    def child(self, sub: Any, owner: str, name: str, pointer: str) -> Any:
        """An inline schema inside `owner`: hoisted under `name` as datamodel-code-generator
        would call it when that name is free, else under `<Owner><Name>`."""
        if not isinstance(sub, dict):
            return sub
        if needs_class(sub):
            nullable = _strip_null(sub)
            wanted = name if class_name(name, set(self.taken)) == name else owner + name
            cls = self.add(wanted, nullable[0], pointer, owner)
            ref = self.ref(cls)
            extra = {
                k: sub[k] for k in ("description", "default", "readOnly", "writeOnly") if k in sub
            }
            if nullable[1]:
                return {"anyOf": [ref, {"type": "null"}], **extra}
            return {**ref, **extra} if extra else ref
        if isinstance(sub.get("items"), dict) or isinstance(sub.get("additionalProperties"), dict):
            return self.hoist_nested(sub, name, pointer, owner)
        return sub


def _strip_null(schema: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema without `null` in its type list (and enum), and whether null was there."""
    types = schema.get("type")
    if isinstance(types, list) and "null" in types:
        rest = [t for t in types if t != "null"]
        out = {**schema, "type": rest[0] if len(rest) == 1 else rest}
        if isinstance(schema.get("enum"), list):
            out["enum"] = [v for v in schema["enum"] if v is not None]
        return out, True
    return schema, False


def _singular(name: str) -> str:
    """`SkippedReasons` -> `SkippedReason`, as datamodel-code-generator names array items."""
    if name.endswith("ies") and len(name) > 3:
        return name[:-3] + "y"
    if name.endswith("s") and not name.endswith("ss") and len(name) > 1:
        return name[:-1]
    return name + "Item"


def _refs(node: Any) -> set[str]:
    """The classes a schema refers to (not through x- extensions)."""
    out: set[str] = set()
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_REF):
                out.add(_ref_class(value))
            elif not (isinstance(key, str) and key.startswith("x-")):
                out |= _refs(value)
    elif isinstance(node, list):
        for value in node:
            out |= _refs(value)
    return out


def _class_refs(schemas: SchemaSet, name: str) -> set[str]:
    """`_refs` of the class `name`, worked out once per schema object (a class's entry is
    replaced, never changed in place): the variants walk the same classes again and again."""
    node = schemas.schemas[name]
    known = schemas.refs_of.get(name)
    if known is None or known[0] is not node:
        known = schemas.refs_of[name] = (node, _refs(node))
    return known[1]


def _class_has_flag(schemas: SchemaSet, name: str, flag: str) -> bool:
    """`_has_flag` of the class `name`, once per schema object and flag (as `_class_refs`)."""
    node = schemas.schemas[name]
    known = schemas.flag_of.get((name, flag))
    if known is None or known[0] is not node:
        known = schemas.flag_of[(name, flag)] = (node, _has_flag(node, flag))
    return known[1]


def _drop(node: Any, flag: str, rename: dict[str, str]) -> Any:
    """A copy without the properties marked `flag` (readOnly or writeOnly); refs renamed."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        dropped = set()
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                kept = {}
                for name, prop in value.items():
                    if isinstance(prop, dict) and prop.get(flag) is True:
                        dropped.add(name)
                    else:
                        kept[name] = _drop(prop, flag, rename)
                out[key] = kept
            elif key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_REF):
                # a ref into a class's inside (`Tag/allOf/0`) follows its class's variant
                _, sep, rest = value[len(SCHEMA_REF) :].partition("/")
                name = _ref_class(value)
                out[key] = SCHEMA_REF + escape(rename.get(name, name)) + sep + rest
            elif isinstance(key, str) and key.startswith("x-"):
                out[key] = value
            elif key == "discriminator" and isinstance(value, dict):
                # its mapping names the members' classes: their variants, as the members'
                # refs (datamodel-code-generator matched no member and tagged each with its
                # class name, refusing every tag the document sends)
                out[key] = rewrite_refs({key: value}, rename)[key]
            else:
                out[key] = _drop(value, flag, rename)
        if dropped and isinstance(out.get("required"), list):
            out["required"] = [r for r in out["required"] if r not in dropped]
        return out
    if isinstance(node, list):
        return [_drop(v, flag, rename) for v in node]
    return node


def _has_flag(node: Any, flag: str) -> bool:
    if isinstance(node, dict):
        props = node.get("properties")
        if isinstance(props, dict) and any(
            isinstance(p, dict) and p.get(flag) is True for p in props.values()
        ):
            return True
        return any(
            _has_flag(v, flag)
            for k, v in node.items()
            if not (isinstance(k, str) and k.startswith("x-"))
        )
    if isinstance(node, list):
        return any(_has_flag(v, flag) for v in node)
    return False


def variant(schemas: SchemaSet, cls: str, flag: str) -> str:
    """The class for `cls` without its `flag` properties (readOnly in requests, writeOnly in
    responses), nested classes included: `<Class>Input` / `<Class>Output`, or `cls` itself
    when nothing it reaches carries the flag."""
    known = schemas.variant_of.get((cls, flag))
    if known is None:
        known, complete = _variant(schemas, cls, flag)
        if complete:  # every class it reaches exists: the answer cannot change any more
            schemas.variant_of[(cls, flag)] = known
    return known


def _variant(schemas: SchemaSet, cls: str, flag: str) -> tuple[str, bool]:
    reach: set[str] = set()
    todo = [cls]
    complete = True
    while todo:
        name = todo.pop()
        if name not in schemas.schemas:
            complete = False
            continue
        if name in reach:
            continue
        reach.add(name)
        todo.extend(_class_refs(schemas, name))
    marked = {n for n in reach if _class_has_flag(schemas, n, flag)}
    if not marked:
        return cls, complete
    # every class that reaches a marked class needs a variant
    needs = {n for n in reach if n in marked or _reaches(schemas, n, marked)}
    suffix = "Input" if flag == "readOnly" else "Output"
    rename = {}
    for name in sorted(needs):
        key = (name, flag)
        if key not in schemas.variants:
            schemas.variants[key] = class_name(name + suffix, schemas.taken)
        rename[name] = schemas.variants[key]
    for name in sorted(needs):
        new = rename[name]
        if new not in schemas.schemas:
            schemas.schemas[new] = _drop(schemas.schemas[name], flag, rename)
            schemas.pointers[new] = schemas.pointers.get(name, "")
            schemas.hoisted.add(new)
            schemas.top.append(new)
    return rename.get(cls, cls), complete


def _reaches(schemas: SchemaSet, start: str, targets: set[str]) -> bool:
    seen: set[str] = set()
    todo = list(_class_refs(schemas, start)) if start in schemas.schemas else []
    while todo:
        name = todo.pop()
        if name in targets:
            return True
        if name in seen or name not in schemas.schemas:
            continue
        seen.add(name)
        todo.extend(_class_refs(schemas, name))
    return False


def deep_refs_followed(schemas: dict[str, Any]) -> dict[str, Any]:
    """The schemas with every ref into a class's inside (`#/components/schemas/Pet/properties/
    owner/properties/address`) re-pointed through the classes hoisted on the way
    (`#/components/schemas/Owner/properties/address`, or `#/components/schemas/Address` when
    it lands on a class): the inline schemas a pointer walks through are refs once hoisted,
    and a ref cannot be walked into (datamodel-code-generator would write `Any`)."""
    memo: dict[str, str] = {}

    def rewrite(node: Any, names: bool = False) -> Any:
        if isinstance(node, list):
            return [rewrite(v) for v in node]
        if not isinstance(node, dict):
            return node
        out = {}
        for key, value in node.items():
            if names:
                out[key] = rewrite(value)
            elif (isinstance(key, str) and key.startswith("x-")) or key in SCHEMA_DATA_KEYWORDS:
                out[key] = value
            elif key == "$ref" and isinstance(value, str) and value.startswith(SCHEMA_REF):
                if value not in memo:
                    memo[value] = _followed(schemas, value)
                out[key] = memo[value]
            else:
                out[key] = rewrite(value, names=key in NAME_MAPS)
        return out

    return {name: rewrite(schema) for name, schema in schemas.items()}


def _class_of(node: Any) -> str | None:
    """The class `node` stands for once hoisted: a ref to it (with annotations beside it),
    or that ref or null."""
    if not isinstance(node, dict):
        return None
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith(SCHEMA_REF) and "/" not in ref[len(SCHEMA_REF) :]:
        return _unescape(ref[len(SCHEMA_REF) :])
    members = node.get("anyOf")
    if isinstance(members, list) and len(members) == 2 and {"type": "null"} in members:
        other = members[0] if members[1] == {"type": "null"} else members[1]
        if isinstance(other, dict) and set(other) == {"$ref"}:
            return _class_of(other)
    return None


def _followed(schemas: dict[str, Any], ref: str) -> str:
    tokens = [_unescape(t) for t in ref[len(SCHEMA_REF) :].split("/")]
    cls, rest = tokens[0], tokens[1:]
    if not rest or cls not in schemas:
        return ref
    node: Any = schemas[cls]
    done = 0
    for _ in range(len(rest) + 64):  # each step consumes a token or enters a class
        hop = _class_of(node)
        if hop is not None and hop in schemas and (done == len(rest) or rest[done] != "anyOf"):
            cls, rest, done, node = hop, rest[done:], 0, schemas[hop]
            if not rest:
                break
            continue
        if done == len(rest):
            break
        token = rest[done]
        if isinstance(node, dict) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return ref  # not in the hoisted schemas: left as written
        done += 1
    return SCHEMA_REF + "/".join(escape(t) for t in [cls, *rest])
