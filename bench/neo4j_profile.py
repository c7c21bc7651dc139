"""Server-side profile of the Neo4j store's incremental upsert: every statement of a batch under ``PROFILE``.

Usage::

    # a base store (bulk-loaded from cached records, see bench/neo4j_load.py --extract-to), then
    # profile the next batches, each one upsert (one transaction) of --batch papers:
    python bench/neo4j_profile.py --records R --base 30000 --load-base --batch 500 --batches 2 \
        --home .neo4j --uri bolt://127.0.0.1:7687 --yes
    # later runs on the grown store: drop --load-base and move --base past what was written
    python bench/neo4j_profile.py --records R --base 31000 --batch 500 --batches 1

Why: Python-side timings of a statement include the Bolt round trip and the client's decoding,
and cannot tell a statement that does too much work on the server (db hits, an ``Eager``
barrier, a label scan where an index seek was meant) from one that waits for the CPU the
client holds. Every statement an upsert sends (the store's and the read index's) is run as
``PROFILE <statement>`` in the upsert's own transaction; per statement text the table gives
calls, rows, seconds, server db hits, page-cache misses, the operators with most db hits, and
flags for operators that usually mean a missed index or a barrier (``Eager``,
``AllNodesScan``, ``NodeByLabelScan``, ``CartesianProduct``, ``Expand(All)`` on a relationship
whose ends were both bound). The commit is timed separately. ``PROFILE`` slows each statement
somewhat; compare statements with each other, not with ``bench/neo4j_load.py``.

It writes the batches into the target database (``--load-base`` first deletes everything,
``--yes`` is required when it is not empty).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neo4j  # noqa: E402

from bench.neo4j_load import Run, clear, load_records, transaction_hooks  # noqa: E402
from kg.core.config import Settings  # noqa: E402
from kg.stores.neo4j.bulk import bulk_load, default_home, driver_for  # noqa: E402
from kg.stores.neo4j.store import Neo4jStore  # noqa: E402

SUSPECT = ("Eager", "AllNodesScan", "NodeByLabelScan", "CartesianProduct")


@dataclass
class StatementProfile:
    """Totals of one statement text over a run (role: bench accumulator)."""

    calls: int = 0
    seconds: float = 0.0
    rows: int = 0
    db_hits: int = 0
    misses: int = 0
    operators: Counter[str] = field(default_factory=Counter)  # db hits per operator
    flags: set[str] = field(default_factory=set)


def _walk(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    yield plan
    for child in plan.get("children", []) or []:
        yield from _walk(child)


class _Done:
    """What a caller of ``Transaction.run`` uses of a result, over records already fetched."""

    def __init__(self, records: list[neo4j.Record], summary: neo4j.ResultSummary) -> None:
        self._records, self._summary = records, summary

    def __iter__(self) -> Iterator[neo4j.Record]:
        return iter(self._records)

    def single(self, strict: bool = False) -> neo4j.Record | None:
        if len(self._records) != 1 and strict:
            raise RuntimeError(f"expected one record, got {len(self._records)}")
        return self._records[0] if self._records else None

    def consume(self) -> neo4j.ResultSummary:
        return self._summary


def _key(text: str) -> str:
    return " ".join(text.split())[:90]


@contextlib.contextmanager
def profiled(totals: dict[str, StatementProfile], commits: list[float]) -> Iterator[None]:
    """Run every statement of explicit transactions under ``PROFILE`` and time every commit."""

    def wrap(run: Run) -> Run:
        def profiled_run(self: neo4j.Transaction, query: str, parameters: Any = None, **kw: Any) -> Any:
            t = time.perf_counter()
            result = run(self, f"PROFILE {query}", parameters, **kw)
            records = list(result)
            summary = result.consume()
            entry = totals.setdefault(_key(query), StatementProfile())
            entry.calls += 1
            entry.seconds += time.perf_counter() - t
            plan = summary.profile or {}
            for op in _walk(plan):
                name = str(op.get("operatorType", "?")).split("@")[0]
                hits = int(op.get("dbHits", 0) or 0)
                entry.db_hits += hits
                entry.misses += int(op.get("pageCacheMisses", 0) or 0)
                entry.operators[name] += hits
                if name.startswith(SUSPECT):
                    entry.flags.add(name)
            entry.rows += int(plan.get("rows", 0) or 0)
            return _Done(records, summary)

        return profiled_run

    with transaction_hooks(wrap, commits.append):
        yield


def report(totals: dict[str, StatementProfile], commits: list[float], wall: float, papers: int) -> None:
    spent = sum(e.seconds for e in totals.values())
    print(
        f"{papers} papers in {wall:.1f} s ({papers / wall:.0f} papers/s under PROFILE): statements "
        f"{spent:.1f} s, commit {sum(commits):.1f} s, client {wall - spent - sum(commits):.1f} s; "
        f"load average {os.getloadavg()[0]:.1f}"
    )
    print(f"{'seconds':>8} {'calls':>5} {'rows':>8} {'db hits':>10} {'misses':>8}  statement / top operators")
    for text, e in sorted(totals.items(), key=lambda kv: -kv[1].seconds):
        ops = ", ".join(f"{op} {hits}" for op, hits in e.operators.most_common(3) if hits)
        flags = f"  [{', '.join(sorted(e.flags))}]" if e.flags else ""
        print(f"{e.seconds:8.2f} {e.calls:5d} {e.rows:8d} {e.db_hits:10d} {e.misses:8d}  {text}")
        print(f"{'':44}{ops}{flags}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--uri", help="Bolt URI (default: KG_NEO4J_URI or bolt://127.0.0.1:7687)")
    parser.add_argument("--home", type=Path, default=default_home(), help="server home (KG_NEO4J_HOME)")
    parser.add_argument("--records", type=Path, required=True, help="records (neo4j_load --extract-to)")
    parser.add_argument("--base", type=int, required=True, help="records the store holds (or gets)")
    parser.add_argument("--load-base", action="store_true", help="clear, then bulk-load --base records")
    parser.add_argument("--batch", type=int, default=500, help="papers per upsert (one transaction)")
    parser.add_argument("--batches", type=int, default=1)
    parser.add_argument("--yes", action="store_true", help="allow deleting a non-empty database")
    args = parser.parse_args(argv)
    settings = Settings(neo4j_uri=args.uri) if args.uri else Settings()
    records = load_records(args.records, args.base + args.batch * args.batches)
    if args.load_base:
        with driver_for(settings) as driver:
            with driver.session(database=settings.neo4j_database) as s:
                held = s.run("MATCH (n) RETURN count(n) > 1 AS held").single(strict=True)["held"]
            if held and not args.yes:
                raise SystemExit(f"{settings.neo4j_uri} holds data; --load-base deletes it: pass --yes")
            clear(driver, settings.neo4j_database)
        print(bulk_load(records[: args.base], settings, home=args.home).lines()[0])
    new = records[args.base :]
    with driver_for(settings) as driver:
        store = Neo4jStore(driver, settings.neo4j_database, batch_size=args.batch)
        for i in range(args.batches):
            batch = new[i * args.batch : (i + 1) * args.batch]
            totals: dict[str, StatementProfile] = {}
            commits: list[float] = []
            t = time.perf_counter()
            with profiled(totals, commits):
                summary = store.upsert(batch)
            print(f"batch {i + 1}: {summary}")
            report(totals, commits, time.perf_counter() - t, len(batch))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
