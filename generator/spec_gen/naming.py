"""Names: turning spec identifiers into Python identifiers, the same way in every target."""

from __future__ import annotations

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
