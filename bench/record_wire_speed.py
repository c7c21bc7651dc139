"""A batch of records across the worker pipe: pickled models against ``kg.ingest.record_wire`` (run by hand).

Why: the extraction workers send every batch's records to the one writer process; the writer's
side (unpickling, rebuilding) is on the ingest's critical path. This extracts ``--papers``
records of one listing once (spaCy fast mode, as ``kg ingest``) and times, in CPU seconds,
medians of ``--runs``, the ways alternated, with the collector off as in the ingest's hot loop:
the worker's side (``pickle.dumps`` of the models, or ``pack`` + ``dumps``) and the writer's
(``pickle.loads``, or ``loads`` + ``unpack``); each way's result is checked equal to the records.

    python bench/record_wire_speed.py LISTING.json --papers 500 --runs 9
"""

from __future__ import annotations

import argparse
import gc
import pickle
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from kg.ingest.nlp import load_nlp  # noqa: E402
from kg.ingest.pipeline import Pipeline  # noqa: E402
from kg.ingest.record_wire import pack, unpack  # noqa: E402
from kg.readers import read_file  # noqa: E402

P = pickle.HIGHEST_PROTOCOL


def cpu(ways: list[Callable[[], object]], runs: int) -> list[float]:
    """Median CPU seconds of each way, the ways alternated run by run (drift hits all alike)."""
    times: list[list[float]] = [[] for _ in ways]
    for _ in range(runs):
        for i, fn in enumerate(ways):
            gc.disable()
            t = time.process_time()
            fn()
            times[i].append(time.process_time() - t)
            gc.enable()
    return [statistics.median(t) for t in times]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("listing", type=Path)
    ap.add_argument("--papers", type=int, default=500)
    ap.add_argument("--runs", type=int, default=9)
    args = ap.parse_args()
    papers = read_file(args.listing).papers[: args.papers]
    records, _ = Pipeline(nlp=load_nlp()).build(papers)
    models, wires = pickle.dumps(records, protocol=P), pickle.dumps(pack(records), protocol=P)
    assert pickle.loads(models) == records and unpack(pickle.loads(wires)) == records
    nodes = sum(len(r.nodes) for r in records)
    rels = sum(len(r.relationships) for r in records)
    print(
        f"{len(records)} records, {nodes} nodes, {rels} relationships; "
        f"bytes: models {len(models):,}, wire {len(wires):,}"
    )
    names = [
        "worker: dumps(models)",
        "worker: dumps(pack(records))",
        "writer: loads(models)",
        "writer: unpack(loads(wire))",
    ]
    medians = cpu(
        [
            lambda: pickle.dumps(records, protocol=P),
            lambda: pickle.dumps(pack(records), protocol=P),
            lambda: pickle.loads(models),
            lambda: unpack(pickle.loads(wires)),
        ],
        args.runs,
    )
    rows = list(zip(names, medians, strict=True))
    for name, seconds in rows:
        print(f"{name:32s} {seconds * 1000:8.1f} ms  ({seconds / len(records) * 1e6:.0f} us a paper)")


if __name__ == "__main__":
    main()
