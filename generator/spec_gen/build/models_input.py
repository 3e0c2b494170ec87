"""The models step's start: the models module as the cache has it, or a job for the models
worker, without making the models document when the cache already holds its module.

The models document (targets/models/prepare.py) is a function of the IR's schemas and their
pointers, the API's title and version, and the generator's sources; the module made from it
also of the tools' versions and the module's header. The cache entry holding the module,
`models-<hash>.json`, is named by the hash of those inputs, not of the models document: a
build whose schemas are the last build's (an operation's description edited, an operation
added whose schemas are all components already) reads the entry without making the models
document, and one whose schemas changed does not hash the document it makes (about 0.1-0.2
s each on PagerDuty). The pieces of the module kept per class (build/models_cache.py) are
keyed on the narrower inputs of each class, so a new generator version still reuses them.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..ir import Api
from .cache import generated_models, generator_hash, read_models, sha, tool_versions
from .worker import ForkedWorker, Pending

Models = tuple[str, list[str], int]


def models_entry(api: Api, schemas_text: str, header: str, cache_dir: Path) -> Path:
    """The cache entry of the models module made from `api`'s schemas."""
    pointers = sorted(api.schema_pointers.items())
    facts = [schemas_text, pointers, api.title, api.version, header]
    key = sha(json.dumps([facts, generator_hash(), tool_versions()]).encode())
    return cache_dir / f"models-{key[:32]}.json"


def models_started(
    api: Api, schemas_text: str, header: str, cache_dir: Path | None, worker: ForkedWorker
) -> tuple[Models | None, Pending | None]:
    """The models module when the cache holds it, else the models worker's pending job.
    `schemas_text`: `json.dumps(api.schemas)`, made once by the caller."""
    from ..targets.models.prepare import models_document

    entry = None if cache_dir is None else models_entry(api, schemas_text, header, cache_dir)
    known = read_models(entry)
    if known is not None:
        return known, None
    document = models_document(api)
    return None, worker.submit(generated_models, document, header, cache_dir, entry)
