"""spec_gen's public surface: the names its `__init__` offers, each importable, none eager."""

from __future__ import annotations

import subprocess
import sys

import spec_gen


def test_every_exported_name_resolves_to_what_its_module_defines() -> None:
    from importlib import import_module

    assert sorted(spec_gen.__all__) == sorted(["__version__", *spec_gen._EXPORTS])
    for name in spec_gen.__all__:
        value = getattr(spec_gen, name)
        if name == "__version__":
            continue
        module = import_module(spec_gen._EXPORTS[name])
        assert value is getattr(module, name), name
    assert set(spec_gen.__all__) <= set(dir(spec_gen))


def test_an_unknown_name_is_an_attribute_error() -> None:
    try:
        spec_gen.no_such_name  # type: ignore[attr-defined]  # noqa: B018
    except AttributeError as exc:
        assert "no_such_name" in str(exc)
    else:
        raise AssertionError("an unknown name resolved")


def test_importing_the_package_imports_no_step_of_the_generator() -> None:
    code = "import sys, spec_gen; print(sorted(m for m in sys.modules if m.startswith('spec_gen')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['spec_gen', 'spec_gen.core', 'spec_gen.core.version']"


def test_the_root_holds_the_package_the_cli_and_little_else() -> None:
    from pathlib import Path

    root = Path(spec_gen.__file__).parent
    modules = sorted(p.name for p in root.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "cli.py"]
