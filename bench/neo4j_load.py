"""Neo4j load benchmark: --bulk first load, transactional incremental ingest, one paper per transaction.

Usage::

    # once: extract the corpus and cache the records (PaperRecord JSON, one per line)
    python bench/neo4j_load.py --extract-to bench/out/records-100k.jsonl --papers 100000 \
        --data-dir ../shared/data
    # then, against the server that scripts/neo4j/start runs in --home (it is stopped and restarted)
    python bench/neo4j_load.py --records bench/out/records-100k.jsonl --papers 100000 \
        --home .neo4j --uri bolt://127.0.0.1:7687 --incremental 10000 --per-paper 300 --runs 3 --yes
    # A/B of two commits on one grown store: bulk-load once (--runs 0 --full-bulk --papers N),
    # then alternate the two checkouts' benches, each continuing where the last stopped:
    python bench/neo4j_load.py --records R --start 25000 --incremental 1000 --per-paper 100 --runs 1

Corpus (``--extract-to``): every listing under ``--data-dir`` (``paperlists/`` and the other
JSONL files), then "(variant k)" copies of the papers with an abstract until ``--papers``
distinct paper ids exist, extracted once with the fast pipeline.

Each run, on a cleared database:

1. **bulk**: :func:`kg.stores.neo4j.bulk.bulk_load` of the first ``papers - incremental -
   per_paper`` records, end to end (merge, CSV, stop, ``neo4j-admin database import``, start,
   constraints and indexes ONLINE); seconds per phase;
2. **incremental**: the next ``--incremental`` records through ``Neo4jStore.upsert`` in batches
   of ``--batch-size`` into that store (p50/p95 per batch);
3. **per paper**: the last ``--per-paper`` records, one ``upsert([record])`` each (p50/p95);
4. **re-ingest**: the incremental records again, all unchanged (nothing is written).

Figures are medians over ``--runs``; every run prints its batched / per-paper ratio (papers/s
of 2. over 3., measured in the same run on the same store); the
1-minute load average is printed at start and end (the machine is shared). ``--start N`` skips
the clear and the bulk load: the store already holds the first ``N`` records, and each run
upserts the records after the previous run's (so two checkouts can be alternated on one store).
Peak RSS: this process, the importer (largest child) and the server.
``--full-bulk`` also times one bulk load of all ``--papers`` records.

**It deletes everything in the target database**; ``--yes`` is required when it is not empty.
Credentials come from ``KG_NEO4J_USER`` / ``KG_NEO4J_PASSWORD`` like the CLI.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import neo4j  # noqa: E402

from kg.core.config import Settings  # noqa: E402
from kg.core.models import PaperRecord, RawPaper  # noqa: E402
from kg.ingest.extract_pool import Extractor, default_jobs  # noqa: E402
from kg.ingest.nlp import load_nlp  # noqa: E402
from kg.ingest.pipeline import Pipeline  # noqa: E402
from kg.readers import iter_input_files, read_file  # noqa: E402
from kg.stores.neo4j import queries as q  # noqa: E402
from kg.stores.neo4j.bulk import bulk_load, default_home, driver_for  # noqa: E402
from kg.stores.neo4j.store import Neo4jStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "out" / "neo4j_load.json"


def build_corpus(data_dir: Path, target: int) -> tuple[list[RawPaper], int]:
    """Raw papers from the data files and seed listings, plus suffixed variants; (papers, originals).

    Kept for ``bench/api_latency.py``, which builds its 10k graph from the same corpus.
    """
    base: list[RawPaper] = []
    for path in [*sorted(data_dir.glob("*.jsonl")), *sorted((ROOT / "examples" / "listings").iterdir())]:
        base.extend(read_file(path).papers)
    papers = list(base)
    k = 2
    while len(papers) < target * 1.02:  # a few percent spare for duplicate ids
        for p in base:
            papers.append(
                dataclasses.replace(
                    p,
                    title=f"{p.title} (variant {k})" if p.title else None,
                    abstract=f"{p.abstract} (variant {k})" if p.abstract else p.abstract,
                    external_id=f"{p.external_id}-v{k}" if p.external_id else None,
                )
            )
        k += 1
    return papers, len(base)


def load_records(path: Path, limit: int) -> list[PaperRecord]:
    """The first ``limit`` cached records (``--extract-to`` wrote them)."""
    out: list[PaperRecord] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            if len(out) >= limit:
                break
            out.append(PaperRecord.model_validate_json(line))
    if len(out) < limit:
        raise SystemExit(f"{path} holds only {len(out)} records (wanted {limit})")
    return out


def extract_to(path: Path, data_dir: Path, target: int) -> None:
    """Extract ``target`` distinct papers from ``data_dir`` (topped up with variants) into ``path``."""
    base: list[RawPaper] = []
    for item in iter_input_files([data_dir]):
        if isinstance(item, Path):
            base.extend(read_file(item).papers)
    extractor = Extractor(Pipeline(nlp=load_nlp()), default_jobs())  # one process per core
    seen: set[str] = set()
    t0 = time.perf_counter()
    k = 1
    part = path.with_suffix(path.suffix + ".part")
    with part.open("w", encoding="utf-8") as f:

        def take(records: list[PaperRecord]) -> None:
            for r in records:
                if r.paper.id not in seen and len(seen) < target:
                    seen.add(r.paper.id)
                    f.write(r.model_dump_json() + "\n")

        try:
            while len(seen) < target:
                src = base if k == 1 else [variant(p, k) for p in base if p.abstract]
                for i in range(0, len(src), 2000):
                    for built in extractor.submit(src[i : i + 2000]):
                        take(built[0])
                    if len(seen) >= target:
                        break
                for built in extractor.drain():
                    take(built[0])
                k += 1
        finally:
            extractor.close()
    part.rename(path)
    print(f"extracted {len(seen)} papers ({len(base)} read) in {time.perf_counter() - t0:.0f} s into {path}")


def variant(p: RawPaper, k: int) -> RawPaper:
    return dataclasses.replace(
        p,
        title=f"{p.title} (variant {k})" if p.title else None,
        abstract=f"{p.abstract} (variant {k})" if p.abstract else p.abstract,
        external_id=f"{p.external_id}-v{k}" if p.external_id else None,
    )


def load_average() -> float:
    return os.getloadavg()[0]


def pct(values: Sequence[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def server_peak_rss_mb(home: Path) -> float | None:
    try:
        pid = (home / "run" / "neo4j.pid").read_text().strip()
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def clear(driver: neo4j.Driver, database: str | None) -> None:
    with driver.session(database=database) as session:
        for stmt in q.delete_all():
            session.run(stmt.text, stmt.params).consume()


def upsert_timed(store: Neo4jStore, records: Sequence[PaperRecord], batch: int) -> tuple[float, list[float]]:
    """Total seconds and seconds per batch."""
    per: list[float] = []
    t0 = time.perf_counter()
    for i in range(0, len(records), batch):
        t = time.perf_counter()
        store.upsert(records[i : i + batch])
        per.append(time.perf_counter() - t)
    return time.perf_counter() - t0, per


Run = Callable[..., Any]


@contextlib.contextmanager
def transaction_hooks(wrap_run: Callable[[Run], Run], on_commit: Callable[[float], None]) -> Iterator[None]:
    """For the duration, ``neo4j.Transaction.run`` is ``wrap_run(original run)`` and every commit's
    seconds go to ``on_commit``; both are restored after. Explicit transactions are what the
    upserts use, so this sees every statement of a batch, the read index's included. Used by
    :func:`statement_times` here and by ``bench/neo4j_profile.py``."""
    run, commit = neo4j.Transaction.run, neo4j.Transaction.commit

    def timed_commit(self: neo4j.Transaction) -> Any:
        t = time.perf_counter()
        try:
            return commit(self)
        finally:
            on_commit(time.perf_counter() - t)

    neo4j.Transaction.run = wrap_run(run)  # type: ignore[method-assign]
    neo4j.Transaction.commit = timed_commit  # type: ignore[method-assign]
    try:
        yield
    finally:
        neo4j.Transaction.run = run  # type: ignore[method-assign]
        neo4j.Transaction.commit = commit  # type: ignore[method-assign]


@contextlib.contextmanager
def statement_times(totals: dict[str, list[float]]) -> Iterator[None]:
    """Seconds and calls per statement (its first 70 characters) of every upsert statement.

    The commit is counted as ``COMMIT``. A write statement's result arrives once the server has
    executed it, so its seconds are the server's work, the Bolt round trip and the client's
    decoding: what an upsert waits for.
    """

    def add(text: str, seconds: float) -> None:
        entry = totals.setdefault(text, [0.0, 0])
        entry[0] += seconds
        entry[1] += 1

    def wrap(run: Run) -> Run:
        def timed_run(self: neo4j.Transaction, query: str, parameters: Any = None, **kw: Any) -> Any:
            t = time.perf_counter()
            try:
                return run(self, query, parameters, **kw)
            finally:
                add(" ".join(query.split())[:70], time.perf_counter() - t)

        return timed_run

    with transaction_hooks(wrap, lambda seconds: add("COMMIT", seconds)):
        yield


def one_run(
    args: argparse.Namespace, settings: Settings, records: list[PaperRecord], start: int | None = None
) -> dict[str, Any]:
    """One run; ``start``: the store already holds ``records[:start]`` (no clear, no bulk load)."""
    n_base = len(records) - args.incremental - args.per_paper if start is None else start
    base, inc, single = (
        records[:n_base],
        records[n_base : n_base + args.incremental],
        records[n_base + args.incremental : n_base + args.incremental + args.per_paper],
    )
    out: dict[str, Any] = {"load_start": load_average(), "base": n_base}
    if start is None:
        with driver_for(settings) as driver:
            clear(driver, settings.neo4j_database)
        t0 = time.perf_counter()
        summary = bulk_load(base, settings, home=args.home)
        bulk_s = time.perf_counter() - t0
        out["bulk"] = {
            "papers": summary.papers,
            "seconds": round(bulk_s, 2),
            "papers_per_s": round(summary.papers / bulk_s),
            "phases": summary.seconds,
            "nodes": summary.nodes,
            "relationships": summary.relationships,
        }
        print(f"  bulk        {summary.papers / bulk_s:7.0f} papers/s ({summary.lines()[0]})")
    with driver_for(settings) as driver:
        store = Neo4jStore(driver, settings.neo4j_database, batch_size=args.batch_size)
        v0 = store.version()
        totals: dict[str, list[float]] = {}
        with statement_times(totals) if args.statements else contextlib.nullcontext():
            total, per = upsert_timed(store, inc, args.batch_size)
        if totals:
            out["incremental_statements"] = {k: [round(v[0], 2), int(v[1])] for k, v in totals.items()}
            print("  incremental, seconds per statement (the 8 largest):")
            for text, (secs, calls) in sorted(totals.items(), key=lambda kv: -kv[1][0])[:8]:
                print(f"    {secs:7.2f} s {int(calls):5d} x  {text}")
        out["incremental"] = {
            "papers": len(inc),
            "seconds": round(total, 2),
            "papers_per_s": round(len(inc) / total),
            "batch_p50_s": round(pct(per, 50), 3),
            "batch_p95_s": round(pct(per, 95), 3),
        }
        print(
            f"  incremental {len(inc)} papers, batch {args.batch_size}: {len(inc) / total:7.0f} papers/s "
            f"(batch p50 {pct(per, 50):.2f} s, p95 {pct(per, 95):.2f} s)"
        )
        total1, per1 = upsert_timed(store, single, 1)
        out["per_paper"] = {
            "papers": len(single),
            "seconds": round(total1, 2),
            "papers_per_s": round(len(single) / total1, 1),
            "p50_ms": round(1000 * pct(per1, 50), 1),
            "p95_ms": round(1000 * pct(per1, 95), 1),
        }
        print(
            f"  per paper   {len(single)} papers: {len(single) / total1:7.1f} papers/s "
            f"(p50 {1000 * pct(per1, 50):.1f} ms, p95 {1000 * pct(per1, 95):.1f} ms)"
        )
        v1 = store.version()
        again, _ = upsert_timed(store, inc, args.batch_size)
        v2 = store.version()
        out["reingest"] = {"papers_per_s": round(len(inc) / again), "version_unchanged": v1 == v2}
        out["versions"] = [v0, v1, v2]
        print(f"  re-ingest   {len(inc) / again:7.0f} papers/s, version {v1} -> {v2} (unchanged: {v1 == v2})")
    ratio = len(inc) / total / (len(single) / total1)
    out["ratio_incremental_per_paper"] = round(ratio, 1)
    out["load_end"] = load_average()
    print(
        f"  batched / per paper {ratio:.1f}x (target >= 10x), into a store of {n_base} papers; "
        f"load {out['load_start']:.1f} -> {out['load_end']:.1f}"
    )
    out["server_peak_rss_mb"] = server_peak_rss_mb(args.home)
    return out


def run(args: argparse.Namespace) -> dict[str, Any]:
    settings = Settings(neo4j_uri=args.uri) if args.uri else Settings()
    wanted = args.papers
    if args.start is not None:
        wanted = args.start + args.runs * (args.incremental + args.per_paper)
    records = load_records(args.records, wanted)
    with driver_for(settings) as driver:
        driver.verify_connectivity()
        with driver.session(database=settings.neo4j_database) as s:
            held = s.run(f"MATCH (n:{q.NODE_LABEL}) RETURN count(n) AS n").single(strict=True)["n"]
        if held and not args.yes and args.start is None:
            raise SystemExit(
                f"{settings.neo4j_uri} holds data; this benchmark deletes it: pass --yes to go on"
            )
    result: dict[str, Any] = {
        "papers": len(records),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "runs": [],
    }
    if args.full_bulk:
        with driver_for(settings) as driver:
            clear(driver, settings.neo4j_database)
        la = load_average()
        t0 = time.perf_counter()
        summary = bulk_load(records, settings, home=args.home)
        secs = time.perf_counter() - t0
        result["full_bulk"] = {
            "papers": summary.papers,
            "seconds": round(secs, 2),
            "papers_per_s": round(summary.papers / secs),
            "phases": summary.seconds,
            "load": [la, load_average()],
        }
        print(
            f"full bulk: {summary.papers / secs:.0f} papers/s, load {la:.1f} -> {load_average():.1f}: "
            f"{summary.lines()[0]}"
        )
    start = args.start
    for i in range(args.runs):
        print(f"run {i + 1}/{args.runs} (load average {load_average():.1f})")
        result["runs"].append(one_run(args, settings, records, start))
        if start is not None:
            start += args.incremental + args.per_paper
    runs = result["runs"]
    if runs:
        bulks = [r["bulk"]["papers_per_s"] for r in runs if "bulk" in r]
        result["median"] = {
            "bulk_papers_per_s": statistics.median(bulks) if bulks else None,
            "incremental_papers_per_s": statistics.median(r["incremental"]["papers_per_s"] for r in runs),
            "per_paper_papers_per_s": statistics.median(r["per_paper"]["papers_per_s"] for r in runs),
            "ratio_incremental_per_paper": statistics.median(r["ratio_incremental_per_paper"] for r in runs),
        }
        print("median:", json.dumps(result["median"]))
    result["python_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    result["importer_peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024)
    print(
        f"peak RSS: this process {result['python_peak_rss_mb']} MB, largest child (the importer JVM) "
        f"{result['importer_peak_rss_mb']} MB, server {server_peak_rss_mb(args.home)} MB"
    )
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--uri", help="Bolt URI (default: KG_NEO4J_URI or bolt://127.0.0.1:7687)")
    parser.add_argument("--home", type=Path, default=default_home(), help="server home (KG_NEO4J_HOME)")
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--extract-to", type=Path, help="extract the corpus into this JSONL file and stop")
    parser.add_argument("--records", type=Path, help="cached records (from --extract-to)")
    parser.add_argument("--papers", type=int, default=10_000)
    parser.add_argument("--incremental", type=int, default=2000, help="papers upserted after the bulk load")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument("--per-paper", type=int, default=200, help="papers upserted one per transaction")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--full-bulk", action="store_true", help="also bulk-load all --papers once")
    parser.add_argument(
        "--start",
        type=int,
        help="no clear, no bulk: the store holds the first START records; runs continue after them",
    )
    parser.add_argument("--yes", action="store_true", help="allow deleting a non-empty database")
    parser.add_argument(
        "--statements", action="store_true", help="print seconds per statement of the incremental phase"
    )
    args = parser.parse_args(argv)
    if args.extract_to:
        extract_to(args.extract_to, args.data_dir, args.papers)
        return 0
    if args.records is None:
        parser.error("--records (or --extract-to) is required")
    result = run(args)
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(result, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
