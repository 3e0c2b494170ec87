"""What the targets take from the project's settings and the IR beyond their templates: the
generated packages' dependencies, the client's credential variables and its testing module,
the docs' settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..core.config import Config
from ..core.timings import stage

if TYPE_CHECKING:
    from ..docs import DocsSettings


def email_dependency(files: dict[str, str], written: str, email: bool) -> dict[str, str]:
    """The pyproject files with `written` (the pydantic requirement they were rendered with)
    replaced by the one the models need: with the email extra or without it."""
    wanted = "pydantic[email]>=2.7,<3" if email else "pydantic>=2.7,<3"
    return {
        name: content.replace(f'"{written}"', f'"{wanted}"')
        if name.endswith("pyproject.toml")
        else content
        for name, content in files.items()
    }


def form_dependency(api: Any) -> tuple[str, ...]:
    """FastAPI parses form and multipart bodies with python-multipart."""
    kinds = {m.kind for op in api.operations if op.body for m in op.body.media}
    return ("python-multipart>=0.0.9",) if kinds & {"form", "multipart"} else ()


def client_testing_context(config: Config, api: Any, env_prefix: str) -> dict[str, Any] | None:
    """The client's `testing` module settings (None: not configured, no module)."""
    from ..targets.client.auth import primary_scheme, schemes
    from ..targets.client.testing import testing_context

    primary = primary_scheme(api, schemes(api, env_prefix))
    option = primary.options[0] if primary else None
    return testing_context(config.client_testing, config.distribution_prefix, option)


def client_env_prefix(config: Config) -> str:
    """`acme` -> `ACME_`: the client's credential variables are `<PREFIX>_<OPTION>`."""
    from ..targets.client.auth import env_prefix

    return env_prefix(config.distribution_prefix)


def render_typescript_client(config: Config, api: Any, source: str) -> dict[str, str]:
    """The `typescript` target's files, under `client-ts/`."""
    from ..targets import Target
    from ..targets.typescript import OUTPUT_DIR, render_typescript

    target = Target(
        config.templates, config.client_package, f"{config.distribution_prefix}-client", source
    )
    with stage("typescript"):
        rendered = render_typescript(target, api, client_env_prefix(config))
    return {f"{OUTPUT_DIR}/{name}": content for name, content in rendered.items()}


def docs_settings(config: Config) -> DocsSettings:
    """What the reference docs' examples need beyond the spec."""
    from ..docs import DocsSettings

    typescript = "typescript" in config.targets  # its example beside curl and Python
    return DocsSettings(
        config.client_package,
        client_env_prefix(config),
        config.docs_example_origin,
        f"{config.distribution_prefix}-client" if typescript else "",
    )
