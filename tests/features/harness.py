"""Serve a feature fixture's generated API layer with stub implementations, for httpx.

    client = serve("uploads", files=Files())   # the tag's module name -> its implementation
    client.post("/files", files={"file": b"..."})

The stub gets what the generated router passes it; the test asserts on that and on the
HTTP answer. The context provider hands each handler the operation's id.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from fastapi import FastAPI
from fastapi.testclient import TestClient

FEATURES = Path(__file__).parent


def feature_names() -> list[str]:
    return sorted(p.name for p in FEATURES.iterdir() if (p / "openapi.yaml").is_file())


def package(feature: str, kind: str = "api") -> ModuleType:
    """The generated package `<feature>_api` (or `_client`), importable from `expected/`."""
    root = FEATURES / feature / "expected" / ("server" if kind == "api" else "client")
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return importlib.import_module(f"{feature}_{kind}")


def models(feature: str) -> ModuleType:
    package(feature)
    return importlib.import_module(f"{feature}_api.models")


def context(op: Any) -> Any:
    async def dependency() -> str:
        return str(op.operation_id)

    return dependency


def app(feature: str, **impls: Any) -> FastAPI:
    api = package(feature)
    application = FastAPI()
    application.include_router(api.create_api_router(context=context, **impls))
    return application


def serve(feature: str, **impls: Any) -> TestClient:
    """An httpx client (Starlette's TestClient) talking to the app in process."""
    return TestClient(app(feature, **impls))
