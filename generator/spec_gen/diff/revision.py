"""A spec named on the command line: a file, or the project's spec at a git revision.

A revision's spec directory (the folder holding the root file, with everything under
it) is written to a temporary directory from `git archive`; the root file's path comes
from `[tool.spec-gen]` of the pyproject.toml at that revision, else the current one.
"""

from __future__ import annotations

import io
import subprocess
import tarfile
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..core.config import Config


class RevisionError(Exception):
    """The argument names neither a file nor a usable git revision."""


@dataclass(frozen=True)
class SpecInput:
    root: Path  # the root spec file to load
    label: str  # how reports name it
    checkout: Path | None = None  # the temporary directory a revision was written to
    prefix: str = ""  # shown instead of `checkout` in messages

    def show(self, path: Path) -> str:
        """A path for messages: inside a revision, `REV:spec/openapi.yaml`."""
        if self.checkout is not None:
            try:
                return self.prefix + path.relative_to(self.checkout).as_posix()
            except ValueError:
                pass
        return str(path)


def _git(args: list[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False)
    except OSError as exc:
        raise RevisionError(f"cannot run git: {exc.strerror}") from None


@contextmanager
def spec_input(argument: str, config: Config) -> Iterator[SpecInput]:
    """The spec ARGUMENT names; a revision's files live until the context ends."""
    path = Path(argument)
    if path.is_file():
        yield SpecInput(path.resolve(), argument)
        return
    commit = _commit(argument, config.root)
    toplevel = Path(_git(["rev-parse", "--show-toplevel"], config.root).stdout.decode().strip())
    spec = _spec_at(commit, argument, config, toplevel)
    if _git(["cat-file", "-e", f"{commit}:{spec.as_posix()}"], toplevel).returncode != 0:
        raise RevisionError(f"{spec} does not exist at revision {argument!r}")
    with tempfile.TemporaryDirectory(prefix="spec-gen-diff-") as tmp:
        checkout = Path(tmp).resolve()
        _extract(commit, spec.parent, toplevel, checkout)
        yield SpecInput(checkout / spec, argument, checkout, f"{argument}:")


def _commit(argument: str, cwd: Path) -> str:
    neither = f"{argument!r} is neither a file nor a git revision"
    if argument.startswith("-") or not argument:
        raise RevisionError(neither)
    inside = _git(["rev-parse", "--is-inside-work-tree"], cwd)
    if inside.returncode != 0:
        raise RevisionError(f"{neither} ({cwd} is not in a git repository)")
    found = _git(["rev-parse", "--verify", "--quiet", f"{argument}^{{commit}}"], cwd)
    if found.returncode != 0:
        raise RevisionError(neither)
    return found.stdout.decode().strip()


def _spec_at(commit: str, argument: str, config: Config, toplevel: Path) -> PurePosixPath:
    """The root spec's path at COMMIT, relative to the repository's top level."""
    try:
        project = PurePosixPath(config.root.resolve().relative_to(toplevel.resolve()).as_posix())
    except ValueError:
        raise RevisionError(f"the project {config.root} is not inside {toplevel}") from None
    try:
        spec = PurePosixPath(config.spec.resolve().relative_to(config.root.resolve()).as_posix())
    except ValueError:
        raise RevisionError(f"the spec {config.spec} is not inside {config.root}") from None
    shown = _git(["show", f"{commit}:{(project / 'pyproject.toml').as_posix()}"], toplevel)
    if shown.returncode == 0:
        try:
            settings = tomllib.loads(shown.stdout.decode()).get("tool", {}).get("spec-gen", {})
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            settings = {}
        if isinstance(settings.get("spec"), str):
            spec = PurePosixPath(settings["spec"])
    return PurePosixPath(project / spec)


def _extract(commit: str, folder: PurePosixPath, toplevel: Path, target: Path) -> None:
    """Write FOLDER (relative to the top level) as it was at COMMIT under TARGET."""
    archive = _git(["archive", "--format=tar", commit, "--", folder.as_posix() or "."], toplevel)
    if archive.returncode != 0:
        message = archive.stderr.decode(errors="replace").strip()
        raise RevisionError(f"git archive {commit[:12]} {folder}: {message}")
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        for member in tar.getmembers():
            name = PurePosixPath(member.name)
            if not member.isfile() or name.is_absolute() or ".." in name.parts:
                continue
            source = tar.extractfile(member)
            if source is None:
                continue
            destination = target.joinpath(*name.parts)
            destination.parent.mkdir(parents=True, exist_ok=True)
            destination.write_bytes(source.read())
