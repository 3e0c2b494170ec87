"""Project settings: `[tool.spec-gen]` of the nearest pyproject.toml, overridable per command."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

PACKAGED_TEMPLATES = Path(__file__).resolve().parent.parent / "templates"

DEFAULTS: dict[str, Any] = {
    "spec": "spec/openapi.yaml",
    # a directory whose files override the packaged templates one by one ("" = none)
    "templates": "",
    "output": "generated",
    "server-package": "api_server",
    "client-package": "api_client",
    "distribution-prefix": "api",
    # the client's `testing` module (pytest fixtures running the real server): generated only
    # when the table [tool.spec-gen.client-testing] is present; see spec_gen.targets.client.testing
    "client-testing": None,
    # where the reference docs' examples send their requests (a local server)
    "docs-example-origin": "http://127.0.0.1:8000",
    # the generated server passes each secured operation's credentials to its handler
    "handler-credentials": True,
    # the outputs besides the server, the models and the docs: "python" (the Python client)
    # and, opt-in, "typescript" (a TypeScript client under <output>/client-ts/)
    "targets": ["python"],
    # `spec-gen scaffold --write`: the service package it writes ("" = from server-package:
    # NAME_api or NAME_server -> NAME_service)
    "service-package": "",
}

KNOWN_TARGETS = ("python", "typescript")


def service_package_for(server_package: str) -> str:
    """The scaffold's package name by default: `pets_api` -> `pets_service`."""
    for suffix in ("_api", "_server"):
        if server_package.endswith(suffix) and len(server_package) > len(suffix):
            return server_package[: -len(suffix)] + "_service"
    return server_package + "_service"


@dataclass(frozen=True)
class Config:
    root: Path  # the project directory; relative settings are resolved against it
    spec: Path
    templates: Path
    output: Path
    server_package: str
    client_package: str
    distribution_prefix: str
    client_testing: dict[str, Any] | None
    docs_example_origin: str
    # [tool.spec-gen.lint]: profiles, rule severities and rule options
    lint: dict[str, Any] = field(default_factory=dict)
    handler_credentials: bool = True
    targets: tuple[str, ...] = ("python",)
    service_package: str = ""

    def with_overrides(self, **overrides: Any) -> Config:
        return replace(self, **{k: v for k, v in overrides.items() if v is not None})

    def relative(self, path: Path) -> str:
        try:
            return path.resolve().relative_to(self.root.resolve()).as_posix()
        except ValueError:
            return path.as_posix()


def find_project(start: Path) -> Path:
    for directory in [start, *start.parents]:
        pyproject = directory / "pyproject.toml"
        if (
            pyproject.is_file()
            and "tool" in _read(pyproject)
            and "spec-gen" in _read(pyproject)["tool"]
        ):
            return directory
    return start


def _read(pyproject: Path) -> dict[str, Any]:
    with pyproject.open("rb") as handle:
        return tomllib.load(handle)


def load_config(start: Path | None = None) -> Config:
    root = find_project((start or Path.cwd()).resolve())
    pyproject = root / "pyproject.toml"
    settings = dict(DEFAULTS)
    if pyproject.is_file():
        settings.update(_read(pyproject).get("tool", {}).get("spec-gen", {}))
    return Config(
        root=root,
        spec=root / settings["spec"],
        templates=root / settings["templates"] if settings["templates"] else PACKAGED_TEMPLATES,
        output=root / settings["output"],
        server_package=settings["server-package"],
        client_package=settings["client-package"],
        distribution_prefix=settings["distribution-prefix"],
        client_testing=settings["client-testing"],
        docs_example_origin=str(settings["docs-example-origin"]),
        lint=dict(settings.get("lint") or {}),
        handler_credentials=bool(settings["handler-credentials"]),
        targets=_targets(settings["targets"]),
        service_package=str(settings["service-package"])
        or service_package_for(settings["server-package"]),
    )


def _targets(value: Any) -> tuple[str, ...]:
    names = [value] if isinstance(value, str) else list(value or [])
    unknown = [n for n in names if n not in KNOWN_TARGETS]
    if unknown:
        raise ValueError(
            f"[tool.spec-gen] targets: unknown {unknown} (known: {', '.join(KNOWN_TARGETS)})"
        )
    return tuple(dict.fromkeys(str(n) for n in names))
