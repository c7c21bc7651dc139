"""GraphQL latency benchmark: five representative queries, 8 concurrent clients, per backend.

Usage::

    python bench/api_latency.py [--requests 400] [--concurrency 8] [--papers 10000] [--rebuild]
                                [--backends memory neo4j] [--cache-modes off on] [--pool 400]

1. Builds a graph of exactly ``--papers`` papers once (default 10,000): every ``*.jsonl`` in
   ``--data-dir`` plus ``examples/listings`` (8,9xx distinct papers), topped up with
   "(variant k)" copies exactly as ``bench/neo4j_load.py::build_corpus`` makes them, through the
   production pipeline (``Pipeline(nlp=kg.ingest.nlp.load_nlp())``) and ``store.upsert`` in batches of
   500, into an embedded store under ``bench/out/latency`` (reused on later runs; one of another
   size is refused unless ``--rebuild``), and into Neo4j when ``KG_TEST_NEO4J_URI`` is set
   (**the Neo4j database is cleared and reloaded** unless it already holds the same counts).
2. Serves each backend in a subprocess (``create_app`` under uvicorn, what ``kg serve`` runs,
   so the clients do not share the server's GIL), by default with the response cache **off**
   (the figures that count: every request is parsed, resolved and serialised), optionally also
   with it on, and waits for ``/healthz``.
3. Draws parameters from the graph itself: ``--pool`` distinct concepts (most papers first),
   authors with co-authors (most papers first) and search texts per query, by default as many
   as there are requests, so that **every measured request has a parameter of its own** and no
   per-argument cache anywhere (response cache or the service's per-version caches) can answer
   a repeat. A few other parameters warm up the server first (reported as "cold"). Then per
   query ``--requests`` requests from ``--concurrency`` client processes, each with its own
   keep-alive connection (``http.client``: the clients' CPU is taken from the server's cores).
4. Prints p50/p95/p99 per query and backend with the load average, and writes
   ``bench/out/api_latency.json``.

Every figure is also printed as a ratio to the same figure of a ``{ __typename }`` request
(:data:`REFERENCE`: HTTP, the gate, strawberry and encoding, no store) measured in the same run
with the same clients, so figures from machines of other speeds, or from this one under another
load, can be compared: the ratio moves much less than the milliseconds do.

``--store DIR`` measures an existing store (e.g. the 100k one ``bench/embedded_scale.py`` built)
instead of ``bench/out/latency``; ``--queries`` picks some of the queries. ``--neo4j-as-is``
measures the graph the Neo4j server at ``KG_TEST_NEO4J_URI`` already holds (e.g. a 100k
``kg ingest --bulk``), parameters drawn from it, with no embedded store and nothing reloaded.

``author_coauthors`` asks what a user asks since ``Author.coauthors`` is paged (the count and the
default page of 20); ``author_coauthors_all`` asks for every co-author (``first: 1000``), the
question ``author_coauthors`` asked before. ``--cpu`` measures ``search`` twice: new texts (the
cold cost: each text embedded by MiniLM) and then the same texts again (``search_repeat``).

Latency is measured at the client: HTTP + JSON + GraphQL + store, on one machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.core.config import Settings  # noqa: E402
from kg.core.models import PaperRecord, StoreCounts  # noqa: E402
from kg.stores.protocol import GraphStore, ReadStore  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[1].parent / "shared" / "data"
OUT_DIR = ROOT / "bench" / "out"
MEMORY_DIR = OUT_DIR / "latency"
TARGET_P95_MS = 50.0
BATCH = 500  # papers per pipeline batch and per store write, as ``kg ingest`` defaults to
WARMUP = 8  # parameters per query used only to warm the server up (never measured)

# The reference request every figure is divided by (see the module docstring).
REFERENCE = "reference_typename"
REFERENCE_QUERY = "{ __typename }"

# Queries ``--cpu`` measures a second time with the same parameters (``NAME_repeat``): search
# embeds each new text with MiniLM, and a user paging or retyping sends the same text again,
# which the service answers from its per-version cache. The first pass is the cold cost.
REPEATED = ("search",)

QUERIES: dict[str, str] = {
    "concept_papers_authors": """query($concept: String!) { concept(name: $concept) { name
        papers(first: 20) { totalCount nodes { title year venue { name } authors { name } } } } }""",
    # the same page in the order before RELEVANCE became the default: the cost of ranking
    "concept_papers_newest": """query($concept: String!) { concept(name: $concept) { name
        papers(first: 20, orderBy: NEWEST) {
            totalCount nodes { title year venue { name } authors { name } } } } }""",
    # what a user asks since coauthors is paged (default 20): the count and the first page
    "author_coauthors": """query($author: String!) { author(name: $author) { name paperCount
        coauthorCount coauthors { author { name } papers } } }""",
    # every co-author (up to 1,000), what author_coauthors asked before the default page
    "author_coauthors_all": """query($author: String!) { author(name: $author) { name paperCount
        coauthors(first: 1000) { author { name } papers } } }""",
    "coauthor_network_d2": """query($author: String!) {
        coauthorNetwork(author: $author, depth: 2, maxNodes: 200) { rows truncated } }""",
    "concept_graph": """query($concept: String!) {
        conceptGraph(concept: $concept, minWeight: 2, maxNodes: 100) { rows truncated } }""",
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
    load_before: float = 0.0  # 1-minute load average when the clients started
    load_after: float = 0.0

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
            "load_before": round(self.load_before, 2),
            "load_after": round(self.load_after, 2),
            "req_per_s": round(len(self.ms) / self.seconds, 1) if self.seconds else 0.0,
            "error_samples": self.error_samples[:3],
        }


# -- building the graph ----------------------------------------------------------------------------


def cached_records(path: Path, papers: int) -> list[PaperRecord]:
    """The first ``papers`` records of a ``bench/neo4j_load.py --extract-to`` file (one distinct
    paper per line), so 100k papers need not be extracted again for every run."""
    out: list[PaperRecord] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if len(out) >= papers:
                break
            out.append(PaperRecord.model_validate_json(line))
    if len(out) < papers:
        raise SystemExit(f"{path} holds only {len(out)} records (wanted {papers})")
    return out


def corpus_records(data_dir: Path, papers: int, records: Path | None = None) -> list[PaperRecord]:
    """Records of exactly ``papers`` distinct papers: the real ones, then "(variant k)" copies.

    With ``records`` (``--records``), the first ``papers`` of that cached file instead.

    The raw papers come from ``bench/neo4j_load.py::build_corpus`` (files in ingest order, then
    suffixed variants), built by the production pipeline in batches of 500 as ``kg ingest``
    does. A paper listed in several files keeps all its records, so upserting them merges its
    sources as an ingest would; records are kept until ``papers`` distinct ids are reached.
    """
    if records is not None:
        return cached_records(records, papers)
    from bench.neo4j_load import build_corpus
    from kg.ingest.nlp import load_nlp
    from kg.ingest.pipeline import Pipeline

    raw, originals = build_corpus(data_dir, papers)
    pipeline = Pipeline(nlp=load_nlp())
    t0 = time.perf_counter()
    kept: list[PaperRecord] = []
    ids: set[str] = set()
    for i in range(0, len(raw), BATCH):
        built, _problems = pipeline.build(raw[i : i + BATCH])
        for r in built:
            if r.paper.id in ids or len(ids) < papers:
                ids.add(r.paper.id)
                kept.append(r)
    if len(ids) < papers:
        raise SystemExit(f"only {len(ids)} distinct papers could be built (wanted {papers})")
    print(
        f"  {len(ids)} papers ({len(kept)} records, {originals} raw papers in the files) "
        f"extracted in {time.perf_counter() - t0:.0f} s"
    )
    return kept


def load_records(store: GraphStore, records: list[PaperRecord]) -> None:
    t0 = time.perf_counter()
    for i in range(0, len(records), BATCH):
        store.upsert(records[i : i + BATCH])
    store.flush()
    print(f"  stored in {time.perf_counter() - t0:.0f} s: {store.counts().nodes}")


def memory_store(
    data_dir: Path, papers: int, rebuild: bool, records: Path | None = None, store_dir: Path = MEMORY_DIR
) -> SQLiteStore:
    """The benchmark's embedded store, built when missing or with ``rebuild``. A store holding
    another number of papers is refused, not replaced: it may be a 100k store that took minutes
    to build (or a link to a user's store), and a run with another ``--papers`` wiped one."""
    store = SQLiteStore(store_dir)
    held = store.counts().nodes.get("Paper", 0)
    if held and held != papers and not rebuild:
        raise SystemExit(
            f"{store_dir} holds {held} papers, not {papers}: pass --papers {held} to measure it, "
            "or --rebuild to replace it"
        )
    if rebuild or held != papers:
        print(f"building the embedded {papers}-paper graph under {store_dir} ...")
        store.clear()
        load_records(store, corpus_records(data_dir, papers, records))
    return store


def neo4j_settings(uri: str) -> Settings:
    """Settings for the Neo4j server at ``uri`` (credentials from ``KG_TEST_NEO4J_*``)."""
    from pydantic import SecretStr

    return Settings(
        backend="neo4j",
        neo4j_uri=uri,
        neo4j_user=os.environ.get("KG_TEST_NEO4J_USER", "neo4j"),
        neo4j_password=SecretStr(os.environ.get("KG_TEST_NEO4J_PASSWORD", "")),
    )


def neo4j_as_is(uri: str, pool: int) -> tuple[StoreCounts, Parameters]:
    """The counts of the graph Neo4j holds at ``uri`` and parameters drawn from it (``--neo4j-as-is``)."""
    from kg.stores.neo4j.store import open_neo4j_store

    store = open_neo4j_store(neo4j_settings(uri))
    try:
        return store.counts(), pick_parameters(store, pool)
    finally:
        store.close()


def load_neo4j(
    uri: str, reference: SQLiteStore, data_dir: Path, papers: int, records: Path | None = None
) -> None:
    from kg.stores.neo4j.store import open_neo4j_store

    store = open_neo4j_store(neo4j_settings(uri))
    try:
        if store.counts() == reference.counts():
            print("Neo4j already holds the benchmark graph")
            return
        print(f"loading the benchmark graph into Neo4j at {uri} (clearing it first) ...")
        store.clear()
        load_records(store, corpus_records(data_dir, papers, records))
    finally:
        store.close()


# -- serving and measuring -------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """The API in a subprocess, as ``kg serve --workers N`` runs it (``api.app:worker_app``).

    Settings reach it as ``KG_*`` variables, like ``kg serve``'s workers. Every worker warms
    its caches before it accepts connections; :meth:`wait` also waits until the whole process
    tree is idle, so that no measurement overlaps a worker still warming up.
    """

    def __init__(
        self,
        backend: str,
        env: dict[str, str],
        response_cache: bool,
        workers: int = 1,
        store_dir: Path = MEMORY_DIR,
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {
            **env,
            "KG_BACKEND": backend,
            "KG_DATA_DIR": str(store_dir),
            "KG_RESPONSE_CACHE_SIZE": "1024" if response_cache else "0",
        }
        cmd = [sys.executable, __file__, "--serve", "--port", str(self.port), "--workers", str(workers)]
        self._log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=self._log)

    def wait(self, timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self._log.seek(0)
                raise RuntimeError(f"server exited: {self._log.read().decode(errors='replace')[-2000:]}")
            try:
                if httpx.get(f"{self.url}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        else:
            raise RuntimeError("server did not become healthy")
        last = process_tree_cpu_seconds(self.proc.pid)
        while time.monotonic() < deadline:  # other workers may still be warming up
            time.sleep(1.0)
            now = process_tree_cpu_seconds(self.proc.pid)
            if now - last < 0.05:
                return
            last = now

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self._log.close()


def _children(pid: int) -> list[int]:
    out: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        try:
            out.extend(int(c) for c in task.read_text().split())
        except OSError:
            pass
    return out


def process_tree_cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads and descendants, from ``/proc``."""
    total = 0.0
    todo = [pid]
    while todo:
        p = todo.pop()
        try:
            fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        todo.extend(_children(p))
    return total


class Client:
    """One keep-alive HTTP/1.1 connection to the server, with the standard library's ``http.client``.

    The clients share the server's two cores, so their own CPU time is taken from the server:
    ``http.client`` costs ~0.2 ms of CPU per request here, ``httpx`` 1-2 ms (as much as the
    server spends on a light query). A connection that fails is reopened on the next request.
    """

    def __init__(self, url: str, timeout: float = 60) -> None:
        parts = urllib.parse.urlsplit(url)
        self._conn = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)

    def post(self, query: str, variables: dict[str, Any]) -> tuple[int, bytes]:
        body = json.dumps({"query": query, "variables": variables}).encode()
        try:
            self._conn.request("POST", "/graphql", body, {"Content-Type": "application/json"})
            response = self._conn.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, OSError):
            self._conn.close()
            raise

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def timed_request(client: Client, query: str, variables: dict[str, Any]) -> tuple[float, str | None]:
    """(latency ms, error text or None); the body is only decoded when it reports errors."""
    t = time.perf_counter()
    try:
        status, content = client.post(query, variables)
        ms = (time.perf_counter() - t) * 1000
        if status != 200 or b'"errors"' in content and "errors" in json.loads(content):
            return ms, content.decode(errors="replace")[:300]
        return ms, None
    except (http.client.HTTPException, OSError, ValueError) as e:
        return (time.perf_counter() - t) * 1000, repr(e)


SEARCH_TEXTS = [
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


@dataclass
class Parameters:
    """Per query: distinct measured parameters and separate warm-up ones."""

    measured: dict[str, list[dict[str, Any]]]
    warmup: dict[str, list[dict[str, Any]]]


def pick_parameters(store: ReadStore, pool: int, seed: int = 0) -> Parameters:
    """``pool`` measured + :data:`WARMUP` warm-up parameters per query, all distinct, from the graph.

    Concepts and authors (with at least one co-author) by paper count, most first, keeping only
    names that resolve back to their own node (so distinct names are distinct requests). Search
    texts: :data:`SEARCH_TEXTS`, then alternately concept names (below the ones used as concepts)
    and the first four words of seeded-random paper titles.
    """
    import random

    from kg.read.service import ReadService

    service = ReadService(store)
    need = pool + WARMUP
    concepts: list[str] = []
    extra_concepts: list[str] = []
    for node in service.list_concepts(None, None, "PAPER_COUNT", 0, need * 20)[0]:
        name = str(node.properties.get("name") or "")
        resolved = service.resolve_concept(name) if name else None
        if resolved is None or resolved.id != node.id:
            continue
        (concepts if len(concepts) < need else extra_concepts).append(name)
        if len(extra_concepts) >= need:
            break
    ranked = service.list_authors(None, "PAPER_COUNT", 0, need * 4)[0]
    coauthors = dict(
        zip(
            [a.id for a in ranked[: need * 4]],
            store.degree_many([a.id for a in ranked[: need * 4]], "COAUTHOR", "both"),
            strict=True,
        )
    )
    authors: list[str] = []
    for node in ranked[: need * 4]:
        name = str(node.properties.get("name") or "")
        resolved = service.resolve_author(name) if name else None
        if coauthors[node.id] and resolved is not None and resolved.id == node.id:
            authors.append(name)
        if len(authors) >= need:
            break
    rng = random.Random(seed)
    titles = [str(p.properties.get("title") or "") for p in store.nodes_by_label("Paper")]
    rng.shuffle(titles)
    texts = dict.fromkeys(SEARCH_TEXTS)
    for concept, title in zip(extra_concepts, titles, strict=False):
        if len(texts) >= need:
            break
        texts[concept] = None
        words = " ".join(title.split()[:4])
        if words:
            texts[words] = None
    if min(len(concepts), len(authors), len(texts)) < need:
        raise SystemExit(f"the graph has too few distinct parameters for --pool {pool}")

    def split(values: list[str], key: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        # The warm-up parameters come from the far end of the list: the measured ones are the
        # most prolific concepts and authors (the largest answers).
        return [{key: v} for v in values[:pool]], [{key: v} for v in values[pool:need]]

    c_measured, c_warm = split(concepts, "concept")
    a_measured, a_warm = split(authors, "author")
    # Texts: the hand-written ones are measured; warm up with generated ones.
    text_list = list(texts)[:need]
    t_measured = [{"text": t} for t in text_list[:pool]]
    t_warm = [{"text": t} for t in text_list[pool:need]]
    return Parameters(
        measured={
            "concept_papers_authors": c_measured,
            "concept_papers_newest": c_measured,
            "author_coauthors": a_measured,
            "author_coauthors_all": a_measured,
            "coauthor_network_d2": a_measured,
            "concept_graph": c_measured,
            "search": t_measured,
        },
        warmup={
            "concept_papers_authors": c_warm,
            "concept_papers_newest": c_warm,
            "author_coauthors": a_warm,
            "author_coauthors_all": a_warm,
            "coauthor_network_d2": a_warm,
            "concept_graph": c_warm,
            "search": t_warm,
        },
    )


def _client_process(
    url: str,
    query: str,
    params: list[dict[str, Any]],
    opener: dict[str, Any],
    k: int,
    n: int,
    concurrency: int,
    start: Any,
    out: Any,
) -> None:
    latencies: list[float] = []
    errors: list[str] = []
    with Client(url, timeout=60) as c:
        timed_request(c, query, opener)  # open the connection before the start (a warm-up parameter)
        start.wait()
        for i in range(n):
            ms, error = timed_request(c, query, params[(k + i * concurrency) % len(params)])
            latencies.append(ms)
            if error is not None:
                errors.append(error)
    out.put((latencies, errors))


def run_query(
    url: str,
    query: str,
    params: list[dict[str, Any]],
    warmup: list[dict[str, Any]],
    requests: int,
    concurrency: int,
) -> Result:
    """Warm-up requests (``warmup``, sequential), then ``requests`` requests over ``params``.

    Client ``k`` sends parameters ``k, k + concurrency, ...``, so with ``len(params) >=
    requests`` every measured request has a parameter of its own. Clients are processes, not
    threads, so that client-side JSON and HTTP work in one interpreter does not queue behind one
    GIL and inflate the latencies being measured.
    """
    result = Result()
    with Client(url, timeout=120) as c:
        for p in warmup:
            ms, error = timed_request(c, query, p)
            result.cold_ms.append(ms)
            if error is not None:
                result.error_samples.append(error)
    ctx = multiprocessing.get_context("fork")
    start = ctx.Barrier(concurrency + 1)
    out = ctx.Queue()
    per_client = max(1, requests // concurrency)
    procs = [
        ctx.Process(
            target=_client_process,
            args=(url, query, params, warmup[k % len(warmup)], k, per_client, concurrency, start, out),
        )
        for k in range(concurrency)
    ]
    for proc in procs:
        proc.start()
    start.wait()
    result.load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    for _ in procs:
        latencies, errors = out.get()
        result.ms.extend(latencies)
        result.errors += len(errors)
        result.error_samples.extend(errors)
    result.seconds = time.perf_counter() - t0
    result.load_after = os.getloadavg()[0]
    for proc in procs:
        proc.join()
    return result


def ratio(value: float, reference: float) -> float:
    """``value`` in units of ``reference`` (0 when the reference is 0)."""
    return round(value / reference, 2) if reference > 0 else 0.0


def bench_backend(
    backend: str,
    env: dict[str, str],
    params: Parameters,
    requests: int,
    concurrency: int,
    response_cache: bool,
    workers: int,
    queries: dict[str, str] = QUERIES,
    store_dir: Path = MEMORY_DIR,
) -> dict[str, Any]:
    """p50/p95/p99 of every query, each also as a multiple of the same percentile of
    :data:`REFERENCE_QUERY` under the same clients, measured first on the same server."""
    server = ServerProcess(backend, env, response_cache, workers, store_dir)
    label = f"{backend}, response cache {'on' if response_cache else 'off'}, {workers} worker(s)"
    try:
        t0 = time.perf_counter()
        server.wait()
        print(f"\n[{label}] server healthy after {time.perf_counter() - t0:.1f} s")
        out: dict[str, Any] = {}
        reference: dict[str, Any] = {}
        plan = {REFERENCE: REFERENCE_QUERY, **queries}
        for name, query in plan.items():
            measured = params.measured[name] if name != REFERENCE else [{}]
            warmup = params.warmup[name] if name != REFERENCE else [{}] * WARMUP
            result = run_query(server.url, query, measured, warmup, requests, concurrency)
            summary = result.summary()
            summary["distinct_parameters"] = len({json.dumps(p) for p in measured[: len(result.ms)]})
            if name == REFERENCE:
                reference = summary
            for q in ("p50", "p95", "p99"):
                summary[f"{q}_x_reference"] = ratio(summary[f"{q}_ms"], reference[f"{q}_ms"])
            out[name] = summary
            print(
                f"  {name:<24} p50 {summary['p50_ms']:7.2f} ms ({summary['p50_x_reference']:5.1f}x)  "
                f"p95 {summary['p95_ms']:7.2f} ms ({summary['p95_x_reference']:5.1f}x)  "
                f"p99 {summary['p99_ms']:7.2f} ms  {summary['req_per_s']:7.1f} req/s  "
                f"errors {summary['errors']}  (cold max {summary['cold_max_ms']:.0f} ms; "
                f"load {summary['load_before']:.2f} -> {summary['load_after']:.2f})"
            )
            for sample in summary["error_samples"]:
                print(f"    error: {sample}")
        return out
    finally:
        server.stop()


def cpu_per_request(
    backend: str,
    env: dict[str, str],
    params: Parameters,
    requests: int,
    workers: int,
    queries: dict[str, str] = QUERIES,
    store_dir: Path = MEMORY_DIR,
    db_pid: int | None = None,
) -> dict[str, Any]:
    """Server CPU time per request, one client, no concurrency, response cache off.

    ``db_pid``: the database server's process (Neo4j's JVM, ``--db-pid``), whose CPU per request
    is reported beside the API server's: on Neo4j a read's work is split between the two.

    The figure a latency under load is made of (8 clients on 2 cores queue on it), and one the
    machine's load barely moves, unlike wall-clock latencies. Every request has its own
    parameter, as in the latency runs; the warm-up parameters go first. The reference
    (:data:`REFERENCE_QUERY`) is measured before and after the queries, and each query's CPU is
    printed as a multiple of their mean.
    """
    server = ServerProcess(backend, env, response_cache=False, workers=workers, store_dir=store_dir)
    out: dict[str, Any] = {}
    try:
        server.wait()
        print(f"\n[{backend}, response cache off] server CPU per request, 1 client")
        with Client(server.url, timeout=120) as c:
            db_ms: dict[str, float] = {}

            def measure(query: str, measured: list[dict[str, Any]]) -> tuple[float, list[float], int]:
                errors = 0
                wall: list[float] = []
                before = process_tree_cpu_seconds(server.proc.pid)
                db_before = process_tree_cpu_seconds(db_pid) if db_pid else 0.0
                for p in measured:
                    ms, error = timed_request(c, query, p)
                    wall.append(ms)
                    errors += error is not None
                cpu_ms = (process_tree_cpu_seconds(server.proc.pid) - before) * 1000 / len(measured)
                if db_pid:
                    db_ms[query] = (process_tree_cpu_seconds(db_pid) - db_before) * 1000 / len(measured)
                return cpu_ms, wall, errors

            for _ in range(WARMUP):
                timed_request(c, REFERENCE_QUERY, {})
            ref_before, _, _ = measure(REFERENCE_QUERY, [{}] * requests)
            for name, query in queries.items():
                for p in params.warmup[name]:
                    timed_request(c, query, p)
                cpu_ms, wall, errors = measure(query, params.measured[name][:requests])
                out[name] = {
                    "requests": len(wall),
                    "errors": errors,
                    "server_cpu_ms_per_request": round(cpu_ms, 2),
                    "wall_p50_ms": round(statistics.median(wall), 2),
                }
                if db_pid:
                    out[name]["database_cpu_ms_per_request"] = round(db_ms[query], 2)
                if name in REPEATED:  # the same parameters again: what a repeat costs
                    cpu_ms, wall, errors = measure(query, params.measured[name][:requests])
                    out[f"{name}_repeat"] = {
                        "requests": len(wall),
                        "errors": errors,
                        "server_cpu_ms_per_request": round(cpu_ms, 2),
                        "wall_p50_ms": round(statistics.median(wall), 2),
                    }
            ref_after, ref_wall, _ = measure(REFERENCE_QUERY, [{}] * requests)
            ref = (ref_before + ref_after) / 2
            out[REFERENCE] = {
                "requests": 2 * requests,
                "errors": 0,
                "server_cpu_ms_per_request": round(ref, 3),
                "before_and_after_ms": [round(ref_before, 3), round(ref_after, 3)],
                "wall_p50_ms": round(statistics.median(ref_wall), 2),
            }
            print(
                f"  {REFERENCE:<24} {ref:6.2f} ms CPU/request (before {ref_before:.2f}, after "
                f"{ref_after:.2f})"
            )
            for name in [n for q in queries for n in (q, f"{q}_repeat") if n in out]:
                figures = out[name]
                figures["cpu_x_reference"] = ratio(figures["server_cpu_ms_per_request"], ref)
                db = (
                    f"; database {figures['database_cpu_ms_per_request']:.2f} ms CPU/request"
                    if "database_cpu_ms_per_request" in figures
                    else ""
                )
                print(
                    f"  {name:<24} {figures['server_cpu_ms_per_request']:6.2f} ms CPU/request "
                    f"({figures['cpu_x_reference']:5.1f}x the reference; wall p50 "
                    f"{figures['wall_p50_ms']:6.2f} ms, errors {figures['errors']}{db})"
                )
    finally:
        server.stop()
    return out


HOLD_WORDS = "BENCH_HOLD_WORDS"  # the server subprocess's --hold-words (not a KG_ setting)


def serve(port: int, workers: int) -> int:
    """Run the API until terminated (the benchmark's server subprocess): what ``kg serve
    --workers N`` runs, settings from ``KG_*`` variables, caches warm before serving."""
    import uvicorn

    if os.environ.get(HOLD_WORDS):  # --hold-words: search's word scores built at start too
        from kg.stores.sqlite.reads import SQLiteReads

        hold_now = SQLiteReads.hold_now

        def hold_with_words(store: SQLiteReads) -> None:
            hold_now(store)
            store.hold_search_words()

        SQLiteReads.hold_now = hold_with_words  # type: ignore[method-assign,assignment]
    uvicorn.run(
        "api.app:worker_app",
        factory=True,
        workers=workers,
        host="127.0.0.1",
        port=port,
        log_level="warning",
    )
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=DEFAULT_DATA_DIR)
    parser.add_argument("--requests", type=int, default=400, help="requests per query (all clients)")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--papers", type=int, default=10_000, help="papers in the benchmark graph")
    parser.add_argument(
        "--pool",
        type=int,
        default=None,
        help="distinct parameters per query (default: --requests, i.e. no request repeats another)",
    )
    parser.add_argument(
        "--rebuild", action="store_true", help="re-ingest the embedded graph (also one of another size)"
    )
    parser.add_argument(
        "--records", type=Path, help="cached records (bench/neo4j_load.py --extract-to) instead of extracting"
    )
    parser.add_argument("--backends", nargs="+", default=["memory", "neo4j"], choices=["memory", "neo4j"])
    parser.add_argument(
        "--cache-modes",
        nargs="+",
        default=["off"],
        choices=["off", "on"],
        help="response cache (default off: the figures that count; 'on' adds a secondary run)",
    )
    parser.add_argument(
        "--cpu",
        action="store_true",
        help="only measure server CPU time per request (1 client, response cache off)",
    )
    parser.add_argument("--workers", type=int, default=1, help="server worker processes (kg serve --workers)")
    parser.add_argument(
        "--store",
        type=Path,
        default=MEMORY_DIR,
        help="the embedded store to measure (default bench/out/latency; built there when missing)",
    )
    parser.add_argument(
        "--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES), help="queries to measure"
    )
    parser.add_argument(
        "--neo4j-as-is",
        action="store_true",
        help="measure only the graph Neo4j (KG_TEST_NEO4J_URI) holds now: no embedded store, no reload",
    )
    parser.add_argument(
        "--db-pid", type=int, help="with --cpu: also the CPU per request of this process (Neo4j's JVM)"
    )
    parser.add_argument(
        "--hold-words",
        action="store_true",
        help="SQLite, one worker: the server also builds search's word scores at start (held from the "
        "first request; by default a version holds them once searched WARM_SEARCHES times)",
    )
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, default=0, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.port, args.workers)
    if args.hold_words:
        os.environ[HOLD_WORDS] = "1"  # the server subprocesses inherit it

    queries = {name: QUERIES[name] for name in args.queries}
    pool = args.pool or args.requests
    neo4j_uri = os.environ.get("KG_TEST_NEO4J_URI")
    if args.neo4j_as_is:
        if not neo4j_uri:
            raise SystemExit("--neo4j-as-is needs KG_TEST_NEO4J_URI")
        counts, params = neo4j_as_is(neo4j_uri, pool)
    else:
        store = memory_store(args.data_dir, args.papers, args.rebuild, args.records, args.store)
        counts = store.counts()
        params = pick_parameters(store, pool)
    print(f"graph: {counts.nodes}\n       {counts.relationships}")
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_")}
    env["PYTHONPATH"] = str(ROOT)
    backends = ["memory"] if "memory" in args.backends and not args.neo4j_as_is else []
    if args.neo4j_as_is:
        env["KG_NEO4J_URI"] = neo4j_uri or ""
        backends.append("neo4j")
    elif "neo4j" in args.backends:
        if neo4j_uri:
            load_neo4j(neo4j_uri, store, args.data_dir, args.papers, args.records)
            env["KG_NEO4J_URI"] = neo4j_uri
            for var in ("USER", "PASSWORD"):
                if os.environ.get(f"KG_TEST_NEO4J_{var}"):
                    env[f"KG_NEO4J_{var}"] = os.environ[f"KG_TEST_NEO4J_{var}"]
            backends.append("neo4j")
        else:
            print("KG_TEST_NEO4J_URI is not set: skipping the Neo4j backend")

    if args.cpu:
        print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        cpu = {
            b: cpu_per_request(
                b,
                env,
                params,
                args.requests,
                args.workers,
                queries,
                args.store,
                args.db_pid if b == "neo4j" else None,
            )
            for b in backends
        }
        print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
        OUT_DIR.mkdir(parents=True, exist_ok=True)
        (OUT_DIR / "api_cpu.json").write_text(json.dumps(cpu, indent=2) + "\n", encoding="utf-8")
        print(f"\nwrote {OUT_DIR / 'api_cpu.json'}")
        return 0

    report: dict[str, Any] = {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
        },
        "graph": counts.model_dump(),
        "requests_per_query": args.requests,
        "distinct_parameters_per_query": pool,
        "concurrency": args.concurrency,
        "target_p95_ms_memory": TARGET_P95_MS,
        "workers": args.workers,
        "load_average_start": [round(x, 2) for x in os.getloadavg()],
        "backends": {},
    }
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for backend in backends:
        for mode in args.cache_modes:
            key = f"{backend}, response cache {mode}, {args.workers} worker(s)"
            report["backends"][key] = bench_backend(
                backend,
                env,
                params,
                args.requests,
                args.concurrency,
                mode == "on",
                args.workers,
                queries,
                args.store,
            )
    report["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    (OUT_DIR / "api_latency.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print(f"\nwrote {OUT_DIR / 'api_latency.json'}")
    for key, measured in report["backends"].items():
        worst = max(q["p95_ms"] for name, q in measured.items() if name != REFERENCE)
        verdict = "meets" if worst < TARGET_P95_MS else "misses"
        print(f"{key}: worst p95 {worst:.1f} ms ({verdict} the {TARGET_P95_MS:.0f} ms memory target)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
