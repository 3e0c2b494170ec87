"""The served spec with every server's base path folded into its paths, for schemathesis.

The spec places API-key operations under `/v1` and the rest under `/api/v1` with path-level
`servers` entries; schemathesis takes one base URL for all operations, so the test gives it
the same document with the prefixes written into the paths and one server: the address of
the running test server. Nothing else of the document changes.

    python tests/contract/flat_schema.py http://127.0.0.1:8000 > /tmp/flat.json
"""

from __future__ import annotations

import copy
import json
import sys
from importlib.resources import files
from typing import Any
from urllib.parse import urlsplit


def served_spec() -> dict[str, Any]:
    raw = files("outreach_api").joinpath("openapi.json").read_bytes()
    doc: dict[str, Any] = json.loads(raw)
    return doc


def _base_path(servers: list[dict[str, Any]]) -> str:
    url = str(servers[0]["url"])
    for name, var in (servers[0].get("variables") or {}).items():
        url = url.replace("{" + name + "}", str(var.get("default", "")))
    return urlsplit(url).path.rstrip("/")


def flat_schema(doc: dict[str, Any], base_url: str) -> dict[str, Any]:
    """`doc` with absolute paths (`/api/v1/contacts`, `/v1/api-keys`) and `base_url` as server."""
    flat = copy.deepcopy(doc)
    root = _base_path(flat.get("servers") or [{"url": "/"}])
    paths: dict[str, Any] = {}
    for path, item in flat["paths"].items():
        servers = item.pop("servers", None)
        for operation in item.values():
            if isinstance(operation, dict):
                operation.pop("servers", None)
        prefix = _base_path(servers) if servers else root
        paths[prefix + path] = item
    flat["paths"] = paths
    flat["servers"] = [{"url": base_url.rstrip("/")}]
    return flat


if __name__ == "__main__":
    json.dump(flat_schema(served_spec(), sys.argv[1]), sys.stdout, indent=1, sort_keys=True)
