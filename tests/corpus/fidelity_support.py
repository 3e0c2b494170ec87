"""Running tests/corpus/fidelity_probe.py over built documents and reading its reports.

The measure (see the probe's docstring and docs/models.md): each schema-valid example of a
document validated into its generated type, server's and client's, and dumped back; counted
as accepted, and unchanged. Examples the schema itself refuses are the document's fault:
counted apart, never measured.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

PROBE = Path(__file__).with_name("fidelity_probe.py")
SIDES = ("server", "client")


def probe_all(built: dict[str, tuple[Path, Path, str]]) -> dict[str, dict[str, Any]]:
    """name -> (spec, output directory, package prefix): each document's report, as many
    probes at once as there are cores."""
    reports: dict[str, dict[str, Any]] = {}
    pending = sorted(built.items())
    running: list[tuple[str, subprocess.Popen[str]]] = []
    while pending or running:
        while pending and len(running) < max(1, os.cpu_count() or 1):
            name, (spec, output, prefix) = pending.pop(0)
            command = [sys.executable, str(PROBE), str(spec), str(output)]
            command += [f"{prefix}_api", f"{prefix}_client"]
            running.append(
                (
                    name,
                    subprocess.Popen(
                        command, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
                    ),
                )
            )
        name, process = running.pop(0)
        out, err = process.communicate()
        if process.returncode != 0:
            reports[name] = {"crashed": err[-3000:]}
        else:
            reports[name] = json.loads(out)
    return reports


def totals(reports: dict[str, dict[str, Any]]) -> dict[str, int]:
    out = {"documents": 0, "examples": 0, "valid": 0, "invalid": 0}
    for side in SIDES:
        out |= {f"{side}_accepted": 0, f"{side}_unchanged": 0}
    out["server_left_out"] = 0
    for report in reports.values():
        if "crashed" in report or not report["examples"]:
            continue
        out["documents"] += 1
        out["examples"] += report["examples"]
        out["valid"] += report["valid"]
        out["invalid"] += len(report["invalid"])
        for side in SIDES:
            out[f"{side}_accepted"] += report[side]["accepted"]
            out[f"{side}_unchanged"] += report[side]["unchanged"]
        out["server_left_out"] += report["server"]["left_out"]
    return out


def summary(label: str, reports: dict[str, dict[str, Any]]) -> str:
    t = totals(reports)
    lines = [
        f"{label}: {t['documents']} documents with examples, {t['examples']} examples, "
        + f"{t['invalid']} refused by their own schema (not measured), {t['valid']} measured"
    ]
    for side in SIDES:
        lines.append(
            f"  {side}: {t[f'{side}_accepted']} accepted, {t[f'{side}_unchanged']} unchanged "
            f"of {t['valid']}"
            + (
                f" ({t['server_left_out']} with undeclared fields left out)"
                if side == "server"
                else ""
            )
        )
    for name, report in sorted(reports.items()):
        if "crashed" in report:
            lines.append(f"  {name}: probe crashed")
            continue
        if not report["examples"]:
            continue
        lines.append(
            f"  {name}: {report['valid']} measured ({len(report['invalid'])} invalid); "
            + ", ".join(
                f"{side} {report[side]['accepted']}/{report[side]['unchanged']}" for side in SIDES
            )
        )
    return "\n".join(lines)


def differences(
    reports: dict[str, dict[str, Any]], known: frozenset[tuple[str, str]] = frozenset()
) -> list[str]:
    """Every example that did not come back unchanged, and every probe that crashed; `known`:
    (document, where) of examples still refused for a reason written down beside the list,
    left out, but named when they come back unchanged (the list is then to be shortened)."""
    out: list[str] = []
    seen: set[tuple[str, str]] = set()
    for name, report in sorted(reports.items()):
        if "crashed" in report:
            out.append(f"{name}: probe crashed: {report['crashed']}")
            continue
        for side in SIDES:
            for where, what, detail in report[side]["differences"]:
                if (name, where) in known:
                    seen.add((name, where))
                else:
                    out.append(f"{name} [{side}] {where}: {what}: {detail}")
    documents = {name for name, report in reports.items() if "crashed" not in report}
    out += [
        f"{name} {where}: listed as known, now unchanged: take it off the list"
        for name, where in sorted(known - seen)
        if name in documents
    ]
    return out
