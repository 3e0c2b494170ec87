"""Using spec-gen in another project: `spec-gen init`, a build with no configuration, the
packaged templates overridden file by file, and an install into a fresh virtual environment."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from spec_helpers import run_in, write

CORPUS = Path(__file__).resolve().parents[3].parent / "shared" / "corpus"
PETSTORE = """\
openapi: 3.0.3
info: {title: Petstore, version: '1'}
paths:
  /pets:
    get:
      operationId: listPets
      responses:
        '200':
          description: ok
          content:
            application/json:
              schema: {type: array, items: {$ref: '#/components/schemas/Pet'}}
components:
  schemas:
    Pet:
      type: object
      required: [id]
      properties:
        id: {type: integer}
        name: {type: string, nullable: true}
"""


def test_init_writes_the_section_and_build_uses_it(tmp_path: Path) -> None:
    write(tmp_path / "petstore.yaml", PETSTORE)
    code, out = run_in(tmp_path, "init")
    assert code == 0, out
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["spec-gen"]
    assert settings["spec"] == "petstore.yaml"
    assert settings["server-package"].endswith("_api") and settings["lint"]["extends"] == [
        "default"
    ]
    code, out = run_in(tmp_path, "init")
    assert code == 1 and "already has [tool.spec-gen]" in out
    code, out = run_in(tmp_path, "build")
    assert code == 0, out
    server = tmp_path / "generated" / "server" / settings["server-package"]
    assert "class Pet(BaseModel)" in (server / "models.py").read_text()
    code, out = run_in(tmp_path, "build")
    assert code == 0 and out.strip() == "nothing changed", out


def test_init_appends_to_an_existing_pyproject(tmp_path: Path) -> None:
    original = '[project]\nname = "mine"\nversion = "1"\n'
    write(tmp_path / "pyproject.toml", original)
    code, out = run_in(
        tmp_path, "init", "--spec", "api/openapi.yaml", "--name", "shop", "--profile", "house"
    )
    assert code == 0, out
    text = (tmp_path / "pyproject.toml").read_text()
    assert text.startswith(original)
    parsed = tomllib.loads(text)
    assert parsed["project"]["name"] == "mine"
    assert parsed["tool"]["spec-gen"]["client-package"] == "shop_client"
    assert parsed["tool"]["spec-gen"]["lint"]["extends"] == ["house"]


def test_build_with_no_configuration_at_all(tmp_path: Path) -> None:
    spec = write(tmp_path / "elsewhere" / "api.yaml", PETSTORE)
    project = tmp_path / "project"
    project.mkdir()
    code, out = run_in(project, "build", "--spec", str(spec), "--output", "out")
    assert code == 0, out
    assert (project / "out" / "server" / "api_server" / "models.py").is_file()
    assert (project / "out" / "client" / "api_client" / "client.py").is_file()


def test_corpus_hook_configuration(tmp_path: Path) -> None:
    """The lead's corpus check: absolute spec path, no templates setting."""
    spec = write(tmp_path / "specs" / "pets.yaml", PETSTORE)
    write(
        tmp_path / "work" / "pyproject.toml",
        f'[tool.spec-gen]\nspec = "{spec}"\noutput = "generated"\n'
        'server-package = "pets_api"\nclient-package = "pets_client"\n',
    )
    code, out = run_in(tmp_path / "work", "build")
    assert code == 0, out
    assert (tmp_path / "work" / "generated" / "server" / "pets_api" / "models.py").is_file()


def test_project_templates_override_packaged_ones_file_by_file(tmp_path: Path) -> None:
    write(tmp_path / "openapi.yaml", PETSTORE)
    packaged = Path(__import__("spec_gen").__file__).parent / "templates"
    original = (packaged / "client" / "README.md.j2").read_text()
    write(tmp_path / "mine" / "client" / "README.md.j2", "OUR OWN README\n" + original)
    write(
        tmp_path / "pyproject.toml",
        '[tool.spec-gen]\nspec = "openapi.yaml"\ntemplates = "mine"\n',
    )
    code, out = run_in(tmp_path, "build")
    assert code == 0, out
    readme = (tmp_path / "generated" / "client" / "README.md").read_text()
    assert readme.startswith("OUR OWN README")
    # every other file still comes from the packaged templates
    assert (tmp_path / "generated" / "server" / "api_server" / "models.py").is_file()


@pytest.mark.slow
def test_install_into_a_fresh_venv_then_init_and_build(tmp_path: Path) -> None:
    """`pip install` (not editable) into a new virtual environment, then use it elsewhere."""
    repo = Path(__file__).resolve().parents[3]
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    # the dependencies come from this environment; spec-gen itself is built and installed
    site = Path(sysconfig.get_paths()["purelib"])
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "deps.pth").write_text(f"{site}\n")
    installed = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            str(repo),
        ],
        capture_output=True,
        check=False,
        text=True,
    )
    assert installed.returncode == 0, installed.stderr[-2000:]
    where = subprocess.run(
        [str(python), "-c", "import spec_gen; print(spec_gen.__file__)"],
        check=True,
        capture_output=True,
        text=True,
        cwd=tmp_path,
    ).stdout
    assert where.startswith(str(venv)), where  # the installed copy, not the work tree
    project = tmp_path / "project"
    write(project / "openapi.yaml", PETSTORE)
    env = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    spec_gen = str(venv / "bin" / "spec-gen")
    for command in ([spec_gen, "--version"], [spec_gen, "init"], [spec_gen, "build"]):
        done = subprocess.run(
            command, cwd=project, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, (command, done.stdout, done.stderr)
    assert (
        "spec-gen, version"
        in subprocess.run(
            [spec_gen, "--version"], capture_output=True, text=True, env=env, check=True
        ).stdout
    )
    assert (project / "generated" / "server" / "project_api" / "models.py").is_file()


def test_init_after_a_zero_config_build_keeps_its_package_names(tmp_path: Path) -> None:
    """The README's order: a build with no configuration, then init: nothing is renamed."""
    write(tmp_path / "spec" / "openapi.yaml", PETSTORE)
    code, out = run_in(tmp_path, "build")
    assert code == 0, out
    code, out = run_in(tmp_path, "init")
    assert code == 0, out
    settings = tomllib.loads((tmp_path / "pyproject.toml").read_text())["tool"]["spec-gen"]
    assert (settings["server-package"], settings["client-package"]) == ("api_server", "api_client")
    code, out = run_in(tmp_path, "build")
    assert code == 0 and "0 added, 0 changed, 0 removed" in out, out


def test_typecheck_without_mypy_is_a_usage_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / "openapi.yaml", PETSTORE)
    monkeypatch.setitem(sys.modules, "mypy", None)  # what Python does for a blocked import
    code, out = run_in(tmp_path, "build", "--spec", "openapi.yaml", "--typecheck")
    assert code == 2, out
    assert "pip install mypy" in out
    assert not (tmp_path / "generated").exists()  # refused before building anything
