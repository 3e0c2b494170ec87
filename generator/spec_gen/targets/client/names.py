"""Where each operation lives in the client: `client.<namespace...>.<method>`, always a valid,
unique attribute path.

Namespace parts never are keywords, nor (at the root) names the client already has (`timeout`,
`close`, a credential option...); method names never are keywords, never collide with another
method or a sub-namespace of the same class. Document order decides who keeps the plain name.
"""

from __future__ import annotations

import keyword

from ...core.naming import pascal, unique
from ...ir import Api

# attributes and methods of Client / AsyncClient and their base (templates/client/base.py.j2)
CLIENT_ATTRS = frozenset(
    {
        "base_url", "close", "default_headers", "key_mode", "max_retries", "pacing",
        "retry_unsafe", "root", "timeout", "with_options", "with_raw_response",
    }
)  # fmt: skip
RESOURCE_ATTRS = frozenset({"with_raw_response"})
# names a resource module imports (templates/client/resource.py.j2) or client.py defines
RESOURCE_MODULE_NAMES = frozenset(
    {
        "Any", "AsyncAPIClient", "AsyncClient", "AsyncClientWithRawResponse", "AsyncPaginator",
        "Client", "ClientWithRawResponse", "Mapping", "PageStyle", "Request", "Sequence",
        "SyncAPIClient", "SyncPage", "TYPE_CHECKING",
    }
)  # fmt: skip


def _safe(name: str) -> str:
    name = name or "default"
    if not name.isidentifier():
        name = "_" + "".join(c if c.isalnum() else "_" for c in name)
    if keyword.iskeyword(name) or name.startswith("__"):
        name += "_"
    return name


def client_paths(api: Api, options: frozenset[str]) -> dict[str, tuple[tuple[str, ...], str]]:
    """operationId -> (namespace parts, method name). `options`: the client's keyword options
    (credentials, context headers), which a root namespace must not shadow either."""
    reserved_root = CLIENT_ATTRS | options
    namespaces: dict[tuple[str, ...], tuple[str, ...]] = {}  # as written -> safe
    children: dict[tuple[str, ...], set[str]] = {}
    for op in api.operations:
        written = op.client_namespace
        for depth in range(1, len(written) + 1):
            key = written[:depth]
            if key in namespaces:
                continue
            parent = namespaces[key[:-1]] if depth > 1 else ()
            part = _safe(key[-1])
            if depth == 1 and part in reserved_root:
                part += "_"
            taken = children.setdefault(parent, set())
            namespaces[key] = (*parent, unique(part, taken))
    methods: dict[tuple[str, ...], set[str]] = {}
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    for op in api.operations:
        path = namespaces[op.client_namespace]
        taken = methods.setdefault(path, set(children.get(path, set())) | RESOURCE_ATTRS)
        name = _safe(op.client_method)
        out[op.operation_id] = (path, unique(name, taken))
    return out


def resource_classes(
    paths: list[tuple[str, ...]], models: set[str] | frozenset[str]
) -> dict[tuple[str, ...], str]:
    """namespace path -> its resource class name (`TagsResource`), such that none of the four
    classes a namespace defines (`X`, `AsyncX`, `XWithRawResponse`, `AsyncXWithRawResponse`) is
    a model class the module imports, a name it imports, or another namespace's class.
    Document order decides who keeps the plain name; the others get a number (`TagsResource2`)."""
    taken = set(models) | RESOURCE_MODULE_NAMES
    out: dict[tuple[str, ...], str] = {}
    for path in paths:
        base = "".join(pascal(p) for p in path) + "Resource"
        name, n = base, 2
        while any(v in taken for v in _variants(name)):
            name, n = f"{base}{n}", n + 1
        taken.update(_variants(name))
        out[path] = name
    return out


def _variants(name: str) -> tuple[str, ...]:
    return (name, f"Async{name}", f"{name}WithRawResponse", f"Async{name}WithRawResponse")
