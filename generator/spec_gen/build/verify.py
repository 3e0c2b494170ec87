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

A small tree is checked in one interpreter, the server's package then the client's
(`start(together=True)`): starting a second interpreter would cost more than it saves.

`Verifier` starts the two interpreters early: they import FastAPI, pydantic and httpx while
the build is still rendering. Each is fed its package as soon as that is ready (`feed`):
the server's as soon as datamodel-code-generator's module is back (before ruff formats it:
formatting changes no meaning), while the client's models are still being split; the
client's once they are; `check` feeds what was not fed and waits for both.

`typecheck(output, ...)` runs `mypy --strict` on the written packages.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from ..core.config import Config
from .cache import sha
from .proof import Proof, imported, module_name

ROLES = ("server", "client")

# Run in each subprocess: argv = [roles ("server", "client" or "server,client"), their
# packages, comma-separated]; stdin: per role, in that order, a frame (8-byte big-endian
# length, then JSON: {"files": {module path relative to the role's directory: source},
# "only": the modules to import (null: all), "defer": a module whose classes' validators are
# built lazily (null: none), "mount": the server's tag router modules to mount (null: the
# whole API router)}, or "proven": nothing to check); the input ending before a frame means
# the build stopped: nothing to check. With a third argument "preload", a first frame
# {"files": ..., "module": the server's models module} comes before them (`Verifier.preload`).
_PROBE = r"""
import gc
gc.disable()  # a short-lived process: full collections over thousands of new classes, ~20%
import importlib, importlib.abc, importlib.util, inspect, json, linecache, os, sys, typing
roles = sys.argv[1].split(",")
packages = dict(zip(roles, sys.argv[2].split(",")))
import pydantic
if "server" in roles:
    import fastapi, fastapi.routing, fastapi.params
    from fastapi import FastAPI
if "client" in roles:
    import httpx
try:  # the packages require pydantic[email] when the spec has email fields
    import email_validator
except ImportError:  # not installed here: EmailStr's check is only needed to validate
    import pydantic.networks
    pydantic.networks.import_email_validator = lambda: None
sources = {}  # module path -> source
modules = {}  # dotted name -> (path, is a package)


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


def receive():
    head = sys.stdin.buffer.read(8)
    if len(head) < 8:
        return None
    return json.loads(sys.stdin.buffer.read(int.from_bytes(head, "big")))


def register(payload):
    for path, source in payload.items():
        sources[path] = source
        modules[name_of(path)] = (path, path.endswith("/__init__.py"))


preloaded = {}  # module path -> source: the server's models module and what it imports


def preload(frame):
    # the last check's models module (and what it imports), its validators built lazily,
    # imported while the build renders; kept only if the frame that follows sends the same
    register(frame["files"])
    pydantic.BaseModel.model_config["defer_build"] = True
    try:
        importlib.import_module(frame["module"])
    except Exception:  # left to the check itself, from the build's own sources
        unload(frame["files"])
    else:  # what was imported is kept (compared with the build's sources); the rest let go
        for path, source in frame["files"].items():
            if name_of(path) in sys.modules:
                preloaded[path] = source
        unload({path: None for path in frame["files"] if path not in preloaded})
    finally:
        pydantic.BaseModel.model_config["defer_build"] = False


def name_of(path):
    parts = path[: -len(".py")].split("/")
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unload(payload):
    for path in payload:
        name = name_of(path)
        sys.modules.pop(name, None)
        modules.pop(name, None)
        sources.pop(path, None)


def load(package_name, payload, only=None, defer=None, moved=()):
    if preloaded and (not defer or set(moved) & set(preloaded)):
        unload(preloaded)
        preloaded.clear()
    register({path: text for path, text in payload.items() if path not in preloaded})
    names = sorted(
        name for name in modules
        if (name == package_name or name.startswith(package_name + "."))
        and name.rsplit(".", 1)[-1] != "testing"  # the client's pytest plugin: optional
        and (only is None or name in only)
    )
    if defer:  # proven by the last check, from the same sources: its validators built lazily
        pydantic.BaseModel.model_config["defer_build"] = True
        importlib.import_module(defer)
        pydantic.BaseModel.model_config["defer_build"] = False
    for name in names:
        importlib.import_module(name)
    return names


def context(op):
    async def dependency():
        return None
    return dependency


def check_server(package_name, names, mount=None):
    app = FastAPI()
    if mount is None:  # every route, as create_api_router combines them
        routers = importlib.import_module(package_name + ".routers")
        parameters = inspect.signature(routers.create_api_router).parameters
        tags = [p for p in parameters if p != "context"]
        router = routers.create_api_router(context=context, **{t: object() for t in tags})
        app.include_router(router)
        mounted = len(router.routes)
    else:  # the routers of these tag modules only (the others: proven unchanged)
        mounted = 0
        for name in mount:
            router = importlib.import_module(name).create_router(object(), context)
            app.include_router(router)
            mounted += len(router.routes)
    return f"{sum(n != package_name for n in names)} modules imported, {mounted} routes mounted"


def check_client(package_name, names):
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
    return f"{sum(n != package_name for n in names)} modules imported, {resolved} model classes resolved"


if len(sys.argv) > 3 and sys.argv[3] == "preload":
    frame = receive()
    if frame is None:
        os._exit(0)
    preload(frame)
for role in roles:
    frame = receive()
    if frame is None:  # the build stopped before there was anything to check
        os._exit(0)
    if frame == "proven":  # the same sources as the last build's passing check
        print(f"{role}: unchanged since the last check", flush=True)
        continue
    if role == "client":
        # built (and so checked) by the server's probe: here only imported and resolved
        pydantic.BaseModel.model_config["defer_build"] = True
    names = load(
        packages[role], frame["files"], frame.get("only"), frame.get("defer"), frame.get("moved", ())
    )
    if role == "server":
        built = [getattr(sys.modules[frame["defer"]], n) for n in frame.get("build") or ()]
        for cls in built:  # changed since the last check, or naming one that did
            if isinstance(cls, type) and issubclass(cls, pydantic.BaseModel):
                cls.model_rebuild(force=True)
        said = check_server(packages[role], names, frame.get("mount"))
        if built:
            said += f" ({len(built)} model classes built)"
        if preloaded:
            said += f" ({len(preloaded)} of them imported while the build rendered)"
    else:
        said = check_client(packages[role], names)
    print(f"{role}: {said}", flush=True)
os._exit(0)  # the interpreter's teardown is not part of the check
"""


def module_paths(name: str) -> list[str]:
    """The files a dotted module name may be: `a/b.py` or `a/b/__init__.py`, and the
    `__init__.py` of each package on the way (importing `a.b` runs `a/__init__.py`)."""
    parts = name.split(".")
    packages = [f"{'/'.join(parts[:i])}/__init__.py" for i in range(1, len(parts))]
    return [f"{'/'.join(parts)}.py", f"{'/'.join(parts)}/__init__.py", *packages]


class GeneratedCodeBroken(RuntimeError):
    """The generated code does not import or mount: a bug of spec-gen, not of the spec."""


class Verifier:
    """The probe interpreters, started by `start()` (or by `feed` / `check`), used once."""

    def __init__(
        self,
        server_package: str,
        client_package: str,
        cache_dir: Path | None = None,
        output: Path | None = None,
    ) -> None:
        self.packages = {"server": server_package, "client": client_package}
        self.probes: list[tuple[subprocess.Popen[bytes], threading.Thread]] = []
        self.payloads: dict[str, bytes] = {}
        self.fed = {role: threading.Event() for role in ROLES}
        self.proof = Proof(cache_dir)
        self.output = output
        self.preloaded: set[str] = set()  # module paths sent to the server probe beforehand

    def preload(self) -> bytes | None:
        """The server probe's first frame: the models module the last passing check imported
        and the package modules it imports, as they are in the output directory, when each
        still has the hash that check recorded. The probe imports them (validators built
        lazily) while the build renders; a rebuild whose models did not change then finds
        them imported (the probe keeps them only if the build sends the same sources)."""
        proven = self.proof.last.get("server")
        twins = self.proof.last.get("formatted") or {}
        if self.output is None or not proven:
            return None
        package = self.packages["server"]
        root = self.output / "server"
        todo, files = [f"{package}/models.py", f"{package}/__init__.py"], {}
        while todo:
            path = todo.pop()
            if path in files:
                continue
            try:
                source = (root / path).read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                return None
            digest = sha(source.encode("utf-8"))
            if digest not in (proven.get(path), twins.get(f"server/{path}")):
                return None
            files[path] = source
            for name in imported(path, source):
                if name.split(".")[0] != package:
                    continue
                for candidate in module_paths(name):
                    if candidate in proven:
                        todo.append(candidate)
        self.preloaded = set(files)
        frame = {"files": files, "module": module_name(f"{package}/models.py")}
        return json.dumps(frame).encode("utf-8")

    def start(self, *, together: bool = False) -> None:
        """Start the probes: one per role, side by side; or, `together`, one interpreter
        checking the server then the client (for a small tree: one interpreter fewer to
        start matters more than the two checks overlapping)."""
        if self.probes:
            return
        groups: list[tuple[str, ...]]
        if together and self.packages["server"] != self.packages["client"]:
            groups = [ROLES]
        else:
            groups = [(role,) for role in ROLES]
        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        first = self.preload()
        for roles in groups:
            preloads = first if roles[0] == "server" else None
            popen = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    _PROBE,
                    ",".join(roles),
                    ",".join(self.packages[role] for role in roles),
                    *(["preload"] if preloads is not None else []),
                ],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=env,
            )
            writer = threading.Thread(target=self._send, args=(popen, roles, preloads), daemon=True)
            writer.start()
            self.probes.append((popen, writer))

    def _send(
        self, popen: subprocess.Popen[bytes], roles: tuple[str, ...], preloads: bytes | None
    ) -> None:
        """Write the preload frame if any, then each role's frame as soon as it is fed (in the
        probe's order), then close."""
        stdin = popen.stdin  # `_finish` takes it off the Popen while this thread writes
        assert stdin is not None
        try:
            if preloads is not None:
                stdin.write(len(preloads).to_bytes(8, "big") + preloads)
                stdin.flush()
            for role in roles:
                self.fed[role].wait()
                payload = self.payloads.get(role)
                if payload is None:  # closed before it was fed
                    break
                stdin.write(len(payload).to_bytes(8, "big") + payload)
                stdin.flush()
            stdin.close()
        except (OSError, ValueError):  # it failed before reading: its stderr says why
            pass

    def feed(self, role: str, files: Mapping[str, str]) -> None:
        """Send `role`'s package (its `.py` files of `files`, paths relative to the output
        directory) to its probe, from the probe's writer thread: the build goes on."""
        if self.fed[role].is_set():
            return
        self.start()
        prefix = f"{role}/"
        sources = {
            name[len(prefix) :]: content
            for name, content in files.items()
            if name.startswith(prefix) and name.endswith(".py")
        }
        frame = self.proof.frame(role, self.packages[role], sources)
        if role == "server" and isinstance(frame, dict):
            # a preloaded module stands for the build's own only if unchanged since the last
            # check (what was preloaded is that check's source or its formatted text): the
            # probe drops what it preloaded if one of its modules moved
            last = self.proof.last.get(role) or {}
            now = self.proof.now[role]
            frame["moved"] = sorted(p for p in self.preloaded if now.get(p) != last.get(p))
        self.payloads[role] = json.dumps(frame).encode("utf-8")
        self.fed[role].set()

    def remember(self) -> None:
        """Record what the last `check` proved (call only after it passed)."""
        self.proof.save()

    def _finish(self) -> list[tuple[int, str, str]]:
        """Each probe's (exit status, stdout, stderr), once it has ended."""
        for event in self.fed.values():  # a writer waiting for a role never fed ends
            event.set()
        results = []
        for popen, writer in self.probes:
            # read while the writer may still be writing: a probe that failed on the first
            # package writes its traceback (a RecursionError's is long) before it reads the
            # next; waiting for the writer first, both sides would wait on a full pipe
            popen.stdin = None  # the writer's: communicate() only reads
            out, err = popen.communicate()
            writer.join()
            results.append((popen.returncode, out.decode(), err.decode()))
        self.probes = []
        return results

    def close(self) -> None:
        """Stop the probes (when the build ends before `check`)."""
        for popen, _ in self.probes:
            if popen.poll() is None:
                popen.kill()
        self._finish()

    def check(self, files: Mapping[str, str]) -> str:
        """Import and mount the tree (paths relative to the output dir); the summary.

        Roles already fed keep what they were given; the others are fed `files` now."""
        for role in ROLES:
            self.feed(role, files)
        try:
            results = self._finish()
        finally:
            self.close()
        for returncode, _, stderr in results:
            if returncode != 0:
                lines = [line for line in stderr.strip().splitlines() if line.strip()]
                where = next(
                    (ln.strip() for ln in reversed(lines) if ln.strip().startswith("File ")), ""
                )
                last = lines[-1] if lines else f"exit status {returncode}"
                raise GeneratedCodeBroken(
                    f"generated code does not import or mount: {last} ({where})"
                )
        self.proof.formatted(files)
        said = {}
        for _, stdout, _ in results:
            for line in stdout.splitlines():
                role, _, text = line.partition(": ")
                if role in ROLES:
                    said[role] = text.strip()
        return f"server: {said.get('server', '')}; client: {said.get('client', '')}"


def verify(
    files: dict[str, str], server_package: str, client_package: str, *, together: bool = False
) -> str:
    """Import and mount the generated tree (paths relative to the output dir); its summary."""
    verifier = Verifier(server_package, client_package)
    verifier.start(together=together)
    return verifier.check(files)


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


class TypeCheckFailed(Exception):
    """mypy --strict found errors in the generated output."""


def typecheck_project(config: Config, echo: Callable[[str], None]) -> None:
    """`typecheck` on the project's output, then tsc on its TypeScript client if it has one;
    raises TypeCheckFailed."""
    ok, report = typecheck(config.output, config.server_package, config.client_package)
    echo(report)
    if not ok:
        raise TypeCheckFailed(report.splitlines()[-1] if report else "mypy failed")
    if "typescript" in config.targets:
        from ..targets.typescript_check import typecheck_written

        ok, report = typecheck_written(config.output)
        echo(report)
        if not ok:
            raise TypeCheckFailed(report.splitlines()[0])
