"""Likeness targets on the dev papers with author keywords, and what embedding costs.

Usage::

    python bench/similar.py [--out bench/out/similar] [--sample 300] [--seeds 5] [FILE ...]

Default files (relative to the repo root): ``../shared/data/iclr2018.jsonl``,
``../shared/data/colm2024.jsonl``, ``../shared/data/paperlists/corl/`` and
``../shared/data/paperlists/3dv/3dv2025.json``.

1. **Cost.** ``kg ingest`` of the files into two fresh SQLite stores, with ``--no-embed`` and
   with embeddings (the default), one after the other: wall time and the CPU time of the ingest
   process and its workers, and the ratio. Then, in this process on the same ``--sample``
   papers, the CPU time of extraction (``Pipeline.build`` without an embedder) against that of
   embedding them: the cost per paper as a ratio to extraction's.
2. **Likeness.** Through the GraphQL schema (``kg query``'s in-process execution, the same
   resolvers as HTTP) on the embedded store: for every paper with author keywords, its top 5
   ``similar`` papers; the share of papers whose 5 include one with at least one of its author
   keywords, against 5 random papers of the same venue (the mean of ``--seeds`` draws), per
   venue and overall, under four matching rules (:func:`matching_rules`).
3. **Cost per request** (``--only-likeness`` too): ``ReadService.similar`` for ``--timed``
   papers, each on a fresh service (no cache), median and 95th percentile ms, and the part of it
   spent comparing the wording of the pool's abstracts (:func:`kg.read.likeness.wording_similarity`).

Prints the figures and the load average.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from api.execute import execute_query
from extractors.embedding import DIMENSIONS, Embedder, paper_text, quantize, to_blob
from kg.core.config import Settings
from kg.core.names import loose_key
from kg.eval.evaluation import stem_phrase
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline
from kg.read import likeness as likeness_rule
from kg.read.resolve import resolve_concept
from kg.read.service import ReadService
from kg.readers import iter_input_files, read_file
from kg.stores.nearest import Matrix
from kg.stores.sqlite import SQLiteStore

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FILES = [
    ROOT.parent / "shared/data/iclr2018.jsonl",
    ROOT.parent / "shared/data/colm2024.jsonl",
    ROOT.parent / "shared/data/paperlists/corl",
    ROOT.parent / "shared/data/paperlists/3dv/3dv2025.json",
]
TOP = 5
PAGE = 50  # papers per API page (first <= 100)
QUERY = """query($after: String) { papers(first: %d, after: $after) {
  pageInfo { hasNextPage endCursor }
  nodes { id keywords venue { name } similar(first: %d) { paper { id keywords } } } } }"""


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def ingest(files: list[Path], data_dir: Path, embed: bool) -> tuple[float, float]:
    """Wall and CPU seconds of one ``kg ingest`` into a fresh store."""
    shutil.rmtree(data_dir, ignore_errors=True)
    cmd = [sys.executable, "-m", "api.cli", "ingest", "--no-progress", "--data-dir", str(data_dir)]
    cmd += [str(f) for f in files] + ([] if embed else ["--no-embed"])
    cpu, start = children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - start
    if done.returncode not in (0, 1):
        sys.exit(f"kg ingest failed ({done.returncode}): {done.stderr[-2000:]}")
    print("  " + done.stdout.splitlines()[0])
    return wall, children_cpu() - cpu


def cost_per_paper(files: list[Path], sample: int) -> tuple[float, float]:
    """CPU ms per paper of extraction and of embedding, on the same papers, in this process."""
    raws = [p for f in iter_input_files(files) if isinstance(f, Path) for p in read_file(f).papers][:sample]
    pipeline = Pipeline(nlp=load_nlp())
    pipeline.build(raws[:20])  # warm
    embedder = Embedder(threads=1)
    embedder.embed(["warm up"])
    t = time.process_time()
    records, _ = pipeline.build(raws)
    extraction = time.process_time() - t
    texts = [
        paper_text(str(r.paper.properties.get("title")), str(r.paper.properties.get("abstract")))
        for r in records
    ]
    t = time.process_time()
    embedder.embed(texts)
    embedding = time.process_time() - t
    return 1000 * extraction / len(records), 1000 * embedding / len(records)


def scan_speed(rows: int, repeats: int = 20) -> None:
    """The embedded store's nearest-paper scan (:class:`kg.stores.nearest.Matrix`) over ``rows``
    random unit vectors: median query time, the matrix's memory, and the time to build it."""
    rng = np.random.default_rng(0)
    vectors = rng.standard_normal((rows, DIMENSIONS)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    start = time.perf_counter()
    matrix = Matrix([f"paper:{i:06d}" for i in range(rows)], quantize(vectors))
    print(f"matrix of {rows:,} built in {time.perf_counter() - start:.2f} s")
    times = []
    for i in range(repeats):
        query = to_blob(quantize(vectors[i : i + 1])[0])
        start = time.perf_counter()
        matrix.nearest(query, 10, [f"paper:{i:06d}"])
        times.append(time.perf_counter() - start)
    print(
        f"scan of {rows:,} x {DIMENSIONS} int8: median {1000 * statistics.median(times):.1f} ms per query "
        f"(max {1000 * max(times):.1f}), matrix {matrix.unit.nbytes / 2**20:.1f} MiB"
    )


def matching_rules(store: SQLiteStore) -> dict[str, Callable[[str], str]]:
    """What counts as sharing an author keyword, from strictest to loosest (each one the
    keywords' form compared for equality):

    - ``exact``: casefolded and stripped ("Deep RL" = "deep rl");
    - ``stem``: Porter-stemmed words, the keyphrase evaluation's matching (kg.eval.evaluation, the
      concept F1 of bench/concepts.py): "neural networks" = "neural network";
    - ``loose``: the project's concept-name key (kg.core.names.loose_key: folded, singular,
      punctuation-blind): "multi-armed bandits" = "multi armed bandit";
    - ``concept``: the concept the keyword names in this store (kg.read.resolve, what
      ``concept(name:)`` answers: aliases, acronyms, the head-noun rule), else its loose key:
      "RL" = "reinforcement learning" when the store says so. Broadest: also the random
      baseline rises most.
    """
    concept_of: dict[str, str] = {}

    def concept(k: str) -> str:
        if k not in concept_of:
            node = resolve_concept(store, k)
            concept_of[k] = node.id if node is not None else "l:" + loose_key(k)
        return concept_of[k]

    return {
        "exact": lambda k: k.casefold().strip(),
        "stem": lambda k: " ".join(stem_phrase(k)),
        "loose": loose_key,
        "concept": concept,
    }


def keyword_sets(values: Any, rule: Callable[[str], str]) -> set[str]:
    return {rule(str(v)) for v in values or [] if str(v).strip()} - {""}


def likeness(store: SQLiteStore, seeds: int) -> None:
    rows: list[dict[str, Any]] = []
    after: str | None = None
    start = time.perf_counter()
    while True:
        result = execute_query(QUERY % (PAGE, TOP), {"after": after}, settings=Settings(), store=store)
        if result.get("errors"):
            sys.exit(f"query failed: {result['errors']}")
        page = result["data"]["papers"]
        rows += page["nodes"]
        if not page["pageInfo"]["hasNextPage"]:
            break
        after = page["pageInfo"]["endCursor"]
    elapsed = time.perf_counter() - start
    print(f"  {len(rows)} papers read with their top {TOP} similar in {elapsed:.1f} s")
    by_venue: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        by_venue[(r["venue"] or {}).get("name") or "?"].append(r)
    rules = matching_rules(store)
    print(
        f"  any of {TOP} shares a keyword: similar / random {TOP} of the same venue "
        f"(mean of {seeds} seeds), per matching rule"
    )
    print(f"  {'venue':<12}{'papers':>8}" + "".join(f"{name:>16}" for name in rules))
    totals: dict[str, list[float]] = {name: [0, 0.0] for name in rules}
    queries_all = 0
    for venue in sorted(by_venue):
        papers = by_venue[venue]
        queries = [p for p in papers if p["keywords"] and p["similar"]]
        if not queries:
            continue
        cells = []
        for name, rule in rules.items():
            kw = {p["id"]: keyword_sets(p["keywords"], rule) for p in papers}
            shown = [s["paper"] for p in queries for s in p["similar"]]
            kw.update({o["id"]: keyword_sets(o["keywords"], rule) for o in shown})
            sim = sum(any(kw[p["id"]] & kw[s["paper"]["id"]] for s in p["similar"]) for p in queries)
            rnd = 0.0
            for seed in range(seeds):
                rng = random.Random(seed)
                for p in queries:
                    others = [o["id"] for o in papers if o["id"] != p["id"]]
                    rnd += any(kw[p["id"]] & kw[o] for o in rng.sample(others, min(TOP, len(others)))) / seeds
            totals[name][0] += sim
            totals[name][1] += rnd
            cells.append(f"{_pct(sim, len(queries))} / {_pct(rnd, len(queries))}")
        queries_all += len(queries)
        print(f"  {venue:<12}{len(queries):>8}" + "".join(f"{c:>16}" for c in cells))
    print(
        f"  {'all':<12}{queries_all:>8}"
        + "".join(f"{_pct(a, queries_all) + ' / ' + _pct(b, queries_all):>16}" for a, b in totals.values())
    )
    print("  (query papers with author keywords; the issue's target: >= 70% similar against <= 15% random)")


def request_cost(store: SQLiteStore, timed: int) -> None:
    """Milliseconds of one ``similar`` (top 5) on a fresh service, for ``timed`` papers spread
    over the store, and of its wording comparison alone on the same pool."""
    ids = sorted(n.id for n in store.nodes_by_label("Paper"))[
        :: max(1, len(store.nodes_by_label("Paper")) // timed)
    ]
    total: list[float] = []
    wording: list[float] = []
    for pid in ids[:timed]:
        service = ReadService(store)
        start = time.perf_counter()
        found = service.similar(pid, TOP)
        total.append(1000 * (time.perf_counter() - start))
        vector = store.paper_embeddings([pid])[0]
        if not found or vector is None:
            continue
        pool = store.nearest_papers(vector, likeness_rule.RERANK_POOL, exclude=[pid])
        nodes = [n for n in store.get_nodes([pid, *(p for p, _ in pool)]) if n is not None]
        texts = [f"{n.properties.get('title') or ''}\n{n.properties.get('abstract') or ''}" for n in nodes]
        start = time.perf_counter()
        likeness_rule.wording_similarity(texts[0], texts[1:])
        wording.append(1000 * (time.perf_counter() - start))
    q = statistics.quantiles(total, n=20)[-1] if len(total) > 1 else total[0]
    print(
        f"  similar(first: {TOP}) on a fresh service, {len(total)} papers: median "
        f"{statistics.median(total):.1f} ms, p95 {q:.1f} ms; of which the wording of the "
        f"{likeness_rule.RERANK_POOL} nearest abstracts: median {statistics.median(wording):.1f} ms"
    )


def _pct(a: float, b: int) -> str:
    return f"{100 * a / max(b, 1):.1f}%"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/out/similar")
    ap.add_argument("--sample", type=int, default=300, help="papers for the per-paper CPU figures")
    ap.add_argument("--seeds", type=int, default=5, help="random same-venue draws averaged")
    ap.add_argument("--skip-ingest", action="store_true", help="reuse OUT/embed from an earlier run")
    ap.add_argument("--scan-rows", type=int, default=100_000, help="vectors in the scan timing")
    ap.add_argument("--only-likeness", action="store_true", help="just parts 2 and 3 on OUT/embed")
    ap.add_argument("--timed", type=int, default=200, help="papers in the per-request timing")
    ap.add_argument(
        "--wording-weight",
        type=float,
        default=likeness_rule.WORDING_WEIGHT,
        help="similar's weight of the wording (a design with another cosine scale, bench/static_table.py)",
    )
    args = ap.parse_args()
    likeness_rule.WORDING_WEIGHT = args.wording_weight
    print(f"load average before: {os.getloadavg()}")
    if not (args.skip_ingest or args.only_likeness):
        print("kg ingest, --no-embed then with embeddings:")
        wall0, cpu0 = ingest(args.files, args.out / "plain", embed=False)
        wall1, cpu1 = ingest(args.files, args.out / "embed", embed=True)
        print(f"  --no-embed: {wall0:.1f} s wall, {cpu0:.1f} s CPU")
        print(f"  embedded:   {wall1:.1f} s wall, {cpu1:.1f} s CPU")
        print(f"  ratio embedded / --no-embed: {wall1 / wall0:.2f}x wall, {cpu1 / cpu0:.2f}x CPU")
    if args.only_likeness:
        return likeness_on(args.out / "embed", args.seeds, args.timed)
    ext, emb = cost_per_paper(args.files, args.sample)
    print(
        f"per paper (CPU, {args.sample} papers): extraction {ext:.1f} ms, "
        f"embedding {emb:.1f} ms, ratio {emb / ext:.2f}"
    )
    scan_speed(args.scan_rows)
    likeness_on(args.out / "embed", args.seeds, args.timed)


def likeness_on(data_dir: Path, seeds: int, timed: int) -> None:
    print("likeness through the API:")
    store = SQLiteStore(data_dir)
    try:
        likeness(store, seeds)
        request_cost(store, timed)
    finally:
        store.close()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
