"""The pytest example of docs/client.md (linked from the README) runs as written: saved as a
file outside this repository's test tree, with only the development install (which registers
the fixture plugin)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SECTION = "## Testing an integration against the real service"


def readme_example() -> str:
    text = (ROOT / "docs" / "client.md").read_text(encoding="utf-8")
    section = text[text.index(SECTION) :]
    found = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert found is not None, "no python block in docs/client.md's testing section"
    return found.group(1)


def test_the_readme_fixture_example_runs_as_written(tmp_path: Path) -> None:
    example = readme_example()
    assert "def test_" in example and "import" in example
    (tmp_path / "test_hooks.py").write_text(example, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_hooks.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout
