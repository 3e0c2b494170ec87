"""Requests per second through the whole service path against a bare FastAPI route.

Both servers run with uvicorn (uvloop, httptools), one process each, on this machine; wrk
(Debian package `wrk`) loads them in turns (bare, full, bare, full, ...) and the medians
are compared, so the ratio is measured side by side in one run.

The full path: `GET /v1/api-keys` with a live key: bearer parsing, key lookup (cached by
hash), the two-window rate limiter (limits raised by the benchmark setting
OUTREACH_RATE_LIMIT_PER_*), tier check, one SQLite query, response model.

    python bench/serve_throughput.py [--seconds 8] [--rounds 3] [--connections 32]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results" / "serve_throughput.json"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"server exited with {process.returncode}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit(f"{url} did not answer")


def wrk(url: str, seconds: int, connections: int, headers: dict[str, str]) -> float:
    args = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers.items():
        args += ["-H", f"{name}: {value}"]
    out = subprocess.run([*args, url], capture_output=True, text=True, check=True).stdout
    if "Non-2xx" in out:
        raise SystemExit(f"non-2xx answers from {url}:\n{out}")
    return float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))  # type: ignore[union-attr]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--connections", type=int, default=32)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        raise SystemExit("wrk not found: apt-get install wrk")
    tmp = Path(tempfile.mkdtemp(prefix="outreach-bench-"))
    env = {
        **os.environ,
        "OUTREACH_DATABASE_URL": f"sqlite+aiosqlite:///{tmp / 'bench.sqlite3'}",
        "OUTREACH_RATE_LIMIT_PER_SECOND": "100000000",
        "OUTREACH_RATE_LIMIT_PER_MINUTE": "1000000000",
        "OUTREACH_ACCESS_LOG": os.environ.get("OUTREACH_ACCESS_LOG", "0"),
    }
    seeded = subprocess.run(
        [sys.executable, "-m", "outreach_server.cli", "admin", "seed-demo"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    token = json.loads(seeded.stdout)["live_key"]
    full_port, bare_port = free_port(), free_port()
    uvicorn = [
        sys.executable,
        "-m",
        "uvicorn",
        "--loop",
        "uvloop",
        "--http",
        "httptools",
        "--no-access-log",
        "--log-level",
        "warning",
    ]
    full = subprocess.Popen(
        [sys.executable, "-m", "outreach_server.cli", "serve", "--port", str(full_port)], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    bare = subprocess.Popen(
        [*uvicorn, "--app-dir", str(HERE), "--port", str(bare_port), "bare_app:app"], env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        wait_ready(f"http://127.0.0.1:{full_port}/healthz", full)
        wait_ready(f"http://127.0.0.1:{bare_port}/v1/api-keys", bare)
        auth = {"Authorization": f"Bearer {token}"}
        assert (
            httpx.get(f"http://127.0.0.1:{full_port}/v1/api-keys", headers=auth).status_code == 200
        )
        runs: dict[str, list[float]] = {"bare": [], "full": []}
        for _ in range(args.rounds):
            runs["bare"].append(
                wrk(f"http://127.0.0.1:{bare_port}/v1/api-keys", args.seconds, args.connections, {})
            )
            runs["full"].append(
                wrk(
                    f"http://127.0.0.1:{full_port}/v1/api-keys",
                    args.seconds,
                    args.connections,
                    auth,
                )
            )
    finally:
        for process in (full, bare):
            process.terminate()
            process.wait(timeout=15)
        shutil.rmtree(tmp, ignore_errors=True)
    bare_rps, full_rps = statistics.median(runs["bare"]), statistics.median(runs["full"])
    result = {
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "python": platform.python_version(),
            "cpus": os.cpu_count(),
            "platform": platform.platform(),
        },
        "settings": vars(args),
        "requests_per_second": runs,
        "median_bare": bare_rps,
        "median_full": full_rps,
        "ratio_full_to_bare": round(full_rps / bare_rps, 3),
        "aim": "full path at least 1/3 of the bare FastAPI rate",
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=2) + "\n")
    print("| server | requests/s (median) | runs |")
    print("| --- | ---: | --- |")
    print(
        f"| bare FastAPI route, same JSON | {bare_rps:,.0f} | {', '.join(f'{r:,.0f}' for r in runs['bare'])} |"
    )
    print(
        f"| outreach-server, auth + limiter + SQLite | {full_rps:,.0f} | {', '.join(f'{r:,.0f}' for r in runs['full'])} |"
    )
    print(f"\nratio full/bare: {full_rps / bare_rps:.2f} (aim: >= 0.33)")


if __name__ == "__main__":
    main()
