"""The generated code works: it compiles, imports, and its routers mount on a FastAPI app.

`verify(files, ...)` runs two subprocesses side by side (one per core) over the output tree,
held in memory (the files are sent on the probe's stdin as JSON and imported from there,
nothing is written to disk): one imports every module of the server package, calls its
`create_api_router` with a placeholder implementation per tag and mounts the router on a
FastAPI app (mounting is what starting a server does; the app's OpenAPI document is not
built, which FastAPI would do only when /openapi.json is first asked for); the other imports
every module of the client package and resolves every model class's annotations (the
classes are the server's, split into modules: the server's probe has already built their
validators, so the client's defers that and checks that each module imports what its
classes name). A failure raises GeneratedCodeBroken with the subprocess's error, so
`spec-gen build` never reports success for code that does not start.

`Verifier` starts the two interpreters early: they import FastAPI, pydantic and httpx while
the build is still rendering. Each is fed its package as soon as that is ready (`feed`):
the server's as soon as its models module is formatted, while the client's models are still
being split; `check` feeds what was not fed and waits for both.

`typecheck(output, ...)` runs `mypy --strict` on the written packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Mapping
from pathlib import Path

ROLES = ("server", "client")

# Run in each subprocess: argv = [role ("server" or "client"), package]; stdin: a JSON
# object {module path relative to the role's directory: source} (empty: nothing to check).
_PROBE = r"""
import importlib, importlib.abc, importlib.util, json, linecache, os, sys, typing
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
data = sys.stdin.buffer.read()
if not data:  # the build stopped before there was anything to check
    sys.exit(0)
modules = {}  # dotted name -> (path, is a package)
sources = json.loads(data)
for path in sources:
    parts = path[: -len(".py")].split("/")
    if parts[-1] == "__init__":
        modules[".".join(parts[:-1])] = (path, True)
    else:
        modules[".".join(parts)] = (path, False)


class InMemory(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path=None, target=None):
        if fullname not in modules:
            return None
        where, is_package = modules[fullname]
        spec = importlib.util.spec_from_loader(fullname, self, origin=where, is_package=is_package)
        spec.has_location = True  # tracebacks and __file__ name the module's path
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        where = module.__spec__.origin
        source = sources[where]
        linecache.cache[where] = (len(source), None, source.splitlines(True), where)
        exec(compile(source, where, "exec"), module.__dict__)


sys.meta_path.insert(0, InMemory())
if role == "client":
    # built (and so checked) by the server's probe: here only imported and resolved
    pydantic.BaseModel.model_config["defer_build"] = True
names = sorted(
    name for name in modules
    if (name == package_name or name.startswith(package_name + "."))
    and name.rsplit(".", 1)[-1] != "testing"  # the client's pytest plugin: optional
)
for name in names:
    importlib.import_module(name)
count = len(names) - 1  # the package itself is not counted
if role == "client":
    resolved = 0
    for name in names:
        module = sys.modules[name]
        for value in list(vars(module).values()):
            if (
                isinstance(value, type)
                and issubclass(value, pydantic.BaseModel)
                and value.__module__ == name
            ):
                try:
                    typing.get_type_hints(value, include_extras=True)
                except Exception as exc:  # one line naming the module and the class
                    print(f'  File "{module.__file__}", class {value.__name__}', file=sys.stderr)
                    print(f"{type(exc).__name__}: {exc} (an annotation of {value.__name__})",
                          file=sys.stderr, flush=True)
                    os._exit(1)
                resolved += 1
    print(f"{count} modules imported, {resolved} model classes resolved", flush=True)
    os._exit(0)  # the interpreter's teardown is not part of the check
from fastapi import FastAPI
import inspect
routers = importlib.import_module(package_name + ".routers")
tags = [p for p in inspect.signature(routers.create_api_router).parameters if p != "context"]

def context(op):
    async def dependency():
        return None
    return dependency

router = routers.create_api_router(context=context, **{t: object() for t in tags})
app = FastAPI()
app.include_router(router)
print(f"{count} modules imported, {len(router.routes)} routes mounted", flush=True)
os._exit(0)
"""


class GeneratedCodeBroken(RuntimeError):
    """The generated code does not import or mount: a bug of spec-gen, not of the spec."""


class Verifier:
    """The two probe interpreters, started by `start()` (or by `feed` / `check`), used once."""

    def __init__(self, server_package: str, client_package: str) -> None:
        self.packages = {"server": server_package, "client": client_package}
        self.probes: dict[str, subprocess.Popen[bytes]] = {}
        self.feeders: dict[str, threading.Thread] = {}

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
                env=env,
            )

    def feed(self, role: str, files: Mapping[str, str]) -> None:
        """Send `role`'s package (its `.py` files of `files`, paths relative to the output
        directory) to its probe, from a thread: the build goes on meanwhile."""
        if role in self.feeders:
            return
        self.start()
        prefix = f"{role}/"
        payload = json.dumps(
            {
                name[len(prefix) :]: content
                for name, content in files.items()
                if name.startswith(prefix) and name.endswith(".py")
            }
        ).encode("utf-8")
        probe = self.probes[role]

        def send() -> None:
            assert probe.stdin is not None
            try:
                probe.stdin.write(payload)
                probe.stdin.close()
            except (BrokenPipeError, ValueError):  # it failed before reading: stderr says why
                pass

        self.feeders[role] = thread = threading.Thread(target=send, daemon=True)
        thread.start()

    def _fed(self, role: str) -> None:
        """Wait for the feeding thread (if any): then stdin is closed, only read the rest."""
        thread = self.feeders.get(role)
        if thread is not None:
            thread.join()
            self.probes[role].stdin = None

    def close(self) -> None:
        """Stop the probes (when the build ends before `check`)."""
        for role, probe in self.probes.items():
            if probe.poll() is None:
                probe.kill()
            self._fed(role)
            probe.communicate()
        self.probes = {}
        self.feeders = {}

    def check(self, files: Mapping[str, str]) -> str:
        """Import and mount the tree (paths relative to the output dir); the summary.

        Roles already fed keep what they were given; the others are fed `files` now."""
        for role in ROLES:
            self.feed(role, files)
        results: dict[str, tuple[int, str, str]] = {}
        try:
            for role, probe in self.probes.items():
                self._fed(role)
                out, err = probe.communicate()
                results[role] = (probe.returncode, out.decode(), err.decode())
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
