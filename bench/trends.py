"""Trend targets on a real venue series: a concept's per-year counts and rising concepts.

Usage::

    kg ingest --data-dir bench/out/corl ../shared/data/paperlists/corl/   # once (CoRL 2021-2025)
    python bench/trends.py [--data-dir bench/out/corl] [--venue CoRL] [--from 2021] [--to 2025]
                           [--concept "diffusion policy"]

Checks, through the GraphQL schema (``kg query``'s in-process execution, same resolvers as HTTP):

1. ``concept(name) { trend(venue) }`` per year equals a count made here from the raw graph: the
   concept's ``MENTIONS`` (not marked ``about: false``) and ``INTRODUCES``, of papers published
   in the venue's editions, by the paper's year (read with ``neighbors_many``, no trend query).
2. ``risingConcepts(venue, from, to)`` lists the concept in its top 10.

Both are run twice: counting papers about the concept (``paperCount``), then with
``includeMentions: true`` (every paper that mentions it).

Prints both, the top 10 with their figures, the time of each query, and the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from api.execute import execute_query
from kg.core.config import Settings
from kg.stores.sqlite import SQLiteStore


def run(store: SQLiteStore, document: str) -> tuple[dict[str, Any], float]:
    start = time.perf_counter()
    result = execute_query(document, settings=Settings(), store=store)
    elapsed = time.perf_counter() - start
    if result.get("errors"):
        sys.exit(f"query failed: {result['errors']}")
    data: dict[str, Any] = result["data"]
    return data, elapsed


def ground_truth(store: SQLiteStore, concept_id: str, venue: str, mentions: bool) -> Counter[int]:
    """Papers about (``mentions``: or mentioning) the concept per year among the venue's papers,
    from the raw relationships."""
    venues = {v.id for v in store.nodes_by_label("Venue") if str(v.properties.get("series") or "") == venue}
    about = {
        e.node.id
        for e in store.neighbors_many([concept_id], "MENTIONS", "in")[0]
        if mentions or e.rel.properties.get("about") is not False
    }
    about |= {e.node.id for e in store.neighbors_many([concept_id], "INTRODUCES", "in")[0]}
    ids = sorted(about)
    published = store.neighbors_many(ids, "PUBLISHED_IN", "out")
    counts: Counter[int] = Counter()
    for paper, edges in zip(store.get_nodes(ids), published, strict=True):
        year = paper.properties.get("year") if paper is not None else None
        if isinstance(year, int) and any(e.node.id in venues for e in edges):
            counts[year] += 1
    return counts


def check(store: SQLiteStore, args: argparse.Namespace, mentions: bool) -> None:
    """Both targets, counting about-papers or (``mentions``) every paper that mentions it."""
    concept = args.concept.replace('"', "")
    flag = "true" if mentions else "false"
    data, t_trend = run(
        store,
        f'{{ concept(name: "{concept}") {{ id name paperCount(includeMentions: {flag}) '
        f'trend(venue: "{args.venue}", includeMentions: {flag}) {{ year papers share }} }} }}',
    )
    node = data["concept"]
    if node is None:
        sys.exit(f"no concept named {concept!r}")
    truth = ground_truth(store, node["id"], args.venue, mentions)
    print(f"{node['name']} ({node['id']}), paperCount {node['paperCount']}; trend at {args.venue}:")
    equal = True
    for row in node["trend"]:
        expected = truth.get(row["year"], 0)
        equal &= row["papers"] == expected
        print(
            f"  {row['year']}: {row['papers']:4d} papers ({row['share']:.1%}), "
            f"counted from the graph: {expected}"
        )
    equal &= set(truth) <= {r["year"] for r in node["trend"]}
    print(f"trend equals the count per year: {equal}  (query {t_trend * 1000:.0f} ms)")
    data, t_rise = run(
        store,
        f'{{ risingConcepts(venue: "{args.venue}", from: {args.from_year}, to: {args.to_year}, '
        f"first: 10, includeMentions: {flag}) "
        "{ concept { id name } fromPapers toPapers fromShare toShare growth zScore } }",
    )
    print(f"risingConcepts(venue: {args.venue}, from: {args.from_year}, to: {args.to_year}), top 10:")
    rank = None
    for i, r in enumerate(data["risingConcepts"], start=1):
        if r["concept"]["id"] == node["id"]:
            rank = i
        print(
            f"  {i:2d}. {r['concept']['name']:<32} {r['fromPapers']:4d} -> {r['toPapers']:4d} papers "
            f"({r['fromShare']:.1%} -> {r['toShare']:.1%}), growth {r['growth']:.2f}, z {r['zScore']:.1f}"
        )
    print(f"{node['name']} in the top 10: {rank is not None} (rank {rank})  (query {t_rise * 1000:.0f} ms)\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, default=Path("bench/out/corl"))
    parser.add_argument("--venue", default="CoRL")
    parser.add_argument("--from", dest="from_year", type=int, default=2021)
    parser.add_argument("--to", dest="to_year", type=int, default=2025)
    parser.add_argument("--concept", default="diffusion policy")
    args = parser.parse_args()
    if not (args.data_dir / "kg.sqlite").exists() and not any(args.data_dir.glob("*.sqlite*")):
        sys.exit(f"no store in {args.data_dir}: run `kg ingest --data-dir {args.data_dir} ...` first")
    store = SQLiteStore(args.data_dir)
    for mentions in (False, True):
        print(f"== counting {'every mention' if mentions else 'papers about it (paperCount)'} ==")
        check(store, args, mentions)
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    store.close()


if __name__ == "__main__":
    main()
