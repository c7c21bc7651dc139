"""SIGTERM and /healthz while ``kg serve`` is flooded with expensive queries (issue 27).

Starts the real ``kg serve`` on a store, sends N concurrent expensive GraphQL requests (text
searches over everything and whole-graph concept graphs, each different so the response cache
cannot answer), samples ``/healthz`` latency during the flood, then sends SIGTERM and times
how long the process takes to exit. Prints the figures; run by hand:

    python bench/shutdown_under_load.py --data-dir PATH/TO/kg --queries 50
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import signal
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

WORDS = ["learning", "network", "model", "training", "deep", "neural", "data", "method", "results", "show"]


def expensive(i: int) -> dict[str, object]:
    if i % 2:
        return {"query": f"{{ conceptGraph(minWeight: {1 + i % 3}, maxNodes: {200 + i}) {{ rows }} }}"}
    text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(4)) + f" x{i}"
    return {"query": f'{{ search(text: "{text}", first: 50) {{ score paper {{ title }} }} }}'}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--flood-s", type=float, default=3.0, help="seconds of flood before SIGTERM")
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    kg = str(Path(sys.executable).with_name("kg"))
    server = subprocess.Popen(
        [kg, "serve", "--data-dir", str(args.data_dir), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.queries)
        client = httpx.Client(base_url=url, timeout=60, limits=httpx.Limits(max_connections=args.queries + 5))
        flood = [pool.submit(client.post, "/graphql", json=expensive(i)) for i in range(args.queries)]
        health: list[float] = []
        t_end = time.monotonic() + args.flood_s
        while time.monotonic() < t_end:
            t0 = time.perf_counter()
            try:
                httpx.get(f"{url}/healthz", timeout=10)
            except httpx.TransportError:
                pass
            health.append(time.perf_counter() - t0)
            time.sleep(0.1)
        t0 = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
        exit_s = time.perf_counter() - t0
        done = [f for f in flood if f.done()]
        print(
            f"load: {os.getloadavg()[0]:.1f}  queries: {args.queries}  healthz during flood: "
            f"median {statistics.median(health) * 1000:.0f} ms, max {max(health) * 1000:.0f} ms "
            f"({len(health)} samples)  SIGTERM to exit: {exit_s:.2f} s (exit code {server.returncode})  "
            f"requests answered before exit: {len(done)}"
        )
        pool.shutdown(wait=False, cancel_futures=True)
    finally:
        if server.poll() is None:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
