"""The content-hash record that lets a rebuild with nothing changed return at once.

Kept in `.spec-gen-cache/` (ignored by git), never in `generated/`: the record holds the
hashes of every input (spec files, templates, the generator's own sources, tool versions,
settings) and of every output file; timestamps play no part.
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from .config import Config
from .result import BuildResult
from .tree import existing_files

CACHE_DIR = ".spec-gen-cache"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tool_versions() -> str:
    parts = []
    for dist in ("datamodel-code-generator", "ruff", "jinja2"):
        try:
            parts.append(f"{dist}=={version(dist)}")
        except PackageNotFoundError:
            parts.append(f"{dist}==?")
    return ";".join(parts)


def _generator_sources() -> list[Path]:
    return sorted(Path(__file__).parent.rglob("*.py"))


def inputs_key(config: Config, spec_files: list[Path]) -> str:
    digest = hashlib.sha256()
    digest.update(tool_versions().encode())
    digest.update(repr(sorted(vars(config).items())).encode())
    templates = sorted(p for p in config.templates.rglob("*") if p.is_file())
    for path in [*spec_files, *templates, *_generator_sources()]:
        digest.update(str(path).encode())
        try:
            digest.update(sha(path.read_bytes()).encode())
        except OSError:
            digest.update(b"missing")
    return digest.hexdigest()


def _record_path(config: Config) -> Path:
    return config.root / CACHE_DIR / "build.json"


def unchanged_since_last_build(config: Config) -> bool:
    record_path = _record_path(config)
    try:
        record = json.loads(record_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    if record.get("output") != str(config.output):
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
        "outputs": {path: sha(text.encode("utf-8")) for path, text in sorted(result.files.items())},
    }
    path = _record_path(config)
    path.parent.mkdir(parents=True, exist_ok=True)
    (path.parent / ".gitignore").write_text("*\n", encoding="utf-8")
    path.write_text(json.dumps(record, indent=1, sort_keys=True), encoding="utf-8")


# -- commands ------------------------------------------------------------------------------
