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
from .probe import PROBE
from .proof import Proof, imported, module_name

ROLES = ("server", "client")
PROVEN = b'"proven"'  # a role's frame when the last passing check proved its modules
CODE_DIR = "probe-code"  # under the cache directory


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
        # the probes' compiled modules (code objects, by source), for this interpreter
        self.code_dir = (
            None if cache_dir is None else cache_dir / CODE_DIR / sys.implementation.cache_tag
        )

    def preload(self) -> bytes | None:
        """The server probe's first frame: the models module the last passing check imported
        and the package modules it imports, as they are in the output directory, when each
        still has the hash that check recorded. The probe imports them (validators built
        lazily) while the build renders; a rebuild whose models did not change then finds
        them imported (the probe keeps them only if the build sends the same sources)."""
        proven = self.proof.last.get("server")
        if self.output is None or not proven:
            return None
        package = self.packages["server"]
        todo, files = [f"{package}/models.py", f"{package}/__init__.py"], {}
        while todo:
            path = todo.pop()
            if path in files:
                continue
            source = self._old("server", path)
            if source is None:
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
        if self.code_dir is not None:
            env["SPEC_GEN_PROBE_CODE"] = str(self.code_dir)
        if not self.proof.last:  # nothing proven to build on: the whole check, at full priority
            env.setdefault("SPEC_GEN_PROBE_NICE", "0")
        first = self.preload()
        for roles in groups:
            preloads = first if roles[0] == "server" else None
            popen = subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    PROBE,
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
        frame = self.proof.frame(role, self.packages[role], sources, lambda p: self._old(role, p))
        if role == "server" and isinstance(frame, dict):
            # a preloaded module stands for the build's own only if unchanged since the last
            # check (what was preloaded is that check's source or its formatted text): the
            # probe drops what it preloaded if one of its modules moved
            last = self.proof.last.get(role) or {}
            now = self.proof.now[role]
            frame["moved"] = sorted(p for p in self.preloaded if now.get(p) != last.get(p))
        self.payloads[role] = json.dumps(frame).encode("utf-8")
        self.fed[role].set()

    def _old(self, role: str, path: str) -> str | None:
        """The module as the last passing check proved it, read from the output directory
        (its text then, or that text as ruff formatted it), or None."""
        last = self.proof.last.get(role) or {}
        if self.output is None or path not in last:
            return None
        try:
            text = (self.output / role / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        digest = sha(text.encode("utf-8"))
        twin = (self.proof.last.get("formatted") or {}).get(f"{role}/{path}")
        return text if digest in (last[path], twin) else None

    def remember(self) -> None:
        """Record what the last `check` proved (call only after it passed); keep the
        compiled modules of this build and about two more (the oldest used go first)."""
        self.proof.save()
        if self.code_dir is None or not self.code_dir.is_dir():
            return
        kept = list(os.scandir(self.code_dir))
        room = 3 * sum(map(len, self.proof.now.values()))
        if len(kept) > room:
            kept.sort(key=lambda entry: entry.stat().st_mtime)
            for entry in kept[: len(kept) - room]:
                Path(entry.path).unlink(missing_ok=True)

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
        if all(self.payloads.get(role) == PROVEN for role in ROLES):
            # nothing to import: the probes (perhaps still importing the last models, to
            # have them ready) are stopped, not waited for
            self.close()
            self.proof.formatted(files)
            return "server: unchanged since the last check; client: unchanged since the last check"
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
