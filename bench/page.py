"""Render bench/README.md, the one benchmark page, from bench/results/*.json.

    python bench/page.py          # the page (and the build-time plot) from the results there
    python bench/page.py --run    # run every benchmark first, then render
    python bench/page.py --check  # exit 1 if bench/README.md is not what the results give

Every figure is a ratio measured side by side in one run with its peer, read from the
JSON file its benchmark wrote; the figures of issue 15 before the work are in
`bench/results/baseline.json`, with their source, and shown beside them. The explanations
of each benchmark are hand-written in `bench/notes/<benchmark>.md` and included as they
are. A result file or a key that is missing is written as "not measured" with the reason:
the page renders from whatever is there. The plot (`bench/results/build_speed.png`, made
with matplotlib from the dev extra) is drawn only when rendering for real, never by
`--check`.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"
NOTES = HERE / "notes"
PAGE = HERE / "README.md"
PLOT = "build_speed.png"

# the order of the page, each benchmark with the command that reruns it
BENCHES: list[tuple[str, list[str]]] = [
    ("build_speed", ["python", "bench/build_speed.py"]),
    ("client_speed", ["python", "bench/client_speed.py"]),
    ("serve_throughput", ["python", "bench/serve_throughput.py"]),
    (
        "serve_throughput_postgresql",
        ["python", "bench/serve_throughput.py", "--backend", "postgresql"],
    ),
    ("webhook_throughput", ["python", "bench/webhook_throughput.py"]),
    ("send_path_check", ["python", "bench/send_path_check.py"]),
    ("rate_limit_decision", ["python", "bench/rate_limit_decision.py"]),
    ("fetch_filtered", ["python", "bench/fetch_filtered.py"]),
    ("event_loop_stall", ["python", "bench/event_loop_stall.py"]),
]
NOTE_OF = {"serve_throughput_postgresql": None}  # shares serve_throughput's notes

NOT_MEASURED = "not measured"


# -- reading ------------------------------------------------------------------------------


class Results:
    """The JSON files of bench/results, read defensively: a missing file or key is None."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.data: dict[str, Any] = {}
        self.problems: dict[str, str] = {}
        for name, _ in BENCHES:
            path = folder / f"{name}.json"
            if not path.is_file():
                self.problems[name] = f"no `{name}.json` in the results"
                continue
            try:
                self.data[name] = json.loads(path.read_text())
            except ValueError as error:
                self.problems[name] = f"`{path.name}` is not JSON ({error})"
        baseline = folder / "baseline.json"
        self.baseline: dict[str, Any] = (
            json.loads(baseline.read_text()) if baseline.is_file() else {}
        )

    def get(self, name: str, *keys: str | int) -> Any:
        value: Any = self.data.get(name)
        for key in keys:
            if isinstance(value, dict):
                value = value.get(key)  # type: ignore[call-overload]
            elif (
                isinstance(value, list) and isinstance(key, int) and -len(value) <= key < len(value)
            ):
                value = value[key]
            else:
                return None
        return value

    def why_missing(self, name: str) -> str:
        return self.problems.get(name, f"no such figure in `{name}.json`")


def number(value: Any, digits: int = 2, unit: str = "") -> str:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return NOT_MEASURED
    return f"{value:,.{digits}f}{unit}"


def ratio(top: Any, bottom: Any, digits: int = 2) -> str:
    if not isinstance(top, (int, float)) or not isinstance(bottom, (int, float)) or not bottom:
        return NOT_MEASURED
    return f"{top / bottom:.{digits}f}x"


def table(header: list[str], rows: list[list[str]], align: str = "") -> list[str]:
    align = align or "l" + "r" * (len(header) - 1)
    marks = {"l": "---", "r": "---:"}
    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join(marks[a] for a in align) + " |"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


# -- the sections -------------------------------------------------------------------------


def tools_of(case: dict[str, Any]) -> list[str]:
    """The peer tools a build case measured (every entry with a median but spec-gen's own)."""
    return [
        key
        for key, value in case.items()
        if isinstance(value, dict)
        and "median_s" in value
        and key not in ("cold", "noop", "cold-json")
        and not key.startswith(("rebuild-", "watch-"))
    ]


EDITS = ("description", "operation", "field", "rename")  # bench/spec_edits.py


def rebuild_lines(cases: list[Any]) -> list[str]:
    """Issue 29: the edit -> rebuild loop, each rebuild over the cold build of its document."""
    rows = []
    for case in cases:
        over = case.get("rebuild_over_cold")
        if not isinstance(over, dict) or not over:
            continue
        cold = (case.get("cold-json") or case.get("cold") or {}).get("median_s")
        cold_cpu = (case.get("cold-json") or case.get("cold") or {}).get("median_cpu_s")
        row = [str(case.get("case", "?")), number(case.get("operations"), 0), number(cold)]
        for kind in EDITS:
            entry = case.get(f"rebuild-{kind}") or {}
            seconds = number(entry.get("median_s"))
            share = over.get(kind)
            cpu = ratio(entry.get("median_cpu_s"), cold_cpu)
            row.append(
                "failed"
                if entry.get("error")
                else seconds
                + (f" ({share:.0%}" if isinstance(share, (int, float)) else " (—")
                + f"; CPU {cpu})"
            )
        rows.append(row)
    if not rows:
        return []
    header = ["case", "operations", "cold s"] + [
        f"after a {kind} edit s (of cold)" for kind in EDITS
    ]
    return [
        "",
        (
            "Edit -> rebuild (`spec-gen build` with its cache, after one edit of "
            "bench/spec_edits.py; the share is of the cold build of the same document, same run, "
            "in wall-clock time, then in CPU time of the whole process tree, which a loaded "
            "machine disturbs less):"
        ),
        "",
        *table(header, rows),
        *watch_lines(cases),
    ]


WATCHED = ("description", "operation")  # bench/build_speed.py's watch-<edit> rows


def watch_lines(cases: list[Any]) -> list[str]:
    """The same edits in `spec-gen build --watch`, from the write to the build's end."""
    rows = []
    for case in cases:
        over = case.get("watch_over_cold")
        if not isinstance(over, dict) or not over:
            continue
        row = [str(case.get("case", "?"))]
        for kind in WATCHED:
            entry = case.get(f"watch-{kind}") or {}
            share = over.get(kind)
            row.append(
                "failed"
                if entry.get("error")
                else number(entry.get("median_s"))
                + (f" ({share:.0%})" if isinstance(share, (int, float)) else "")
            )
        rows.append(row)
    if not rows:
        return []
    return [
        "",
        (
            "The same edits in watch mode (`spec-gen build --watch`, each build forked from a "
            "process that has imported the generator and warmed datamodel-code-generator up; "
            "timed from writing the edited spec to the watch's `[watch] built` line, its 0.1 s "
            "polling included; the share is of the same cold build):"
        ),
        "",
        *table(["case", *(f"after a {kind} edit s (of cold)" for kind in WATCHED)], rows),
    ]


def build_section(r: Results) -> list[str]:
    cases = r.get("build_speed", "cases")
    if not isinstance(cases, list) or not cases:
        return [f"Build times: {NOT_MEASURED} ({r.why_missing('build_speed')})."]
    tools = sorted({tool for case in cases for tool in tools_of(case)})
    header = ["case", "operations", "spec-gen cold s", "spec-gen no-op s"]
    header += [f"{tool} s" for tool in tools] + [f"cold / {tool}" for tool in tools]
    rows = []
    for case in cases:
        cold = (case.get("cold") or {}).get("median_s")
        row = [
            str(case.get("case", "?")),
            number(case.get("operations"), 0),
            number(cold),
            number((case.get("noop") or {}).get("median_s")),
        ]
        medians = [(case.get(tool) or {}).get("median_s") for tool in tools]
        row += [number(m) for m in medians] + [ratio(cold, m) for m in medians]
        rows.append(row)
    lines = [
        (
            f"Run of {r.get('build_speed', 'date') or '?'}; wall-clock medians in seconds; the ratio "
            "is spec-gen's cold build over each peer's time on the same spec in the same run "
            "(below 1x: spec-gen is faster)."
        ),
        "",
        *table(header, rows),
        *rebuild_lines(cases),
        "",
        f"![Build time against operation count](results/{PLOT})",
    ]
    aims = r.get("build_speed", "aims")
    if isinstance(aims, dict) and aims:
        lines += ["", "Aims:"] + [
            f"- {aim}: **{'MET' if ok else 'NOT MET'}**" for aim, ok in aims.items()
        ]
    return lines


def client_section(r: Results) -> list[str]:
    if "client_speed" not in r.data:
        return [f"Client: {NOT_MEASURED} ({r.why_missing('client_speed')})."]
    calls = r.get("client_speed", "call_overhead", "median_us") or {}
    lines = [
        f"Run of {r.get('client_speed', 'when') or r.get('client_speed', 'date') or '?'}.",
        "",
        *table(
            ["call (GET /api/v1/contacts/1)", "median µs per call", "over raw httpx"],
            [
                ["raw httpx, real server", number(calls.get("raw"), 0), "1.00x"],
                [
                    "outreach_client, real server",
                    number(calls.get("client"), 0),
                    ratio(calls.get("client"), calls.get("raw")),
                ],
                ["raw httpx, MockTransport", number(calls.get("raw_offline"), 0), "1.00x"],
                [
                    "outreach_client, MockTransport",
                    number(calls.get("client_offline"), 0),
                    ratio(calls.get("client_offline"), calls.get("raw_offline")),
                ],
            ],
        ),
    ]
    imports = r.get("client_speed", "imports", "net_ms")
    if isinstance(imports, dict) and imports:
        lines += [
            "",
            *table(
                ["import (fresh process, minus `python -c pass`)", "net ms"],
                [[f"`{k}`", number(v, 0)] for k, v in imports.items()],
            ),
        ]
    first = r.get("client_speed", "imports", "first_call")
    if isinstance(first, dict) and isinstance(first.get("median_ms"), dict):
        medians = first["median_ms"]
        samples = first.get("samples_ms") or {}
        built = first.get("models_built") or {}
        cli = first.get("cli_extras_imported") or {}
        labels = {
            "outreach_client": "outreach_client",
            "outreach_client_httpx_first": "outreach_client, httpx imported first by the program",
            "openapi_python_client": "openapi-python-client",
            "raw_httpx": "raw httpx",
        }
        rows = []
        for key, label in labels.items():
            if key not in medians:
                continue
            fastest = min(samples.get(key) or [float("nan")])
            rows.append(
                [
                    label,
                    number(medians.get(key), 0),
                    number(fastest, 0),
                    ratio(medians.get(key), medians.get("openapi_python_client")),
                    str(built.get(key, "?")),
                    {True: "yes", False: "no"}.get(cli.get(key), "?"),
                ]
            )
        lines += [
            "",
            (
                f"Import -> first answered call (fresh process, MockTransport; aim below "
                f"{number(first.get('target_ms'), 0)} ms):"
            ),
            "",
            *table(
                [
                    "client",
                    "median ms",
                    "fastest ms",
                    "over openapi-python-client",
                    "model classes built",
                    "httpx CLI imported",
                ],
                rows,
            ),
        ]
    return lines


def serve_rows(r: Results, name: str, label: str) -> list[str]:
    if name not in r.data:
        return [label, NOT_MEASURED, NOT_MEASURED, NOT_MEASURED, r.why_missing(name)]
    cpu_ratio = r.get(name, "cpu_ratio_bare_to_full")
    return [
        label,
        number(r.get(name, "median_full"), 0) + " / " + number(r.get(name, "median_bare"), 0),
        number(r.get(name, "ratio_full_to_bare")),
        number(r.get(name, "median_cpu_us_full"), 1)
        + " / "
        + number(r.get(name, "median_cpu_us_bare"), 1)
        if cpu_ratio is not None
        else NOT_MEASURED,
        number(cpu_ratio)
        if cpu_ratio is not None
        else "not measured (run before the CPU figure existed)",
    ]


def serve_section(r: Results) -> list[str]:
    rows = [
        serve_rows(r, "serve_throughput", "SQLite"),
        serve_rows(r, "serve_throughput_postgresql", "PostgreSQL + Redis"),
    ]
    dates = [
        f"{n}: {r.get(n, 'date')}"
        for n in ("serve_throughput", "serve_throughput_postgresql")
        if n in r.data
    ]
    return [
        "`GET /v1/api-keys` with a live key through `outreach-server serve` against a bare "
        "FastAPI route returning the same JSON, wrk against both in turns"
        + (f" (runs of {'; '.join(dates)})." if dates else "."),
        "",
        *table(
            [
                "backend",
                "requests/s full / bare",
                "ratio",
                "server CPU µs per request full / bare",
                "ratio by CPU",
            ],
            rows,
        ),
        "",
        "Aim: at least 0.6x the bare route on SQLite.",
        "",
        *mix_lines(r),
    ]


MIX_SERVERS = ("bare", "service", "hand", "stub_generated", "stub_hand")
MIX_AIMS = {
    "every_op_vs_bare": "every operation through the service, of the bare route (worst one)",
    "mix_vs_hand": "the mix through the service, of the same operations hand-written",
    "stub_generated_vs_stub_hand": "the generated layer + stub, of hand-written routes + stub",
}


def mix_table(r: Results, name: str) -> list[str]:
    medians = r.get(name, "medians")
    ratios = r.get(name, "ratios") or {}
    operations = r.get(name, "operations") or {}
    if not isinstance(medians, dict):
        return [f"{NOT_MEASURED} ({r.why_missing(name)} or run before the mix existed)."]
    rows = [
        [
            f"`{operations.get(op, op)}`",
            *(number(m.get(server), 0) for server in MIX_SERVERS),
            number((ratios.get(op) or {}).get("service_to_bare")),
            number((ratios.get(op) or {}).get("service_to_hand")),
            number((ratios.get(op) or {}).get("stub_generated_to_stub_hand")),
        ]
        for op, m in medians.items()
    ]
    mix = r.get(name, "mix") or {}
    rows.append(["the mix", *(number(mix.get(server), 0) for server in MIX_SERVERS), "", "", ""])
    machine = r.get(name, "machine") or {}
    return [
        (
            f"Run of {r.get(name, 'date')}, load average {machine.get('load_average_at_start')} at "
            f"its start, {machine.get('load_average_at_end')} at its end; requests/s, medians:"
        ),
        "",
        *table(
            [
                "operation",
                "bare",
                "service",
                "hand-written",
                "stub: generated",
                "stub: hand",
                "service / bare",
                "service / hand",
                "stub generated / hand",
            ],
            rows,
        ),
    ]


def mix_lines(r: Results) -> list[str]:
    """Issue 29: every kind of operation, the hand-written peers, the aims."""
    names = {"SQLite": "serve_throughput", "PostgreSQL + Redis": "serve_throughput_postgresql"}
    out = [
        "### The mix: every kind of operation (issue 29)",
        "",
        (
            "Each operation of `bench/serve_mix.py` on five servers loaded in turns: the bare route, "
            "the service, the same operations hand-written in plain FastAPI over the same domain "
            "code (`bench/hand_app.py`), and the generated layer with a stub against hand-written "
            "routes with the same stub (`bench/stub_app.py`)."
        ),
    ]
    for label, name in names.items():
        out += ["", f"{label}:", "", *mix_table(r, name)]
    rows = []
    for key, text in MIX_AIMS.items():
        row = [text]
        for name in names.values():
            aim = (r.get(name, "aims") or {}).get(key)
            if not isinstance(aim, dict):
                row.append(NOT_MEASURED)
                continue
            worst = f" ({aim['worst_operation']})" if aim.get("worst_operation") else ""
            verdict = "met" if aim.get("met") else "not met"
            row.append(f"{number(aim.get('figure'))}{worst}: {verdict} (aim {aim.get('aim')})")
        rows.append(row)
    for key, text in (
        ("service_vs_hand", "the mix through the service, of hand-written, by CPU per call"),
        ("stub_generated_vs_stub_hand", "the generated layer + stub, of hand-written, by CPU"),
    ):
        row = [text + " in one process (`serve_profile.py --compare`)"]
        for name in names.values():
            found = (r.get(name, "in_process") or {}).get(key)
            row.append(
                number(found.get("mix_speed_by_cpu")) if isinstance(found, dict) else NOT_MEASURED
            )
        rows.append(row)
    return [
        *out,
        "",
        (
            "The aims (by requests per second of the run above; the in-process rows: the same "
            "comparison by CPU per call, the apps in turns in one process, a figure the machine's "
            "other load moves less):"
        ),
        "",
        *table(["aim", *names], rows),
    ]


def webhook_section(r: Results) -> list[str]:
    runs = r.get("webhook_throughput", "runs")
    if not isinstance(runs, list) or not runs:
        return [f"Deliveries: {NOT_MEASURED} ({r.why_missing('webhook_throughput')})."]
    settings = r.get("webhook_throughput", "settings") or {}
    rows = []
    for run in runs:
        rows.append([
            str(run.get("backend", "postgresql")),
            number(run.get("workers"), 0),
            number(run.get("deliveries"), 0),
            number(run.get("seconds"), 2),
            number(run.get("per_second"), 1),
            number(run.get("attempts_sent_twice"), 0),
        ])  # fmt: skip
    lines = [
        (
            f"Run of {r.get('webhook_throughput', 'date') or '?'}: {settings.get('events', '?')} events x "
            f"{settings.get('webhooks', '?')} webhooks to a local receiver answering 204."
        ),
        "",
        *table(["backend", "workers", "deliveries", "seconds", "deliveries/s", "sent twice"], rows),
    ]
    alone = r.get("webhook_throughput", "receiver_alone_per_second")
    if isinstance(alone, (int, float)):
        lines += [
            "",
            f"The receiver alone answers {number(alone, 0)} POSTs/s (it is not the limit).",
        ]
    baseline = r.get("webhook_throughput", "baseline_runs")
    if isinstance(baseline, list) and baseline:
        per: dict[str, list[float]] = {}
        for run in baseline:
            if isinstance(run, dict) and isinstance(run.get("per_second"), (int, float)):
                per.setdefault(str(run.get("code")), []).append(float(run["per_second"]))
        this, old = per.get("this"), per.get("baseline")
        if this and old:
            lines += [
                "",
                (
                    "Side by side with the previous worker (one worker, PostgreSQL, rounds "
                    f"alternating): {', '.join(number(x, 0) for x in this)} deliveries/s against "
                    f"{', '.join(number(x, 0) for x in old)}: "
                    f"**{ratio(sum(this) / len(this), sum(old) / len(old), 1)}**."
                ),
            ]
    return lines


def send_path_section(r: Results) -> list[str]:
    results = r.get("send_path_check", "results")
    if not isinstance(results, list) or not results:
        return [f"Send-path check: {NOT_MEASURED} ({r.why_missing('send_path_check')})."]
    rows = [
        [
            str(x.get("backend")),
            str(x.get("label")),
            number(x.get("median_ms")),
            number(x.get("min_ms")),
        ]
        for x in results
    ]
    ledger = r.get("send_path_check", "ledger_rows")
    return [
        (
            f"Run of {r.get('send_path_check', 'date') or '?'}, ledger of {number(ledger, 0)} rows "
            f"(aim: the 10,000-contact check under {number(r.get('send_path_check', 'aim_ms'), 0)} ms on PostgreSQL)."
        ),
        "",
        *table(["backend", "row", "median ms", "min ms"], rows),
    ]


def rate_limit_section(r: Results) -> list[str]:
    results = r.get("rate_limit_decision", "results")
    if not isinstance(results, list) or not results:
        return [f"Rate-limit decisions: {NOT_MEASURED} ({r.why_missing('rate_limit_decision')})."]
    rows = [
        [str(x.get("label")), number(x.get("median_us")), number(x.get("min_us"))] for x in results
    ]
    return [
        f"Run of {r.get('rate_limit_decision', 'date') or '?'}.",
        "",
        *table(["row", "median µs", "min µs"], rows),
    ]


def fetch_section(r: Results) -> list[str]:
    results = r.get("fetch_filtered", "results")
    if not isinstance(results, list) or not results:
        return [f"Filtered fetch: {NOT_MEASURED} ({r.why_missing('fetch_filtered')})."]
    rows = []
    for backend in results:
        for scope, data in (backend.get("statements") or {}).items():
            seconds = data.get("seconds") or {}
            request = ((backend.get("requests") or {}).get(scope) or {}).get("seconds")
            rows.append(
                [
                    str(backend.get("backend")),
                    scope,
                    number(data.get("total"), 0),
                    median_ms(seconds.get("page")),
                    median_ms(seconds.get("count")),
                    median_ms(request),
                ]
            )
    return [
        f"Run of {r.get('fetch_filtered', 'date') or '?'}, {number(r.get('fetch_filtered', 'rows'), 0)} contacts.",
        "",
        *table(
            ["backend", "scope", "matching", "page ms", "count ms", "fetch request ms"],
            rows,
            "llrrrr",
        ),
    ]


def median_ms(samples: Any) -> str:
    if not isinstance(samples, list) or not samples:
        return NOT_MEASURED
    ordered = sorted(samples)
    middle = len(ordered) // 2
    value = ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    return number(value * 1000)


def stall_section(r: Results) -> list[str]:
    found = r.get("event_loop_stall", "requests")
    if not isinstance(found, list) or not found:
        return [f"Event-loop stall: {NOT_MEASURED} ({r.why_missing('event_loop_stall')})."]
    rows = [
        [
            str(x.get("request")),
            number(x.get("megabytes")),
            str(x.get("status")),
            number(x.get("ms"), 1),
            number(x.get("healthz_max_ms"), 1),
        ]
        for x in found
        if isinstance(x, dict)
    ]
    return [
        f"Run of {r.get('event_loop_stall', 'date') or '?'}.",
        "",
        *table(["request", "MB", "status", "ms", "slowest /healthz meanwhile, ms"], rows),
    ]


SECTIONS: dict[str, Callable[[Results], list[str]]] = {
    "build_speed": build_section,
    "client_speed": client_section,
    "serve_throughput": serve_section,
    "webhook_throughput": webhook_section,
    "send_path_check": send_path_section,
    "rate_limit_decision": rate_limit_section,
    "fetch_filtered": fetch_section,
    "event_loop_stall": stall_section,
}


# -- before and after ---------------------------------------------------------------------


def before_after(r: Results) -> list[str]:
    b = r.baseline
    rows: list[list[str]] = []

    def source(key: str) -> str:
        return str((b.get(key) or {}).get("source", "no baseline"))

    deliveries = {
        run.get("workers"): run
        for run in r.get("webhook_throughput", "runs") or []
        if isinstance(run, dict) and run.get("backend", "postgresql") == "postgresql"
    }
    for workers in (1, 2, 4):
        before = (b.get("webhook_deliveries_per_second") or {}).get(str(workers))
        now = (deliveries.get(workers) or {}).get("per_second")
        rows.append(
            [
                f"webhook deliveries/s (PostgreSQL), {workers} worker{'s' if workers > 1 else ''}",
                number(before, 0),
                number(now, 0),
                source("webhook_deliveries_per_second"),
            ]
        )
    first = b.get("client_first_call_ms") or {}
    now_first = r.get("client_speed", "imports", "first_call", "median_ms") or {}
    ours = now_first.get("outreach_client")
    theirs = now_first.get("openapi_python_client")
    rows.append(
        [
            "client: import to first answered call, ms (vs openapi-python-client)",
            f"{number(first.get('outreach_client'), 0)} (vs {number(first.get('openapi_python_client'), 0)})",
            f"{number(ours, 0)} (vs {number(theirs, 0)})",
            source("client_first_call_ms"),
        ]
    )
    hot = b.get("hot_path_ratio") or {}
    code = b.get("hot_path_before_code") or {}
    rows.append(
        [
            "hot path, full / bare FastAPI (SQLite)",
            f"{number(hot.get('low'))} to {number(hot.get('high'))}",
            number(r.get("serve_throughput", "ratio_full_to_bare")),
            source("hot_path_ratio"),
        ]
    )
    rows.append(
        [
            "hot path by server CPU per request (SQLite)",
            number(code.get("sqlite_cpu_ratio")),
            number(r.get("serve_throughput", "cpu_ratio_bare_to_full")),
            str(code.get("source", "no baseline")),
        ]
    )
    rows.append(
        [
            "hot path, full / bare FastAPI (PostgreSQL + Redis)",
            number(code.get("postgresql_ratio")),
            number(r.get("serve_throughput_postgresql", "ratio_full_to_bare")),
            str(code.get("source", "no baseline")),
        ]
    )
    build_before = b.get("build_cold_over_opc") or {}
    cases = {c.get("case"): c for c in r.get("build_speed", "cases") or [] if isinstance(c, dict)}
    for case, before in build_before.items():
        if case == "source":
            continue
        rows.append(
            [
                f"build cold / openapi-python-client, {case}",
                number(before),
                number((cases.get(case) or {}).get("cold_over_opc")),
                source("build_cold_over_opc"),
            ]
        )
    return table(["figure", "before", "now", "source of the before figure"], rows, "lrrl")


def machine_lines(r: Results) -> list[str]:
    seen: dict[str, list[str]] = {}
    for name in r.data:
        machine = r.get(name, "machine")
        if isinstance(machine, dict):
            cpus = machine.get("cpus")
            platform = machine.get("platform", "?")
            python = (
                machine.get("python")
                or machine.get("python_version")
                or r.get(name, "python")
                or "?"
            )
            text = f"{platform}, Python {python}" + (f", {cpus} CPUs" if cpus else "")
        elif isinstance(machine, str):
            text = f"{machine}, Python {r.get(name, 'python') or '?'}"
        else:
            text = "not recorded"
        seen.setdefault(text, []).append(name)
    return [
        f"- {text}: {', '.join(f'`{n}`' for n in names)}" for text, names in sorted(seen.items())
    ]


# -- the page -----------------------------------------------------------------------------


def render(results: Path = RESULTS, notes: Path = NOTES) -> str:
    r = Results(results)
    out = [
        "# Benchmarks",
        "",
        "<!-- generated by `python bench/page.py` from bench/results/*.json and bench/notes/*.md:",
        "     edit those, not this page -->",
        "",
        "Every figure below is read from the JSON file its benchmark wrote in `bench/results/`,",
        "and every ratio compares two things measured side by side in one run. Rerun everything",
        "and render this page with `python bench/page.py --run` (each benchmark alone: the command",
        "under its heading, then `python bench/page.py`). On a shared machine the rates move",
        "with the other load: the lead's figures come from an idle machine.",
        "",
        "## The machines of these runs",
        "",
        *machine_lines(r),
        "",
        "## Before and after (issue 15)",
        "",
        "Before: the figures of issue 15 (`bench/results/baseline.json`, with their source).",
        "",
        *before_after(r),
    ]
    for name, command in BENCHES:
        if name in NOTE_OF:
            continue
        out += ["", f"## `{name}`", "", f"Rerun: `{' '.join(command)}`"]
        if name == "serve_throughput":
            out += ["and `" + " ".join(dict(BENCHES)["serve_throughput_postgresql"]) + "`"]
        out += ["", *SECTIONS[name](r)]
        note = notes / f"{name}.md"
        if note.is_file():
            body = note.read_text().strip().splitlines()
            # the note's own heading becomes a subheading: its explanations, kept as written
            body = [("#" + line) if line.startswith("#") else line for line in body]
            out += ["", *body]
    return "\n".join(out).rstrip() + "\n"


def plot(results: Path = RESULTS) -> Path | None:
    """Build time against operation count per tool (the copies of this spec), as a PNG."""
    r = Results(results)
    cases = [c for c in r.get("build_speed", "cases") or [] if isinstance(c, dict)]
    if not cases:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    copies = sorted(
        (c for c in cases if str(c.get("case", "")).startswith("this spec")),
        key=lambda c: c.get("operations") or 0,
    )
    others = [c for c in cases if c not in copies]
    series = {"spec-gen (cold)": "cold", "spec-gen (no-op)": "noop"}
    series |= {f"spec-gen (after a {k} edit)": f"rebuild-{k}" for k in ("description", "field")}
    series.update({tool: tool for tool in sorted({t for c in cases for t in tools_of(c)})})
    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    for label, key in series.items():
        points = [(c["operations"], (c.get(key) or {}).get("median_s")) for c in copies]
        points = [(x, y) for x, y in points if isinstance(y, (int, float))]
        if points:
            line = axes.plot(*zip(*points), marker="o", label=label)[0]
            for c in others:
                y = (c.get(key) or {}).get("median_s")
                if isinstance(y, (int, float)):
                    axes.plot(
                        [c["operations"]],
                        [y],
                        marker="*",
                        markersize=11,
                        color=line.get_color(),
                        linestyle="none",
                    )
    axes.set_xlabel(
        "operations (copies of this spec; stars: "
        + ", ".join(str(c.get("case")) for c in others)
        + ")"
    )
    axes.set_ylabel("wall-clock seconds (median)")
    axes.set_title(f"Build time against operation count ({r.get('build_speed', 'date') or '?'})")
    axes.grid(True, alpha=0.3)
    axes.legend()
    figure.tight_layout()
    target = results / PLOT
    figure.savefig(target, metadata={"Software": None})
    plt.close(figure)
    return target


def run_all() -> None:
    for name, command in BENCHES:
        print(f"== {name}: {' '.join(command)}", flush=True)
        done = subprocess.run([sys.executable, *command[1:]], check=False, cwd=HERE.parent)
        if done.returncode:
            print(
                f"   {name} failed (exit {done.returncode}); the page shows its last results",
                flush=True,
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--run", action="store_true", help="run every benchmark first")
    parser.add_argument("--check", action="store_true", help="exit 1 if the page is out of date")
    args = parser.parse_args()
    if args.check:
        if PAGE.read_text() != render():
            raise SystemExit(
                "bench/README.md is not what bench/results/ gives: run python bench/page.py"
            )
        return
    if args.run:
        run_all()
    try:
        plot()
    except ImportError:
        print("matplotlib is not installed (dev extra): the plot was not redrawn", file=sys.stderr)
    PAGE.write_text(render())
    print(f"wrote {PAGE.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
