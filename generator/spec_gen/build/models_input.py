"""The models step's start: the models module as the cache has it, or a job for the models
worker, without making the models document when the last build made it from the same
schemas.

The models document (targets/models/prepare.py) is a function of the IR's schemas and their
pointers, the API's title and version, and the generator's sources; with the tools' versions
and the module's header, so is the cache entry holding its module (`cache.models_entry`).
`last-models.json` remembers which entry the last build's schemas led to: a build whose
schemas are the same (an operation's description edited, an operation added whose schemas
are all components already) reads that entry directly, without making the models document
and hashing it (about 0.15-0.2 s of PagerDuty's rebuild after a description edit).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..ir import Api
from .cache import generated_models, generator_hash, models_entry, read_models, sha, tool_versions
from .worker import ForkedWorker, Pending

MEMO = "last-models.json"
Models = tuple[str, list[str], int]


def _key(api: Api, schemas_text: str, header: str) -> str:
    pointers = sorted(api.schema_pointers.items())
    facts = [schemas_text, pointers, api.title, api.version, header]
    return sha(json.dumps([facts, generator_hash(), tool_versions()]).encode())


def _remembered(key: str, cache_dir: Path) -> Models | None:
    try:
        memo = json.loads((cache_dir / MEMO).read_text(encoding="utf-8"))
        if not isinstance(memo, dict) or memo.get("key") != key:
            return None
        return read_models(cache_dir / Path(str(memo["entry"])).name)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def models_started(
    api: Api, schemas_text: str, header: str, cache_dir: Path | None, worker: ForkedWorker
) -> tuple[Models | None, Pending | None]:
    """The models module when the cache holds it, else the models worker's pending job.
    `schemas_text`: `json.dumps(api.schemas)`, made once by the caller."""
    from ..targets.models.prepare import models_document

    key = _key(api, schemas_text, header) if cache_dir is not None else None
    if key is not None and cache_dir is not None:
        known = _remembered(key, cache_dir)
        if known is not None:
            return known, None
    document = models_document(api)
    entry = models_entry(document, header, cache_dir)
    known = read_models(entry)
    if key is not None and cache_dir is not None and entry is not None:
        cache_dir.mkdir(parents=True, exist_ok=True)
        memo: dict[str, Any] = {"key": key, "entry": entry.name}
        (cache_dir / MEMO).write_text(json.dumps(memo), encoding="utf-8")
    if known is not None:
        return known, None
    return None, worker.submit(generated_models, document, header, cache_dir)
