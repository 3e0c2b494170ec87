"""Every cache of the build, in `.spec-gen-cache/` (ignored by git), never in `generated/`,
each keyed by content hashes (timestamps play no part):

- `build.json`: the hashes of every input (spec files, templates, the generator's own
  sources, tool versions, settings) and of every output file with its size, times and inode
  as written, so a rebuild with nothing changed returns at once (this module imports none of
  the generator for it) and a rebuild reads back only the output files written since;
- `valid-<hash>`: the document openapi-spec-validator last found clean;
- `models-<hash>.json`: the last models module, its notes and depth, by the hash of what
  the models document is made of (build/models_input.py);
- `classes.json`: the models module's pieces, one per class, of the last two builds
  (build/models_cache.py);
- `parsed.json`: the YAML files of the spec the last build parsed, by the hash of their text.

Only the newest entry of each kind is kept.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.config import Config
from .result import BuildResult
from .tree import existing_files, stat_key

if TYPE_CHECKING:
    from ..lint.findings import RawFinding

CACHE_DIR = ".spec-gen-cache"


def validation_verdict(document: dict[str, Any], cache_dir: Path | None) -> list[RawFinding]:
    """openapi-spec-validator's findings; a clean verdict is remembered by content hash."""
    from ..core.timings import stage
    from ..lint.validate import openapi_findings

    stamp = None
    if cache_dir is not None:
        key = sha(json.dumps([tool_versions(), document], sort_keys=True).encode())
        stamp = cache_dir / f"valid-{key[:32]}"
        if stamp.is_file():
            return []
    with stage("validate (openapi-spec-validator)"):
        findings = openapi_findings(document)
    if stamp is not None and not findings:
        keep_only(stamp.parent, "valid-*")
        stamp.touch()
    return findings


def read_models(cached: Path | None) -> tuple[str, list[str], int] | None:
    """The models module an entry holds (build/models_input.py names it); None when there is
    none."""
    if cached is None or not cached.is_file():  # the worker reads the pieces kept per class
        return None
    kept = json.loads(cached.read_text(encoding="utf-8"))
    return kept["source"], kept["notes"], kept["depth"]


def generated_models(
    document: dict[str, Any], header: str, cache_dir: Path | None, entry: Path | None = None
) -> tuple[str, list[str], int]:
    """The models module source, what datamodel-code-generator warned about while writing it
    (a ref it could not follow, ...) and the longest chain of its classes pydantic may build
    one inside the other (targets/models/depth.py), kept in `entry` (`read_models` reads
    it). Runs in the models worker."""
    from .models_cache import generated_per_class

    source, notes, depth = generated_per_class(document, header, cache_dir)
    if entry is not None:
        keep_only(entry.parent, "models-*")
        entry.write_text(
            json.dumps({"source": source, "notes": notes, "depth": depth}), encoding="utf-8"
        )
    return source, notes, depth


class ParsedFiles(dict[str, str]):
    """The YAML files the last build parsed (`parsed.json`: document/read.parse_key(text)
    -> the values in JSON), for `bundle(parsed=...)`; `save` keeps the ones this build
    read, rewriting the record only when that set changed."""

    def __init__(self, cache_dir: Path, entries: dict[str, str]) -> None:
        super().__init__(entries)
        self.cache_dir = cache_dir
        self.loaded = set(entries)
        self.used: set[str] = set()

    @classmethod
    def load(cls, cache_dir: Path | None) -> ParsedFiles | None:
        if cache_dir is None:
            return None
        entries = read_record(cache_dir, PARSED, "1", "files")
        return cls(cache_dir, {k: v for k, v in entries.items() if isinstance(v, str)})

    def __contains__(self, key: object) -> bool:
        if isinstance(key, str):
            self.used.add(key)
        return super().__contains__(key)

    def __setitem__(self, key: str, value: str) -> None:
        self.used.add(key)
        super().__setitem__(key, value)

    def save(self) -> None:
        kept = {key: self[key] for key in sorted(self.used) if key in self.keys()}
        if set(kept) != self.loaded:
            write_record(self.cache_dir, PARSED, "1", "files", kept)


PARSED = "parsed.json"


def keep_only(directory: Path, pattern: str) -> None:
    """Make room for a new entry of one kind: the folder made, its older entries removed."""
    directory.mkdir(parents=True, exist_ok=True)
    for old in directory.glob(pattern):
        old.unlink()


def read_record(cache_dir: Path, name: str, key: str, field: str) -> dict[str, Any]:
    """`field` of the record `name` the last build kept, if it was kept under `key` (the tools
    and code it depends on); else empty."""
    try:
        record = json.loads((cache_dir / name).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if isinstance(record, dict) and record.get("key") == key:
        value = record.get(field, {})
        return value if isinstance(value, dict) else {}
    return {}


def write_record(cache_dir: Path, name: str, key: str, field: str, value: dict[str, Any]) -> None:
    """Keep `value` as the record `name`'s `field`, under `key` (read_record)."""
    cache_dir.mkdir(parents=True, exist_ok=True)
    (cache_dir / name).write_text(json.dumps({"key": key, field: value}), encoding="utf-8")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


TOOLS = {"datamodel-code-generator": "datamodel_code_generator", "ruff": "ruff", "jinja2": "jinja2"}


def tool_versions() -> str:
    """The versions of the tools whose output is committed, for the cache key.

    Read from the installed `*.dist-info` folder names next to each package (importing
    importlib.metadata costs more than a whole no-op rebuild should); the metadata API
    answers when that folder is not found.
    """
    return versions(TOOLS)


def versions(dists: dict[str, str]) -> str:
    """`dist==version;...` of the installed distributions (name -> the package it installs)."""
    parts = []
    for dist, package in dists.items():
        parts.append(f"{dist}=={_dist_info_version(dist, package) or _metadata_version(dist)}")
    return ";".join(parts)


def _dist_info_version(dist: str, package: str) -> str | None:
    import importlib.util

    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    site = Path(next(iter(spec.submodule_search_locations))).parent
    prefix = dist.replace("-", "_").lower() + "-"
    found = [p.name for p in site.glob("*.dist-info") if p.name.lower().startswith(prefix)]
    if len(found) != 1:
        return None
    return found[0][len(prefix) : -len(".dist-info")]


def _metadata_version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def _generator_sources() -> list[Path]:
    return sorted(Path(__file__).parent.parent.rglob("*.py"))


@functools.cache  # asked by several caches of one build; the sources are those imported
def generator_hash() -> str:
    """The hash of the generator's own sources (a cache entry made by other code is stale)."""
    digest = hashlib.sha256()
    for path in _generator_sources():
        digest.update(str(path.relative_to(Path(__file__).parent.parent)).encode())
        digest.update(sha(path.read_bytes()).encode())
    return digest.hexdigest()


def inputs_key(config: Config, spec_files: list[Path]) -> str:
    digest = hashlib.sha256()
    digest.update(tool_versions().encode())
    digest.update(repr(sorted(vars(config).items())).encode())
    from ..core.config import PACKAGED_TEMPLATES

    template_dirs = dict.fromkeys([config.templates, PACKAGED_TEMPLATES])
    templates = sorted(p for d in template_dirs for p in d.rglob("*") if p.is_file())
    for path in [*spec_files, *templates, *_generator_sources()]:
        digest.update(str(path).encode())
        try:
            digest.update(sha(path.read_bytes()).encode())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def _record_path(config: Config) -> Path:
    return config.root / CACHE_DIR / "build.json"


def last_outputs(config: Config) -> dict[str, list[Any]]:
    """The output files the last build into this output directory wrote: path -> [sha-256,
    *tree.stat_key] (empty when it wrote elsewhere, or kept no record)."""
    try:
        record = json.loads(_record_path(config).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    outputs = record.get("outputs") if record.get("output") == str(config.output) else None
    if not isinstance(outputs, dict):
        return {}
    return {k: v for k, v in outputs.items() if isinstance(v, list) and len(v) == 5}


def unchanged_since_last_build(config: Config, *, strict: bool = False) -> bool:
    """Nothing to do: same inputs, same output on disk; and, when `strict`, the last build
    went on without a warning (one that had warnings is built again, to refuse them). A file
    whose size, times and inode are the ones recorded is not read again (tree.OutputFiles)."""
    record_path = _record_path(config)
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if record.get("output") != str(config.output):
        return False
    if strict and record.get("warnings", []) != []:
        return False
    if record.get("key") != inputs_key(config, [Path(p) for p in record.get("inputs", [])]):
        return False
    outputs = record.get("outputs")
    if not isinstance(outputs, dict):
        return False
    on_disk = existing_files(config.output, outputs)
    if set(on_disk) != set(outputs):
        return False
    return all(
        isinstance(outputs[path], list) and on_disk.digest(path) == outputs[path][0]
        for path in on_disk
    )


def remember_build(
    config: Config, result: BuildResult, kept: Mapping[str, list[Any]] | None = None
) -> None:
    """Record the inputs and the output files as written (their hashes and `stat_key`s);
    `kept`: the entries of the files the build left as they were (tree.changes)."""
    outputs = {}
    kept = kept or {}
    for name, text in sorted(result.files.items()):
        entry = kept.get(name)
        if entry is None:
            status = (config.output / name).stat()
            entry = [sha(text.encode("utf-8")), *stat_key(status)]
        outputs[name] = entry
    record = {
        "output": str(config.output),
        "inputs": [str(p) for p in result.inputs],
        "key": inputs_key(config, result.inputs),
        "warnings": result.warnings,
        "outputs": outputs,
    }
    path = _record_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".gitignore").write_text("*\n", encoding="utf-8")
    # compact: json's C encoder (an indented record is written by its Python one, 20 ms of
    # a rebuild of a large spec)
    path.write_text(json.dumps(record, sort_keys=True, separators=(",", ":")), encoding="utf-8")


# -- commands ------------------------------------------------------------------------------
