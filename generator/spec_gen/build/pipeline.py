"""`spec-gen build`: spec -> IR -> every target -> formatted tree -> written (or compared).

Output is deterministic: no timestamps, stable ordering, one formatter at a pinned
version. A content-hash record in `.spec-gen-cache/` lets a rebuild with nothing
changed return without parsing anything (never timestamps).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..core.config import Config
from ..core.lint_rules import Rule
from ..core.memory import collector_paused
from ..core.timings import mark, stage
from ..core.where import at
from ..document.load import Bundle, bundle
from ..lint.findings import WARNING, Finding, RawFinding
from ..lint.profiles import config_findings, ruleset
from ..lint.validate import (
    apply_profile,
    bundle_findings,
    locate_findings,
    repair_findings,
    rule_findings,
    validate_bundle,
)
from ..targets.models.refused import ModelsRefused
from .cache import (
    CACHE_DIR,
    ParsedFiles,
    last_outputs,
    remember_build,
    unchanged_since_last_build,
    validation_verdict,
)
from .formatter import format_python
from .located import Located, remember_unlocated, rules_in_worker, to_locate
from .models_input import models_started
from .result import BuildResult
from .reuse import Reuse, units_for
from .target_settings import (
    client_env_prefix,
    client_testing_context,
    docs_settings,
    email_dependency,
    form_dependency,
    render_typescript_client,
)
from .tree import Change, Staging, changes, existing_files, short_diff
from .verify import Verifier, typecheck_project
from .worker import ForkedWorker, deaf_to_ctrl_c

DOCS_PAGE = "docs.html"  # the reference page inside the server package
# below this many operations + schemas, starting a second probe interpreter costs more than
# checking the client after the server in the same one
SMALL_TREE = 300


if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor


class SpecInvalid(Exception):
    def __init__(self, findings: list[Finding]) -> None:
        super().__init__(f"{len(findings)} finding(s)")
        self.findings = findings


def load_and_validate(
    config: Config, *, strict: bool = False, echo: Callable[[str], None] | None = None
) -> Bundle:
    """The validated bundle (raises SpecError or SpecInvalid).

    Warnings go to `echo` (when given) and do not stop anything, unless `strict`.
    """
    spec_bundle = bundle(config.spec)
    raw = validate_bundle(spec_bundle, ruleset(config.lint))
    _settle(config, spec_bundle, raw, strict, echo)
    return spec_bundle


def _settle(
    config: Config,
    spec_bundle: Bundle,
    raw: list[RawFinding],
    strict: bool,
    echo: Callable[[str], None] | None,
    known: Located | None = None,
) -> list[Finding]:
    """Raise SpecInvalid on any error (any warning too when strict); echo the warnings and
    return them."""
    extra = bundle_findings(spec_bundle) + config_findings(
        ruleset(config.lint), config.root / "pyproject.toml", config.root
    )
    findings = locate_findings(spec_bundle, raw, config.root, extra, known)
    if any(f.is_error for f in findings) or (strict and findings):
        raise SpecInvalid(findings)
    if echo is not None:
        for finding in findings:
            echo(str(finding))
    return findings


def render_tree(
    config: Config,
    cache_dir: Path | None,
    *,
    strict: bool = False,
    echo: Callable[[str], None] | None = None,
    verifier: Verifier | None = None,
    models_worker: ForkedWorker | None = None,
) -> BuildResult:
    """Every output file, formatted, in memory.

    The slow steps run in forked processes while this process renders the templates:
    datamodel-code-generator in one (`models_worker`, started first: it imports and warms
    up while the spec is read; `spec-gen build` starts it before it imports the generator,
    and closes it), openapi-spec-validator and the profile's rules in the other. Nothing is
    returned (so nothing is written) unless the spec is valid. A `verifier` is started while
    the models are still being generated, so its interpreters are ready when the tree is.
    """
    from concurrent.futures import ProcessPoolExecutor
    from multiprocessing import get_context

    from ..targets.models.run import warm_up

    owned = models_worker is None
    if models_worker is None:
        models_worker = ForkedWorker(warm_up)
    fork = get_context("fork")
    with (
        collector_paused(),
        ProcessPoolExecutor(max_workers=1, mp_context=fork, initializer=deaf_to_ctrl_c) as pool,
    ):
        try:
            reuse = Reuse(cache_dir, config.output, format_python, units_for(config, cache_dir))
            files, spec_bundle, raw, known = _checked_render(
                config, cache_dir, pool, models_worker, verifier, strict, reuse
            )
        finally:
            if owned:
                models_worker.close()
    with stage("findings located"):
        findings = _settle(config, spec_bundle, raw, strict, echo, known)
        remember_unlocated(cache_dir, raw, known)
    if files is None:  # _settle raises first; kept for the type checker
        raise SpecInvalid([])
    return BuildResult(files, spec_bundle.files, [str(f) for f in findings], reuse)


def _checked_render(
    config: Config,
    cache_dir: Path | None,
    pool: ProcessPoolExecutor,
    models_worker: ForkedWorker,
    verifier: Verifier | None,
    strict: bool,
    reuse: Reuse,
) -> tuple[dict[str, str] | None, Any, list[RawFinding], Located]:
    """The rendered files (None when the findings stop the build), the bundle, the findings
    and where the worker found them (located.py)."""
    with stage("bundle"):
        parsed = ParsedFiles.load(cache_dir)
        spec_bundle = bundle(config.spec, parsed=parsed)
        if parsed is not None:
            parsed.save()
    rules = ruleset(config.lint)
    verdict = pool.submit(validation_verdict, spec_bundle.document, cache_dir)

    def refused() -> bool:  # the validator refuses the document: its findings explain
        return any(f.severity == "error" for f in apply_profile(verdict.result(), rules))

    # the rules run in the other worker while this process builds the IR and renders:
    # when they stop the build, what was rendered is thrown away
    repairs = repair_findings(spec_bundle)
    wanted = to_locate(cache_dir, [f.pointer for f in repairs])
    checked = pool.submit(rules_in_worker, spec_bundle, rules, wanted)
    files = None
    notes: list[tuple[str, str]] = []
    render_error: Exception | None = None
    if not spec_bundle.problems:
        try:
            files, notes = _render(config, spec_bundle, cache_dir, models_worker, verifier, reuse)
        except Exception as exc:  # noqa: BLE001  (raised below unless the spec is refused)
            render_error = exc
    with stage("wait for the rules"):
        found, known = checked.result()
    try:
        raw = rule_findings(spec_bundle.document, rules) if found is None else found
    except Exception:
        if not refused():
            raise
        raw = []
    # what datamodel-code-generator warned about: warnings of the `models` rule, unless the
    # document is refused anyway (they would repeat its errors: a dangling $ref's fallback)
    if not (spec_bundle.problems or any(f.severity == "error" for f in raw) or refused()):
        raw += apply_profile(
            [RawFinding(pointer, Rule.MODELS, note, WARNING) for pointer, note in notes], rules
        )
    if _is_models_refusal(render_error):  # a schema no class can be made from: its finding
        kept = apply_profile([_refusal_finding(render_error)], rules)
        raw += kept
        if any(f.severity == "error" for f in kept):
            render_error = None
    stops = spec_bundle.problems or any(f.severity == "error" or strict for f in raw)
    if stops:
        files = None
    elif render_error is not None and not refused():
        raise render_error
    with stage("wait for the validator"):
        verdict.result()
    raw = apply_profile(repairs + verdict.result(), rules) + raw
    return files, spec_bundle, raw, known


def _is_models_refusal(error: Exception | None) -> bool:
    return isinstance(error, ModelsRefused)


def _refusal_finding(error: Any) -> RawFinding:
    """datamodel-code-generator's refusal of a schema, as an error of the `schema` rule."""
    return RawFinding(
        error.path, Rule.SCHEMA, f"no model class can be made from this schema: {error.reason}"
    )


def _render(
    config: Config,
    spec_bundle: Bundle,
    cache_dir: Path | None,
    models_worker: ForkedWorker,
    verifier: Verifier | None,
    reuse: Reuse,
) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """The rendered files, and what datamodel-code-generator warned about: (pointer of the
    first class the warning names, else of the schemas; its text)."""
    from concurrent.futures import ThreadPoolExecutor

    from ..docs.target import HTML_PAGE, render_docs
    from ..ir import build_ir
    from ..targets import Target
    from ..targets.client.models import split_models
    from ..targets.client.resources import render_client
    from ..targets.models import kept
    from ..targets.models.depth import needs_headroom, recursion_headroom
    from ..targets.models.files import uploads_typed
    from ..targets.models.fix import any_classes, enum_class_names, model_names
    from ..targets.models.run import refusal_pointer
    from ..targets.server import render_server

    with at(""), stage("IR"):
        api = build_ir(spec_bundle.document)
    if verifier is not None:  # a small tree is checked in one interpreter, server then client
        # started now: they import FastAPI and pydantic, and the server's the last proven
        # models (Verifier.preload), while this process renders
        verifier.start(together=len(api.operations) + len(api.schemas) < SMALL_TREE)
    source = config.relative(config.spec)
    header = f"# generated by spec-gen from {source}; do not edit"
    schemas_text = json.dumps(api.schemas)
    known_models, models = models_started(api, schemas_text, header, cache_dir, models_worker)
    typescript = {}  # opt-in; tsc checks it under --typecheck, as mypy the Python
    if "typescript" in config.targets:
        typescript = render_typescript_client(config, api, source)
    known = set(api.schemas)
    uses_email = '"format": "email"' in schemas_text
    pydantic_dep = "pydantic[email]>=2.7,<3" if uses_email else "pydantic>=2.7,<3"
    prefix = config.distribution_prefix
    server = Target(
        config.templates,
        config.server_package,
        f"{prefix}-api",
        source,
        (pydantic_dep, "fastapi>=0.115", *form_dependency(api)),
        handler_credentials=config.handler_credentials,
    )
    client = Target(
        config.templates,
        config.client_package,
        f"{prefix}-client",
        source,
        ("httpx>=0.27", pydantic_dep),
    )
    files: dict[str, str] = {}
    env_prefix = client_env_prefix(config)
    testing = client_testing_context(config, api, env_prefix)
    model_uses: Any = None

    def render_code() -> dict[str, Any]:  # the server's and the client's (not the models)
        nonlocal model_uses
        out = {}
        with stage("server"):
            for name, content in render_server(server, api, reuse.units).items():
                out[f"server/{name}"] = content
        with stage("client"):
            client_files, model_uses = render_client(
                client, api, known, env_prefix, testing, reuse.units
            )
            for name, content in client_files.items():
                out[f"client/{name}"] = content
        return out

    files.update(render_code())
    with stage("docs"):
        for name, content in render_docs(server, api, docs_settings(config), reuse.units).items():
            files[f"docs/{name}"] = content
    if reuse.units.enabled:
        mark(f"units rendered: {reuse.units.summary()}")
    files.update(typescript)
    # the API layer carries the reference page as package data, for a server to serve at /docs
    files[f"server/{config.server_package}/{DOCS_PAGE}"] = files[f"docs/{HTML_PAGE}"]
    with stage("ruff (all but the models)"):  # while the models are being generated
        files = reuse.format(files)
    with at("/components/schemas"):  # an error of the models step names the schemas
        with stage("wait for the models"):
            try:
                models_source, notes, depth = known_models or models.result()  # type: ignore[union-attr]
            except ModelsRefused as refused:  # at the schema's node in the document
                where = refusal_pointer(refused.path, api.schema_pointers)
                raise ModelsRefused(where, refused.reason) from None
        located = [(_class_pointer(api.schema_pointers, note), note) for note in notes]
        missing = sorted(known - model_names(models_source))
        if missing:  # a schema it wrote nothing for: any value, a `models` warning at it
            models_source = any_classes(models_source, missing)
            unwritten = "datamodel-code-generator wrote no class for this schema ({}): any value"
            located += [
                (api.schema_pointers.get(name, "/components/schemas"), unwritten.format(name))
                for name in missing
            ]
    # the models' own modules: string formats kept as written, the client's open base
    files |= kept.package_files(models_source, header, config.server_package, config.client_package)
    written_enums = enum_class_names(models_source) & known
    if written_enums != api.enum_classes:
        # a class datamodel-code-generator wrote as an enum the schemas did not say is one (an
        # allOf of an enum and a class without fields), or the other way round: the code that
        # reads its values (`model_validate_json` or the enum's call) follows the models
        api.enum_classes = frozenset(written_enums)
        with stage("ruff (the server and client again: enum classes)"):
            files.update(reuse.format(render_code()))
    if ("EmailStr" in models_source) != uses_email:
        # the guess above reads the schemas' text: a `format: email` datamodel-code-generator
        # does not type as EmailStr (no `type: string`, an example's data) is no email field;
        # the packages' dependency lists follow the models
        files = email_dependency(files, pydantic_dep, not uses_email)
    # the server's one models module first: with it, the server's probe can start importing
    # while the client's split of the models is made and formatted
    server_models = f"server/{config.server_package}/models.py"
    server_models_source = recursion_headroom(uploads_typed(models_source, api), depth)
    # the probes check the models as datamodel-code-generator wrote them while ruff formats
    # them: its fixes (import order, unused imports) and its formatting leave the code's
    # meaning as it is, and the checks no longer wait for it
    if verifier is not None:
        verifier.feed("server", {**files, server_models: server_models_source})
    with ThreadPoolExecutor(max_workers=1) as ruff_thread:
        # ruff formats the server's models (one large file: one of its threads) in its own
        # process while this one splits them for the client
        formatted = ruff_thread.submit(reuse.format, {server_models: server_models_source})
        with stage("client models (while ruff formats the server's)"):
            model_files: dict[str, str] = {}
            modules, homes = reuse.split(split_models, models_source, model_uses)
            for module, content in modules.items():
                model_files[f"client/{config.client_package}/models/{module}.py"] = (
                    recursion_headroom(content) if needs_headroom(depth) else content
                )
            model_files[f"client/{config.client_package}/models/__init__.py"] = client.render(
                "client/models_init.py.j2", **client.context(api), homes=homes
            )
        if verifier is not None:
            verifier.feed("client", {**files, **model_files})
        with stage("ruff (the client's models)"):
            client_models = reuse.format(model_files)
        with stage("ruff (the server's models)"):
            files.update(formatted.result())
    files.update(client_models)
    return files, located


def _class_pointer(pointers: dict[str, str], text: str) -> str:
    """The spec node of the first model class `text` names (`... is duplicated on Pet`)."""
    for word in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text):
        found = pointers.get(word)
        if found:
            return found
    return "/components/schemas"


# -- comparing and writing ---------------------------------------------------------------


def build(
    config: Config,
    *,
    use_cache: bool = True,
    strict: bool = False,
    typecheck: bool = False,
    echo: Callable[[str], None] = print,
    models_worker: ForkedWorker | None = None,
    verifier: Verifier | None = None,
) -> list[Change]:
    """Render, verify (imports and mounts), write; `typecheck`: then mypy --strict the output.

    `models_worker`, `verifier`: ones already started (build/watch.py); the caller closes
    the worker (this closes the verifier it uses).
    Raises verify.TypeCheckFailed when mypy finds errors in the written output.
    """
    if use_cache and unchanged_since_last_build(config, strict=strict):
        echo("nothing changed")
        if typecheck:
            typecheck_project(config, echo)
        return []
    # the collector stays paused until the output is written (core/memory.py): back on in
    # the middle, its first collections walk all the build made, ~0.3 s on a large spec
    with collector_paused():
        cache_dir = config.root / CACHE_DIR if use_cache else None
        verifier = verifier or Verifier(
            config.server_package,
            config.client_package,
            cache_dir,
            config.output if use_cache else None,
        )
        staged: Staging | None = None
        try:
            result = render_tree(
                config,
                cache_dir,
                strict=strict,
                echo=echo,
                verifier=verifier,
                models_worker=models_worker,
            )
            with stage("compare with the output"):
                old = existing_files(config.output, last_outputs(config) if use_cache else None)
                kept: dict[str, list[Any]] = {}  # the files left as they were
                found = changes(old, result.files, kept)
            # the new files are written beside the output while the probes check them; moved
            # into place (a rename each) only when they pass
            with stage("write (staged)"):
                staged = Staging(config.output, result.files, found)
            with stage("verify"):
                echo(verifier.check(result.files))
            verifier.remember()
            with stage("write"):
                staged.commit()
        finally:
            verifier.close()
            if staged is not None:
                staged.discard()
        if use_cache:
            with stage("remember"):
                remember_build(config, result, kept)
                result.reuse.save(result.files)
        for change in found:
            echo(str(change))
        added = sum(c.kind == "added" for c in found)
        changed = sum(c.kind == "changed" for c in found)
        removed = sum(c.kind == "removed" for c in found)
        echo(f"{len(result.files)} files: {added} added, {changed} changed, {removed} removed")
        if typecheck:
            typecheck_project(config, echo)
        return found


def check(
    config: Config,
    echo: Callable[[str], None] = print,
    *,
    strict: bool = False,
    models_worker: ForkedWorker | None = None,
) -> bool:
    verifier = Verifier(config.server_package, config.client_package)
    try:
        result = render_tree(
            config, None, strict=strict, echo=echo, verifier=verifier, models_worker=models_worker
        )
        verifier.check(result.files)
    finally:
        verifier.close()
    old = existing_files(config.output)
    found = changes(old, result.files)
    out = config.relative(config.output)
    for change in found:
        label = {"added": "missing", "removed": "extra", "changed": "differs"}[change.kind]
        echo(f"{label}: {out}/{change.path}")
        echo(short_diff(change.path, old.get(change.path), result.files.get(change.path)))
    if found:
        echo(f"{out}/ is out of date ({len(found)} file(s)); run `spec-gen build`")
        return False
    echo(f"{out}/ matches the spec and templates ({len(result.files)} files)")
    return True
