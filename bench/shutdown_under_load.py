"""``/healthz``, deadlines and SIGTERM while ``kg serve`` is flooded (issue 27).

Starts the real ``kg serve`` on a store and, at once:

- sends N concurrent expensive GraphQL requests (text searches over everything, whole-graph
  concept graphs and betweenness rankings, each different so the response cache cannot answer),
  and repeats each as soon as it is answered (after its ``Retry-After`` when it was shed with
  503, unless ``--hammer``), for ``--flood-s`` seconds;
- sends the hostile documents of the gate-bypass suite (an exponential fragment document, the
  same padded past the token limit) by every way into execution (POST JSON, POST
  ``application/graphql``, GET, content types that only contain JSON, a repeated GET ``query``);
- samples ``/healthz`` latency every 100 ms.

Then it sends SIGTERM and times how long the process takes to exit. Prints: answers by status,
the slowest answer and how many came later than the request timeout + 2 s, hangs (no answer
within 60 s), healthz p50/p95/max, SIGTERM-to-exit, and the load average before and after.
Run by hand:

    python bench/shutdown_under_load.py --data-dir PATH/TO/kg --queries 50
"""

from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from urllib.parse import quote

import httpx

WORDS = ["learning", "network", "model", "training", "deep", "neural", "data", "method", "results", "show"]
MAX_TOKENS = 5000
HANG_S = 60.0


def expensive(i: int) -> dict[str, object]:
    """The i-th expensive request; a comment makes every body new, so the cache never answers."""
    kind = i % 3
    if kind == 1:
        query = f"{{ conceptGraph(minWeight: {1 + i % 3}, maxNodes: {200 + i % 300}) {{ rows }} }}"
    elif kind == 2:
        query = f"{{ centralAuthors(measure: PAGERANK, first: {1 + i % 50}) {{ score }} }}"
    else:
        text = " ".join(WORDS[(i + k) % len(WORDS)] for k in range(4)) + f" x{i}"
        query = f'{{ search(text: "{text}", first: 50) {{ score paper {{ title }} }} }}'
    return {"query": f"{query}\n# request {i}"}


def exponential(levels: int = 30) -> str:
    body = " ".join(f"fragment F{i} on Query {{ ...F{i + 1} ...F{i + 1} }}" for i in range(levels))
    return "query { ...F0 } " + body + f" fragment F{levels} on Query {{ stats {{ nodes {{ label }} }} }}"


def padded(levels: int = 30) -> str:
    return "query { ...F0 " + "_ " * (MAX_TOKENS + 1) + "}" + exponential(levels).split("}", 1)[1]


def hostile_requests() -> list[tuple[str, str, dict[str, str], bytes]]:
    """(method, path, headers, body) for each way in x each hostile document."""
    out: list[tuple[str, str, dict[str, str], bytes]] = []
    for doc in (exponential(), padded()):
        json_body = json.dumps({"query": doc}).encode()
        for content_type in ("application/json", "xapplication/json", "application/json, text/plain"):
            out.append(("POST", "/graphql", {"content-type": content_type}, json_body))
        out.append(("POST", "/graphql", {"content-type": "application/graphql"}, doc.encode()))
        out.append(("GET", f"/graphql?query={quote(doc)}", {}, b""))
        out.append(("GET", f"/graphql?query={quote('{ __typename }')}&query={quote(doc)}", {}, b""))
    return out


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--queries", type=int, default=50, help="expensive requests in flight at once")
    parser.add_argument("--flood-s", type=float, default=15.0, help="seconds of flood before SIGTERM")
    parser.add_argument("--timeout-s", type=float, default=10.0, help="KG_REQUEST_TIMEOUT_S of the server")
    parser.add_argument(
        "--hammer", action="store_true", help="resend a shed request at once (ignore Retry-After)"
    )
    args = parser.parse_args()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}"
    kg = str(Path(sys.executable).with_name("kg"))
    env = dict(os.environ, KG_REQUEST_TIMEOUT_S=str(args.timeout_s))
    server = subprocess.Popen(
        [kg, "serve", "--data-dir", str(args.data_dir), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    load_before = os.getloadavg()
    try:
        for _ in range(600):
            try:
                if httpx.get(f"{url}/healthz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.1)
        stop = threading.Event()
        statuses: Counter[str] = Counter()
        latencies: list[float] = []
        lock = threading.Lock()
        limits = httpx.Limits(max_connections=args.queries + 20)
        client = httpx.Client(base_url=url, timeout=HANG_S, limits=limits)

        sigterm_at = [float("inf")]

        def record(status: str, took: float) -> None:
            if time.perf_counter() > sigterm_at[0]:
                status = f"at shutdown: {status}"  # in flight when SIGTERM came: not counted as late
            with lock:
                statuses[status] += 1
                latencies.append(took)

        def flooder(i: int) -> None:
            n = i
            while not stop.is_set():
                t0 = time.perf_counter()
                wait = 0.0
                try:
                    r = client.post("/graphql", json=expensive(n))
                    status = str(r.status_code)
                    if r.status_code == 503 and not args.hammer:
                        wait = float(r.headers.get("retry-after", "1"))
                except httpx.TimeoutException:
                    status = "hang"
                except httpx.TransportError:
                    status = "dropped"
                record(status, time.perf_counter() - t0)
                n += args.queries
                stop.wait(wait)  # a client that honours Retry-After comes back then

        def attacker() -> None:
            requests = hostile_requests()
            k = 0
            while not stop.is_set():
                method, path, headers, body = requests[k % len(requests)]
                k += 1
                t0 = time.perf_counter()
                try:
                    r = client.request(method, path, headers=headers, content=body or None)
                    status = f"hostile {r.status_code}"
                except httpx.TimeoutException:
                    status = "hostile hang"
                except httpx.TransportError:
                    status = "hostile dropped"
                record(status, time.perf_counter() - t0)

        pool = concurrent.futures.ThreadPoolExecutor(max_workers=args.queries + 1)
        for i in range(args.queries):
            pool.submit(flooder, i)
        pool.submit(attacker)
        health: list[float] = []
        health_bad = 0
        t_end = time.monotonic() + args.flood_s
        with httpx.Client(base_url=url, timeout=HANG_S) as probe:
            while time.monotonic() < t_end:
                t0 = time.perf_counter()
                try:
                    if probe.get("/healthz").status_code != 200:
                        health_bad += 1
                except httpx.TransportError:
                    health_bad += 1
                health.append(time.perf_counter() - t0)
                time.sleep(0.1)
        load_during = os.getloadavg()
        stop.set()  # no new requests; those in flight stay in flight
        t0 = sigterm_at[0] = time.perf_counter()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=120)
        exit_s = time.perf_counter() - t0
        pool.shutdown(wait=True, cancel_futures=True)
        late = sum(1 for t in latencies if t > args.timeout_s + 2)
        in_flight = sum(n for k, n in statuses.items() if k.startswith("at shutdown"))
        print(
            f"load before {load_before[0]:.2f}, during {load_during[0]:.2f} (1-min average); "
            f"{args.queries} expensive requests in flight + the gate-bypass documents for {args.flood_s:g} s"
            f"{' (shed requests resent at once)' if args.hammer else ''}"
        )
        print(f"answers: {dict(sorted(statuses.items()))}")
        print(
            f"slowest answer {max(latencies):.2f} s; later than timeout + 2 s ({args.timeout_s + 2:g} s): "
            f"{late}; hangs (no answer in {HANG_S:g} s): {statuses['hang'] + statuses['hostile hang']}"
        )
        print(
            f"healthz: {len(health)} samples, p50 {statistics.median(health) * 1000:.0f} ms, "
            f"p95 {pct(health, 0.95) * 1000:.0f} ms, max {max(health) * 1000:.0f} ms, not 200: {health_bad}"
        )
        print(
            f"SIGTERM to exit: {exit_s:.2f} s (exit code {server.returncode}), "
            f"{in_flight} requests in flight at SIGTERM"
        )
    finally:
        if server.poll() is None:
            server.kill()
    return 0


if __name__ == "__main__":
    sys.exit(main())
