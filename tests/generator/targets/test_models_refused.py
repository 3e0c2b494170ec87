"""datamodel-code-generator's refusal of a schema crosses the forked models worker as a
pickled exception; the pipeline recognises it by its type, not by its class name."""

from __future__ import annotations

import pickle

from spec_gen.build.pipeline import _is_models_refusal, _refusal_finding
from spec_gen.core.lint_rules import Rule
from spec_gen.targets.models.refused import ModelsRefused


class ModelsRefusedLookalike(Exception):
    """Another exception that merely contains the name: no longer taken for a refusal."""


ModelsRefusedLookalike.__name__ = "ModelsRefused"


def test_a_refusal_survives_the_worker_pipe_and_is_recognised_by_type() -> None:
    refused = pickle.loads(pickle.dumps(ModelsRefused("/components/schemas/Pet", "bad enum")))
    assert isinstance(refused, ModelsRefused)
    assert (refused.path, refused.reason) == ("/components/schemas/Pet", "bad enum")
    assert _is_models_refusal(refused)
    assert not _is_models_refusal(ModelsRefusedLookalike("same name, other type"))
    assert not _is_models_refusal(None)
    finding = _refusal_finding(refused)
    assert finding.rule is Rule.SCHEMA and finding.pointer == "/components/schemas/Pet"
    assert "bad enum" in finding.message
