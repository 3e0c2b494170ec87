#!/usr/bin/env python3
"""Client benchmark: call overhead against raw httpx, import time against openapi-python-client.

In ONE run, side by side:

1. Call overhead. The real service runs (SQLite, raised rate limits) and the same request,
   `GET /api/v1/contacts/1` with the same key, is sent over one keep-alive connection by
   - raw httpx: `http.get(url, headers=...)` then `response.json()`;
   - the generated client: `client.contacts.get(contact_id=1)` (a pydantic model back);
   - the generated client without the server: the same call on an httpx MockTransport that
     answers the recorded body at once, which isolates the client's own CPU cost.
   Rounds alternate (raw, client, raw, client ...) so that slow moments of the machine hit
   both alike; the table shows the median microseconds per call.
2. Import time, each as a fresh process, repeated and interleaved:
   `import outreach_client`, `from outreach_client import Client`, and a client made plus its
   first namespace touched, against openapi-python-client's client generated from the same
   bundled spec (its package import, and its `Client` plus the module of the same operation,
   `api.contacts.get_contact`). Each row subtracts `python -c pass`.
3. Import -> first answered call (`imports.first_call`), each a fresh process timing itself
   from its first import to the parsed answer of `GET /contacts/1` on an httpx MockTransport
   (so only client CPU counts; interpreter start excluded), rounds interleaved: this client
   (imported before httpx, and after it), openapi-python-client's `get_contact.sync_detailed`,
   and raw httpx `.get().json()`. Also how many pydantic model classes each process built and
   whether httpx's CLI extras (click, rich) were imported.

Writes bench/results/client_speed.json. Run with the project's venv active:
`python bench/client_speed.py`. openapi-python-client is the dev extra's.
"""

from __future__ import annotations

import argparse
import compileall
import datetime as dt
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
RESULTS = BENCH / "results" / "client_speed.json"


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# -- call overhead ---------------------------------------------------------------------------


def per_call(fn: Callable[[], Any], calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls * 1e6


def call_overhead(rounds: int, calls: int) -> dict[str, Any]:
    import httpx
    from outreach_client import Client
    from outreach_client.testing import start_outreach_server

    with (
        tempfile.TemporaryDirectory() as tmp,
        start_outreach_server(
            Path(tmp),
            env={
                "OUTREACH_RATE_LIMIT_PER_SECOND": "1000000",
                "OUTREACH_RATE_LIMIT_PER_MINUTE": "100000000",
            },
        ) as server,
    ):
        url = f"{server.base_url}/contacts/1"
        headers = {"Authorization": f"Bearer {server.api_key}"}
        http = httpx.Client()
        client = Client(api_key=server.api_key, base_url=server.base_url, max_retries=0)
        body = http.get(url, headers=headers).content
        offline = Client(
            api_key=server.api_key,
            base_url=server.base_url,
            http_client=httpx.Client(
                transport=httpx.MockTransport(
                    lambda request: httpx.Response(
                        200, content=body, headers={"content-type": "application/json"}
                    )
                )
            ),
        )
        raw_http = httpx.Client(
            transport=httpx.MockTransport(
                lambda request: httpx.Response(
                    200, content=body, headers={"content-type": "application/json"}
                )
            )
        )

        def raw() -> Any:
            return http.get(url, headers=headers).json()

        def typed() -> Any:
            return client.contacts.get(contact_id=1)

        def raw_offline() -> Any:
            return raw_http.get(url, headers=headers).json()

        def typed_offline() -> Any:
            return offline.contacts.get(contact_id=1)

        for fn in (raw, typed, raw_offline, typed_offline):  # warm up: connections, imports
            per_call(fn, 50)
        samples: dict[str, list[float]] = {
            "raw": [],
            "client": [],
            "raw_offline": [],
            "client_offline": [],
        }
        for _ in range(rounds):
            samples["raw"].append(per_call(raw, calls))
            samples["client"].append(per_call(typed, calls))
            samples["raw_offline"].append(per_call(raw_offline, calls * 4))
            samples["client_offline"].append(per_call(typed_offline, calls * 4))
    medians = {k: statistics.median(v) for k, v in samples.items()}
    return {
        "median_us": medians,
        "samples_us": samples,
        "overhead_us_over_http": medians["client"] - medians["raw"],
        "ratio_over_http": medians["client"] / medians["raw"],
        "overhead_us_offline": medians["client_offline"] - medians["raw_offline"],
        "ratio_offline": medians["client_offline"] / medians["raw_offline"],
        "body": body.decode(),
    }


# -- import time and the first call ---------------------------------------------------------


def generate_opc_client(workdir: Path) -> tuple[Path, str]:
    """openapi-python-client's client for the bundled spec: (directory to put on sys.path, package)."""
    exe = shutil.which("openapi-python-client", path=str(Path(sys.executable).parent))
    if exe is None:
        raise SystemExit("openapi-python-client unavailable: install the dev extra")
    spec = workdir / "openapi.yaml"
    spec.write_text(
        subprocess.run(
            ["spec-gen", "bundle"], cwd=REPO, check=True, capture_output=True, text=True
        ).stdout
    )
    config = workdir / "opc.yaml"
    config.write_text("project_name_override: opc_outreach\npackage_name_override: opc_outreach\n")
    out = workdir / "opc_outreach"
    done = subprocess.run(
        [
            exe,
            "generate",
            "--path",
            str(spec),
            "--output-path",
            str(out),
            "--config",
            str(config),
            "--meta",
            "none",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"openapi-python-client failed:\n{done.stdout}\n{done.stderr}")
    return workdir, "opc_outreach"


# Each script runs in a fresh process and prints the milliseconds from its first import to
# the first answered call (interpreter start excluded), then how many pydantic model classes
# the process built (openapi-python-client's models are attrs classes: 0 there).
_PROLOGUE = "import time; _t0 = time.perf_counter()\n"
_EPILOGUE = """
_ms = (time.perf_counter() - _t0) * 1000
import sys
_built = 0
if "pydantic" in sys.modules:
    from pydantic import BaseModel, RootModel
    _todo = [BaseModel]
    while _todo:
        _cls = _todo.pop()
        for _sub in _cls.__subclasses__():
            _todo.append(_sub)
            _built += _sub.__module__.split(".")[0] not in ("pydantic",)
print(_ms, _built, "click" in sys.modules or "rich" in sys.modules)
"""
_MOCK = (
    "httpx.MockTransport(lambda request: httpx.Response(200, content=BODY, "
    "headers={'content-type': 'application/json'}))"
)
FIRST_CALL: dict[str, str] = {
    # the generated client imported first: it imports httpx without the CLI extras
    "outreach_client": f"""
from outreach_client import Client
import httpx
client = Client(api_key="k", base_url="http://h/api/v1", http_client=httpx.Client(transport={_MOCK}))
client.contacts.get(contact_id=1)
""",
    # the same, but the program imported httpx first (httpx then loads its CLI extras itself)
    "outreach_client_httpx_first": f"""
import httpx
from outreach_client import Client
client = Client(api_key="k", base_url="http://h/api/v1", http_client=httpx.Client(transport={_MOCK}))
client.contacts.get(contact_id=1)
""",
    "openapi_python_client": f"""
from opc_outreach import AuthenticatedClient
from opc_outreach.api.contacts import get_contact
import httpx
client = AuthenticatedClient(base_url="http://h", token="k")
client.set_httpx_client(httpx.Client(base_url="http://h", transport={_MOCK}))
assert get_contact.sync_detailed(client=client, contact_id=1).parsed is not None
""",
    "raw_httpx": f"""
import httpx
http = httpx.Client(transport={_MOCK})
http.get("http://h/api/v1/contacts/1", headers={{"Authorization": "Bearer k"}}).json()
""",
}


def first_call(repeat: int, body: bytes, cwd: Path) -> dict[str, Any]:
    """Import -> first answered call (MockTransport), fresh processes, rounds interleaved."""
    scripts = {
        name: f"BODY = {body!r}\n{_PROLOGUE}{code}{_EPILOGUE}" for name, code in FIRST_CALL.items()
    }
    samples: dict[str, list[float]] = {name: [] for name in scripts}
    built: dict[str, int] = {}
    cli: dict[str, bool] = {}
    for run in range(repeat + 1):
        for name, script in scripts.items():
            done = subprocess.run(
                [sys.executable, "-c", script], check=True, cwd=cwd, capture_output=True, text=True
            )
            ms, count, extras = done.stdout.split()
            built[name], cli[name] = int(count), extras == "True"
            if run:  # the first round warms the file cache
                samples[name].append(float(ms))
    medians = {name: statistics.median(v) for name, v in samples.items()}
    ours = medians["outreach_client"]
    return {
        "median_ms": medians,
        "samples_ms": samples,
        "target_ms": 150,
        "ours_over_openapi_python_client": ours / medians["openapi_python_client"],
        "ours_over_raw_httpx": ours / medians["raw_httpx"],
        "models_built": built,
        "cli_extras_imported": cli,
    }


def compile_packages(opc_package: Path) -> None:
    """Both clients' modules compiled to bytecode first, as `pip install` leaves a package
    (the libraries they import already are): the import figures then do not depend on
    whether this environment lets Python write .pyc files (PYTHONDONTWRITEBYTECODE)."""
    spec = importlib.util.find_spec("outreach_client")
    assert spec is not None and spec.submodule_search_locations
    for directory in [*spec.submodule_search_locations, str(opc_package)]:
        compileall.compile_dir(directory, quiet=1)


def import_times(repeat: int, body: bytes) -> dict[str, Any]:
    ours = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        path, pkg = generate_opc_client(Path(tmp))
        compile_packages(path / pkg)
        rows: dict[str, tuple[str, list[str]]] = {
            "python -c pass (ours)": (ours, ["-c", "pass"]),
            "import outreach_client": (ours, ["-c", "import outreach_client"]),
            "from outreach_client import Client": (
                ours,
                ["-c", "from outreach_client import Client"],
            ),
            "outreach_client: Client() + client.contacts": (
                ours,
                [
                    "-c",
                    "from outreach_client import Client; Client(api_key='k', base_url='http://h/api/v1').contacts",
                ],
            ),
            f"import {pkg} (openapi-python-client)": (ours, ["-c", f"import {pkg}"]),
            f"{pkg}: Client() + api.contacts.get_contact": (
                ours,
                [
                    "-c",
                    f"from {pkg} import Client; Client(base_url='http://h'); import {pkg}.api.contacts.get_contact",
                ],
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in rows}
        for run in range(repeat + 1):
            for name, (python, args) in rows.items():
                start = time.perf_counter()
                subprocess.run([python, *args], check=True, cwd=path)
                if run:  # the first round warms the file cache
                    times[name].append(time.perf_counter() - start)
        calls = first_call(repeat, body, path)
    medians = {name: statistics.median(v) * 1000 for name, v in times.items()}
    base = medians["python -c pass (ours)"]
    net = {
        name: value - base
        for name, value in medians.items()
        if not name.startswith("python -c pass")
    }
    return {"median_ms": medians, "net_ms": net, "first_call": calls}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    load_before = os.getloadavg()
    log("call overhead ...")
    overhead = call_overhead(args.rounds, args.calls)
    body = overhead.pop("body").encode()
    log("import times and first calls ...")
    imports = import_times(args.repeat, body)
    m = overhead["median_us"]
    print("| call (GET /api/v1/contacts/1) | median µs per call |")
    print("|---|---|")
    for key, label in (
        ("raw", "raw httpx, real server"),
        ("client", "outreach_client, real server"),
        ("raw_offline", "raw httpx, MockTransport"),
        ("client_offline", "outreach_client, MockTransport"),
    ):
        print(f"| {label} | {m[key]:.0f} |")
    print(
        f"\nclient overhead: {overhead['overhead_us_over_http']:.0f} µs per call over HTTP "
        f"(×{overhead['ratio_over_http']:.2f}); {overhead['overhead_us_offline']:.0f} µs without the network "
        f"(×{overhead['ratio_offline']:.2f})\n"
    )
    print("| import | median ms | net of interpreter start |")
    print("|---|---|---|")
    for name, value in imports["median_ms"].items():
        net = imports["net_ms"].get(name)
        print(f"| `{name}` | {value:.0f} | {'' if net is None else f'{net:.0f}'} |")
    first = imports["first_call"]
    print(
        "\n| import -> first answered call (MockTransport, fresh process) | median ms | model classes built | httpx CLI extras imported |"
    )
    print("|---|---|---|---|")
    for name, value in first["median_ms"].items():
        print(
            f"| {name} | {value:.0f} | {first['models_built'][name]} | {first['cli_extras_imported'][name]} |"
        )
    print(
        f"\nours / openapi-python-client: ×{first['ours_over_openapi_python_client']:.2f}; "
        f"ours / raw httpx: ×{first['ours_over_raw_httpx']:.2f} (target {first['target_ms']} ms)"
    )
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(
        json.dumps(
            {
                "when": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
                "machine": platform.platform(),
                "python": platform.python_version(),
                "cpus": os.cpu_count(),
                "load_average": {"before": load_before, "after": os.getloadavg()},
                "args": vars(args),
                "call_overhead": overhead,
                "imports": imports,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
