"""`spec-gen build --watch`: build, then build again each time an input changes.

The inputs watched are what a build depends on outside spec-gen itself: the spec's files (the
root, and every file the last build read: `build.json`'s `inputs`), the project's
`pyproject.toml` and the project's own templates, when it has some. They are polled (their
size, modification time and inode, every 0.1 s: a few `stat` calls, no dependency and no
file-system notification API to rely on).

Each build runs in a process forked from this one, which has imported the generator and run
datamodel-code-generator once already; the process for the next build is forked as soon as
the last one ends, and gets ready while nothing changes: it starts its models worker (which
warms datamodel-code-generator up) and the verify probes (which import FastAPI, pydantic and
the last proven models), then waits for the change (`prepared`: what a build takes from it,
when the settings are still the ones it was made for). A build after an edit so starts with
all of that done, and is otherwise exactly `spec-gen build` (the same caches, the same
output, the same messages; a failed build leaves the output as it was and the watch goes
on). After each build one line on stderr says how it went and how long it took from the
change it saw:

    [watch] built in 0.84 s; watching 3 files (Ctrl-C stops)

Ctrl-C (or SIGTERM) stops the build under way (as Ctrl-C stops `spec-gen build`) and the
watch.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ..core.config import PACKAGED_TEMPLATES, Config
from .cache import CACHE_DIR

if TYPE_CHECKING:
    from .verify import Verifier
    from .worker import ForkedWorker

POLL_S = 0.1  # how often the inputs are looked at
SETTLE_S = 0.05  # a change is built once the inputs look the same twice this far apart

Stamp = tuple[int, int, int] | None  # size, modification time (ns), inode; None: missing


def watched(config: Config) -> list[Path]:
    """The files whose change means a new build."""
    files = {config.spec, config.root / "pyproject.toml"}
    try:
        record = json.loads((config.root / CACHE_DIR / "build.json").read_text("utf-8"))
        files.update(Path(p) for p in record.get("inputs", []) if isinstance(p, str))
    except (OSError, ValueError, AttributeError):
        pass
    templates = config.templates.resolve()
    if templates != PACKAGED_TEMPLATES.resolve() and templates.is_dir():
        files.update(p for p in templates.rglob("*") if p.is_file())
    return sorted(files)


def stamps(files: list[Path]) -> dict[Path, Stamp]:
    out: dict[Path, Stamp] = {}
    for path in files:
        try:
            status = path.stat()
        except OSError:
            out[path] = None
        else:
            out[path] = (status.st_size, status.st_mtime_ns, status.st_ino)
    return out


def warm_up(config: Config) -> None:
    """Import the generator (every module: a build imports most of them lazily), load its
    templates and run datamodel-code-generator once, here: every build is forked from this
    process."""
    import importlib
    import pkgutil

    from ..targets.models.run import warm_up as models_warm_up
    from ..targets.render import environment

    for module in pkgutil.walk_packages([str(Path(__file__).parent.parent)], "spec_gen."):
        if module.name.endswith("__main__"):  # the command itself
            continue
        try:
            importlib.import_module(module.name)
        except Exception:  # noqa: BLE001,S112  (an optional part: the build imports it or says why)
            continue
    env = environment(config.templates)
    for name in env.list_templates(extensions=["j2"]):
        try:
            env.get_template(name)
        except Exception:  # noqa: BLE001,S112  (a template the build reports, if it uses it)
            continue
    models_warm_up()


@dataclass
class Prepared:
    """A build's models worker and verifier, started before the change it builds."""

    config: Config
    use_cache: bool
    worker: ForkedWorker
    verifier: Verifier

    def close(self) -> None:
        self.verifier.close()
        self.worker.close()


_READY: list[Prepared] = []  # made in this process, not yet taken by its build
_MADE: list[Prepared] = []  # every one made in this process (closed when it ends)


def prepare(config: Config, use_cache: bool) -> None:
    """Start what the build in this process will take (`prepared`)."""
    from ..targets.models.run import warm_up as models_warm_up
    from .verify import Verifier
    from .worker import ForkedWorker

    cache_dir = config.root / CACHE_DIR if use_cache else None
    worker = ForkedWorker(models_warm_up)
    verifier = Verifier(
        config.server_package,
        config.client_package,
        cache_dir,
        config.output if use_cache else None,
    )
    made = Prepared(config, use_cache, worker, verifier)
    _MADE.append(made)
    verifier.start()
    _READY.append(made)


def prepared(config: Config, use_cache: bool) -> Prepared | None:
    """What was started for this build before its change, if made for these settings."""
    if not _READY:
        return None
    ready = _READY.pop()
    if ready.config != config or ready.use_cache != use_cache:
        ready.close()
        return None
    return ready


class Pending:
    """A build forked ahead: it gets ready (`get_ready`), then waits for `go`."""

    def __init__(self, run: Callable[[], object], get_ready: Callable[[], object]) -> None:
        sys.stdout.flush()
        sys.stderr.flush()
        wait, self._go = os.pipe()
        self.pid = os.fork()
        if self.pid:
            os.close(wait)
            return
        os.close(self._go)
        code = 2
        try:
            try:
                get_ready()
            except Exception:  # noqa: BLE001,S110  (the build makes its own, and says why)
                pass
            if os.read(wait, 1) != b"g":  # the watch stopped
                code = 0
            else:
                run()
                code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            if isinstance(exc.code, str):
                print(exc.code, file=sys.stderr)
        except KeyboardInterrupt:
            code = 130
        except BaseException:  # noqa: BLE001  (the watch goes on; the build says why)
            traceback.print_exc()
        finally:
            for made in _MADE:
                made.close()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)

    def go(self) -> int:
        """Run the build; its exit status (SystemExit's code, 130 on Ctrl-C)."""
        os.write(self._go, b"g")
        os.close(self._go)
        return self.wait()

    def cancel(self) -> None:
        """The watch stops: the build waiting is not run."""
        os.close(self._go)
        self.wait()

    def wait(self) -> int:
        try:
            return os.waitstatus_to_exitcode(os.waitpid(self.pid, 0)[1])
        except KeyboardInterrupt:  # the build stops too (Ctrl-C reaches it; a signal may not)
            os.kill(self.pid, signal.SIGTERM)
            os.waitpid(self.pid, 0)
            raise


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def wait_for_change(before: dict[Path, Stamp]) -> None:
    """Return once a file of `before` looks different, and has stopped changing."""
    now = before
    while now == before:
        time.sleep(POLL_S)
        now = stamps(list(before))
    while True:  # an editor writing in several steps: wait until it is done
        time.sleep(SETTLE_S)
        later = stamps(list(before))
        if later == now:
            return
        now = later


def watch(
    config: Config,
    run: Callable[[], object],
    get_ready: Callable[[], object],
    echo: Callable[[str], None],
) -> int:
    """Build with `run()` (in a process forked ahead, which calls `get_ready()` first: see
    `prepare`), then again after each change of the inputs, until Ctrl-C (or SIGTERM); 0
    then."""
    signal.signal(signal.SIGTERM, _stop)  # as Ctrl-C, here and in the builds forked
    warm_up(config)
    pending: Pending | None = None
    try:
        pending = Pending(run, get_ready)
        started = time.perf_counter()
        while True:
            before = stamps(watched(config))  # taken before the build: an edit during it is seen
            code, pending = pending.go(), None
            took = time.perf_counter() - started
            for path in watched(config):  # a file the spec now refers to
                before.setdefault(path, stamps([path])[path])
            how = "built" if code == 0 else f"build failed (exit status {code})"
            echo(f"[watch] {how} in {took:.2f} s; watching {len(before)} files (Ctrl-C stops)")
            pending = Pending(run, get_ready)  # the next one gets ready while nothing changes
            wait_for_change(before)
            started = time.perf_counter()
    except KeyboardInterrupt:
        if pending is not None:
            pending.cancel()
        echo("[watch] stopped")
        return 0
