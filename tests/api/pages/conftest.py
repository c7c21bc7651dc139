"""A real ``kg serve`` for the page and GraphQL-over-HTTP tests, started as users start it.

``python -m kg.cli ingest examples/listings`` into a temporary ``KG_DATA_DIR`` (plus a few
papers from other years, written here, so the co-author network's year range has something
to filter), then ``python -m kg.cli serve --port <free port>`` in a subprocess, stopped after
the module. The examples have papers of 2026 only (or no year).
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[3]
START_TIMEOUT_S = 120

# Papers of earlier years by two authors of the examples and a third: in 2019 and 2021 the
# three wrote together, so the network around them changes with the year range.
EXTRA_PAPERS = [
    {
        "id": "extra-2019",
        "title": "Gradient descent on deep linear networks revisited",
        "authors": ["Sanjeev Arora", "Abhishek Panigrahi", "Ada Example"],
        "abstract": "We study gradient descent on deep linear networks and prove convergence rates.",
        "venue": "ICLR 2019",
        "year": 2019,
    },
    {
        "id": "extra-2021",
        "title": "Implicit regularization of gradient descent in matrix factorization",
        "authors": ["Sanjeev Arora", "Ada Example"],
        "abstract": "Gradient descent on matrix factorization is implicitly regularized toward low rank.",
        "venue": "ICLR 2021",
        "year": 2021,
    },
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _env(data_dir: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["KG_DATA_DIR"] = str(data_dir)
    env["KG_BACKEND"] = "memory"
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


@pytest.fixture(scope="package")
def kg_serve(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL (``http://127.0.0.1:PORT``) of a ``kg serve`` over the example listings."""
    tmp = tmp_path_factory.mktemp("kg-serve")
    extra = tmp / "extra.jsonl"
    extra.write_text("".join(json.dumps(p) + "\n" for p in EXTRA_PAPERS), encoding="utf-8")
    env = _env(tmp / "data")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "kg.cli",
            "ingest",
            str(ROOT / "examples" / "listings"),
            str(extra),
            "--no-progress",
        ],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        timeout=600,
    )
    port = free_port()
    log = (tmp / "serve.log").open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "kg.cli", "serve", "--host", "127.0.0.1", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            if proc.poll() is not None:
                raise RuntimeError(
                    f"kg serve exited with {proc.returncode}: {(tmp / 'serve.log').read_text()}"
                )
            try:
                if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"kg serve did not answer /healthz within {START_TIMEOUT_S} s")
            time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
