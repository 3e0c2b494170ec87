"""The content-hash record that lets a rebuild with nothing changed return at once.

Kept in `.spec-gen-cache/` (ignored by git), never in `generated/`: the record holds the
hashes of every input (spec files, templates, the generator's own sources, tool versions,
settings) and of every output file; timestamps play no part.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from ..core.config import Config
from .result import BuildResult
from .tree import existing_files

CACHE_DIR = ".spec-gen-cache"


def models_warm_up_wanted(cache_dir: Path | None) -> bool:
    """Whether datamodel-code-generator will likely run, so its worker should warm it up
    while the spec is read: not when the cache holds models (they are usually read from it,
    and a warm-up would delay that)."""
    return cache_dir is None or not any(cache_dir.glob("models-*.json"))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


TOOLS = {"datamodel-code-generator": "datamodel_code_generator", "ruff": "ruff", "jinja2": "jinja2"}


def tool_versions() -> str:
    """The versions of the tools whose output is committed, for the cache key.

    Read from the installed `*.dist-info` folder names next to each package (importing
    importlib.metadata costs more than a whole no-op rebuild should); the metadata API
    answers when that folder is not found.
    """
    parts = []
    for dist, package in TOOLS.items():
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


def unchanged_since_last_build(config: Config, *, strict: bool = False) -> bool:
    """Nothing to do: same inputs, same output on disk; and, when `strict`, the last build
    went on without a warning (one that had warnings is built again, to refuse them)."""
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
    on_disk = {path: sha(data) for path, data in existing_files(config.output).items()}
    return bool(on_disk == record.get("outputs"))


def remember_build(config: Config, result: BuildResult) -> None:
    record = {
        "output": str(config.output),
        "inputs": [str(p) for p in result.inputs],
        "key": inputs_key(config, result.inputs),
        "warnings": result.warnings,
        "outputs": {path: sha(text.encode("utf-8")) for path, text in sorted(result.files.items())},
    }
    path = _record_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".gitignore").write_text("*\n", encoding="utf-8")
    path.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")


# -- commands ------------------------------------------------------------------------------
