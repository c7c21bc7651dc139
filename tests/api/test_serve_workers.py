"""``kg serve --workers 2`` as a user runs it: a real process tree, real HTTP, the seed store."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "listings"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.slow  # a real ingest (spaCy) and kg serve with two worker processes: 45 s at load 20
def test_kg_serve_with_two_workers_answers_queries(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_")}
    env["PYTHONPATH"] = str(ROOT)
    kg = [sys.executable, "-m", "api.cli"]
    data = ["--backend", "sqlite", "--data-dir", str(tmp_path)]
    subprocess.run([*kg, "ingest", "--no-progress", *data, str(EXAMPLES)], env=env, check=True, timeout=300)
    port = free_port()
    proc = subprocess.Popen(
        [*kg, "serve", "--workers", "2", "--port", str(port), *data],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 180
        while True:
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
            try:
                if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=5).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert time.monotonic() < deadline, "kg serve --workers 2 did not become healthy in 180 s"
            time.sleep(0.5)
        query = '{ concept(name: "Nash equilibria") { name } }'
        for _ in range(4):  # more requests than workers: each worker serves the same graph
            response = httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": query}, timeout=30)
            assert response.status_code == 200
            assert response.json() == {"data": {"concept": {"name": "Nash equilibrium"}}}
    finally:
        proc.terminate()
        _, stderr = proc.communicate(timeout=60)
    assert "Started parent process" in stderr  # uvicorn's supervisor: two worker processes
    assert stderr.count("Started server process") == 2
