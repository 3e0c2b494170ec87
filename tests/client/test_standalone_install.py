"""The generated client ships alone: installed into an empty venv it pulls in httpx and
pydantic only, imports, and type-checks its users' calls (py.typed)."""

from __future__ import annotations

import shutil
import subprocess
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
ALLOWED = {
    "outreach-client",
    "httpx",
    "httpcore",
    "h11",
    "anyio",
    "idna",
    "certifi",
    "sniffio",
    "pydantic",
    "pydantic-core",
    "annotated-types",
    "typing-extensions",
    "typing-inspection",
    "pip",
    "setuptools",
}


def test_the_client_installs_alone_with_httpx_and_pydantic_only(tmp_path: Path) -> None:
    source = tmp_path / "client"  # a copy: building in place would leave build/ in generated/
    shutil.copytree(REPO / "generated" / "client", source)
    env = tmp_path / "venv"
    venv.create(env, with_pip=True)
    python = str(env / "bin" / "python")
    install = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert install.returncode == 0, install.stderr
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    installed = {
        line.split("==")[0].lower().replace("_", "-") for line in listed.splitlines() if line
    }
    assert installed <= ALLOWED, f"unexpected dependencies: {sorted(installed - ALLOWED)}"
    probe = (
        "import sys, outreach_client\n"
        "assert 'httpx' not in sys.modules and 'pydantic' not in sys.modules\n"
        "from outreach_client import Client\n"
        "client = Client(api_key='outreach_test_x', environment='qa')\n"
        "assert client.key_mode == 'test' and client.contacts and client.webhooks.deliveries\n"
        "from outreach_client.webhooks import verify_signature, sign\n"
        "assert verify_signature(b'{}', sign(b'{}', 's'), 's')\n"
    )
    done = subprocess.run(
        [python, "-c", probe], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
