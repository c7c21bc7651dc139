"""Likeness targets on the dev papers with author keywords, and what embedding costs.

Usage::

    python bench/similar.py [--out bench/out/similar] [--sample 300] [--seed 7] [FILE ...]

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
   ``similar`` papers; the share of them that have at least one of its author keywords
   (casefolded, exact), against 5 random papers of the same venue (``--seed``), per venue and
   overall.

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
from pathlib import Path
from typing import Any

import numpy as np

from api.execute import execute_query
from extractors.embedding import DIMENSIONS, Embedder, paper_text, quantize, to_blob
from kg.core.config import Settings
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline
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


def folded(values: Any) -> set[str]:
    return {str(v).casefold().strip() for v in values or [] if str(v).strip()}


def likeness(store: SQLiteStore, seed: int) -> None:
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
    rng = random.Random(seed)
    # per pair: the share of the 5 shown papers with a shared keyword; per query: the share of
    # query papers whose 5 include at least one such paper (the target)
    totals = [0] * 8
    print(
        f"  {'venue':<12}{'papers':>8}{'similar pair':>14}{'random pair':>13}"
        f"{'similar any':>13}{'random any':>12}"
    )
    for venue in sorted(by_venue):
        papers = by_venue[venue]
        c = [0] * 8  # sim pair hits, sim pairs, rnd pair hits, rnd pairs, sim any, rnd any, queries
        for p in papers:
            mine = folded(p["keywords"])
            if not mine or not p["similar"]:
                continue
            others = [o for o in papers if o["id"] != p["id"]]
            sim = [bool(mine & folded(s["paper"]["keywords"])) for s in p["similar"]]
            rnd = [bool(mine & folded(o["keywords"])) for o in rng.sample(others, min(TOP, len(others)))]
            c[0] += sum(sim)
            c[1] += len(sim)
            c[2] += sum(rnd)
            c[3] += len(rnd)
            c[4] += any(sim)
            c[5] += any(rnd)
            c[6] += 1
        totals = [a + b for a, b in zip(totals, c, strict=True)]
        if c[6]:
            print(f"  {venue:<12}{c[6]:>8}" + _shares(c))
    print(f"  {'all':<12}{totals[6]:>8}" + _shares(totals))
    print(f"  (query papers with author keywords; pair: share of the {TOP} papers with >= 1 shared keyword;")
    print(
        f"   any: share of query papers whose {TOP} include >= 1 such paper; random: {TOP} of the same venue)"
    )


def _shares(c: list[int]) -> str:
    def pct(a: int, b: int) -> str:
        return f"{100 * a / max(b, 1):.1f}%"

    return f"{pct(c[0], c[1]):>14}{pct(c[2], c[3]):>13}{pct(c[4], c[6]):>13}{pct(c[5], c[6]):>12}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", type=Path, default=DEFAULT_FILES)
    ap.add_argument("--out", type=Path, default=ROOT / "bench/out/similar")
    ap.add_argument("--sample", type=int, default=300, help="papers for the per-paper CPU figures")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--skip-ingest", action="store_true", help="reuse OUT/embed from an earlier run")
    ap.add_argument("--scan-rows", type=int, default=100_000, help="vectors in the scan timing")
    ap.add_argument("--only-likeness", action="store_true", help="just part 2 on OUT/embed")
    args = ap.parse_args()
    print(f"load average before: {os.getloadavg()}")
    if not (args.skip_ingest or args.only_likeness):
        print("kg ingest, --no-embed then with embeddings:")
        wall0, cpu0 = ingest(args.files, args.out / "plain", embed=False)
        wall1, cpu1 = ingest(args.files, args.out / "embed", embed=True)
        print(f"  --no-embed: {wall0:.1f} s wall, {cpu0:.1f} s CPU")
        print(f"  embedded:   {wall1:.1f} s wall, {cpu1:.1f} s CPU")
        print(f"  ratio embedded / --no-embed: {wall1 / wall0:.2f}x wall, {cpu1 / cpu0:.2f}x CPU")
    if args.only_likeness:
        return likeness_on(args.out / "embed", args.seed)
    ext, emb = cost_per_paper(args.files, args.sample)
    print(
        f"per paper (CPU, {args.sample} papers): extraction {ext:.1f} ms, "
        f"embedding {emb:.1f} ms, ratio {emb / ext:.2f}"
    )
    scan_speed(args.scan_rows)
    likeness_on(args.out / "embed", args.seed)


def likeness_on(data_dir: Path, seed: int) -> None:
    print("likeness through the API:")
    store = SQLiteStore(data_dir)
    try:
        likeness(store, seed)
    finally:
        store.close()
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
