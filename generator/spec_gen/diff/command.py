"""The `spec-gen diff` command: arguments, exit codes (0, 1 for --fail-on, 2 for any error)."""

from __future__ import annotations

import sys
from contextlib import ExitStack
from typing import TYPE_CHECKING, NoReturn

import click

from .rules import Level

if TYPE_CHECKING:
    from .model import Report

FAIL_ON: dict[str, Level] = {
    "breaking": "breaking",
    "err": "breaking",
    "warning": "warning",
    "warn": "warning",
}


def _fail(message: str) -> NoReturn:
    click.echo(f"spec-gen diff: {' '.join(message.split())}", err=True)
    sys.exit(2)


@click.command("diff")
@click.argument("old")
@click.argument("new")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["markdown", "json"]),
    default="markdown",
    show_default=True,
    help="Markdown (a PR comment) or JSON.",
)
@click.option(
    "--fail-on",
    type=click.Choice(sorted(FAIL_ON), case_sensitive=False),
    default=None,
    help="Exit 1 when a change at this level (or worse) exists: breaking (ERR) or warning"
    " (WARN). Without it, exit 0.",
)
@click.option(
    "--generated",
    is_flag=True,
    help="Also build both sides and show, under each change, the generated client methods,"
    " models and service interface methods it changes.",
)
def diff_command(old: str, new: str, fmt: str, fail_on: str | None, generated: bool) -> None:
    """Report the API changes from OLD to NEW, each breaking or not.

    OLD and NEW are spec files or git revisions (`spec-gen diff main HEAD`); for a
    revision, the project's spec as committed there. Exit 1 with --fail-on and a change
    at that level; exit 2, with one line on stderr, on any error.
    """
    try:
        report = _report(old, new, generated)
    except SystemExit:
        raise
    except Exception as exc:  # noqa: BLE001 -- any failure is one line and exit 2, never a traceback
        _fail(str(exc) or type(exc).__name__)
    from .render import render_json, render_markdown

    click.echo(render_json(report) if fmt == "json" else render_markdown(report), nl=False)
    level = FAIL_ON[fail_on.lower()] if fail_on else None
    sys.exit(1 if report.fails(level) else 0)


def _report(old: str, new: str, generated: bool) -> Report:
    from ..build.pipeline import SpecInvalid
    from ..core.config import load_config
    from ..document.load import SpecError
    from . import Report, diff_specs
    from .revision import RevisionError, SpecInput, spec_input

    config = load_config()
    with ExitStack() as stack:
        inputs: list[SpecInput] = []
        for name, argument in (("OLD", old), ("NEW", new)):
            try:
                inputs.append(stack.enter_context(spec_input(argument, config)))
            except RevisionError as exc:
                _fail(f"{name}: {exc}")
        try:
            changes = diff_specs(inputs[0].root, inputs[1].root)
            report = Report(old, new, changes)
            if generated:
                from .generated import generated_view

                report.generated = generated_view(config, inputs[0].root, inputs[1].root, changes)
        except SpecError as exc:
            shown = next(
                (
                    i.show(exc.file)
                    for i in inputs
                    if i.checkout and exc.file.is_relative_to(i.checkout)
                ),
                str(exc.file),
            )
            where = f"{shown}:{exc.line}" + (f":{exc.column}" if exc.column else "")
            _fail(f"{where}: {exc.message}")
        except SpecInvalid as exc:
            first = exc.findings[0] if exc.findings else None
            _fail(f"--generated: the spec does not build ({len(exc.findings)} finding(s)): {first}")
        return report
