"""Server-side profile of the Neo4j reads behind the API benchmark's queries (run by hand).

Usage::

    python bench/neo4j_reads_profile.py --uri bolt://127.0.0.1:7724 [--params 5] \
        [--queries concept_graph search] [--json-out answers.json]

For each query of ``bench/api_latency.py`` (:data:`bench.api_latency.QUERIES`) and each of the
first ``--params`` parameters that benchmark measures on this graph (its most prolific concepts
and authors, its search texts: :func:`bench.api_latency.pick_parameters`), the GraphQL document
is executed in-process (:func:`api.execute.execute_query`, the schema, resolvers and read service
the server runs) against the Neo4j store, twice:

1. plain, timing each statement the store sends by the server's own clock
   (``result_available_after + result_consumed_after``: execution and streaming, not the Bolt
   round trip or the client's decoding);
2. as ``PROFILE <statement>`` in the same kind of transaction, for its db hits, rows and the
   operators with most db hits (these do not depend on the machine's load).

Per query and statement text it prints calls, median server ms per call, db hits and rows per
call. ``--json-out`` writes every response (query, parameters, data), so the answers of two
commits can be compared byte for byte (``cmp``).

Why in-process and not over HTTP: the point is which statements a request sends and what each
costs the server; ``bench/api_latency.py --cpu --db-pid`` measures whole requests.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neo4j  # noqa: E402

from api.execute import execute_query  # noqa: E402
from bench.api_latency import QUERIES, pick_parameters  # noqa: E402
from bench.neo4j_profile import _Done, _key, _walk  # noqa: E402
from kg.core.config import Settings  # noqa: E402
from kg.stores.neo4j.bulk import driver_for  # noqa: E402
from kg.stores.neo4j.store import Neo4jStore  # noqa: E402
from kg.stores.request_scope import request_scope  # noqa: E402

Run = Callable[..., Any]


@dataclass
class Cost:
    """One statement text's totals within one query (role: bench accumulator)."""

    ms: list[float] = field(default_factory=list)  # server ms per plain call
    db_hits: int = 0
    rows: int = 0
    profiled_calls: int = 0
    operators: dict[str, int] = field(default_factory=dict)


@contextlib.contextmanager
def hooked(run_hook: Callable[[Run], Run]) -> Iterator[None]:
    """For the duration, every statement's ``run`` is ``run_hook(original run)``: those of read
    transactions and the auto-commit ones (``Session.run``: the store's one-statement reads)."""
    in_tx, auto = neo4j.ManagedTransaction.run, neo4j.Session.run
    neo4j.ManagedTransaction.run = run_hook(in_tx)  # type: ignore[method-assign]
    neo4j.Session.run = run_hook(auto)  # type: ignore[method-assign]
    try:
        yield
    finally:
        neo4j.ManagedTransaction.run = in_tx  # type: ignore[method-assign]
        neo4j.Session.run = auto  # type: ignore[method-assign]


def timing(costs: dict[str, Cost]) -> Callable[[Run], Run]:
    def wrap(run: Run) -> Run:
        def timed(self: Any, query: str, parameters: Any = None, **kw: Any) -> Any:
            result = run(self, query, parameters, **kw)
            records = list(result)
            summary = result.consume()
            ms = (summary.result_available_after or 0) + (summary.result_consumed_after or 0)
            costs.setdefault(_key(query), Cost()).ms.append(float(ms))
            return _Done(records, summary)

        return timed

    return wrap


def profiling(costs: dict[str, Cost]) -> Callable[[Run], Run]:
    def wrap(run: Run) -> Run:
        def profiled(self: Any, query: str, parameters: Any = None, **kw: Any) -> Any:
            result = run(self, f"PROFILE {query}", parameters, **kw)
            records = list(result)
            summary = result.consume()
            cost = costs.setdefault(_key(query), Cost())
            cost.profiled_calls += 1
            plan = summary.profile or {}
            cost.rows += int(plan.get("rows", 0) or 0)
            for op in _walk(plan):
                name = str(op.get("operatorType", "?")).split("@")[0]
                hits = int(op.get("dbHits", 0) or 0)
                cost.db_hits += hits
                cost.operators[name] = cost.operators.get(name, 0) + hits
            return _Done(records, summary)

        return profiled

    return wrap


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--uri", help="Bolt URI (default: KG_NEO4J_URI or bolt://127.0.0.1:7687)")
    parser.add_argument("--params", type=int, default=5, help="parameters per query (the benchmark's first)")
    parser.add_argument("--queries", nargs="+", choices=list(QUERIES), default=list(QUERIES))
    parser.add_argument("--json-out", type=Path, help="write every response here (for base/branch cmp)")
    parser.add_argument(
        "--held",
        action="store_true",
        help="build the version's held structures first (kg.stores.neo4j.held): the reads answer from them",
    )
    args = parser.parse_args(argv)
    settings = Settings(neo4j_uri=args.uri) if args.uri else Settings()
    answers: list[dict[str, Any]] = []
    with driver_for(settings) as driver:
        store = Neo4jStore(driver, settings.neo4j_database)
        params = pick_parameters(store, args.params).measured
        # the store opens one session per server trip (a read transaction or an auto-commit
        # statement): counted over the plain pass
        sessions = [0]
        opened = driver.session

        def counted(*a: Any, **kw: Any) -> neo4j.Session:
            sessions[0] += 1
            return opened(*a, **kw)

        setattr(driver, "session", counted)  # noqa: B010 - an instance's method, for the count
        if args.held:
            t = time.perf_counter()
            store.hold_now()
            print(f"held structures built in {time.perf_counter() - t:.1f} s")
        print(f"load average {os.getloadavg()[0]:.1f}; {args.params} parameters per query")
        for name in args.queries:
            costs: dict[str, Cost] = {}
            t = time.perf_counter()
            trips = 0
            for variables in params[name][: args.params]:
                # each in a request scope, as the server runs a request (kg.stores.request_scope)
                before = sessions[0]
                with hooked(timing(costs)), request_scope():
                    plain = execute_query(QUERIES[name], variables, settings, store)
                trips += sessions[0] - before
                with hooked(profiling(costs)), request_scope():
                    profiled = execute_query(QUERIES[name], variables, settings, store)
                if plain != profiled:
                    raise SystemExit(f"{name} {variables}: the PROFILE run answered differently")
                answers.append({"query": name, "variables": variables, "response": plain})
            wall = time.perf_counter() - t
            n = args.params
            total_ms = sum(sum(c.ms) for c in costs.values()) / n
            total_hits = sum(c.db_hits for c in costs.values()) / n
            print(
                f"\n{name}: per request {total_ms:.1f} server ms, {total_hits:,.0f} db hits, "
                f"{trips / n:.1f} server trips ({wall:.1f} s for {n} x 2 requests; load "
                f"{os.getloadavg()[0]:.1f})"
            )
            head = f"{'calls':>6} {'ms/call':>8} {'hits/call':>10} {'rows/call':>10}"
            print(f"{head}  statement / top operators")
            for text, c in sorted(costs.items(), key=lambda kv: -sum(kv[1].ms)):
                calls = max(c.profiled_calls, 1)
                ops = sorted(c.operators.items(), key=lambda kv: -kv[1])[:3]
                top = ", ".join(f"{op} {hits / calls:,.0f}" for op, hits in ops if hits)
                print(
                    f"{len(c.ms) / n:6.1f} {statistics.median(c.ms):8.1f} {c.db_hits / calls:10,.0f} "
                    f"{c.rows / calls:10,.0f}  {text}"
                )
                if top:
                    print(f"{'':38}{top}")
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(answers, indent=1, sort_keys=True))
        print(f"\nresponses: {args.json_out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
