"""What the README tells a newcomer holds: commands run inside the activated .venv."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ACTIVATE = ". .venv/bin/activate"
# commands that exist only inside the project's virtual environment
VENV_COMMANDS = re.compile(r"^(?:[A-Z_]+=\S+ )*(spec-gen|outreach-server|pytest|python bench/)\b")


def shell_lines(text: str) -> list[tuple[int, str]]:
    """(offset, line) of every line inside a ```sh block."""
    lines = []
    for block in re.finditer(r"```sh\n(.*?)```", text, re.DOTALL):
        offset = block.start(1)
        for line in block.group(1).splitlines(keepends=True):
            lines.append((offset, line.strip()))
            offset += len(line)
    return lines


def test_the_readme_activates_the_venv_before_its_first_venv_command() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = shell_lines(text)
    activate = [offset for offset, line in lines if line == ACTIVATE]
    uses = [offset for offset, line in lines if VENV_COMMANDS.match(line)]
    assert uses, "the README shows no spec-gen / outreach-server / pytest command"
    assert activate and activate[0] < uses[0], "say `. .venv/bin/activate` before the first use"


def test_the_quick_start_scripts_set_up_the_venv_themselves() -> None:
    for script in ("serve.sh", "test.sh"):
        text = (ROOT / "scripts" / script).read_text(encoding="utf-8")
        assert "./scripts/setup.sh" in text and ACTIVATE in text
