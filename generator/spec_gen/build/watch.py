"""`spec-gen build --watch`: build, then build again each time an input changes.

The inputs watched are what a build depends on outside spec-gen itself: the spec's files (the
root, and every file the last build read: `build.json`'s `inputs`), the project's
`pyproject.toml` and the project's own templates, when it has some. They are polled (their
size, modification time and inode, every 0.1 s: a few `stat` calls, no dependency and no
file-system notification API to rely on).

Each build runs in a process forked from this one, which has imported the generator and run
datamodel-code-generator once already: a build after an edit starts with every module
imported and the models tool warm (its models worker, forked in turn, inherits that), and
is otherwise exactly `spec-gen build` (the same caches, the same output, the same messages;
a failed build leaves the output as it was and the watch goes on). After each build one line
on stderr says how it went and how long it took:

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
from pathlib import Path

from ..core.config import PACKAGED_TEMPLATES, Config
from .cache import CACHE_DIR

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


def forked(run: Callable[[], object]) -> int:
    """`run()` in a forked process; its exit status (SystemExit's code, 130 on Ctrl-C)."""
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        code = 2
        try:
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
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    try:
        return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except KeyboardInterrupt:  # the build stops too (Ctrl-C reaches it; a signal may not)
        os.kill(pid, signal.SIGTERM)
        os.waitpid(pid, 0)
        raise


def _stop(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def changed(before: dict[Path, Stamp]) -> bool:
    return stamps(list(before)) != before


def wait_for_change(before: dict[Path, Stamp]) -> None:
    """Return once a file of `before` looks different, and has stopped changing."""
    while not changed(before):
        time.sleep(POLL_S)
    now = stamps(list(before))
    while True:  # an editor writing in several steps: wait until it is done
        time.sleep(SETTLE_S)
        later = stamps(list(before))
        if later == now:
            return
        now = later


def watch(config: Config, run: Callable[[], object], echo: Callable[[str], None]) -> int:
    """Build with `run()` (forked), then again after each change of the inputs, until
    Ctrl-C (or SIGTERM); 0 then."""
    signal.signal(signal.SIGTERM, _stop)  # as Ctrl-C, here and in the builds forked
    warm_up(config)
    try:
        while True:
            files = watched(config)
            before = stamps(files)  # taken before the build: an edit during it is seen
            started = time.perf_counter()
            code = forked(run)
            took = time.perf_counter() - started
            for path in watched(config):  # a file the spec now refers to
                before.setdefault(path, stamps([path])[path])
            how = "built" if code == 0 else f"build failed (exit status {code})"
            echo(f"[watch] {how} in {took:.2f} s; watching {len(before)} files (Ctrl-C stops)")
            wait_for_change(before)
    except KeyboardInterrupt:
        echo("[watch] stopped")
        return 0
