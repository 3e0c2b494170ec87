"""Facts about OpenAPI 3.x and its JSON Schema dialect that every layer reads, in one place:
the operation keys, the kinds of component, the prefix of a component schema's `$ref`, the
maps whose keys are names, where values are data, where a schema keeps its subschemas."""

from __future__ import annotations

# the keys of a Path Item that hold operations
METHODS = ("get", "put", "post", "delete", "options", "head", "patch", "trace")

# the Object each `components` map holds, by the name OpenAPI gives it
COMPONENT_KINDS = {
    "schemas": "Schema",
    "responses": "Response",
    "parameters": "Parameter",
    "examples": "Example",
    "requestBodies": "Request Body",
    "headers": "Header",
    "securitySchemes": "Security Scheme",
    "links": "Link",
    "callbacks": "Callback",
    "pathItems": "Path Item",
}

# a `$ref` to a component schema starts with this; the rest is its (escaped) name
SCHEMA_REF = "#/components/schemas/"

STREAMED_MEDIA = {
    "text/event-stream": "events",
    "application/jsonl": "json_lines",
    "application/x-jsonlines": "json_lines",
    "application/x-ndjson": "json_lines",
    "application/json-seq": "json_seq",
}
"""Streamed media types, read item by item (their `itemSchema` types each item): server-sent
events, sequences of JSON texts."""

# keys whose children are names chosen by the author (so an `x-` child is a name, not an
# extension, and `mapping` or `x-total` can be a property): the components' maps, a schema's
# maps of subschemas, and the other maps of named objects or values OpenAPI defines
NAME_MAPS = frozenset(
    {
        "properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
        "schemas", "parameters", "headers", "examples", "links", "callbacks",
        "securitySchemes", "requestBodies", "responses", "pathItems", "webhooks",
        "encoding", "content", "variables", "mapping", "scopes", "paths",
    }
)  # fmt: skip

# keys whose values are data anywhere in a document, never OpenAPI objects: never looked
# into for `$ref` (an Example Object's `value` included)
DATA_KEYS = frozenset({"example", "default", "enum", "const", "value"})
# the keywords of a Schema Object whose values are data (`examples` is a list of values
# there, while elsewhere it maps names to Example Objects)
SCHEMA_DATA_KEYWORDS = frozenset({"default", "example", "examples", "enum", "const"})

# the keywords that constrain only an object, only an array (JSON Schema 2020-12)
OBJECT_KEYWORDS = (
    "properties", "required", "additionalProperties", "patternProperties", "propertyNames",
    "minProperties", "maxProperties", "dependentRequired", "dependentSchemas",
    "unevaluatedProperties",
)  # fmt: skip
ARRAY_KEYWORDS = (
    "items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains", "minContains",
    "maxContains", "unevaluatedItems",
)  # fmt: skip

# where a schema keeps its subschemas: maps of them, lists of them, one of them
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SCHEMA_ONE = (
    "items", "additionalProperties", "not", "if", "then", "else", "contains",
    "propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems",
)  # fmt: skip
