"""`spec-gen init`: write `[tool.spec-gen]` into the project's pyproject.toml.

The file is created when missing; an existing one is appended to (never rewritten), and a
project that already has the section is left alone.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from ..core.config import DEFAULTS
from ..core.naming import snake

SPEC_NAMES = ("openapi.yaml", "openapi.yml", "openapi.json", "swagger.yaml", "api.yaml")


class InitError(Exception):
    pass


def find_spec(root: Path) -> Path | None:
    """The usual names first, then the one YAML or JSON file here that says `openapi`."""
    folders = (root, root / "spec", root / "api", root / "openapi")
    for folder in folders:
        for name in SPEC_NAMES:
            if (folder / name).is_file():
                return folder / name
    for folder in folders:
        found = [
            path
            for path in sorted(folder.glob("*"))
            if path.suffix in (".yaml", ".yml", ".json")
            and path.is_file()
            and re.search(r"""^\s*["']?openapi["']?\s*:""", _head(path), re.MULTILINE)
        ]
        if len(found) == 1:
            return found[0]
    return None


def _head(path: Path) -> str:
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(4096)
    except OSError:
        return ""


def project_name(root: Path) -> str:
    name = snake(re.sub(r"[^A-Za-z0-9]+", " ", root.resolve().name)) or "api"
    return name if name[0].isalpha() else f"api_{name}"


def _built_names(output: Path) -> tuple[str, str, str] | None:
    """The packages a zero-config build wrote into `output` (its defaults), if it did."""
    if (output / "server" / DEFAULTS["server-package"]).is_dir() or (
        output / "client" / DEFAULTS["client-package"]
    ).is_dir():
        return (
            DEFAULTS["server-package"],
            DEFAULTS["client-package"],
            DEFAULTS["distribution-prefix"],
        )
    return None


def section(
    spec: str,
    output: str,
    name: str,
    templates: str | None,
    profile: str,
    names: tuple[str, str, str] | None = None,
) -> str:
    server, client, prefix = names or (f"{name}_api", f"{name}_client", name.replace("_", "-"))
    lines = [
        "[tool.spec-gen]",
        f'spec = "{spec}"',
        f'output = "{output}"',
        f'server-package = "{server}"',
        f'client-package = "{client}"',
        f'distribution-prefix = "{prefix}"',
    ]
    if templates:
        lines.append(f'templates = "{templates}"  # your templates, overriding spec-gen\'s by file')
    else:
        lines.append(
            '# templates = "templates"  # a folder overriding spec-gen\'s templates by file'
        )
    lines += [
        "",
        "[tool.spec-gen.lint]",
        f'extends = ["{profile}"]  # "default": what generation needs; "house": conventions too',
        '# rules = { "python-name" = "off", "stray-keyword" = "error" }  # off | warn | error',
    ]
    return "\n".join(lines) + "\n"


def init_project(
    root: Path,
    spec: str | None = None,
    output: str = "generated",
    name: str | None = None,
    templates: str | None = None,
    profile: str = "default",
) -> Path:
    """Write the section; return the pyproject.toml path (raises InitError)."""
    pyproject = root / "pyproject.toml"
    existing = pyproject.read_text(encoding="utf-8") if pyproject.is_file() else ""
    if existing:
        try:
            parsed = tomllib.loads(existing)
        except tomllib.TOMLDecodeError as exc:
            raise InitError(f"{pyproject}: not valid TOML ({exc})") from None
        if "spec-gen" in parsed.get("tool", {}):
            raise InitError(f"{pyproject} already has [tool.spec-gen]; nothing written")
    if spec is None:
        found = find_spec(root)
        spec = found.relative_to(root).as_posix() if found else "openapi.yaml"
    names = _built_names(root / output) if name is None else None
    if names is not None:  # a zero-config build came first: keep the packages it wrote
        text = section(spec, output, "", templates, profile, names=names)
    else:
        text = section(spec, output, name or project_name(root), templates, profile)
    separator = "" if not existing else ("\n" if existing.endswith("\n") else "\n\n")
    combined = existing + separator + text
    tomllib.loads(combined)  # what is written always parses
    pyproject.write_text(combined, encoding="utf-8")
    return pyproject
