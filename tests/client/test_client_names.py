"""Client names for any spec: tags and operationIds that are keywords, that shadow the client's
own attributes or options, that collide after case conversion, or that match a sub-namespace,
all give a client that imports, type-checks and reaches every operation."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from spec_gen.build.pipeline import render_tree
from spec_gen.core.config import load_config

TEMPLATES = Path(__file__).parents[2] / "templates"

OPERATIONS = [
    # (path, operationId, tag, x-client-namespace)
    ("/a", "list", "one", "class"),
    ("/b", "List", "one", "class"),
    ("/c", "import", "two", "timeout"),
    ("/d", "with_raw_response", "api-key", None),
    ("/e", "deliveries", "hooks", None),
    ("/f", "get", "hooks", "hooks.deliveries"),
    ("/g", "close", "three", "close"),
]


def _spec() -> str:
    lines = [
        "openapi: 3.1.0",
        "info: {title: Names, version: 1.0.0}",
        "components:",
        "  schemas:",
        "    Thing: {type: object, properties: {id: {type: integer}}}",
        "  securitySchemes:",
        "    timeout: {type: apiKey, in: header, name: X-Timeout-Key}",
        "security: [{timeout: []}]",
        "paths:",
    ]
    for path, op_id, tag, namespace in OPERATIONS:
        lines += [f"  {path}:", "    get:", f"      operationId: {op_id}", f"      tags: [{tag}]"]
        if namespace:
            lines.append(f"      x-client-namespace: {namespace}")
        lines += [
            "      responses:",
            (
                "        '200': {description: A thing., content: {application/json: "
                "{schema: {$ref: '#/components/schemas/Thing'}}}}"
            ),
        ]
    return "\n".join(lines) + "\n"


@pytest.fixture(scope="module")
def names_client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    project = tmp_path_factory.mktemp("names")
    (project / "openapi.yaml").write_text(_spec(), encoding="utf-8")
    (project / "pyproject.toml").write_text(
        "[tool.spec-gen]\n"
        'spec = "openapi.yaml"\n'
        f'templates = "{TEMPLATES.as_posix()}"\n'
        'output = "out"\n'
        'server-package = "names_api"\n'
        'client-package = "names_client"\n'
        'distribution-prefix = "names"\n'
        "house-rules = false\n",
        encoding="utf-8",
    )
    for name, content in render_tree(load_config(project), None).files.items():
        path = project / "out" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    root = str(project / "out" / "client")
    sys.path.insert(0, root)
    try:
        yield importlib.import_module("names_client")
    finally:
        sys.path.remove(root)
        for module in [m for m in sys.modules if m.split(".")[0] == "names_client"]:
            del sys.modules[module]


def test_every_operation_is_reachable_under_a_safe_unique_name(names_client: ModuleType) -> None:
    client = names_client.Client(base_url="http://127.0.0.1:9", timeout_key="k")
    assert client.timeout == 30.0  # the option, not a namespace called `timeout`
    assert callable(client.close)
    assert {"list", "list2"} <= set(dir(client.class_))
    assert callable(client.timeout_.import_)
    assert callable(client.api_key.with_raw_response2)
    assert callable(client.hooks.deliveries2) and callable(client.hooks.deliveries.get)
    assert callable(client.close_.close)
    assert callable(client.with_raw_response.class_.list2)


def test_the_client_passes_mypy_strict(names_client: ModuleType) -> None:
    root = Path(names_client.__file__).parents[1]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--config-file",
         os.devnull, "-p", "names_client"],
        cwd=root, capture_output=True, text=True, check=False,
        env={**os.environ, "MYPYPATH": str(root)},
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
