"""Ways to apply a batch's pair-weight changes to the SQLite store, timed on a real store (run by hand).

Why: issue 30 measured the ``COAUTHOR``/``CO_OCCURS`` pair upserts at 42% of the 100k writer
(``INSERT ... ON CONFLICT DO UPDATE`` per pair, one ``executemany`` row each) and asked whether a
set-wise form is cheaper. This plans the upsert of real records (``--records``, cached by
``bench/neo4j_load.py --extract-to``) against a copy of a real store (``--store``, e.g. a base
store ``bench/writer_speed.py`` built) and applies the plan's pair changes each way in a
transaction that is rolled back, so every variant writes the same rows into the same store:

- ``executemany``: one upsert row per pair (what the store did up to 2026-12-04);
- ``json``: the pairs as one JSON array, one ``INSERT ... SELECT ... FROM json_each(?)``
  upsert (no per-row binding in Python; SQLite walks the array in key order);
- ``temp``: the pairs into a TEMP table (plain inserts), one ``INSERT ... SELECT`` upsert from it;
- ``split``: the pairs into a TEMP table, one ``UPDATE ... FROM`` of the stored pairs and one
  ``INSERT ... SELECT`` of the new ones.

Variants alternate within each round (the machine is shared); it prints the median CPU
seconds of each over ``--runs`` rounds, its ratio to ``executemany`` and the load average, and
checks that every variant leaves the same weights.

    python bench/pair_writes.py --store bench/out/ws/base-25000 --records bench/out/records.jsonl \\
        --start 25000 --papers 2000 --runs 5
"""

from __future__ import annotations

import argparse
import os
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import orjson

from kg.core.models import PaperRecord
from kg.stores.sqlite import DB_FILE, SQLiteStore
from kg.stores.sqlite.batch_writes import Known, StoredRows
from kg.stores.write_plan import RelKey, plan_upsert

Pairs = list[tuple[RelKey, int]]
_UPSERT_TAIL = 'WHERE true ON CONFLICT (start, type, "end") DO UPDATE SET weight = weight + excluded.weight'


def by_executemany(c: sqlite3.Connection, pairs: Pairs) -> None:
    c.executemany(
        'INSERT INTO rels (start, type, "end", weight) VALUES (?,?,?,?) '
        'ON CONFLICT (start, type, "end") DO UPDATE SET weight = weight + excluded.weight',
        [(a, t, b, n) for (a, t, b), n in pairs],
    )


def by_json(c: sqlite3.Connection, pairs: Pairs) -> None:
    c.execute(
        'INSERT INTO rels (start, type, "end", weight) '
        "SELECT value ->> 0, value ->> 1, value ->> 2, value ->> 3 FROM json_each(?) " + _UPSERT_TAIL,
        (orjson.dumps([(a, t, b, n) for (a, t, b), n in pairs]),),
    )


def _into_temp(c: sqlite3.Connection, pairs: Pairs) -> None:
    c.execute('CREATE TEMP TABLE IF NOT EXISTS bench_pairs (start TEXT, type TEXT, "end" TEXT, n INTEGER)')
    c.execute("DELETE FROM bench_pairs")
    c.executemany("INSERT INTO bench_pairs VALUES (?,?,?,?)", [(a, t, b, n) for (a, t, b), n in pairs])


def by_temp(c: sqlite3.Connection, pairs: Pairs) -> None:
    _into_temp(c, pairs)
    c.execute(
        'INSERT INTO rels (start, type, "end", weight) SELECT start, type, "end", n FROM bench_pairs '
        + _UPSERT_TAIL
    )


def by_split(c: sqlite3.Connection, pairs: Pairs) -> None:
    _into_temp(c, pairs)
    c.execute(
        "UPDATE rels SET weight = rels.weight + d.n FROM bench_pairs d "
        'WHERE rels.start = d.start AND rels.type = d.type AND rels."end" = d."end"'
    )
    c.execute(
        'INSERT INTO rels (start, type, "end", weight) '
        'SELECT d.start, d.type, d."end", d.n FROM bench_pairs d WHERE NOT EXISTS '
        '(SELECT 1 FROM rels r WHERE r.start = d.start AND r.type = d.type AND r."end" = d."end")'
    )


VARIANTS: dict[str, Callable[[sqlite3.Connection, Pairs], None]] = {
    "executemany": by_executemany,
    "json": by_json,
    "temp": by_temp,
    "split": by_split,
}


def _records(path: Path, start: int, count: int) -> list[PaperRecord]:
    out: list[PaperRecord] = []
    with path.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= start + count:
                break
            if i >= start:
                out.append(PaperRecord.model_validate_json(line))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--store", type=Path, required=True, help="data dir of a store (copied, not changed)")
    parser.add_argument("--records", type=Path, required=True)
    parser.add_argument("--start", type=int, required=True, help="first record to plan (after the store's)")
    parser.add_argument("--papers", type=int, default=2000, help="records in the planned batch")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pair-writes-") as tmp:
        work = Path(tmp)
        shutil.copyfile(args.store / DB_FILE, work / DB_FILE)
        SQLiteStore(work).close()  # any migration of an older store, before the timed runs
        c = sqlite3.connect(work / DB_FILE, isolation_level=None)
        c.execute("PRAGMA cache_size = -65536")  # as the store's writer connection
        c.execute("PRAGMA temp_store = MEMORY")
        c.execute("BEGIN")
        plan = plan_upsert(StoredRows(c, Known()), _records(args.records, args.start, args.papers))
        c.execute("ROLLBACK")
        pairs = plan.pair_changes()
        keys = [key for key, _ in pairs]
        print(
            f"{len(pairs):,} pair changes from {args.papers} records "
            f"({sum(1 for _, n in pairs if n < 0)} negative), load {os.getloadavg()[0]:.2f}",
            flush=True,
        )
        cpu: dict[str, list[float]] = {name: [] for name in VARIANTS}
        weights: dict[str, list[int | None]] = {}
        for i in range(args.runs):
            for name, fn in VARIANTS.items():
                c.execute("BEGIN IMMEDIATE")
                t0 = time.process_time()
                fn(c, pairs)
                cpu[name].append(time.process_time() - t0)
                if i == 0:
                    c.execute(
                        'CREATE TEMP TABLE IF NOT EXISTS bench_keys (start TEXT, type TEXT, "end" TEXT)'
                    )
                    c.execute("DELETE FROM bench_keys")
                    c.executemany("INSERT INTO bench_keys VALUES (?,?,?)", keys)
                    weights[name] = [
                        w
                        for (w,) in c.execute(
                            "SELECT r.weight FROM bench_keys k LEFT JOIN rels r "
                            'ON r.start = k.start AND r.type = k.type AND r."end" = k."end" ORDER BY k.rowid'
                        )
                    ]
                c.execute("ROLLBACK")
            print(
                f"round {i + 1}: " + ", ".join(f"{n} {v[-1]:.3f} s" for n, v in cpu.items()),
                f"(load {os.getloadavg()[0]:.2f})",
                flush=True,
            )
        c.close()
    base = statistics.median(cpu["executemany"])
    for name, values in cpu.items():
        med = statistics.median(values)
        same = "same weights" if weights[name] == weights["executemany"] else "DIFFERENT WEIGHTS"
        print(f"  {name:12s} median {med:.3f} s CPU, {med / base:.2f}x executemany ({same})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
