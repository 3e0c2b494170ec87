"""Names: turning spec identifiers into Python identifiers, the same way in every target."""

from __future__ import annotations

import builtins
import keyword
import re
import unicodedata

# Latin letters that have no decomposition into a base letter and a mark
_LETTERS = str.maketrans({"ß": "ss", "æ": "ae", "Æ": "AE", "ø": "o", "Ø": "O", "œ": "oe",
                          "Œ": "OE", "đ": "d", "Đ": "D", "ł": "l", "Ł": "L", "þ": "th"})  # fmt: skip
# a word keeps the digits that follow it (`v1`, `sha256`, `ipv4_address`, `HTTP2Settings`);
# an acronym its plural `s` (`userIDs`, `listAPIs`: not `user_i_ds`, `list_ap_is`)
_WORD = re.compile(
    r"[A-Z]{2,}s(?![a-z])|[A-Z]+\d*(?=[A-Z][a-z]|\b|_)|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+"
)

# Names a generated module must not shadow (builtins used in annotations, typing, pydantic).
RESERVED = frozenset(
    {
        "Any",
        "BaseModel",
        "Enum",
        "Field",
        "List",
        "Dict",
        "Model",
        "RootModel",
        "Type",
        "bool",
        "bytes",
        "dict",
        "float",
        "int",
        "list",
        "object",
        "str",
        "type",
    }
)


def words(text: str) -> list[str]:
    """The ASCII words of `text`; accented letters count as their base letter (`élèves` ->
    `eleves`), other characters separate words."""
    if not text.isascii():
        decomposed = unicodedata.normalize("NFKD", text.translate(_LETTERS))
        text = "".join(c for c in decomposed if not unicodedata.combining(c))
    return _WORD.findall(text.replace("-", " ").replace(".", " "))


def snake(text: str) -> str:
    """`filterModel` -> `filter_model`, `X-Target-Org-Id` -> `x_target_org_id`."""
    name = "_".join(w.lower() for w in words(text)) or "value"
    if name[0].isdigit():
        name = "_" + name
    return name + "_" if keyword.iskeyword(name) or name in {"self", "ctx", "body"} else name


def pascal(text: str) -> str:
    """`list_webhooks` -> `ListWebhooks`, `api-keys` -> `ApiKeys`."""
    name = "".join(w[:1].upper() + w[1:] for w in words(text)) or "Value"
    return "_" + name if name[0].isdigit() else name


MODULE_NAME_MAX = 80  # a module named after a tag or class: its file name stays short


def module_name(text: str) -> str:
    """A tag name as a module name: `api-keys` -> `api_keys`; at most `MODULE_NAME_MAX`
    characters (a file name has at most 255 bytes)."""
    return snake(text).rstrip("_")[:MODULE_NAME_MAX].rstrip("_")


def is_snake_identifier(text: str) -> bool:
    return re.fullmatch(r"[a-z][a-z0-9]*(_[a-z0-9]+)*", text) is not None


def is_pascal_identifier(text: str) -> bool:
    return re.fullmatch(r"[A-Z][A-Za-z0-9]*", text) is not None and text not in RESERVED


def constant_name(*parts: str) -> str:
    return "_".join(snake(p).rstrip("_").upper() for p in parts if p)


# Safe, unique Python names for everything the generated modules declare.
#
# Model classes must not shadow what the generated modules import (FastAPI's `Response`,
# pydantic's `Field`, typing's `Any`...), builtins or keywords; handler arguments must not
# collide with each other after case conversion, nor with the names a handler body uses.
# Every choice is deterministic: document order decides who keeps the plain name.

# Every name a generated module imports or defines at module level, beside the models.
IMPORTED = frozenset(
    {
        "APIRouter", "Annotated", "Any", "AnyUrl", "AsyncIterable", "AwareDatetime", "BaseModel",
        "Body", "ConfigDict", "Cookie", "Decimal", "Depends", "Dict", "EmailStr", "Enum",
        "Field", "File", "Final", "Form", "Header", "IntEnum", "List", "Literal", "Mapping",
        "NaiveDatetime", "OPERATIONS", "Optional", "Path", "Protocol", "Query", "Request",
        "Response", "RootModel", "Security", "StrEnum", "StreamingResponse", "TypeAdapter",
        "TypeVar", "UUID", "UploadFile", "Union", "annotations", "builtins", "conint", "constr",
        "date", "datetime", "time", "timedelta", "runtime", "models", "transport", "security",
        "ContextT", "ContextT_contra", "ContextProvider", "OperationInfo", "MappingProxyType",
        "REQUIREMENTS", "SECURITY_SCHEMES", "SchemeInfo", "WEBHOOK_PAYLOADS", "CALLBACK_PAYLOADS",
        # what the client's resource and webhook modules import beside the models
        "APIError", "AsyncAPIClient", "AsyncPaginator", "PageStyle", "Sequence", "SyncAPIClient",
        "SyncPage",
        # the client's runtime (templates/client): what a module importing the models defines
        # or imports beside them (a schema named `Stream` shadowed the client's own class);
        # tests/client/test_client_names.py reads the generated client for them
        "APIConnectionError", "APIResponse", "APIStatusError", "APITimeoutError", "AsyncClient",
        "AsyncClientWithRawResponse", "AsyncPage", "AsyncStream", "AuthenticationError",
        "BadRequestError", "Client", "ClientWithRawResponse", "ConflictError",
        "InternalServerError", "NotFoundError", "OMIT", "Omit", "PaymentRequiredError",
        "PermissionDeniedError", "RateLimitError", "RequestEntityTooLargeError",
        "RequestValidationError", "Stream", "TYPE_CHECKING", "UnprocessableEntityError",
        "ValidationIssue", "WebhookSignatureError", "ALGORITHM", "ENCODING", "PREFIX",
        "SIGNATURE_HEADER", "overload", "cached_property", "AliasedModel",
        # the string formats' types the models import (targets/models/kept.py, formats.py)
        "Base64Text", "DateText", "DateTimeText", "DecimalText", "DurationText", "EmailText",
        "IPv4Text", "IPv6Text", "SecretText", "TimeText", "UriText", "UuidText",
    }
)  # fmt: skip
_BUILTINS = frozenset(dir(builtins))
_UNSAFE_CLASS = RESERVED | IMPORTED | _BUILTINS | {"None", "True", "False"}
# names a router's or interface's function body uses beside its arguments
HANDLER_RESERVED = frozenset(
    {"self", "ctx", "body", "request", "credentials", "impl", "context", "result", "content_type"}
)
# names an operation's handler function must not take inside `create_router` (its locals and
# the module-level names the routes use after it)
OPERATION_RESERVED = HANDLER_RESERVED | {
    "router", "create_router", "transport", "security", "runtime", "models", "interfaces",
}  # fmt: skip


def module_identifier(text: str, taken: set[str]) -> str:
    """A module name for a tag, also a keyword argument of `create_api_router`; at most
    `MODULE_NAME_MAX` characters (a file name has at most 255 bytes).

    Never a builtin's name: importing `.list` from a package binds `list` in the package's
    `__init__`, which then cannot spell `list[str]`."""
    name = snake(text).rstrip("_")[:MODULE_NAME_MAX].rstrip("_") or "default"
    if (
        keyword.iskeyword(name)
        or name in HANDLER_RESERVED
        or name in _BUILTINS
        or name.startswith("__")
    ):
        name += "_"
    if name[0].isdigit():
        name = "_" + name
    return unique(name, taken)


def class_name(text: str, taken: set[str]) -> str:
    """A PascalCase class name for a schema name, unique in `taken` (which it joins)."""
    name = text if re.fullmatch(r"[A-Z][A-Za-z0-9]*", text) else pascal(text)
    if not name[:1].isalpha():
        name = "Model" + name.lstrip("_")
    if name in _UNSAFE_CLASS or keyword.iskeyword(name):
        name += "Model"
    return unique(name, taken)


def identifier(text: str, taken: set[str], reserved: frozenset[str] = HANDLER_RESERVED) -> str:
    """A snake_case identifier, never a keyword, builtin or reserved name, unique in `taken`."""
    name = snake(text)
    if name.rstrip("_") in reserved or name in _BUILTINS or name in IMPORTED:
        name = name.rstrip("_") + "_"
    return unique(name, taken)


def unique(name: str, taken: set[str], *, separator: str = "", prefix: str = "") -> str:
    """`name`, or its first form not in `taken`, which it joins: numbered from 2 (`name2`, or
    `name_2` with `separator="_"`), or, given a `prefix`, with the prefix put before it until
    it is free (`response_accept`). The one helper for every generated name that must not
    clash; each caller keeps the style its names already have."""
    if prefix:
        while name in taken:
            name = prefix + name
    else:
        base, n = name, 2
        while name in taken:
            name, n = f"{base}{separator}{n}", n + 1
    taken.add(name)
    return name
