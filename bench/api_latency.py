"""GraphQL latency benchmark: five representative queries, 8 concurrent clients, per backend.

Usage::

    python bench/api_latency.py [--requests 400] [--concurrency 8] [--rebuild] [--backends memory neo4j]

1. Builds the graph once with the production path (``kg.ingest.ingest`` with
   ``Pipeline(nlp=kg.nlp.load_nlp())``) from every ``*.jsonl`` in ``--data-dir`` plus
   ``examples/listings`` (8,914 papers with the shared data), into an embedded store under
   ``bench/out/latency`` (reused on later runs unless ``--rebuild``), and into Neo4j when
   ``KG_TEST_NEO4J_URI`` is set (**the Neo4j database is cleared and reloaded** unless it already
   holds exactly the same counts).
2. Serves each backend in a subprocess (``create_app`` under uvicorn, exactly what ``kg serve``
   runs, so the clients do not share the server's GIL), once with the response cache on and
   once with it off, and waits for ``/healthz``.
3. Picks parameters from the graph itself (the 10 concepts and authors with the most papers),
   runs every query once per parameter as a warm-up (reported as "cold"), then per query sends
   ``--requests`` requests from ``--concurrency`` client processes, each with its own
   ``httpx.Client`` (keep-alive).
4. Prints p50/p95/p99 per query and backend, and writes ``bench/out/api_latency.json``.

Latency is measured at the client: HTTP + JSON + GraphQL + store, on one machine.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.networkx_store import NetworkXStore  # noqa: E402
from kg.store import GraphStore  # noqa: E402

DEFAULT_DATA_DIR = Path("/work/shared/data")
OUT_DIR = ROOT / "bench" / "out"
MEMORY_DIR = OUT_DIR / "latency"
TARGET_P95_MS = 50.0

QUERIES: dict[str, str] = {
    "concept_papers_authors": """query($concept: String!) { concept(name: $concept) { name
        papers(first: 20) { totalCount nodes { title year venue { name } authors { name } } } } }""",
    "author_coauthors": """query($author: String!) { author(name: $author) { name paperCount
        coauthors { author { name } papers } } }""",
    "coauthor_network_d2": """query($author: String!) {
        coauthorNetwork(author: $author, depth: 2, maxNodes: 200) {
        nodes { id name weight } edges { source target weight } truncated } }""",
    "concept_graph": """query($concept: String!) {
        conceptGraph(concept: $concept, minWeight: 2, maxNodes: 100) {
        nodes { id name weight } edges { source target weight } truncated } }""",
    "search": """query($text: String!) { search(text: $text, first: 20) {
        score paper { id title } concept { id name } } }""",
}


@dataclass
class Result:
    """Latencies (ms) and errors of one query on one backend."""

    cold_ms: list[float] = field(default_factory=list)
    ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_samples: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def summary(self) -> dict[str, Any]:
        q = statistics.quantiles(self.ms, n=100) if len(self.ms) >= 2 else [0.0] * 99
        return {
            "requests": len(self.ms),
            "errors": self.errors,
            "p50_ms": round(q[49], 2),
            "p95_ms": round(q[94], 2),
            "p99_ms": round(q[98], 2),
            "max_ms": round(max(self.ms, default=0.0), 2),
            "cold_max_ms": round(max(self.cold_ms, default=0.0), 1),
            "req_per_s": round(len(self.ms) / self.seconds, 1) if self.seconds else 0.0,
            "error_samples": self.error_samples[:3],
        }


# -- building the graph ----------------------------------------------------------------------------


def input_paths(data_dir: Path) -> list[Path]:
    return [*sorted(data_dir.glob("*.jsonl")), ROOT / "examples" / "listings"]


def ingest_into(store: GraphStore, data_dir: Path) -> None:
    from kg.ingest import Progress, ingest
    from kg.nlp import load_nlp
    from kg.pipeline import Pipeline

    t0 = time.perf_counter()
    report = ingest(
        input_paths(data_dir), store, Pipeline(nlp=load_nlp()), batch_size=500, progress=Progress()
    )
    for line in report.lines()[:1]:
        print(f"  {line}")
    print(f"  built in {time.perf_counter() - t0:.0f} s: {store.counts().nodes}")


def memory_store(data_dir: Path, rebuild: bool) -> NetworkXStore:
    store = NetworkXStore(MEMORY_DIR)
    if rebuild or store.counts().nodes["Paper"] == 0:
        print(f"building the embedded graph under {MEMORY_DIR} ...")
        store.clear()
        ingest_into(store, data_dir)
        store.flush()
    return store


def load_neo4j(uri: str, reference: NetworkXStore, data_dir: Path) -> None:
    from pydantic import SecretStr

    from kg.config import Settings
    from kg.neo4j_store import open_neo4j_store

    settings = Settings(
        backend="neo4j",
        neo4j_uri=uri,
        neo4j_user=os.environ.get("KG_TEST_NEO4J_USER", "neo4j"),
        neo4j_password=SecretStr(os.environ.get("KG_TEST_NEO4J_PASSWORD", "")),
    )
    store = open_neo4j_store(settings)
    try:
        if store.counts() == reference.counts():
            print("Neo4j already holds the benchmark graph")
            return
        print(f"loading the benchmark graph into Neo4j at {uri} (clearing it first) ...")
        store.clear()
        ingest_into(store, data_dir)
    finally:
        store.close()


# -- serving and measuring -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """The API (``create_app`` under uvicorn, as ``kg serve`` runs it) in a subprocess."""

    def __init__(self, backend: str, env: dict[str, str], response_cache: bool) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        cmd = [sys.executable, __file__, "--serve", backend, "--port", str(self.port)]
        if not response_cache:
            cmd.append("--no-response-cache")
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    def wait(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                err = self.proc.stderr.read().decode() if self.proc.stderr else ""
                raise RuntimeError(f"server exited: {err[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("server did not become healthy")

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def gql(client: httpx.Client, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    body: dict[str, Any] = client.post("/graphql", json={"query": query, "variables": variables}).json()
    return body


def timed_request(client: httpx.Client, query: str, variables: dict[str, Any]) -> tuple[float, str | None]:
    """(latency ms, error text or None); the body is only decoded when it reports errors."""
    t = time.perf_counter()
    try:
        response = client.post("/graphql", json={"query": query, "variables": variables})
        content = response.content
        ms = (time.perf_counter() - t) * 1000
        if response.status_code != 200 or b'"errors"' in content and "errors" in json.loads(content):
            return ms, content.decode(errors="replace")[:300]
        return ms, None
    except (httpx.HTTPError, ValueError) as e:
        return (time.perf_counter() - t) * 1000, repr(e)


def pick_parameters(url: str) -> dict[str, list[dict[str, Any]]]:
    """Ten popular concepts and authors (with co-authors), and search texts, from the graph."""
    with httpx.Client(base_url=url, timeout=120) as c:
        concepts = gql(c, "{ concepts(first: 10, orderBy: PAPER_COUNT) { nodes { name } } }", {})
        authors = gql(
            c,
            "{ authors(first: 40, orderBy: PAPER_COUNT) { nodes { name coauthors(first: 1) { papers } } } }",
            {},
        )
    concept_names = [n["name"] for n in concepts["data"]["concepts"]["nodes"]]
    author_names = [n["name"] for n in authors["data"]["authors"]["nodes"] if n["coauthors"]][:10]
    texts = [
        "large language models",
        "reinforcement learning from human feedback",
        "graph neural networks",
        "diffusion models for image generation",
        "contextual bandits regret",
        "Nash equilibrium",
        "adversarial robustness",
        "in-context learning transformers",
        "federated learning privacy",
        "stochastic gradient descent convergence",
    ]
    return {
        "concept_papers_authors": [{"concept": n} for n in concept_names],
        "author_coauthors": [{"author": n} for n in author_names],
        "coauthor_network_d2": [{"author": n} for n in author_names],
        "concept_graph": [{"concept": n} for n in concept_names],
        "search": [{"text": t} for t in texts],
    }


def _client_process(
    url: str, query: str, params: list[dict[str, Any]], k: int, n: int, concurrency: int, start: Any, out: Any
) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    with httpx.Client(base_url=url, timeout=60) as c:
        timed_request(c, query, params[k % len(params)])  # open the connection before the start
        start.wait()
        for i in range(n):
            ms, error = timed_request(c, query, params[(k + i * concurrency) % len(params)])
            latencies.append(ms)
            if error is not None:
                errors.append(error)
    out.put((latencies, errors))


def run_query(url: str, query: str, params: list[dict[str, Any]], requests: int, concurrency: int) -> Result:
    """Warm-up pass over every parameter, then ``requests`` requests from ``concurrency`` processes.

    Clients are processes, not threads, so that client-side JSON and HTTP work in one
    interpreter does not queue behind one GIL and inflate the latencies being measured.
    """
    result = Result()
    with httpx.Client(base_url=url, timeout=120) as c:
        for p in params:
            ms, error = timed_request(c, query, p)
            result.cold_ms.append(ms)
            if error is not None:
                result.error_samples.append(error)
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(concurrency + 1)
    out = ctx.Queue()
    per_client = max(1, requests // concurrency)
    procs = [
        ctx.Process(target=_client_process, args=(url, query, params, k, per_client, concurrency, start, out))
        for k in range(concurrency)
    ]
    for proc in procs:
        proc.start()
    start.wait()
    t0 = time.perf_counter()
    for _ in procs:
        latencies, errors = out.get()
        result.ms.extend(latencies)
        result.errors += len(errors)
        result.error_samples.extend(errors)
    result.seconds = time.perf_counter() - t0
    for proc in procs:
        proc.join()
    return result


def bench_backend(
    backend: str, env: dict[str, str], requests: int, concurrency: int, response_cache: bool
) -> dict[str, Any]:
    server = ServerProcess(backend, env, response_cache)
    label = f"{backend}, response cache {'on' if response_cache else 'off'}"
    try:
        t0 = time.perf_counter()
        server.wait()
        print(f"\n[{label}] server healthy after {time.perf_counter() - t0:.1f} s")
        params = pick_parameters(server.url)
        out: dict[str, Any] = {}
        for name, query in QUERIES.items():
            summary = run_query(server.url, query, params[name], requests, concurrency).summary()
            out[name] = summary
            print(
                f"  {name:<24} p50 {summary['p50_ms']:7.2f} ms  p95 {summary['p95_ms']:7.2f} ms  "
                f"p99 {summary['p99_ms']:7.2f} ms  {summary['req_per_s']:7.1f} req/s  "
                f"errors {summary['errors']}  (cold max {summary['cold_max_ms']:.0f} ms)"
            )
            for sample in summary["error_samples"]:
                print(f"    error: {sample}")
        return out
    finally:
        server.stop()


def serve(backend: str, port: int, response_cache: bool) -> int:
    """Run the API on one backend until terminated (the benchmark's server subprocess).

    The same app as ``kg serve``, except that the caches are warmed (and the heap frozen, see
    :func:`api.app.prepare`) before the port opens, where ``kg serve`` does it in the background,
    so that no measurement overlaps the warm-up.
    """
    import uvicorn

    from api.app import create_app, prepare
    from kg.config import Settings
    from kg.stores import open_store

    kind: Literal["memory", "neo4j"] = "neo4j" if backend == "neo4j" else "memory"
    settings = Settings(backend=kind, data_dir=MEMORY_DIR)  # Neo4j: KG_NEO4J_* from the env
    store = open_store(settings)
    try:
        app = create_app(settings, store=store, response_cache_size=None if response_cache else 0, warm=False)
        prepare(app.state.service)
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
    finally:
        store.close()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--requests", type=int, default=400, help="requests per query (all clients)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--rebuild", action="store_true", help="re-ingest the embedded graph")
    parser.add_argument("--backends", nargs="+", default=["memory", "neo4j"], choices=["memory", "neo4j"])
    parser.add_argument(
        "--cache-modes", nargs="+", default=["on", "off"], choices=["on", "off"], help="response cache"
    )
    parser.add_argument("--serve", choices=["memory", "neo4j"], help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--no-response-cache", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.port, not args.no_response_cache)

    store = memory_store(args.data_dir, args.rebuild)
    counts = store.counts()
    print(f"graph: {counts.nodes}\n       {counts.relationships}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_")}
    env["PYTHONPATH"] = str(ROOT)
    backends = ["memory"] if "memory" in args.backends else []
    neo4j_uri = os.environ.get("KG_TEST_NEO4J_URI")
    if "neo4j" in args.backends:
        if neo4j_uri:
            load_neo4j(neo4j_uri, store, args.data_dir)
            env["KG_NEO4J_URI"] = neo4j_uri
            for var in ("USER", "PASSWORD"):
                if os.environ.get(f"KG_TEST_NEO4J_{var}"):
                    env[f"KG_NEO4J_{var}"] = os.environ[f"KG_TEST_NEO4J_{var}"]
            backends.append("neo4j")
        else:
            print("KG_TEST_NEO4J_URI is not set: skipping the Neo4j backend")

    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "graph": counts.model_dump(),
        "requests_per_query": args.requests,
        "concurrency": args.concurrency,
        "target_p95_ms_memory": TARGET_P95_MS,
        "backends": {},
    }
    for backend in backends:
        for mode in args.cache_modes:
            key = f"{backend}, response cache {mode}"
            report["backends"][key] = bench_backend(
                backend, env, args.requests, args.concurrency, response_cache=mode == "on"
            )
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "api_latency.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {OUT_DIR / 'api_latency.json'}")
    for key, queries in report["backends"].items():
        worst = max(q["p95_ms"] for q in queries.values())
        verdict = "meets" if worst < TARGET_P95_MS else "misses"
        print(f"{key}: worst p95 {worst:.1f} ms ({verdict} the {TARGET_P95_MS:.0f} ms memory target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
