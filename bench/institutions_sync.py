"""Memory and time of :func:`kg.authors.institutions.sync` alone on an existing SQLite store.

Every ingest ends with the sync (the institution graph is derived from every stored slot), so at
100k papers it set the ingest's peak RSS. Each run is a fresh process: open the store, note VmRSS,
run the sync, print the peak (VmHWM) minus that, the time and whether it rewrote the graph.
``--rewrite`` first deletes one author's ``AFFILIATED_WITH`` relationships, so the sync has to
write (as after an ingest that adds papers). It changes the store: run it on a copy.

    python bench/institutions_sync.py COPY_OF_DATA_DIR [--runs 3] [--rewrite]

To compare with another commit, run the same script with ``PYTHONPATH`` at that commit's tree
(the runs use ``python -P``, so the current directory does not come first).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
from pathlib import Path

_ONE = """
import sys, time
from pathlib import Path
from kg.authors.institutions import sync
from kg.stores.sqlite import SQLiteStore

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) // 1024
    raise RuntimeError(key)

store = SQLiteStore(Path(sys.argv[1]))
before = status("VmRSS:")
t0 = time.perf_counter()
result = sync(store)
seconds = time.perf_counter() - t0
print(status("VmHWM:") - before, seconds, result.changed, result.institutions, result.affiliations)
"""


def _drop_one_author(db: Path) -> None:
    c = sqlite3.connect(db)
    c.execute(
        "DELETE FROM rels WHERE type = 'AFFILIATED_WITH' AND start = "
        "(SELECT min(start) FROM rels WHERE type = 'AFFILIATED_WITH')"
    )
    c.commit()
    c.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data_dir", type=Path)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--rewrite", action="store_true", help="make the sync write (changes the store)")
    args = ap.parse_args()
    deltas, times = [], []
    print(f"load average {os.getloadavg()[0]:.2f}")
    for i in range(args.runs):
        if args.rewrite:
            _drop_one_author(args.data_dir / "graph.sqlite")
        out = subprocess.run(
            [sys.executable, "-P", "-c", _ONE, str(args.data_dir)], check=True, capture_output=True, text=True
        ).stdout.split()
        delta, seconds = int(out[0]), float(out[1])
        deltas.append(delta)
        times.append(seconds)
        what = f"rewritten {out[2]}, {out[3]} institutions, {out[4]} affiliations"
        print(f"run {i + 1}: +{delta} MB, {seconds:.1f} s, {what}")
    print(f"median: +{statistics.median(deltas)} MB, {statistics.median(times):.1f} s")
    print(f"load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
