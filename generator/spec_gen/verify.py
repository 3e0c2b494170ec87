"""The generated code works: it compiles, imports, and its routers mount on a FastAPI app.

`verify(files, ...)` runs two subprocesses side by side (one per core) over a temporary
copy of the output tree: one imports every module of the server package, calls its
`create_api_router` with a placeholder implementation per tag and mounts the router on a
FastAPI app (mounting is what starting a server does; the app's OpenAPI document is not
built, which FastAPI would do only when /openapi.json is first asked for); the other imports every module of the client package. A failure raises GeneratedCodeBroken
with the subprocess's error, so `spec-gen build` never reports success for code that does
not start.

`Verifier` starts the two interpreters early: they import FastAPI, pydantic and httpx while
the build is still waiting for its models, then read the tree's path from stdin.

`typecheck(output, ...)` runs `mypy --strict` over the written packages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

# Run in each subprocess: argv = [role ("server" or "client"), package]; stdin: the root.
_PROBE = r"""
import importlib, inspect, pkgutil, sys
role, package_name = sys.argv[1:3]
import pydantic
if role == "server":
    import fastapi, fastapi.routing, fastapi.params
else:
    import httpx
try:  # the packages require pydantic[email] when the spec has email fields
    import email_validator
except ImportError:  # not installed here: EmailStr's check is only needed to validate
    import pydantic.networks
    pydantic.networks.import_email_validator = lambda: None
root = sys.stdin.readline().strip()
if not root:  # the build stopped before there was anything to check
    sys.exit(0)
sys.path[:0] = [root + "/" + role]
count = 0
package = importlib.import_module(package_name)
for info in pkgutil.walk_packages(package.__path__, package_name + "."):
    if info.name.rsplit(".", 1)[-1] == "testing":  # the client's pytest plugin: optional
        continue
    importlib.import_module(info.name)
    count += 1
if role == "client":
    print(f"{count} modules imported")
    sys.exit(0)
from fastapi import FastAPI
routers = importlib.import_module(package_name + ".routers")
tags = [p for p in inspect.signature(routers.create_api_router).parameters if p != "context"]

def context(op):
    async def dependency():
        return None
    return dependency

router = routers.create_api_router(context=context, **{t: object() for t in tags})
app = FastAPI()
app.include_router(router)
print(f"{count} modules imported, {len(router.routes)} routes mounted")
"""


class GeneratedCodeBroken(RuntimeError):
    """The generated code does not import or mount: a bug of spec-gen, not of the spec."""


class Verifier:
    """The two probe interpreters, started by `start()` (or by `check`), used once."""

    def __init__(self, server_package: str, client_package: str) -> None:
        self.packages = {"server": server_package, "client": client_package}
        self.probes: dict[str, subprocess.Popen[str]] = {}

    def start(self) -> None:
        if self.probes:
            return
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        for role, package in self.packages.items():
            self.probes[role] = subprocess.Popen(
                [sys.executable, "-c", _PROBE, role, package],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )

    def close(self) -> None:
        """Stop the probes (when the build ends before `check`)."""
        for probe in self.probes.values():
            if probe.poll() is None:
                probe.kill()
            probe.communicate()
        self.probes = {}

    def check(self, files: dict[str, str]) -> str:
        """Import and mount the tree (paths relative to the output dir); the summary."""
        self.start()
        try:
            with tempfile.TemporaryDirectory(prefix="spec-gen-verify-") as tmp:
                root = Path(tmp)
                for name, content in files.items():
                    if name.endswith((".py", ".json", ".html")):
                        path = root / name
                        path.parent.mkdir(parents=True, exist_ok=True)
                        path.write_text(content, encoding="utf-8")
                results = {}
                for probe in self.probes.values():  # both read their input first
                    assert probe.stdin is not None
                    try:
                        probe.stdin.write(f"{root}\n")
                        probe.stdin.close()
                    except BrokenPipeError:  # it failed before reading: its stderr says why
                        pass
                    probe.stdin = None  # written and closed: communicate() only reads
                for role, probe in self.probes.items():
                    stdout, stderr = probe.communicate()
                    results[role] = (probe.returncode, stdout, stderr)
        finally:
            self.close()
        for returncode, _, stderr in results.values():
            if returncode != 0:
                lines = [line for line in stderr.strip().splitlines() if line.strip()]
                where = next(
                    (ln.strip() for ln in reversed(lines) if ln.strip().startswith("File ")), ""
                )
                last = lines[-1] if lines else f"exit status {returncode}"
                raise GeneratedCodeBroken(
                    f"generated code does not import or mount: {last} ({where})"
                )
        server, client = results["server"][1].strip(), results["client"][1].strip()
        return f"server: {server}; client: {client}"


def verify(files: dict[str, str], server_package: str, client_package: str) -> str:
    """Import and mount the generated tree (paths relative to the output dir); its summary."""
    return Verifier(server_package, client_package).check(files)


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
