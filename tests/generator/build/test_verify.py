"""`spec-gen build` reports success only for code that imports and mounts; --typecheck runs mypy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from spec_gen.build.pipeline import build, render_tree
from spec_gen.build.verify import GeneratedCodeBroken, Verifier, typecheck, verify
from spec_gen.core.config import load_config

FEATURE = Path(__file__).parents[2] / "features" / "status_ranges"


def test_verify_imports_and_mounts_the_generated_tree() -> None:
    config = load_config(FEATURE)
    files = render_tree(config, None).files
    summary = verify(files, config.server_package, config.client_package)
    assert "2 routes mounted" in summary


def test_a_module_that_does_not_import_fails_the_build_with_one_line() -> None:
    config = load_config(FEATURE)
    files = dict(render_tree(config, None).files)
    router = f"server/{config.server_package}/routers/jobs.py"
    files[router] = files[router].replace("from ..models import", "from ..modelz import")
    with pytest.raises(GeneratedCodeBroken) as broken:
        verify(files, config.server_package, config.client_package)
    message = str(broken.value)
    assert "\n" not in message and "ModuleNotFoundError" in message and "modelz" in message


def test_routes_that_fastapi_refuses_fail_the_build() -> None:
    config = load_config(FEATURE)
    files = dict(render_tree(config, None).files)
    router = f"server/{config.server_package}/routers/jobs.py"
    # a path parameter with a default: FastAPI refuses the route when it is mounted
    files[router] = files[router].replace(
        "job_id: Annotated[str, Path()],", 'job_id: Annotated[str, Path()] = "x",'
    )
    assert 'Path()] = "x"' in files[router]
    with pytest.raises(GeneratedCodeBroken, match="default"):
        verify(files, config.server_package, config.client_package)


def test_typecheck_runs_mypy_strict_on_the_written_output(tmp_path: Path) -> None:
    project = tmp_path / "status_ranges"
    shutil.copytree(FEATURE, project, ignore=shutil.ignore_patterns("expected"))
    config = load_config(project)
    lines: list[str] = []
    build(config, use_cache=False, typecheck=True, echo=lines.append)
    assert any("Success: no issues found" in line for line in lines)
    model = config.output / "server" / config.server_package / "models.py"
    model.write_text(model.read_text() + "\nBROKEN: int = 'text'\n")
    ok, report = typecheck(config.output, config.server_package, config.client_package)
    assert not ok and "Incompatible types in assignment" in report


def test_a_client_module_that_does_not_import_fails_the_build() -> None:
    """The client package is checked in its own process, beside the server's."""
    config = load_config(FEATURE)
    files = dict(render_tree(config, None).files)
    client = f"client/{config.client_package}/client.py"
    files[client] += "\nimport no_such_module_anywhere\n"
    with pytest.raises(GeneratedCodeBroken) as broken:
        verify(files, config.server_package, config.client_package)
    assert "no_such_module_anywhere" in str(broken.value)


def test_the_verifier_started_early_checks_the_tree_it_is_given_later() -> None:
    config = load_config(FEATURE)
    verifier = Verifier(config.server_package, config.client_package)
    verifier.start()  # the interpreters import FastAPI and pydantic, then wait for the tree
    try:
        summary = verifier.check(render_tree(config, None).files)
    finally:
        verifier.close()
    assert "2 routes mounted" in summary and "client:" in summary


def test_a_verifier_closed_unused_leaves_no_process() -> None:
    config = load_config(FEATURE)
    verifier = Verifier(config.server_package, config.client_package)
    verifier.start()
    probes = [popen for popen, _ in verifier.probes]
    verifier.close()
    assert probes and all(p.returncode is not None for p in probes)


COMPOSITION = Path(__file__).parents[2] / "features" / "composition"


def test_a_client_model_naming_a_class_its_module_does_not_import_fails_the_build() -> None:
    """A field annotation is resolved lazily (pydantic would only fail on first use): the
    client's probe resolves every model class's annotations, so a name the split left out of
    a module's imports fails the build."""
    config = load_config(COMPOSITION)
    files = dict(render_tree(config, None).files)
    square = f"client/{config.client_package}/models/_square.py"
    assert "    side: int | float\n" in files[square]
    files[square] = files[square].replace("    side: int | float\n", "    side: Triangle\n")
    with pytest.raises(GeneratedCodeBroken) as broken:
        verify(files, config.server_package, config.client_package)
    message = str(broken.value)
    assert "NameError" in message and "Triangle" in message
    assert "models/_square.py" in message  # the module is named, though it was never on disk


def test_the_client_probe_reports_the_model_classes_it_resolved() -> None:
    config = load_config(COMPOSITION)
    summary = verify(render_tree(config, None).files, config.server_package, config.client_package)
    client = summary.split("client:", 1)[1]
    resolved = int(client.split(" model classes resolved")[0].rsplit(" ", 1)[-1])
    assert resolved >= 4  # Base, Circle, Square, Shape at least


def test_code_that_fails_verification_is_never_written(tmp_path: Path) -> None:
    """The new files wait in a staging folder while the probes check them: when the check
    fails, the output is exactly as it was and no staging folder is left."""
    project = tmp_path / "status_ranges"
    shutil.copytree(FEATURE, project, ignore=shutil.ignore_patterns("expected"))
    templates = project / "templates"
    shutil.copytree(FEATURE.parents[2] / "templates", templates)
    settings = project / "pyproject.toml"
    settings.write_text(settings.read_text().replace('"../../../templates"', '"templates"'))
    config = load_config(project)
    build(config, use_cache=False, echo=lambda _: None)
    before = {p: p.read_bytes() for p in config.output.rglob("*") if p.is_file()}
    runtime = templates / "api" / "runtime.py.j2"
    broken = "\nfrom no_such_module_anywhere import thing\n\nTHING = thing\n"
    runtime.write_text(runtime.read_text() + broken)
    spec = project / "openapi.yaml"
    spec.write_text(spec.read_text().replace("{title: Status ranges,", "{title: Status changed,"))
    with pytest.raises(GeneratedCodeBroken, match="no_such_module_anywhere"):
        build(config, use_cache=False, echo=lambda _: None)
    after = {p: p.read_bytes() for p in config.output.rglob("*") if p.is_file()}
    assert after == before
    assert not (config.output / ".spec-gen-staging").exists()
    fresh = config.with_overrides(output=tmp_path / "fresh")
    with pytest.raises(GeneratedCodeBroken):
        build(fresh, use_cache=False, echo=lambda _: None)
    assert not fresh.output.exists()  # a failed first build leaves no output folder behind
    runtime.write_text(runtime.read_text().replace(broken, ""))
    build(config, use_cache=False, echo=lambda _: None)
    assert not (config.output / ".spec-gen-staging").exists()
    assert any(b"Status changed" in p.read_bytes() for p in config.output.rglob("*.md"))


@pytest.mark.parametrize("broken", ["server", "client"])
def test_one_interpreter_checks_both_packages_and_fails_on_either(broken: str) -> None:
    """A small tree is checked server then client in one probe interpreter: both summaries,
    and a module that does not import fails the build whichever package it is in."""
    config = load_config(FEATURE)
    files = dict(render_tree(config, None).files)
    summary = verify(files, config.server_package, config.client_package, together=True)
    assert "2 routes mounted" in summary and "model classes resolved" in summary
    module = (
        f"server/{config.server_package}/routers/jobs.py"
        if broken == "server"
        else f"client/{config.client_package}/client.py"
    )
    files[module] += "\nfrom no_such_module_anywhere import thing\n\nTHING = thing\n"
    with pytest.raises(GeneratedCodeBroken, match="no_such_module_anywhere"):
        verify(files, config.server_package, config.client_package, together=True)
