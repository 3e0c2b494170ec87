"""bench/README.md is what bench/page.py renders from the committed results (no bench runs)."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "bench"


def page_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_page", BENCH / "page.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_page_is_what_the_committed_results_render() -> None:
    rendered = page_module().render()
    assert (BENCH / "README.md").read_text() == rendered, (
        "bench/README.md is out of date: run python bench/page.py"
    )


def test_every_note_and_the_baseline_are_on_the_page() -> None:
    rendered = page_module().render()
    for note in sorted((BENCH / "notes").glob("*.md")):
        first_line = note.read_text().splitlines()[0]
        assert "#" + first_line in rendered, note.name
    baseline = json.loads((BENCH / "results" / "baseline.json").read_text())
    assert str(baseline["webhook_deliveries_per_second"]["1"]) in rendered
    assert baseline["hot_path_ratio"]["source"] in rendered


def test_missing_files_and_keys_read_as_not_measured(tmp_path: Path) -> None:
    page = page_module()
    results = tmp_path / "results"
    results.mkdir()
    empty = page.render(results, BENCH / "notes")
    assert "no `serve_throughput.json` in the results" in empty
    assert "Build times: not measured" in empty
    # a file without the keys the page reads, another that is not JSON
    shutil.copy(BENCH / "results" / "baseline.json", results / "baseline.json")
    (results / "serve_throughput.json").write_text(json.dumps({"date": "today"}))
    (results / "webhook_throughput.json").write_text("{not json")
    (results / "build_speed.json").write_text(json.dumps({"cases": [{"case": "x", "cold": {}}]}))
    partial = page.render(results, tmp_path / "no-notes")
    assert "| SQLite | not measured / not measured | not measured |" in partial
    assert "`webhook_throughput.json` is not JSON" in partial
    assert "| x | not measured | not measured | not measured |" in partial
    assert "| 220 | not measured |" in partial  # the baseline beside a missing figure
