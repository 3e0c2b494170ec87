"""The generated code works: it compiles, imports, and its routers mount on a FastAPI app.

`verify(files, ...)` runs one subprocess over a temporary copy of the output tree: every
module of the server and client packages is imported (so compiled), the server's
`create_api_router` is called with a placeholder implementation per tag and mounted on a
FastAPI app, and the app's OpenAPI document is built (FastAPI checks every route's
parameters and models then). A failure raises GeneratedCodeBroken with the subprocess's
error, so `spec-gen build` never reports success for code that does not start.

`typecheck(output, ...)` runs `mypy --strict` over the written packages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Run in the subprocess: argv = [root, server package, client package].
_PROBE = r"""
import importlib, inspect, pkgutil, sys
root, server, client = sys.argv[1:4]
sys.path[:0] = [root + "/server", root + "/client"]
try:  # the packages require pydantic[email] when the spec has email fields
    import email_validator
except ImportError:  # not installed here: EmailStr's check is only needed to validate
    import pydantic.networks
    pydantic.networks.import_email_validator = lambda: None
count = 0
for name in (server, client):
    package = importlib.import_module(name)
    for info in pkgutil.walk_packages(package.__path__, name + "."):
        if info.name.rsplit(".", 1)[-1] == "testing":  # the client's pytest plugin: optional
            continue
        importlib.import_module(info.name)
        count += 1
from fastapi import FastAPI
routers = importlib.import_module(server + ".routers")
tags = [p for p in inspect.signature(routers.create_api_router).parameters if p != "context"]

def context(op):
    async def dependency():
        return None
    return dependency

router = routers.create_api_router(context=context, **{t: object() for t in tags})
app = FastAPI()
app.include_router(router)
app.openapi()
print(f"{count} modules imported, {len(router.routes)} routes mounted")
"""


class GeneratedCodeBroken(RuntimeError):
    """The generated code does not import or mount: a bug of spec-gen, not of the spec."""


def verify(files: dict[str, str], server_package: str, client_package: str) -> str:
    """Import and mount the generated tree (paths relative to the output dir); its summary."""
    with tempfile.TemporaryDirectory(prefix="spec-gen-verify-") as tmp:
        root = Path(tmp)
        for name, content in files.items():
            if name.endswith((".py", ".json", ".html")):
                path = root / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(content, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, str(root), server_package, client_package],
            capture_output=True,
            text=True,
            cwd=root,
            env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"},
            check=False,
        )
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        where = next((ln.strip() for ln in reversed(lines) if ln.strip().startswith("File ")), "")
        last = lines[-1] if lines else f"exit status {done.returncode}"
        raise GeneratedCodeBroken(f"generated code does not import or mount: {last} ({where})")
    return done.stdout.strip()


def typecheck(output: Path, server_package: str, client_package: str) -> tuple[bool, str]:
    """`mypy --strict` over the written server and client packages: (passed, report)."""
    args = ["-p", server_package, "-p", client_package]
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--config-file", os.devnull, *args],
        capture_output=True,
        text=True,
        cwd=output,
        env={
            **os.environ,
            "MYPYPATH": os.pathsep.join([str(output / "server"), str(output / "client")]),
        },
        check=False,
    )
    report = (done.stdout + done.stderr).replace(
        f"{os.devnull}: No [mypy] section in config file", ""
    )
    return done.returncode == 0, report.strip()
