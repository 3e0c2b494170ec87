"""What a rebuild takes from the last build instead of making it again, by content hash.

- ruff's formatting, file by file: `formatted.json` in `.spec-gen-cache/` records, for each
  Python file the last build formatted, the hash of what ruff was given and of what it gave
  back. A file given the same text again is read back from the output directory when the
  file there still has that hash (so the cache holds no copy of the tree); the others go to
  ruff, in one run. The record is valid for one ruff version and one formatter.py.
- the rendered text of each unit of the server, the client and the docs whose inputs did not
  change (targets/units.py; `units/` and `units.json`).
- the client's split of the models module (`client-models-<hash>.json`): the same models
  module and the same classes used by each operation give the same modules.

Whatever is reused is what the same step made from the same input in the last build: the
output is byte-identical to a build without the cache (`--no-cache`), which the tests of
tests/generator/build/test_incremental.py compare after each kind of edit.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..core.config import Config
from ..targets.units import Units
from .cache import generator_hash, keep_only, read_record, sha, tool_versions, write_record

FORMAT_RECORD = "formatted.json"

Formatter = Callable[[dict[str, str]], dict[str, str]]
Split = Callable[[str, Mapping[str, Iterable[str]]], tuple[dict[str, str], dict[str, str]]]


def _format_key() -> str:
    """What ruff's output depends on beyond a file's text: its version, and its options
    (formatter.py's source)."""
    source = (Path(__file__).parent / "formatter.py").read_bytes()
    return sha(f"{tool_versions()}\n".encode() + source)


class Reuse:
    """One build's reuse of the last build's work; `cache_dir` None: nothing is reused or
    recorded (`--no-cache`, `--check`)."""

    def __init__(
        self, cache_dir: Path | None, output: Path, run: Formatter, units: Units | None = None
    ) -> None:
        self.cache_dir = cache_dir
        self.units = units or Units(None)  # the rendered units (targets/units.py)
        self.output = output
        self.run = run
        self.made: dict[str, list[str]] = {}  # path -> [input hash, output hash], this build
        self.last: dict[str, list[str]] = {}
        self.reused = 0
        self.key = ""
        if cache_dir is None:
            return
        self.key = _format_key()
        self.last = read_record(cache_dir, FORMAT_RECORD, self.key, "files")

    def format(self, files: dict[str, str]) -> dict[str, str]:
        """`files` with their Python files formatted by ruff (formatter.format_python), those
        formatted from the same text by the last build read back from the output."""
        if self.cache_dir is None:
            return self.run(files)
        out = dict(files)
        todo: dict[str, str] = {}
        given: dict[str, str] = {}
        for name, text in files.items():
            if not name.endswith(".py"):
                continue
            given[name] = key = sha(text.encode("utf-8"))
            kept = self._kept(name, key)
            if kept is None:
                todo[name] = text
            else:
                out[name] = kept
                self.reused += 1
        if todo:
            # the batch's package markers go along: ruff's import sorting tells the file's own
            # package (first-party) by the `__init__.py` files around it, as in a cold build
            markers = {n: t for n, t in files.items() if n.endswith("/__init__.py")}
            formatted = self.run({**markers, **todo})
            for name in todo:
                out[name] = formatted[name]
        for name, key in given.items():
            self.made[name] = [key, sha(out[name].encode("utf-8"))]
        return out

    def _kept(self, name: str, key: str) -> str | None:
        last = self.last.get(name)
        if not last or last[0] != key:
            return None
        try:
            data = (self.output / name).read_bytes()
        except OSError:
            return None
        if sha(data) != last[1]:  # edited, or written by another build since
            return None
        return data.decode("utf-8")

    def split(
        self, split: Split, source: str, uses: Mapping[str, Iterable[str]]
    ) -> tuple[dict[str, str], dict[str, str]]:
        """`split(source, uses)` (the client's models modules, where each class lives), kept
        from the last build for the same models module and uses."""
        if self.cache_dir is None:
            return split(source, uses)
        ordered = {user: sorted(names) for user, names in sorted(uses.items())}
        key = sha(json.dumps([source, ordered, generator_hash()]).encode("utf-8"))
        path = self.cache_dir / f"client-models-{key[:32]}.json"
        try:
            kept = json.loads(path.read_text(encoding="utf-8"))
            return kept["modules"], kept["homes"]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        modules, homes = split(source, uses)
        keep_only(self.cache_dir, "client-models-*.json")
        path.write_text(json.dumps({"modules": modules, "homes": homes}), encoding="utf-8")
        return modules, homes

    def save(self, files: Mapping[str, str]) -> None:
        """Record what this build formatted, for the files it wrote (after they are), and
        the units it rendered or read back."""
        self.units.save()
        if self.cache_dir is None:
            return
        made = {name: hashes for name, hashes in sorted(self.made.items()) if name in files}
        write_record(self.cache_dir, FORMAT_RECORD, self.key, "files", made)


def units_for(config: Config, cache_dir: Path | None) -> Units:
    """The units of the last builds, reused under a key of everything the output depends on
    beyond the document; none with templates of the project's own (they may read anything)."""
    from ..core.config import PACKAGED_TEMPLATES

    packaged = PACKAGED_TEMPLATES.resolve()
    own = config.templates.resolve() != packaged and any(
        p.is_file() for p in config.templates.rglob("*")
    )
    if cache_dir is None or own:
        return Units(None)
    templates = sorted(p for p in packaged.rglob("*") if p.is_file())
    # Python's own version too: the names spec-gen makes follow its keywords
    context = [sys.version, tool_versions(), generator_hash(), repr(sorted(vars(config).items()))]
    context += [f"{p.relative_to(packaged)} {sha(p.read_bytes())}" for p in templates]
    return Units(cache_dir, sha("\n".join(context).encode("utf-8")))
