"""`spec-gen scaffold`: a starting service package for the spec, written once.

`--write` writes `<service-package>/` beside the project's pyproject.toml: one module per
tag implementing its Protocol (every method answering 501 in the declared error shape), a
context provider with one verifier per security scheme, and `app.py` (`uvicorn
<service-package>.app:app`). A file that exists is never touched: after a spec edit, only the
modules of new tags are written, and mypy names what to change in the others.
"""

from __future__ import annotations

import keyword
from dataclasses import dataclass
from pathlib import Path

from ..build.formatter import format_python
from ..core.config import Config
from ..core.naming import snake, unique
from ..ir import Api, Tag
from ..targets.render import render
from ..targets.server import used_models

RESERVED = frozenset({"app", "context", "__init__"})


@dataclass(frozen=True)
class SchemeStub:
    name: str
    type: str
    scheme: str
    location: str
    parameter: str
    function: str


def tag_module(tag: Tag) -> str:
    """The tag's module in the service package (`app` and `context` are taken)."""
    return f"{tag.module}_service" if tag.module in RESERVED else tag.module


def handler_source(config: Config, api: Api, tag: Tag) -> str:
    """The module implementing `tag`'s Protocol, every method answering 501, formatted."""
    return format_python({"module.py": render_handler(config, api, tag)})["module.py"]


def render_handler(config: Config, api: Api, tag: Tag) -> str:
    """The module implementing `tag`'s Protocol, every method answering 501."""
    common = {"tag": tag, "package": config.server_package}
    signatures = render(
        config.templates,
        "scaffold/signatures.j2",
        **common,
        handler_credentials=config.handler_credentials,
    )
    return render(
        config.templates,
        "scaffold/handler.py.j2",
        **common,
        service_package=config.service_package,
        models=used_models(tag.operations, set(api.schemas)),
        signatures=signatures.rstrip() + "\n",
    )


def _schemes(api: Api) -> list[SchemeStub]:
    out: list[SchemeStub] = []
    taken: set[str] = set()
    for scheme in api.schemes.values():
        function = f"verify_{snake(scheme.name) or 'scheme'}"
        function = function + "_" if keyword.iskeyword(function) else function
        function = unique(function, taken, separator="_")
        stub = SchemeStub(
            scheme.name, scheme.type, scheme.scheme, scheme.location, scheme.parameter, function
        )
        out.append(stub)
    return out


def scaffold_files(config: Config, api: Api) -> dict[str, str]:
    """Every file of the service package, by path relative to the project root."""
    pkg = config.service_package
    tags = [Tag(t.name, t.description, t.operations, tag_module(t), t.class_name) for t in api.tags]
    common = {"package": config.server_package, "service_package": pkg}
    files = {
        f"{pkg}/__init__.py": render(
            config.templates, "scaffold/__init__.py.j2", **common, title=api.title
        ),
        f"{pkg}/context.py": render(
            config.templates, "scaffold/context.py.j2", **common, schemes=_schemes(api)
        ),
        f"{pkg}/app.py": render(config.templates, "scaffold/app.py.j2", **common, tags=tags),
    }
    for tag in tags:
        files[f"{pkg}/{tag.module}.py"] = render_handler(config, api, tag)
    return format_python(files)


def write_scaffold(config: Config, api: Api) -> tuple[list[str], list[str]]:
    """Write the files that do not exist yet; return (written, kept) relative paths."""
    written: list[str] = []
    kept: list[str] = []
    for relative, source in scaffold_files(config, api).items():
        path: Path = config.root / relative
        if path.exists():
            kept.append(relative)
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("x", encoding="utf-8") as handle:  # never overwrites
            handle.write(source)
        written.append(relative)
    return written, kept
