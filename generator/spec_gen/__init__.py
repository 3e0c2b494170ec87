"""spec-gen: a spec-first toolchain. OpenAPI 3.0, 3.1 or 3.2 in; API layer, client and docs out.

The flow runs one way, one package per step, each importing only the ones before it:

    core       what knows no OpenAPI: Python names, settings, timings, the node being worked on
    document   load and bundle a document, locate its nodes, upgrade 3.0, repair leftovers
    lint       its structure, its schemas and the profile's rules, as located findings
    ir         the typed intermediate representation every target reads
    targets    one per output (server, models, client), each a function of the IR
    docs       the reference pages, from the IR and the client's examples
    build      the pipeline: targets run, formatted, verified, cached, written
    diff       two revisions of a document compared, and their generated code
    commands   `init`, `upgrade`; cli: the `spec-gen` command line

The names below are the public surface for programs; each is imported on first use, so
`import spec_gen` costs nothing (the CLI's no-op rebuild imports none of the generator).
The whole build, as `spec-gen build` runs it, is `spec_gen.build.pipeline.build(config)`
(`check(config)` for `--check`): the subpackage `spec_gen.build` keeps that name.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from .core.version import __version__

# name -> the module that defines it
_EXPORTS = {
    "Config": "spec_gen.core.config",
    "load_config": "spec_gen.core.config",
    "Bundle": "spec_gen.document.load",
    "SpecError": "spec_gen.document.load",
    "bundle": "spec_gen.document.load",
    "Finding": "spec_gen.lint.findings",
    "Api": "spec_gen.ir",
    "Operation": "spec_gen.ir",
    "build_ir": "spec_gen.ir",
    "BuildResult": "spec_gen.build.result",
    "SpecInvalid": "spec_gen.build.pipeline",
    "load_and_validate": "spec_gen.build.pipeline",
    "render_tree": "spec_gen.build.pipeline",
    "Change": "spec_gen.diff",
    "diff_documents": "spec_gen.diff",
    "diff_specs": "spec_gen.diff",
}

__all__ = [
    "Api",
    "BuildResult",
    "Bundle",
    "Change",
    "Config",
    "Finding",
    "Operation",
    "SpecError",
    "SpecInvalid",
    "__version__",
    "build_ir",
    "bundle",
    "diff_documents",
    "diff_specs",
    "load_and_validate",
    "load_config",
    "render_tree",
]

if TYPE_CHECKING:
    from .build.pipeline import SpecInvalid, load_and_validate, render_tree
    from .build.result import BuildResult
    from .core.config import Config, load_config
    from .diff import Change, diff_documents, diff_specs
    from .document.load import Bundle, SpecError, bundle
    from .ir import Api, Operation, build_ir
    from .lint.findings import Finding
else:

    def __getattr__(name: str) -> Any:
        module = _EXPORTS.get(name)
        if module is None:
            raise AttributeError(f"module 'spec_gen' has no attribute {name!r}")
        value = getattr(import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
