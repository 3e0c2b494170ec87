"""How long one hostile request stalls the server's event loop (issue 12).

Starts `outreach-server serve` on a fresh SQLite file with the demo organisation, polls
/healthz every 10 ms on its own connection, and sends each heavy request of the issue once
(limits raised, so the limiter is not what answers). Prints, per request, its status and
time and the slowest /healthz answer while it ran: the event-loop stall it caused.

    python bench/event_loop_stall.py [--json PATH]   (default bench/results/event_loop_stall.json)
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx


def nested_filter() -> dict[str, object]:
    leaf = {"filterType": "text", "type": "contains", "filter": "abc"}
    mid = {"filterType": "text", "operator": "OR", "conditions": [leaf] * 50}
    top = {"filterType": "text", "operator": "OR", "conditions": [mid] * 50}
    return {"email": {"filterType": "text", "operator": "AND", "conditions": [top] * 20}}


def wide_filter() -> dict[str, object]:
    one = {"filterType": "text", "type": "contains", "filter": "x"}
    columns = ["email", "first_name", "last_name", "company", "title", "city", "country", "phone"]
    return {
        c: {"filterType": "text", "operator": "OR", "conditions": [one] * 2500} for c in columns
    }


def at_the_bounds() -> dict[str, object]:
    """A filter near the bounds: 151 conditions and 1,000 set values."""
    one = {"filterType": "text", "type": "contains", "filter": "x"}
    model: dict[str, object] = {
        c: {"filterType": "text", "operator": "OR", "conditions": [one] * 50}
        for c in ("email", "first_name", "last_name")
    }
    model["company_name"] = {"filterType": "set", "values": [f"c{i}" for i in range(1000)]}
    return model


def requests(list_id: int) -> list[tuple[str, str, bytes]]:
    return [
        (
            "3 MB nested filter (20x50x50)",
            "/api/v1/contacts/fetch",
            json.dumps(
                {"list_id": list_id, "columns": ["email"], "filter_model": nested_filter()}
            ).encode(),
        ),
        (
            "8 columns x 2,500 conditions",
            "/api/v1/contacts/fetch",
            json.dumps(
                {"list_id": list_id, "columns": ["email"], "filter_model": wide_filter()}
            ).encode(),
        ),
        (
            "300,000 LinkedIn URLs",
            "/api/v1/contacts/profile-pictures",
            json.dumps({"linkedin_urls": ["https://www.linkedin.com/in/x"] * 300_000}).encode(),
        ),
        (
            "filter at the bounds",
            "/api/v1/contacts/fetch",
            json.dumps(
                {"list_id": list_id, "columns": ["email"], "filter_model": at_the_bounds()}
            ).encode(),
        ),
        (
            "1,000 LinkedIn URLs",
            "/api/v1/contacts/profile-pictures",
            json.dumps(
                {"linkedin_urls": [f"https://www.linkedin.com/in/x{i}" for i in range(1000)]}
            ).encode(),
        ),
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class Probe(threading.Thread):
    def __init__(self, base: str) -> None:
        super().__init__(daemon=True)
        self.base, self.stop, self.samples = base, threading.Event(), [0.0]

    def run(self) -> None:
        with httpx.Client(base_url=self.base, timeout=60) as client:
            while not self.stop.is_set():
                started = time.perf_counter()
                client.get("/healthz")
                self.samples.append(time.perf_counter() - started)
                time.sleep(0.01)


RESULTS = Path(__file__).resolve().parent / "results" / "event_loop_stall.json"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", type=Path, default=RESULTS)
    args = parser.parse_args()
    rows: list[dict[str, object]] = []
    work = Path(tempfile.mkdtemp(prefix="stall-"))
    env = {
        **os.environ,
        "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{work / 'outreach.sqlite3'}",
        "OUTREACH_RATE_LIMIT_PER_SECOND": "100000",
        "OUTREACH_RATE_LIMIT_PER_MINUTE": "1000000",
    }
    cli = [sys.executable, "-m", "outreach_server.cli"]
    demo = json.loads(
        subprocess.run(
            [*cli, "admin", "seed-demo"], env=env, check=True, capture_output=True, text=True
        ).stdout.splitlines()[-1]
    )
    port = free_port()
    server = subprocess.Popen(
        [*cli, "serve", "--port", str(port)],
        env=env,
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                httpx.get(base + "/healthz", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        headers = {
            "Authorization": f"Bearer {demo['live_key']}",
            "Content-Type": "application/json",
        }
        with httpx.Client(base_url=base, timeout=120) as client:
            for name, path, body in requests(int(demo["list_id"])):
                probe = Probe(base)
                probe.start()
                time.sleep(0.05)
                started = time.perf_counter()
                try:
                    status = client.post(path, content=body, headers=headers).status_code
                except httpx.HTTPError as exc:
                    status = type(exc).__name__  # type: ignore[assignment]
                took = time.perf_counter() - started
                time.sleep(0.05)
                probe.stop.set()
                probe.join()
                print(
                    f"{name:32s} {len(body) / 1e6:6.2f} MB  status {status}  "
                    f"{took * 1000:8.1f} ms  /healthz max {max(probe.samples) * 1000:8.1f} ms"
                )
                rows.append(
                    {
                        "request": name,
                        "megabytes": round(len(body) / 1e6, 2),
                        "status": status,
                        "ms": round(took * 1000, 1),
                        "healthz_max_ms": round(max(probe.samples) * 1000, 1),
                    }
                )
    finally:
        server.terminate()
        server.wait(timeout=15)
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "requests": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=2) + "\n")
    print(f"written: {args.json}")


if __name__ == "__main__":
    main()
