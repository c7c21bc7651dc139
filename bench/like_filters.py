"""`papers(where: {like, ...})` with other conditions: what the filter-first rule buys, and its cost.

Usage::

    python bench/like_filters.py DIR [--runs 5] [--text "..."]

``DIR`` is an embedded store with embeddings (e.g. ``kg ingest --data-dir DIR`` of the dev files
listed in bench/README.md). For each filter, through :class:`kg.read.service.ReadService`: the
size of the matching set, the median wall time of ``like`` (top 20) ranking the matching set
whole (the shipped rule at this size) and of the pooled way (the 10,000 nearest papers filtered,
what the service does above :data:`kg.read.likeness.FILTER_FIRST_MAX` matches), and how many of
the exact top 20 the nearest-then-filter way with a pool of the 1,000 nearest finds (what a plain
"nearest, then filter" design would answer). Prints the load average.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

from kg.read import likeness
from kg.read.service import PaperFilter, ReadService
from kg.stores.sqlite import SQLiteStore

FILTERS = [
    PaperFilter(venue="CoRL", year=2024),
    PaperFilter(concept="diffusion policy"),
    PaperFilter(venue="ICLR"),
    PaperFilter(text="manipulation"),
]
TOP = 20


def timed(service: ReadService, text: str, where: PaperFilter, runs: int) -> tuple[list[str], float, int]:
    """Ids of the top :data:`TOP`, the median seconds of ``runs`` calls, and the total."""
    query = service.paper_query(where)
    times, ids, total = [], [], 0
    for _ in range(runs):
        start = time.perf_counter()
        found, total = service.like(text, 0, TOP, query)
        times.append(time.perf_counter() - start)
        ids = [s.node.id for s in found]
    return ids, statistics.median(times), total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("store", type=Path)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--text", default="robots that learn manipulation skills from human videos")
    args = ap.parse_args()
    service = ReadService(SQLiteStore(args.store))
    service.like(args.text, 0, 1)  # embeds the text and loads the matrix once
    first_max, pool = likeness.FILTER_FIRST_MAX, likeness.LIKE_POOL
    print(f"load before: {os.getloadavg()}")
    print("| filter | matching | filter-first ms | pooled (10k) ms | top 20 in nearest 1,000 + filter |")
    print("|---|---|---|---|---|")
    for where in FILTERS:
        label = ", ".join(f"{k}={v!r}" for k, v in vars(where).items() if v is not None and k != "about_only")
        matching = service.paper_count(service.paper_query(where))
        likeness.FILTER_FIRST_MAX, likeness.LIKE_POOL = first_max, pool
        exact, t_first, _ = timed(service, args.text, where, args.runs)
        likeness.FILTER_FIRST_MAX = 0
        _, t_pool, _ = timed(service, args.text, where, args.runs)
        likeness.LIKE_POOL = 1000
        naive, _, _ = timed(service, args.text, where, 1)
        found = len(set(naive) & set(exact))
        ms = f"{t_first * 1000:.1f} | {t_pool * 1000:.1f}"
        print(f"| {label} | {matching:,} | {ms} | {found} of {len(exact)} |")
    likeness.FILTER_FIRST_MAX, likeness.LIKE_POOL = first_max, pool
    print(f"load after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
