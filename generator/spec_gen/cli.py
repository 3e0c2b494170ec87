"""The `spec-gen` command line."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import ParamSpec, TypeVar

import click

from .config import Config, load_config

P = ParamSpec("P")
R = TypeVar("R")


def _config(spec: str | None) -> Config:
    config = load_config()
    return config.with_overrides(spec=Path(spec).resolve() if spec else None)


def _fail_on_spec_errors(func: Callable[P, R]) -> Callable[P, R]:
    """Report located spec problems as `file:line: message` lines and exit 1, never a traceback."""

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        from .build import SpecInvalid
        from .load import SpecError

        try:
            return func(*args, **kwargs)
        except SpecError as exc:
            where = f"{exc.file}:{exc.line}" + (f":{exc.column}" if exc.column else "")
            click.echo(f"{where}: {exc.message}", err=True)
            sys.exit(1)
        except SpecInvalid as exc:
            for finding in exc.findings:
                click.echo(str(finding), err=True)
            click.echo(f"{len(exc.findings)} problem(s) found", err=True)
            sys.exit(1)

    return wrapper


@click.group()
@click.version_option(package_name="spec-gen-outreach", prog_name="spec-gen")
def main() -> None:
    """spec-gen: validate an OpenAPI 3.1 spec and generate the API layer, client and docs."""


@main.command()
@click.argument("path", required=False, type=click.Path(dir_okay=False))
@_fail_on_spec_errors
def validate(path: str | None) -> None:
    """Check the spec (default: the project's spec/openapi.yaml); exit 1 on any finding."""
    from .build import load_and_validate

    config = _config(path)
    bundle = load_and_validate(config)
    operations = sum(
        1
        for item in (bundle.document.get("paths") or {}).values()
        for key in item
        if key in ("get", "put", "post", "delete", "options", "head", "patch", "trace")
    )
    click.echo(
        f"{config.relative(config.spec)}: valid ({len(bundle.files)} files, {operations} operations)"
    )


@main.command("bundle")
@click.argument("path", required=False, type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["yaml", "json"]), default="yaml", show_default=True
)
@_fail_on_spec_errors
def bundle_command(path: str | None, fmt: str) -> None:
    """Print the single resolved document (all files merged) on stdout."""
    from .build import load_and_validate

    document = load_and_validate(_config(path)).document
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
    "--out", type=click.Path(file_okay=False), help="Output directory (default: generated/)."
)
@click.option(
    "--check", is_flag=True, help="Build into memory and compare with the output directory."
)
@click.option("--no-cache", is_flag=True, help="Ignore the content-hash cache; rebuild everything.")
@_fail_on_spec_errors
def build(spec: str | None, out: str | None, check: bool, no_cache: bool) -> None:
    """Generate the API layer, client and docs into generated/ (or compare with --check)."""
    from . import build as builder

    config = _config(spec).with_overrides(output=Path(out).resolve() if out else None)
    if check:
        sys.exit(0 if builder.check(config, echo=click.echo) else 1)
    builder.build(config, use_cache=not no_cache, echo=click.echo)


@main.command()
@click.argument("tag")
@click.option(
    "--spec", type=click.Path(dir_okay=False), help="Root spec file (default from pyproject)."
)
@_fail_on_spec_errors
def scaffold(tag: str, spec: str | None) -> None:
    """Print a starting implementation of TAG's interface (every method answering 501).

    Prints to stdout and never writes a file: the implementation is yours.
    """
    from .build import load_and_validate
    from .ir import build_ir
    from .render import render
    from .targets.server import used_models

    config = _config(spec)
    api = build_ir(load_and_validate(config).document)
    found = [t for t in api.tags if tag in (t.name, t.module)]
    if not found:
        raise click.BadParameter(f"no tag {tag!r}; tags: {', '.join(t.name for t in api.tags)}")
    models = used_models(found[0].operations, set(api.schemas))
    click.echo(
        render(
            config.templates,
            "scaffold/handler.py.j2",
            tag=found[0],
            package=config.server_package,
            models=models,
        ),
        nl=False,
    )


def _register_diff() -> None:
    from .diff.command import diff_command

    main.add_command(diff_command)


_register_diff()


if __name__ == "__main__":
    main()
