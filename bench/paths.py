"""Exact co-author paths at paperlists scale, through the API, against networkx over every tie.

Usage::

    python bench/paths.py [--data ../shared/data/paperlists] [--pairs 200] [--increments 3]
                          [--out bench/out/paths] [--rebuild] [--seed 7]

1. Builds an embedded store under ``--out`` from every listing file of ``--data`` except the
   last ``--increments`` (by path order), with the production readers and pipeline restricted
   to the venue and author extractors (``kg.venue.v1``, ``kg.authors.v1``): co-author ties are
   derived by the store from ``AUTHORED`` exactly as in a full ingest, and concept extraction,
   which paths never read, is skipped (a full ingest runs ~27 papers/s on this loaded machine:
   about 55 min for the 86,864 papers). The build time is printed.
2. Serves the store with ``kg serve`` in a subprocess (the API process whose RSS is watched).
3. Round 0, then one round after each of the ``--increments`` ingests of one more file (written
   by this process while the API serves): loads every ``COAUTHOR`` tie into networkx here
   (offline ground truth), draws ``--pairs`` random connected author pairs (seeded; both names
   must resolve, as the API resolves names, to those very authors), asks ``collaborationPath``
   over HTTP for each and compares its length with ``networkx.shortest_path_length``; checks
   every returned chain is made of real ties. Prints correct/total, p50/p95/max latency, and
   the API process RSS.

Prints the load average with every round.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import networkx as nx

from kg.core.models import UpsertSummary
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline
from kg.read.service import ReadService
from kg.readers import iter_input_files, read_file
from kg.stores.sqlite import SQLiteStore

EXTRACTORS = ("kg.venue.v1", "kg.authors.v1")
BATCH = 2000


def load(store: SQLiteStore, pipeline: Pipeline, files: list[Path]) -> tuple[UpsertSummary, float]:
    """What upserting ``files`` did, and the seconds it took."""
    start = time.perf_counter()
    summary = UpsertSummary()
    for f in files:
        raws = read_file(f).papers
        for i in range(0, len(raws), BATCH):
            records, _ = pipeline.build(raws[i : i + BATCH])
            summary += store.upsert(records)
    store.flush()
    return summary, time.perf_counter() - start


def rss_mb(pid: int) -> dict[str, float]:
    """The process's resident memory in MB: all of it, its own (heap: ``RssAnon``) and file
    pages (``RssFile``: libraries and the database pages SQLite maps, up to its 256 MB
    ``mmap_size``, which the kernel reclaims under pressure)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key = line.split(":")[0]
        if key in ("VmRSS", "RssAnon", "RssFile"):
            out[key] = round(int(line.split()[1]) / 1024, 1)
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def ask(url: str, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body = json.dumps({"query": query, "variables": variables}).encode()
    req = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as response:
        result: dict[str, Any] = json.loads(response.read())
    return result


PATH_QUERY = (
    "query($a: String!, $b: String!) { collaborationPath(from: $a, to: $b) { length authors { id } } }"
)


def sample_pairs(store: SQLiteStore, g: nx.Graph, n: int, rng: random.Random) -> list[tuple[str, str, int]]:
    """``n`` random pairs of authors with a path between them, each name naming that author as
    the API resolves names (:class:`ReadService`; a name carried by an id-keyed author and by a
    name-keyed one resolves to one of them only, so the other cannot be asked for by name)."""
    service = ReadService(store)
    nodes = sorted(g.nodes)
    component = {}
    for k, comp in enumerate(nx.connected_components(g)):
        for node in comp:
            component[node] = k
    names = {}
    pairs: list[tuple[str, str, int]] = []
    while len(pairs) < n:
        a, b = rng.choice(nodes), rng.choice(nodes)
        if a == b or component[a] != component[b]:
            continue
        ok = True
        for x in (a, b):
            if x not in names:
                node = store.get_nodes([x])[0]
                name = str(node.properties.get("name")) if node is not None else ""
                found = service.resolve_author(name) if name else None
                names[x] = name if found is not None and found.id == x else None
            ok &= names[x] is not None
        if ok:
            pairs.append((names[a] or "", names[b] or "", nx.shortest_path_length(g, a, b)))
    return pairs


def run_round(
    url: str, store: SQLiteStore, pid: int, n: int, rng: random.Random, label: str
) -> dict[str, Any]:
    t0 = time.perf_counter()
    g = nx.Graph()
    g.add_edges_from((r.start, r.end) for r in store.relationships("COAUTHOR"))
    truth_s = time.perf_counter() - t0
    pairs = sample_pairs(store, g, n, rng)
    correct, times, lengths = 0, [], []
    for a, b, true_len in pairs:
        start = time.perf_counter()
        result = ask(url, PATH_QUERY, {"a": a, "b": b})
        times.append(time.perf_counter() - start)
        path = (result.get("data") or {}).get("collaborationPath")
        if result.get("errors") or path is None:
            print(f"  miss: {a} -> {b} (true {true_len}): {result.get('errors')}")
            continue
        ids = [x["id"] for x in path["authors"]]
        chain = all(g.has_edge(x, y) for x, y in zip(ids, ids[1:], strict=False))
        if path["length"] == true_len and chain:
            correct += 1
        else:
            print(f"  wrong: {a} -> {b}: {path['length']} hops, true {true_len}, chain {chain}")
        lengths.append(true_len)
    times.sort()
    p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
    figures = {
        "round": label,
        "authors_with_ties": g.number_of_nodes(),
        "ties": g.number_of_edges(),
        "correct": correct,
        "pairs": len(pairs),
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(p95 * 1000, 1),
        "max_ms": round(times[-1] * 1000, 1),
        "mean_hops": round(statistics.mean(lengths), 2) if lengths else 0,
        "max_hops": max(lengths) if lengths else 0,
        "api_rss_mb": rss_mb(pid),
        "ground_truth_s": round(truth_s, 1),
        "load": " ".join(f"{x:.2f}" for x in os.getloadavg()),
    }
    print(json.dumps(figures), flush=True)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/paperlists"))
    parser.add_argument("--out", type=Path, default=Path("bench/out/paths"))
    parser.add_argument("--pairs", type=int, default=200)
    parser.add_argument("--increments", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rebuild", action="store_true")
    args = parser.parse_args()
    files = sorted(f for f in iter_input_files([args.data]) if isinstance(f, Path))
    base, extra = files[: -args.increments], files[-args.increments :]
    pipeline = Pipeline(nlp=load_nlp(), extractors=EXTRACTORS)
    if args.rebuild and args.out.exists():
        for p in args.out.iterdir():
            p.unlink()
    fresh = not args.out.exists() or not any(args.out.iterdir())
    store = SQLiteStore(args.out)
    if fresh:
        done, secs = load(store, pipeline, base)
        papers = done.added + done.updated + done.unchanged
        print(
            f"built {args.out}: {papers} papers from {len(base)} files "
            f"in {secs:.0f} s ({papers / secs:.0f}/s)"
        )
    else:
        print(f"reusing {args.out} (--rebuild to build it again); increments are re-upserted")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "api.cli", "serve", "--data-dir", str(args.out), "--port", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/graphql"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5)
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit("the API did not start")
                time.sleep(0.5)
        rng = random.Random(args.seed)
        rounds = [run_round(url, store, server.pid, args.pairs, rng, "base")]
        for f in extra:
            done, secs = load(store, pipeline, [f])
            print(f"ingested {f.name} in {secs:.1f} s: {done.model_dump()}")
            rounds.append(run_round(url, store, server.pid, args.pairs, rng, f"+{f.name}"))
        for key in ("VmRSS", "RssAnon", "RssFile"):
            rss = [r["api_rss_mb"][key] for r in rounds]
            print(f"API {key} over the rounds: {rss} MB (max/min {max(rss) / min(rss):.2f})")
        print(
            f"all correct: {all(r['correct'] == r['pairs'] for r in rounds)}; p95 < 1 s in every round: "
            f"{all(r['p95_ms'] < 1000 for r in rounds)}"
        )
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=30)
        store.close()


if __name__ == "__main__":
    main()
