"""The `spec-gen` command line."""

from __future__ import annotations

import functools
import gc
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import click

from .core.config import Config, load_config

P = ParamSpec("P")
R = TypeVar("R")


def _config(spec: str | None) -> Config:
    config = load_config()
    return config.with_overrides(spec=Path(spec).resolve() if spec else None)


def _build_config(spec: str | None, out: str | None) -> Config:
    """`build`'s settings: the project's, with `--spec` and `--output` over them."""
    return _config(spec).with_overrides(output=Path(out).resolve() if out else None)


def _fail_on_spec_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Report located spec problems as `file:line:column: ...` lines and exit 1; an unexpected
    error inside spec-gen exits 2 with one line naming the spec node it was working on."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except BrokenPipeError as exc:
            if not _output_closed():
                _report(exc, kwargs)
            # `spec-gen build | head`: the reader has gone, as with SIGPIPE: stop quietly
            devnull = os.open(os.devnull, os.O_WRONLY)
            for stream in (sys.stdout, sys.stderr):
                os.dup2(devnull, stream.fileno())
            raise SystemExit(128 + 13) from None
        except Exception as exc:  # noqa: BLE001  (one line each, never a traceback)
            _report(exc, kwargs)
            raise AssertionError("unreachable") from None  # _report exits

    return wrapper


def _output_closed() -> bool:
    """Whether the reader of this process's stdout or stderr has gone (a closed pipe)."""
    import select

    for stream in (sys.stdout, sys.stderr):
        try:
            fd = stream.fileno()
        except (OSError, ValueError):
            continue
        poller = select.poll()
        poller.register(fd, select.POLLOUT)
        if any(events & select.POLLERR for _, events in poller.poll(0)):
            return True
    return False


def _version() -> str:
    """The installed distribution's version (whatever it is called), else the package's own."""
    from importlib.metadata import PackageNotFoundError, packages_distributions, version

    from .core.version import __version__

    for dist in packages_distributions().get("spec_gen", []):
        try:
            return version(dist)
        except PackageNotFoundError:
            continue
    return __version__


STRICT = click.option(
    "--strict", is_flag=True, help="Treat warnings as errors (exit 1 on any finding)."
)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value and not ctx.resilient_parsing:
        click.echo(f"spec-gen, version {_version()}")
        ctx.exit()


def _report(exc: Exception, kwargs: dict[str, object]) -> None:
    """Exit 1 with located findings for a spec problem, 2 with one line for anything else."""
    from .build.pipeline import SpecInvalid
    from .document.load import SpecError
    from .lint.profiles import ProfileError

    if isinstance(exc, SpecError):
        where = f"{exc.file}:{exc.line}" + (f":{exc.column}" if exc.column else "")
        click.echo(f"{where}: error {exc.message}", err=True)
        sys.exit(1)
    if isinstance(exc, SpecInvalid):
        for finding in exc.findings:
            click.echo(str(finding), err=True)
        errors = sum(f.is_error for f in exc.findings)
        click.echo(f"{errors} error(s), {len(exc.findings) - errors} warning(s)", err=True)
        sys.exit(1)
    from .targets.client.testing import TestingConfigError

    if isinstance(exc, ProfileError):
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    if isinstance(exc, TestingConfigError):  # the configuration does not fit the spec
        click.echo(f"Error: [tool.spec-gen] {exc}", err=True)
        sys.exit(2)
    from .commands.internal import describe

    click.echo(describe(exc, kwargs), err=True)
    sys.exit(2)


class _Commands(click.Group):
    """`diff` is registered when asked for (or listed): importing it costs more than a
    no-op rebuild should."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name == "diff" and cmd_name not in self.commands:
            _register_diff()
        return super().get_command(ctx, cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        if "diff" not in self.commands:
            _register_diff()
        return super().list_commands(ctx)


@click.group(cls=_Commands)
@click.option(
    "--version",
    is_flag=True,
    expose_value=False,
    is_eager=True,
    callback=_print_version,
    help="Show the version and exit.",
)
def main() -> None:
    """spec-gen: validate an OpenAPI 3.0, 3.1 or 3.2 spec and generate the API layer, client and
    docs."""


def run() -> None:
    """The `spec-gen` command: `main`, then an immediate exit once the output is flushed.

    A large build leaves a big heap (the spec, the IR, every rendered file) that the
    interpreter would otherwise free object by object on its way out, 0.1 to 0.3 s of nothing
    (everything is written and every worker has stopped by then).

    The cyclic collector is off for the whole process, which ends here: a build keeps
    millions of objects alive to its end (the document, the IR, the rendered tree), and
    each collection walks them all to free almost nothing. `core.memory.collector_paused`
    turned it off only while the tree rendered, and turning it back on set off one
    collection over the build's every object at the next allocation: 1.0 s of
    DigitalOcean's 8 s cold build. (`main` called in process, as by click's test runner,
    leaves the collector alone.)"""
    gc.disable()
    try:
        main()
        code = 0
    except SystemExit as exc:
        if exc.code is None or isinstance(exc.code, int):
            code = exc.code or 0
        else:  # a message: what the interpreter would print
            print(exc.code, file=sys.stderr)
            code = 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`| head`) or stream: nothing to keep
            pass
    os._exit(code)


@main.command()
@click.argument("path", required=False, type=click.Path(dir_okay=False))
@click.option("--spec", "spec_option", type=click.Path(dir_okay=False), help="Root spec file.")
@STRICT
@_fail_on_spec_errors
def validate(path: str | None, spec_option: str | None, strict: bool) -> None:
    """Check the spec (default: the project's spec/openapi.yaml); exit 1 on any error.

    Warnings are printed and do not fail the check unless --strict.
    """
    from .build.pipeline import load_and_validate

    config = _config(path or spec_option)
    bundle = load_and_validate(config, strict=strict, echo=lambda line: click.echo(line, err=True))
    from .document.walk import operations

    count = sum(1 for _ in operations(bundle.document))
    version = bundle.source_version
    upgraded = f", read as 3.1 from {version}" if version.startswith("3.0") else ""
    click.echo(
        f"{config.relative(config.spec)}: valid ({len(bundle.files)} files, {count} operations{upgraded})"
    )


@main.command("bundle")
@click.argument("path", required=False, type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True
)
@click.option("--spec", "spec_option", type=click.Path(dir_okay=False), help="Root spec file.")
@_fail_on_spec_errors
def bundle_command(path: str | None, fmt: str, spec_option: str | None) -> None:
    """Print the single resolved document (all files merged, as 3.1) on stdout."""
    from .build.pipeline import load_and_validate

    document = load_and_validate(_config(path or spec_option)).document
    if fmt == "json":
        click.echo(json.dumps(document, indent=2, ensure_ascii=False))
        return
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]  # keep document order
    yaml.width = 4096
    yaml.dump(document, sys.stdout)


@main.command()
@click.option(
    "--spec", type=click.Path(dir_okay=False), help="Root spec file (default from pyproject)."
)
@click.option(
    "--output",
    "--out",
    "out",
    type=click.Path(file_okay=False),
    help="Output directory (default: generated/).",
)
@click.option(
    "--check", is_flag=True, help="Build into memory and compare with the output directory."
)
@click.option("--no-cache", is_flag=True, help="Ignore the content-hash cache; rebuild everything.")
@click.option(
    "--typecheck", is_flag=True, help="Then run mypy --strict on the output (exit 1 on errors)."
)
@click.option("--timings", is_flag=True, help="Print each stage's wall-clock time to stderr.")
@click.option(
    "--watch",
    is_flag=True,
    help="Build, then build again whenever the spec, its templates or settings change "
    "(Ctrl-C stops).",
)
@STRICT
@_fail_on_spec_errors
def build(
    spec: str | None,
    out: str | None,
    check: bool,
    no_cache: bool,
    strict: bool,
    typecheck: bool,
    timings: bool,
    watch: bool,
) -> None:
    """Generate the API layer, client and docs into generated/ (or compare with --check).

    Warnings are printed and the build goes on, unless --strict.
    """
    if watch:
        if check:
            raise click.UsageError("--watch builds on every change; --check compares once")
        from .build.watch import prepare
        from .build.watch import watch as watching

        once = build.callback  # this function, its errors reported as spec-gen build does
        assert once is not None
        options = {**click.get_current_context().params, "watch": False}
        sys.exit(
            watching(
                _build_config(spec, out),
                lambda: once(**options),
                lambda: prepare(_build_config(spec, out), not no_cache),
                lambda line: click.echo(line, err=True),
            )
        )
    if timings:  # the environment carries it to the forked workers too
        import os

        from .core.timings import ENV

        os.environ[ENV] = "1"
    if typecheck:
        import importlib.util

        if importlib.util.find_spec("mypy") is None:
            raise click.UsageError(
                "--typecheck runs mypy, which is not installed here: "
                "pip install mypy (or pip install 'spec-gen[typecheck]')"
            )
    config = _build_config(spec, out)
    if not check and not no_cache and not typecheck:  # no-op rebuild, generator not imported
        from .build.cache import unchanged_since_last_build

        if unchanged_since_last_build(config, strict=strict):
            click.echo("nothing changed")
            return
    from .build.watch import prepared
    from .build.worker import ForkedWorker

    # under --watch, started before the change (build/watch.py), when made for this build
    ready = None if check else prepared(config, not no_cache)
    # the models worker starts now, before the generator is imported here: it imports and
    # warms up datamodel-code-generator while this process imports, reads the spec and
    # builds the IR (a build with nothing to generate closes it at once; one whose models
    # are in the build cache, read by this process, kills it unused)
    with ready.worker if ready else ForkedWorker(_warm_up_models) as worker:
        from .build import pipeline as builder
        from .build.verify import TypeCheckFailed

        if check:
            passed = builder.check(config, echo=click.echo, strict=strict, models_worker=worker)
            sys.exit(0 if passed else 1)
        try:
            builder.build(
                config,
                use_cache=not no_cache,
                strict=strict,
                typecheck=typecheck,
                echo=click.echo,
                models_worker=worker,
                verifier=ready.verifier if ready else None,
            )
        except TypeCheckFailed as failed:
            click.echo(f"spec-gen: the generated code fails mypy --strict: {failed}", err=True)
            sys.exit(1)


def _warm_up_models() -> None:
    """The models worker's first call (imported there, not here)."""
    from .targets.models.run import warm_up

    warm_up()


@main.command()
@click.option(
    "--spec", type=click.Path(dir_okay=False), help="Root spec file (default from pyproject)."
)
@click.option(
    "-o",
    "--output",
    "output",
    type=click.Path(dir_okay=False),
    help="Write here (default: stdout). May be the spec itself.",
)
@_fail_on_spec_errors
def upgrade(spec: str | None, output: str | None) -> None:
    """Write the spec as OpenAPI 3.1 (what spec-gen reads a 3.0 document as).

    A single-file spec keeps every line the upgrade does not change as written (order,
    comments, quoting, indentation, trailing spaces). A spec spread over several files is
    written bundled into one (each file would need its own context to be upgraded alone).
    """
    from .commands.upgrade import upgraded_text

    config = _config(spec)
    text, note = upgraded_text(config.spec)
    if note:
        click.echo(note, err=True)
    if output:
        Path(output).write_text(text, encoding="utf-8")
        click.echo(f"wrote {output}", err=True)
    else:
        click.echo(text, nl=False)


@main.command()
@click.option(
    "--spec", help="The root spec file, relative to here (default: found, else openapi.yaml)."
)
@click.option("--output", default="generated", show_default=True, help="Output directory.")
@click.option(
    "--name", help="Package name stem: NAME_api, NAME_client (default: the folder's name)."
)
@click.option(
    "--templates", help="A folder of your own templates overriding spec-gen's (optional)."
)
@click.option(
    "--profile",
    type=click.Choice(["default", "house"]),
    default="default",
    show_default=True,
    help="Rule profile for validate and build.",
)
def init(
    spec: str | None, output: str, name: str | None, templates: str | None, profile: str
) -> None:
    """Write [tool.spec-gen] into ./pyproject.toml (created when missing)."""
    from .commands.init import InitError, init_project

    try:
        path = init_project(Path.cwd(), spec, output, name, templates, profile)
    except InitError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"wrote [tool.spec-gen] to {path.name}; next: spec-gen validate, spec-gen build")


@main.command()
@click.argument("tag", required=False)
@click.option(
    "--spec", type=click.Path(dir_okay=False), help="Root spec file (default from pyproject)."
)
@click.option(
    "--write",
    is_flag=True,
    help="Write the service package ([tool.spec-gen] service-package); never overwrites a file.",
)
@_fail_on_spec_errors
def scaffold(tag: str | None, spec: str | None, write: bool) -> None:
    """A starting service for the spec: every method answering 501 in the declared error shape.

    With --write: writes the service package beside pyproject.toml (one module per tag, a
    context provider with one verifier per security scheme, app.py for
    `uvicorn <package>.app:app`), only the files that do not exist yet. With TAG: prints
    that tag's module to stdout.
    """
    from .build.pipeline import load_and_validate
    from .commands.scaffold import handler_source, write_scaffold
    from .ir import build_ir

    if not write and not tag:
        raise click.UsageError("name a TAG to print its module, or --write the service package")
    config = _config(spec)
    api = build_ir(load_and_validate(config).document)
    if write:
        written, kept = write_scaffold(config, api)
        for path in written:
            click.echo(f"wrote {path}")
        for path in kept:
            click.echo(f"kept {path} (exists; yours)")
        if written:
            click.echo(f"run: uvicorn {config.service_package}.app:app")
        return
    found = [t for t in api.tags if tag in (t.name, t.module)]
    if not found:
        raise click.BadParameter(f"no tag {tag!r}; tags: {', '.join(t.name for t in api.tags)}")
    click.echo(handler_source(config, api, found[0]), nl=False)


def _register_diff() -> None:
    from .diff.command import diff_command

    main.add_command(diff_command)


if __name__ == "__main__":
    main()
