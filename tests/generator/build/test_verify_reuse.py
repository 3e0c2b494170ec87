"""A rebuild whose generated modules changed only in prose (a description edited in the spec:
docstrings, `description=`) is proven by the last check, read back from the output directory,
without importing anything; a change of code beside it, a module the last check did not prove
as written, or prose that no longer parses is still checked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from spec_gen.build.shape import same_code
from spec_gen.build.verify import GeneratedCodeBroken, Verifier

UNCHANGED = "server: unchanged since the last check; client: unchanged since the last check"


def test_same_code_ignores_docstrings_descriptions_comments_and_layout() -> None:
    old = (
        '"""Module."""\n\nimport pydantic\n\n\nclass A(pydantic.BaseModel):\n'
        '    """A thing."""\n\n    a: int = pydantic.Field(description="the a")  # note\n\n'
        "    def f(self) -> int:\n        '''Doc.'''\n        return 1\n"
    )
    new = (
        '"""Module, edited."""\nimport pydantic\nclass A(pydantic.BaseModel):\n'
        '    """A thing (edited)."""\n    a: int = pydantic.Field(description="the a, edited")\n'
        "    def f(self) -> int:\n        '''Doc (edited).'''\n        return 1\n"
    )
    assert same_code(old, new)
    # code is not prose: a default, a name, a string that is not a docstring
    assert not same_code(old, new.replace("return 1", "return 2"))
    assert not same_code(old, new.replace("a: int", "a: str"))
    assert not same_code("X = 'a'\n", "X = 'b'\n")
    assert not same_code("f(alias='a')\n", "f(alias='b')\n")
    # a docstring that stopped parsing is never the same
    assert not same_code('"""a"""\n', '"""a\n')


def _tree(doc: str = "Lists things.", field: str = "A field.", code: str = "1") -> dict[str, str]:
    models = (
        "import pydantic\n\n\nclass Thing(pydantic.BaseModel):\n"
        f'    """{doc}"""\n\n    a: int = pydantic.Field(description="{field}")\n'
    )
    router = (
        "from fastapi import APIRouter\n\nfrom .. import models\n\n\n"
        "def create_router(impl, context):\n"
        f'    """{doc}"""\n    router = APIRouter()\n'
        "    router.add_api_route('/things', lambda: None, response_model=models.Thing)\n"
        "    return router\n"
    )
    return {
        "server/pkg_api/__init__.py": "",
        "server/pkg_api/models.py": models,
        "server/pkg_api/routers/__init__.py": (
            "from .things import create_router as things_router\n\n\n"
            "def create_api_router(*, context, things):\n"
            "    return things_router(things, context)\n"
        ),
        "server/pkg_api/routers/things.py": router,
        "client/pkg_client/__init__.py": "",
        "client/pkg_client/models.py": models,
        "client/pkg_client/resource.py": f'def get():\n    """{doc}"""\n    return {code}\n',
    }


def _build(cache: Path, output: Path, files: dict[str, str]) -> str:
    """Check `files` as a build does, then write them to `output` (once the check passed)."""
    verifier = Verifier("pkg_api", "pkg_client", cache, output)
    verifier.start()
    try:
        summary = verifier.check(files)
    finally:
        verifier.close()
    verifier.remember()
    for path, text in files.items():
        (output / path).parent.mkdir(parents=True, exist_ok=True)
        (output / path).write_text(text, encoding="utf-8")
    return summary


def test_a_prose_edit_is_proven_without_importing_and_code_beside_it_is_checked(
    tmp_path: Path,
) -> None:
    cache, output = tmp_path / "cache", tmp_path / "out"
    assert "3 modules imported" in _build(cache, output, _tree())
    # a description edited everywhere it lands: docstrings, Field(description=...)
    assert _build(cache, output, _tree("Lists things (edited).", "A field (edited).")) == UNCHANGED
    # the same prose edit beside a code change: that module is imported again
    summary = _build(cache, output, _tree("Lists things, again.", code="2"))
    assert summary.startswith("server: unchanged since the last check; client: 1 modules")
    # a model class changed beside its docstring: built and its router mounted again
    tree = _tree("Edited once more.")
    tree["server/pkg_api/models.py"] = tree["server/pkg_api/models.py"].replace(
        "a: int", "a: 'Nowhere'"
    )
    with pytest.raises(GeneratedCodeBroken, match="undefined-annotation"):
        _build(cache, output, tree)


def test_an_output_file_changed_since_the_last_check_is_not_trusted(tmp_path: Path) -> None:
    cache, output = tmp_path / "cache", tmp_path / "out"
    _build(cache, output, _tree())
    # someone edited the written client module by hand: its text is not the one proven, so
    # the build's own (prose-only different) module is imported again, not compared with it
    (output / "client/pkg_client/resource.py").write_text("def get(:\n", encoding="utf-8")
    summary = _build(cache, output, _tree("Lists things (edited)."))
    assert summary.endswith("client: 1 modules imported, 0 model classes resolved")


def test_the_probes_compile_each_source_once_and_recompile_a_damaged_entry(
    tmp_path: Path,
) -> None:
    cache, output = tmp_path / "cache", tmp_path / "out"
    _build(cache, output, _tree())
    kept = Verifier("pkg_api", "pkg_client", cache, output).code_dir
    assert kept is not None
    first = {entry.name for entry in kept.iterdir()}
    # one code object per module imported: the server's four, the client's three
    assert len(first) == 7, first
    # a code change that does not compile: found, though the unchanged modules are kept
    with pytest.raises(GeneratedCodeBroken, match="SyntaxError|never closed"):
        _build(cache, output, _tree(code="undefined_name_here("))
    # every kept entry damaged and the last proof gone: the whole tree is checked again,
    # each damaged entry compiled again (and replaced), the check as before
    for entry in kept.iterdir():
        entry.write_bytes(b"not marshal data")
    (cache / "verified.json").unlink()
    assert "3 modules imported" in _build(cache, output, _tree())
    assert not any(entry.read_bytes() == b"not marshal data" for entry in kept.iterdir())


def test_the_kept_compiled_modules_are_bounded(tmp_path: Path) -> None:
    cache, output = tmp_path / "cache", tmp_path / "out"
    _build(cache, output, _tree())
    kept = Verifier("pkg_api", "pkg_client", cache, output).code_dir
    assert kept is not None
    for n in range(100):  # left by builds long gone
        (kept / f"{n:040x}").write_bytes(b"old")
        os.utime(kept / f"{n:040x}", (1_000_000, 1_000_000))
    _build(cache, output, _tree(code="3"))
    names = {entry.name for entry in kept.iterdir()}
    assert len(names) <= 3 * 7  # three times the modules checked
    # what the two builds compiled is kept; the old ones went first
    assert sum(entry.read_bytes() != b"old" for entry in kept.iterdir()) == 8
