"""Latency of every ``ReadStore`` method on a Neo4j graph (run by hand; figures go in notes).

Usage (a graph ingested first, e.g. 10k papers of ``../shared/data/paperlists``):

    PYTHONPATH=$PWD python bench/neo4j_reads.py --uri bolt://127.0.0.1:7687 [--runs 30] [--json out.json]

Each case runs ``--runs`` times after one warm-up call, one client, sequentially; the table has
p50/p95/max in milliseconds, end to end through the driver (Bolt round trip and decoding
included). Arguments are taken from the graph itself (the most-mentioned concepts, the most
prolific authors, real venues and topics), so cases hit real, popular data rather than misses.
The machine's load average is printed with the figures; other work on the machine shows in them.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

import neo4j

from kg.core.names import author_query_key, query_keys
from kg.stores.neo4j.store import Neo4jStore
from kg.stores.protocol import PaperQuery


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def measure(call: Callable[[], Any], runs: int) -> list[float]:
    call()  # warm-up: query plans cached, pages in memory
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        call()
        out.append((time.perf_counter() - t) * 1000)
    return out


def cases(s: Neo4jStore) -> dict[str, Callable[[], Any]]:
    concepts = s.list_concepts(None, None, "PAPER_COUNT", 0, 50).ids
    authors = s.list_authors(None, "PAPER_COUNT", 0, 50).ids
    venues = [n.id for n in s.nodes_by_label("Venue")]
    topics = [n.id for n in s.nodes_by_label("Topic")]
    cnodes = [n for n in s.get_nodes(concepts) if n is not None]
    anodes = [n for n in s.get_nodes(authors) if n is not None]
    ckeys = [k for n in cnodes[:10] for k in query_keys(str(n.properties["name"]))]
    akeys = [author_query_key(str(n.properties["name"])) for n in anodes[:10]]
    top = concepts[0]
    closure = tuple(s.narrower_closure(top, 500))
    ego = authors[:5]
    ring = list(
        dict.fromkeys(ego + [w.id for ws in s.weighted_neighbors(ego, "COAUTHOR", 1, 40) for w in ws])
    )
    year = 2022
    out: dict[str, Callable[[], Any]] = {
        "concepts_by_keys (20 keys)": lambda: s.concepts_by_keys(ckeys),
        "concepts_with_key_suffix": lambda: s.concepts_with_key_suffix("learning", 100),
        "narrower_closure (top concept)": lambda: s.narrower_closure(top, 500),
        "authors_by_keys (10 keys)": lambda: s.authors_by_keys(akeys),
        "papers: all, first 20": lambda: s.papers(PaperQuery(), 0, 20),
        "papers: all, offset 5000": lambda: s.papers(PaperQuery(), 5000, 20),
        "papers: year": lambda: s.papers(PaperQuery(year=year), 0, 20),
        f"papers: top concept closure ({len(closure)})": lambda: s.papers(
            PaperQuery(concepts=closure), 0, 20
        ),
        "papers: concept about_only": lambda: s.papers(PaperQuery(concepts=closure, about_only=True), 0, 20),
        "papers: concept + year": lambda: s.papers(PaperQuery(concepts=closure, year=year), 0, 20),
        "papers: author": lambda: s.papers(PaperQuery(author=authors[0]), 0, 20),
        "papers: text": lambda: s.papers(PaperQuery(text="graph neural networks"), 0, 20),
        "papers: text + year": lambda: s.papers(PaperQuery(text="language model", year=year), 0, 20),
        "paper_count: concept": lambda: s.paper_count(PaperQuery(concepts=closure)),
        "list_concepts: by count": lambda: s.list_concepts(None, None, "PAPER_COUNT", 0, 20),
        "list_concepts: by name, offset 500": lambda: s.list_concepts(None, None, "NAME", 500, 20),
        "list_concepts: search": lambda: s.list_concepts("learn", None, "PAPER_COUNT", 0, 20),
        "list_concepts: kind": lambda: s.list_concepts(None, "METHOD", "PAPER_COUNT", 0, 20),
        "list_authors: by count": lambda: s.list_authors(None, "PAPER_COUNT", 0, 20),
        "list_authors: by name": lambda: s.list_authors(None, "NAME", 0, 20),
        "list_authors: search": lambda: s.list_authors("wang", "PAPER_COUNT", 0, 20),
        "weighted_neighbors: 10 authors": lambda: s.weighted_neighbors(authors[:10], "COAUTHOR", 1, 50),
        "weighted_neighbors: 5 concepts": lambda: s.weighted_neighbors(concepts[:5], "CO_OCCURS", 1, 50),
        f"pair_edges_among: {len(ring)} authors": lambda: s.pair_edges_among(ring, "COAUTHOR", 1),
        "pair_edges_among: 50 concepts": lambda: s.pair_edges_among(concepts, "CO_OCCURS", 1),
        "strongest_nodes: COAUTHOR": lambda: s.strongest_nodes("COAUTHOR", 1, 200),
        "strongest_nodes: CO_OCCURS": lambda: s.strongest_nodes("CO_OCCURS", 2, 200),
        "heaviest_pairs: COAUTHOR 5000": lambda: s.heaviest_pairs("COAUTHOR", 5000),
        "heaviest_pairs: CO_OCCURS 5000": lambda: s.heaviest_pairs("CO_OCCURS", 5000),
    }
    if venues:  # listings without venues (or topics) skip those cases
        v = (venues[0],)
        out["papers: venue"] = lambda: s.papers(PaperQuery(venues=v), 0, 20)
        out["papers: venue + concept"] = lambda: s.papers(PaperQuery(venues=v, concepts=closure), 0, 20)
    if topics:
        out["papers: topic"] = lambda: s.papers(PaperQuery(topics=(topics[0],)), 0, 20)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--uri", default="bolt://127.0.0.1:7687")
    ap.add_argument("--runs", type=int, default=30)
    ap.add_argument("--only", help="run the cases whose name contains this text")
    ap.add_argument("--json", help="also write the figures here")
    args = ap.parse_args()
    with neo4j.GraphDatabase.driver(args.uri) as driver:
        s = Neo4jStore(driver)
        counts = s.counts()
        print(f"graph: {counts.nodes} {counts.relationships}")
        results = {}
        for name, call in cases(s).items():
            if args.only and args.only not in name:
                continue
            ms = measure(call, args.runs)
            results[name] = {
                "p50": statistics.median(ms),
                "p95": percentile(ms, 95),
                "max": max(ms),
            }
            r = results[name]
            print(f"{name:45s} p50 {r['p50']:8.1f}  p95 {r['p95']:8.1f}  max {r['max']:8.1f} ms", flush=True)
        load = os.getloadavg()
        print(f"load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} ({os.cpu_count()} cpus)")
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"cases": results, "load": load, "counts": counts.model_dump()}, f, indent=1)


if __name__ == "__main__":
    main()
