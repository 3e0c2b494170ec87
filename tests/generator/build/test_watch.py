"""`spec-gen build --watch`, run as a team runs it: it builds, builds again after each edit of
the spec (and of a file the spec comes to refer to), writes what a cold build writes, keeps
the output as it was when an edit breaks the spec and goes on watching, and stops on SIGTERM
(as on Ctrl-C) leaving no process behind."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from spec_gen.build.pipeline import render_tree
from spec_gen.build.tree import existing_files
from spec_gen.core.config import load_config

SPEC = """openapi: 3.1.0
info: {title: Watched, version: "1"}
paths:
  /things:
    get:
      operationId: list_things
      tags: [things]
      description: DESCRIPTION
      responses:
        "200":
          description: The things.
          content:
            application/json:
              schema: {$ref: "#/components/schemas/Thing"}
components:
  schemas:
    Thing:
      type: object
      properties:
        name: {type: string}
"""


class Watcher:
    def __init__(self, project: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "spec_gen", "build", "--watch", "--timings"],
            cwd=project,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            env={**os.environ, "SPEC_GEN_PROBE_NICE": "0"},
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)  # the end

    def next_status(self, timeout: float = 180) -> str:
        """The next `[watch] ...` line ("" once the watch has ended)."""
        deadline = time.monotonic() + timeout
        while True:
            line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line is None:
                return ""
            self.seen.append(line)
            if line.startswith("[watch]"):
                return line


def _write(path: Path, text: str) -> None:
    time.sleep(0.05)  # a new modification time even on a coarse clock
    path.write_text(text, encoding="utf-8")


def _cold(project: Path) -> dict[str, bytes]:
    return {n: t.encode("utf-8") for n, t in render_tree(load_config(project), None).files.items()}


def test_watch_rebuilds_on_each_edit_and_stops_cleanly(tmp_path: Path) -> None:
    project = tmp_path
    (project / "pyproject.toml").write_text(
        '[tool.spec-gen]\nspec = "openapi.yaml"\noutput = "generated"\n'
        'server-package = "w_api"\nclient-package = "w_client"\ndistribution-prefix = "w"\n',
        encoding="utf-8",
    )
    spec = project / "openapi.yaml"
    spec.write_text(SPEC.replace("DESCRIPTION", "Every thing."), encoding="utf-8")
    output = project / "generated"
    watcher = Watcher(project)
    try:
        first = watcher.next_status()
        assert first.startswith("[watch] built in "), watcher.seen
        assert "watching 2 files" in first  # the spec and pyproject.toml
        assert existing_files(output) == _cold(project)

        # an edit: built again, as a cold build of the edited spec, by the process that got
        # ready while nothing changed: its models worker warmed up before the edit
        time.sleep(3)  # it gets ready
        mark = len(watcher.seen)
        _write(spec, SPEC.replace("DESCRIPTION", "Every thing, edited."))
        assert watcher.next_status().startswith("[watch] built in "), watcher.seen
        assert existing_files(output) == _cold(project)
        assert "Every thing, edited." in (output / "docs" / "things.md").read_text()
        assert not any("models: warm-up" in line for line in watcher.seen[mark:]), watcher.seen

        # the settings changed (a package renamed): what was made for the old ones is not used
        settings = (project / "pyproject.toml").read_text(encoding="utf-8")
        _write(project / "pyproject.toml", settings.replace('"w_client"', '"w2_client"'))
        assert watcher.next_status().startswith("[watch] built in "), watcher.seen
        assert (output / "client" / "w2_client" / "__init__.py").is_file()
        assert existing_files(output) == _cold(project)

        # a broken spec: the build fails, says where, writes nothing; the watch goes on
        written = existing_files(output)
        _write(spec, SPEC.replace("DESCRIPTION", "Broken.") + "  bad: [\n")
        failed = watcher.next_status()
        assert failed.startswith("[watch] build failed (exit status 1)"), watcher.seen
        assert any("openapi.yaml:" in line for line in watcher.seen)
        assert existing_files(output) == written

        # the spec now refers to a file of its own: that file is watched too
        (project / "thing.yaml").write_text(
            "type: object\nproperties:\n  name: {type: string}\n", encoding="utf-8"
        )
        _write(
            spec,
            SPEC.replace("DESCRIPTION", "Every thing.").replace(
                "    Thing:\n      type: object\n      properties:\n        name: {type: string}\n",
                "    Thing: {$ref: 'thing.yaml'}\n",
            ),
        )
        assert "watching 3 files" in watcher.next_status(), watcher.seen
        _write(
            project / "thing.yaml",
            "type: object\nproperties:\n  name: {type: string}\n  size: {type: integer}\n",
        )
        assert watcher.next_status().startswith("[watch] built in "), watcher.seen
        assert "size: int | None" in (output / "server" / "w_api" / "models.py").read_text()
        assert existing_files(output) == _cold(project)
    finally:
        watcher.process.send_signal(signal.SIGTERM)
        code = watcher.process.wait(timeout=60)
    assert code == 0
    assert watcher.next_status() == "[watch] stopped"
    # nothing of the watch is left running (the builds, their workers and probes)
    left = subprocess.run(
        ["pgrep", "-s", str(watcher.process.pid)], capture_output=True, text=True, check=False
    )
    assert left.stdout.strip() == "", left.stdout


def test_watch_and_check_do_not_go_together(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "spec_gen", "build", "--watch", "--check"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "--watch builds on every change; --check compares once" in done.stderr


def test_ctrl_c_stops_a_build_with_no_worker_traceback(tmp_path: Path) -> None:
    """Ctrl-C (SIGINT to the whole process group, as a terminal sends it) during a rebuild,
    while the validator's worker waits for work: the build stops with click's one word, no
    worker's traceback."""
    repo = Path(__file__).parents[3]
    spec = tmp_path / "openapi.json"
    bundled = subprocess.run(
        [sys.executable, "-m", "spec_gen", "bundle", "--format", "json"]
        + ["--spec", str(repo / "spec" / "openapi.yaml")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    spec.write_text(bundled.stdout, encoding="utf-8")
    command = [sys.executable, "-m", "spec_gen", "build", "--spec", str(spec), "--output", "out"]
    subprocess.run(command, cwd=tmp_path, capture_output=True, check=True)
    spec.write_text(bundled.stdout.replace('"title":', '"description": "Edited.", "title":', 1))
    process = subprocess.Popen(
        [*command, "--timings"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # the IR is made: the build renders, the worker waits
        seen.append(line)
        if "] " in line and " IR (" in line:
            break
    os.killpg(process.pid, signal.SIGINT)
    rest = process.stderr.read()
    assert process.wait(timeout=60) == 1, seen
    assert "Aborted!" in rest
    assert "Traceback" not in rest and "KeyboardInterrupt" not in rest, rest
