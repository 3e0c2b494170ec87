"""`build --timings` / SPEC_GEN_TIMINGS=1: one stderr line per stage, nothing when off."""

from __future__ import annotations

import pytest
from spec_gen.core.timings import ENV, mark, stage


def test_a_stage_prints_one_line_with_its_duration_when_on(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(ENV, "1")
    with stage("bundle"):
        pass
    mark("done")
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 2
    assert lines[0].startswith("[timings]") and " +" in lines[0] and "bundle (" in lines[0]
    assert "done (" in lines[1] and " +" not in lines[1]


def test_nothing_is_printed_when_off(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv(ENV, raising=False)
    with stage("bundle"):
        pass
    monkeypatch.setenv(ENV, "0")
    mark("done")
    assert capsys.readouterr().err == ""
