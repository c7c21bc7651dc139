"""Server memory under requests for names that do not exist: does RSS stay flat?

Usage::

    python bench/api_memory.py [--requests 20000] [--data-dir DIR] [--samples 10]

Why: every unknown name used to leave something behind (a vocabulary entry, a cache key), so a
public server's memory grew with the number of distinct wrong names it was asked, about
3.2 KB a request with no plateau. The test suite checks 3,000 requests with ``ru_maxrss``; this
runs the issue's 20,000 against a real ``kg serve`` process and prints its resident set
(``VmRSS`` from ``/proc``) as it goes.

Without ``--data-dir`` it ingests ``examples/listings`` into a temporary data dir first. The
requests ask ``concept``, ``author`` and ``search`` for a name of their own each time
("no such name <i>"), one keep-alive connection, with the response cache on (the default:
it is one of the things that must stay bounded). The first tenth warms the caches up to their
bounds; the figure that counts is the RSS at the end against the RSS after the warm-up.
"""

from __future__ import annotations

import argparse
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parents[1]
QUERY = (
    "query($n: String!) { concept(name: $n) { name } author(name: $n) { name } "
    "search(text: $n, first: 5) { score } }"
)


def rss_kb(pid: int) -> int:
    """Resident set size of ``pid`` in KiB (Linux ``/proc``)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve(data_dir: Path) -> tuple[subprocess.Popen[bytes], str]:
    env = {**os.environ, "KG_DATA_DIR": str(data_dir), "KG_BACKEND": "sqlite"}
    port = free_port()
    cmd = [sys.executable, "-m", "api.cli", "serve", "--host", "127.0.0.1", "--port", str(port)]
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"{url}/healthz", timeout=2).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.3)
    proc.kill()
    raise SystemExit("kg serve did not start")


def run(data_dir: Path, requests: int, samples: int) -> None:
    proc, url = serve(data_dir)
    try:
        step = max(requests // samples, 1)
        series: list[tuple[int, int]] = [(0, rss_kb(proc.pid))]
        errors = 0
        t0 = time.perf_counter()
        with httpx.Client(base_url=url, timeout=30) as c:
            for i in range(requests):
                r = c.post("/graphql", json={"query": QUERY, "variables": {"n": f"no such name {i}"}})
                if r.status_code != 200 or r.json().get("errors"):
                    errors += 1
                    if errors == 1:
                        print(f"first error: {r.status_code} {r.text[:300]}")
                if (i + 1) % step == 0:
                    series.append((i + 1, rss_kb(proc.pid)))
        took = time.perf_counter() - t0
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores; load average {os.getloadavg()}")
    print(f"{requests} requests in {took:.1f} s ({requests / took:.0f}/s), {errors} with errors")
    for n, kb in series:
        print(f"  after {n:>6} requests: RSS {kb / 1024:7.1f} MiB")
    warm = series[1][1]
    end = series[-1][1]
    change = end / warm - 1
    print(
        f"RSS at the end vs after the first tenth: {end / 1024:.1f} / {warm / 1024:.1f} MiB = {change:+.1%}"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--requests", type=int, default=20_000)
    p.add_argument("--samples", type=int, default=10)
    p.add_argument("--data-dir", type=Path, help="a data dir to serve (default: the examples, ingested)")
    args = p.parse_args()
    if args.data_dir:
        run(args.data_dir, args.requests, args.samples)
        return
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        env = {**os.environ, "KG_DATA_DIR": str(data), "KG_BACKEND": "sqlite"}
        listings = ROOT / "examples" / "listings"
        subprocess.run(
            [sys.executable, "-m", "api.cli", "ingest", str(listings), "--no-progress"],
            cwd=ROOT,
            env=env,
            check=True,
        )
        run(data, args.requests, args.samples)


if __name__ == "__main__":
    main()
