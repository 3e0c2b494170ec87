"""What the client knows about an API beyond its operations: error classes by status,
environments, context headers, key modes, rate limits, the webhook signature scheme."""

from __future__ import annotations

import re
from http import HTTPStatus
from urllib.parse import urlsplit

from ...core.naming import snake, words
from ...ir import Api

ERROR_NAMES = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    409: "ConflictError",
    422: "UnprocessableEntityError",
    429: "RateLimitError",
}


_STATUS_ERRORS: list[tuple[Api, list[tuple[int, str]]]] = []  # the last Api's answer


def status_errors(api: Api) -> list[tuple[int, str]]:
    """The client's error classes by status (asked once per response by the docs: cached)."""
    if _STATUS_ERRORS and _STATUS_ERRORS[0][0] is api:
        return _STATUS_ERRORS[0][1]
    found = _status_errors(api)
    _STATUS_ERRORS[:] = [(api, found)]
    return found


def _status_errors(api: Api) -> list[tuple[int, str]]:
    codes = sorted(
        {
            int(r.status)
            for op in api.operations
            for r in op.responses
            if r.status.isdigit() and 400 <= int(r.status) < 500
        }
        | set(ERROR_NAMES)
    )
    return [(code, ERROR_NAMES.get(code) or _status_name(code)) for code in codes]


def _status_name(code: int) -> str:
    try:
        phrase = HTTPStatus(code).phrase
    except ValueError:
        return f"Status{code}Error"
    return "".join(word.capitalize() for word in re.split(r"[^A-Za-z0-9]+", phrase)) + "Error"


def environments(api: Api) -> dict[str, str]:
    """The client's environment names and base URLs, one per server of the spec.

    A server is named by `x-environment`, else by its description when that is a name (four
    words at most: `Production`, `US Lago cluster`; not a paragraph), else by its URL's host
    (`https://petstore.swagger.io/v2` -> `petstore`, `http://localhost:8080` -> `local`), else
    by its position (`server0`); a name already taken gets the server's position appended.
    """
    out: dict[str, str] = {}
    for index, server in enumerate(api.servers):
        concrete = server.url
        for var, value in server.variables.items():
            concrete = concrete.replace("{" + var + "}", value)
        name = str(
            server.extensions.get("x-environment")
            or (snake(server.description).rstrip("_") if _is_name(server.description) else "")
            or _host_name(concrete)
            or f"server{index}"
        )
        if name in out:
            name = f"{name}_{index}"
        out[name] = concrete.rstrip("/")
    return out


def _is_name(description: str) -> bool:
    return 0 < len(words(description)) <= MAX_NAME_WORDS


MAX_NAME_WORDS = 4  # a server description longer than this is prose, not a name
_GENERIC_LABELS = {"www", "api", "apis", "rest", "app", "gateway", "service", "services"}


def _host_name(url: str) -> str:
    """A name for a server from its host: the first label that says something."""
    host = (urlsplit(url).hostname or "").lower()
    if not host:
        return ""
    if host in ("localhost", "127.0.0.1", "::1", "0.0.0.0"):
        return "local"
    labels = [label for label in host.split(".") if label]
    if all(label.isdigit() for label in labels):  # an IPv4 address
        return ""
    meaningful = [label for label in labels[:-1] if label not in _GENERIC_LABELS] or labels[:1]
    if not meaningful or not words(meaningful[0]):
        return ""
    return snake(meaningful[0]).rstrip("_")


def context_headers(api: Api) -> dict[str, str]:
    """Header parameters the request context reads (`x-context`): client-wide options too."""
    out: dict[str, str] = {}
    for op in api.operations:
        for p in op.params:
            if p.location == "header" and p.in_context:
                option = p.py_name.removeprefix("x_")
                out[option] = p.name
    return dict(sorted(out.items()))


def key_modes(api: Api) -> tuple[dict[str, str], str | None]:
    fmt = api.extensions.get("x-api-key-format") or {}
    modes = {
        str(value): key[: -len("_prefix")]
        for key, value in fmt.items()
        if key.endswith("_prefix") and key != "service_prefix"
    }
    return modes, fmt.get("default_mode")


def rate_limits(api: Api) -> tuple[tuple[int, float], ...]:
    limits = api.extensions.get("x-rate-limit") or {}
    windows = {"per_second": 1.0, "per_minute": 60.0, "per_hour": 3600.0}
    return tuple((int(limits[k]), w) for k, w in windows.items() if k in limits)


def webhook_signature(api: Api) -> dict[str, str] | None:
    """The spec's `x-webhook-signature` (header, algorithm, encoding, prefix), defaults filled in."""
    raw = api.extensions.get("x-webhook-signature")
    if not isinstance(raw, dict) or not raw.get("header"):
        return None
    algorithm = str(raw.get("algorithm") or "hmac-sha256").lower()
    digest = algorithm.removeprefix("hmac-")
    if not algorithm.startswith("hmac-") or digest not in ("sha1", "sha256", "sha384", "sha512"):
        raise ValueError(f"x-webhook-signature: unsupported algorithm {algorithm!r}")
    encoding = str(raw.get("encoding") or "hex").lower()
    if encoding not in ("hex", "base64"):
        raise ValueError(f"x-webhook-signature: unsupported encoding {encoding!r}")
    return {
        "header": str(raw["header"]),
        "algorithm": algorithm,
        "digest": digest,
        "encoding": encoding,
        "prefix": str(raw.get("prefix") or ""),
    }


def status_docs(api: Api) -> dict[int, str]:
    """A short meaning per error status, from the spec's shared responses."""
    out: dict[int, str] = {}
    responses = [r for op in api.operations for r in op.error_responses]
    for r in sorted(responses, key=lambda r: r.component is None):
        if r.status.isdigit() and int(r.status) not in out and r.description:
            out[int(r.status)] = " ".join(r.description.split()).rstrip(".")
    return out
