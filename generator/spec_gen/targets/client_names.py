"""Where each operation lives in the client: `client.<namespace...>.<method>`, always a valid,
unique attribute path.

Namespace parts never are keywords, nor (at the root) names the client already has (`timeout`,
`close`, a credential option...); method names never are keywords, never collide with another
method or a sub-namespace of the same class. Document order decides who keeps the plain name.
"""

from __future__ import annotations

import keyword

from ..ir import Api

# attributes and methods of Client / AsyncClient and their base (templates/client/base.py.j2)
CLIENT_ATTRS = frozenset(
    {
        "base_url", "close", "default_headers", "key_mode", "max_retries", "pacing",
        "retry_unsafe", "root", "timeout", "with_options", "with_raw_response",
    }
)  # fmt: skip
RESOURCE_ATTRS = frozenset({"with_raw_response"})


def _safe(name: str) -> str:
    name = name or "default"
    if not name.isidentifier():
        name = "_" + "".join(c if c.isalnum() else "_" for c in name)
    if keyword.iskeyword(name) or name.startswith("__"):
        name += "_"
    return name


def _unique(name: str, taken: set[str]) -> str:
    base, n = name, 2
    while name in taken:
        name, n = f"{base}{n}", n + 1
    taken.add(name)
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
            namespaces[key] = (*parent, _unique(part, taken))
    methods: dict[tuple[str, ...], set[str]] = {}
    out: dict[str, tuple[tuple[str, ...], str]] = {}
    for op in api.operations:
        path = namespaces[op.client_namespace]
        taken = methods.setdefault(path, set(children.get(path, set())) | RESOURCE_ATTRS)
        name = _safe(op.client_method)
        out[op.operation_id] = (path, _unique(name, taken))
    return out
