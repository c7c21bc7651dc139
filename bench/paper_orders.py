"""What each paper order (``PaperQuery.order``) costs the embedded store, on a synthetic store.

Usage::

    python bench/paper_orders.py STORE_DIR [--papers 50000] [--repeats 7]

Builds STORE_DIR once (reused on later runs) from synthetic records made here without the
extractor, seeded: ``--papers`` papers over 2010-2025 (3% without a year), titles from a small
word list (so titles tie), 2,000 authors, one venue per year, and 300 concepts of Zipf-like
popularity (the broadest in about 40% of the papers), each paper mentioning 4-9 of them with
random ``about``, ``salience`` and ``score``. Then times one page (20 papers) of each query
shape in each order the protocol defines, interleaved, and prints the median of ``--repeats``
runs per cell, with the load average. Run it again with another checkout first on
``PYTHONPATH`` to compare two versions of the read code on the same store file.

Why synthetic: the orders' costs depend on the sizes of the sets they sort, not on the words;
a 50k-paper store builds in a minute this way, against most of an hour through the extractor on
a loaded machine.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, get_args

ROOT = Path(__file__).resolve().parents[1]
sys.path.append(str(ROOT))  # last: a checkout on PYTHONPATH (or the installed one) comes first

from kg.core.models import Node, PaperRecord, Relationship  # noqa: E402
from kg.stores.protocol import PaperOrder, PaperQuery  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402

WORDS = "graph neural network learning robust sparse attention policy model diffusion".split()
CONCEPTS = 300
AUTHORS = 2000


def concept(i: int) -> Node:
    return Node(
        id=f"concept:c{i:03d}", label="Concept", properties={"name": f"c{i:03d}", "source": "vocabulary"}
    )


def records(papers: int, seed: int = 7) -> list[PaperRecord]:
    rng = random.Random(seed)
    weights = [1.0 / (i + 1) ** 0.8 for i in range(CONCEPTS)]
    out = []
    for k in range(papers):
        pid = f"paper:s{k:06d}"
        props: dict[str, Any] = {"title": " ".join(rng.choices(WORDS, k=3)), "abstract": "x"}
        if rng.random() > 0.03:
            props["year"] = rng.randint(2010, 2025)
        paper = Node(id=pid, label="Paper", properties=props)
        chosen = sorted(set(rng.choices(range(CONCEPTS), weights=weights, k=rng.randint(4, 9))))
        author = Node(id=f"author:a{rng.randrange(AUTHORS):04d}", label="Author", properties={"name": "A"})
        nodes = [concept(i) for i in chosen] + [author]
        rels = [
            Relationship.model_validate(
                {
                    "type": "MENTIONS",
                    "start": pid,
                    "end": concept(i).id,
                    "properties": {
                        "about": rng.random() < 0.7,
                        "salience": round(rng.random(), 2),
                        "score": round(rng.random() * 10, 2),
                        "count": 1,
                    },
                }
            )
            for i in chosen
        ]
        rels.append(
            Relationship.model_validate(
                {"type": "AUTHORED", "start": author.id, "end": pid, "properties": {"position": 1}}
            )
        )
        out.append(PaperRecord(paper=paper, nodes=nodes, relationships=rels))
    return out


def build(store: SQLiteStore, papers: int) -> None:
    all_records = records(papers)
    for i in range(0, len(all_records), 1000):
        store.upsert(all_records[i : i + 1000])


def shapes() -> dict[str, tuple[PaperQuery, int]]:
    broad = tuple(concept(i).id for i in range(1))
    return {
        "all papers, first page": (PaperQuery(), 0),
        "one year, first page": (PaperQuery(year=2020), 0),
        "broadest concept, first page": (PaperQuery(concepts=broad), 0),
        "broadest concept, offset 2000": (PaperQuery(concepts=broad), 2000),
        "mid concept (c050), first page": (PaperQuery(concepts=(concept(50).id,)), 0),
        "one author, first page": (PaperQuery(author="author:a0001"), 0),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--papers", type=int, default=50_000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    store = SQLiteStore(args.store)
    have = store.counts().nodes.get("Paper", 0)
    if have == 0:
        t = time.perf_counter()
        build(store, args.papers)
        print(f"built {args.papers} papers in {time.perf_counter() - t:.0f} s")
    elif have != args.papers:
        sys.exit(f"{args.store} holds {have} papers, not {args.papers}: use another directory")
    orders: tuple[PaperOrder, ...] = get_args(PaperOrder)
    times: dict[tuple[str, str], list[float]] = {}
    cases = shapes()
    for q, offset in cases.values():  # warm the caches once
        store.papers(q, offset, 20)
    for _ in range(args.repeats):
        for name, (q, offset) in cases.items():
            for order in orders:
                query = PaperQuery(**{**q.__dict__, "order": order})
                t = time.perf_counter()
                page = store.papers(query, offset, 20)
                times.setdefault((name, order), []).append(time.perf_counter() - t)
                assert len(page.ids) == min(20, max(0, page.total - offset))
    print(f"load average {os.getloadavg()[0]:.1f}; medians of {args.repeats} (ms), one page of 20")
    print(f"{'query':34}" + "".join(f"{o:>12}" for o in orders))
    for name in cases:
        cells = "".join(f"{statistics.median(times[(name, o)]) * 1000:12.1f}" for o in orders)
        print(f"{name:34}{cells}")
    store.close()


if __name__ == "__main__":
    main()
