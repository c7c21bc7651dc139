"""The SQLite ingest writer alone, on cached records: papers/s, p50/p95 per batch, peak RSS (run by hand).

Why: at 100k papers ``kg ingest`` is bound by its one writer process (extraction runs in worker
processes), so the writer is timed without extraction: records are extracted once
(``bench/neo4j_load.py --extract-to``, PaperRecord JSON one per line) and each timed run does
what the ingest process does with a batch a worker returns: unpickle it and ``store.upsert`` it.

A run is a child process (its own peak RSS, its own collector state) that copies a base store of
the first ``--base`` records, built once and kept in ``--work``, then upserts the next
``--papers`` records in batches of ``--batch-size``, so the writes land on a store of realistic
size (the B-tree misses and the commit cost grow with it). ``--code DIR`` runs the child with
another checkout's ``kg`` (e.g. a detached worktree of main), and several ``--code`` alternate
old and new in one session, so the shared machine's drift hits both alike; compare ratios.
The child holds the spaCy pipeline loaded, as the ingest process does (its objects are what
CPython's collector walks), and applies the collector settings ``kg.ingest.job`` applies
(``kg.core.collector.collector_relaxed``) when the code has them. ``--code DIR@N`` upserts N papers
per transaction for that checkout (``kg ingest`` groups extracted batches: ``KG_WRITE_BATCH_SIZE``).
``--keep`` keeps each run's store for ``bench/sqlite_dump.py``. ``--profile DIR`` runs each child
under cProfile and prints, per checkout, the ``kg`` functions with the largest share of the
writer's CPU (cumulative, summed over its runs): where the writer's time goes, e.g. planning
against the pair upserts (the SQL runs inside the function that calls ``executemany``).

    python bench/neo4j_load.py --extract-to bench/out/records.jsonl --papers 30000   # once
    python bench/writer_speed.py --records bench/out/records.jsonl --work bench/out/ws --base 25000 \\
        --papers 5000 --code ../wt-base --code . --code .@2000 --runs 3
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import json
import os
import pickle
import pstats
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
DB_FILE = "graph.sqlite"


def pct(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def _read_lines(path: Path, start: int, count: int) -> list[str]:
    out: list[str] = []
    with path.open(encoding="utf-8") as f:
        for i, line in enumerate(f):
            if i >= start + count:
                break
            if i >= start:
                out.append(line)
    if len(out) < count:
        raise SystemExit(f"{path} holds fewer than {start + count} records")
    return out


def _run_queue_wait() -> float:
    """Seconds this thread waited for a CPU so far (Linux schedstat; 0 elsewhere): on a shared
    machine, wall time minus CPU minus this wait is the time spent waiting on I/O."""
    try:
        return int(Path("/proc/thread-self/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def _checkpointed(db: Path) -> None:
    """Fold the WAL into the main file, so copying the one file copies the whole store."""
    conn = sqlite3.connect(db)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()


def child(args: argparse.Namespace) -> dict[str, Any]:
    """One timed run in this process, with the ``kg`` found on ``sys.path`` (see ``--code``)."""
    from kg.core.models import PaperRecord
    from kg.stores.sqlite import SQLiteStore

    lines = _read_lines(args.records, args.base, args.papers)
    records = [PaperRecord.model_validate_json(line) for line in lines]
    blobs = [
        pickle.dumps(records[i : i + args.batch_size], protocol=pickle.HIGHEST_PROTOCOL)
        for i in range(0, len(records), args.batch_size)
    ]
    del records, lines
    if args.load_nlp:
        from kg.ingest.nlp import load_nlp
        from kg.ingest.pipeline import Pipeline

        Pipeline(nlp=load_nlp())  # what the ingest process holds while it writes
    import kg.core.collector

    tuned = getattr(kg.core.collector, "collector_relaxed", None)
    data_dir = args.work / f"run-{os.getpid()}"
    data_dir.mkdir(parents=True)
    shutil.copyfile(args.work / f"base-{args.base}" / DB_FILE, data_dir / DB_FILE)
    with (data_dir / DB_FILE).open("rb+") as f:
        os.fsync(f.fileno())  # else the copy's write-back lands in the run's first checkpoint
    store = SQLiteStore(data_dir)
    times: list[float] = []
    profile = cProfile.Profile(time.process_time) if args.profile is not None else None  # CPU, not wall
    try:
        with tuned() if tuned is not None else contextlib.nullcontext():
            cpu0, t0, q0 = time.process_time(), time.perf_counter(), _run_queue_wait()
            if profile is not None:
                profile.enable()
            for blob in blobs:
                t = time.perf_counter()
                store.upsert(pickle.loads(blob))  # noqa: S301 - our own records, written above
                times.append(time.perf_counter() - t)
            if profile is not None:
                profile.disable()
            wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
            queued = _run_queue_wait() - q0
    finally:
        store.close()
    if profile is not None:
        args.profile.mkdir(parents=True, exist_ok=True)
        profile.dump_stats(args.profile / f"{args.child_code.name}-{args.batch_size}-{os.getpid()}.pstats")
    result = {
        "code": str(args.child_code),
        "papers": args.papers,
        "seconds": wall,
        "cpu_seconds": cpu,
        "run_queue_seconds": queued,
        "io_wait_seconds": max(0.0, wall - cpu - queued),
        "papers_per_s": args.papers / wall,
        "batch_p50": pct(times, 50),
        "batch_p95": pct(times, 95),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "collector_tuned": tuned is not None,
    }
    if args.keep:
        _checkpointed(data_dir / DB_FILE)
        result["store"] = str(data_dir)
    else:
        shutil.rmtree(data_dir)
    return result


def build_base(args: argparse.Namespace, code: Path) -> None:
    """The base store of the first ``--base`` records, written by ``code`` once and kept."""
    target = args.work / f"base-{args.base}"
    if (target / DB_FILE).exists():
        return
    print(f"building the base store of {args.base} records with {code} ...", flush=True)
    script = (
        "import sys; from pathlib import Path; from kg.core.models import PaperRecord; "
        "from kg.stores.sqlite import SQLiteStore\n"
        "path, n, out, batch = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3]), int(sys.argv[4])\n"
        "store = SQLiteStore(out)\nrecords = []\n"
        "with path.open(encoding='utf-8') as f:\n"
        "    for i, line in enumerate(f):\n"
        "        if i >= n: break\n"
        "        records.append(PaperRecord.model_validate_json(line))\n"
        "        if len(records) == batch: store.upsert(records); records = []\n"
        "if records: store.upsert(records)\n"
        "store.close()\n"
    )
    tmp = target.with_name(target.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    t0 = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(code)}
    cmd = [sys.executable, "-c", script, str(args.records), str(args.base), str(tmp), str(args.batch_size)]
    subprocess.run(cmd, env=env, check=True, cwd=code)
    _checkpointed(tmp / DB_FILE)
    tmp.rename(target)
    print(f"  {time.perf_counter() - t0:.0f} s", flush=True)


def _variant(spec: str) -> tuple[Path, int | None]:
    """``DIR`` or ``DIR@N``: a checkout, and the papers per upsert for it (default ``--batch-size``)."""
    path, _, size = spec.partition("@")
    return Path(path).resolve(), int(size) if size else None


def _label(spec: str) -> str:
    path, size = _variant(spec)
    return path.name + (f"@{size}" if size else "")


def tokenizer_cpu_seconds(records: Path, start: int, count: int) -> float:
    """CPU seconds of spaCy's tokenizer (``kg.ingest.nlp.load_nlp``, as the pipeline loads it) over the
    title and abstract of the records a run upserts: the reference each run's writer CPU is
    divided by (measured in the same round), so figures from machines of other speeds compare."""
    from spacy.tokenizer import Tokenizer

    from kg.core.models import PaperRecord
    from kg.ingest.nlp import load_nlp

    texts = []
    for line in _read_lines(records, start, count):
        props = PaperRecord.model_validate_json(line).paper.properties
        texts.append(f"{props.get('title') or ''}. {props.get('abstract') or ''}")
    tokenizer: Tokenizer = load_nlp().tokenizer  # spaCy types it as any Callable[[str], Doc]
    cpu0 = time.process_time()
    for _ in tokenizer.pipe(texts, batch_size=256):
        pass
    return time.process_time() - cpu0


def run_child(args: argparse.Namespace, spec: str) -> dict[str, Any]:
    code, size = _variant(spec)
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-code",
        str(code),
        "--records",
        str(args.records),
        "--work",
        str(args.work),
        "--base",
        str(args.base),
        "--papers",
        str(args.papers),
        "--batch-size",
        str(size or args.batch_size),
    ]
    cmd += ["--keep"] if args.keep else []
    cmd += ["--profile", str(args.profile)] if args.profile is not None else []
    cmd += [] if args.load_nlp else ["--no-nlp"]
    env = {**os.environ, "PYTHONPATH": str(code)}
    load = os.getloadavg()[0]
    out = subprocess.run(cmd, env=env, check=True, cwd=code, capture_output=True, text=True).stdout
    result: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    result["load_before"] = load
    result["load_after"] = os.getloadavg()[0]
    return result


def print_profile(folder: Path, spec: str, batch_size: int, top: int = 24) -> None:
    """The ``kg`` functions with the largest cumulative share of one checkout's profiled runs."""
    code, size = _variant(spec)
    files = sorted(folder.glob(f"{code.name}-{size or batch_size}-*.pstats"))
    if not files:
        return
    functions = pstats.Stats(*(str(f) for f in files)).get_stats_profile().func_profiles
    total = max(f.cumtime for f in functions.values())
    rows = sorted(
        (
            (f.cumtime, f"{Path(f.file_name).name}:{f.line_number} {name}")
            for name, f in functions.items()
            if "/kg/" in f.file_name
        ),
        reverse=True,
    )[:top]
    print(f"profile {_label(spec)} ({len(files)} runs, share of the profiled CPU, cumulative):")
    for cum, where in rows:
        print(f"  {100 * cum / total:5.1f}%  {cum:7.2f} s  {where}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--records", type=Path, required=True, help="cached records, JSONL")
    parser.add_argument("--work", type=Path, required=True, help="folder for the base store and runs")
    parser.add_argument("--base", type=int, default=25_000, help="records in the base store")
    parser.add_argument("--papers", type=int, default=5_000, help="records upserted per timed run")
    parser.add_argument("--batch-size", type=int, default=500)
    parser.add_argument(
        "--code",
        action="append",
        help="checkout(s) to time, DIR or DIR@PAPERS_PER_UPSERT (default: this one)",
    )
    parser.add_argument("--runs", type=int, default=3, help="runs per checkout, alternated")
    parser.add_argument(
        "--keep", action="store_true", help="keep each run's store (for bench/sqlite_dump.py)"
    )
    parser.add_argument(
        "--no-nlp", dest="load_nlp", action="store_false", help="do not load spaCy in the child"
    )
    parser.add_argument("--out", type=Path, help="write all results here as JSON")
    parser.add_argument("--profile", type=Path, help="profile each child; pstats files go here")
    parser.add_argument("--child-code", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    args.work = args.work.resolve()
    args.records = args.records.resolve()
    args.profile = args.profile.resolve() if args.profile is not None else None
    if args.child_code is not None:
        print(json.dumps(child(args)))
        return 0
    codes: list[str] = args.code or [str(ROOT)]
    args.work.mkdir(parents=True, exist_ok=True)
    build_base(args, _variant(codes[0])[0])
    results: dict[str, list[dict[str, Any]]] = {c: [] for c in codes}
    for i in range(args.runs):
        tokenizer = tokenizer_cpu_seconds(args.records, args.base, args.papers)
        for code in codes:
            r = run_child(args, code)
            r["tokenizer_cpu_seconds"] = tokenizer
            r["cpu_x_tokenizer"] = r["cpu_seconds"] / tokenizer
            results[code].append(r)
            print(
                f"run {i + 1} {_label(code)}: {r['papers_per_s']:.0f} papers/s ({r['seconds']:.1f} s, "
                f"CPU {r['cpu_seconds']:.1f} s = {r['cpu_x_tokenizer']:.1f}x the tokenizer's "
                f"{tokenizer:.2f} s on the same texts, queued {r['run_queue_seconds']:.1f} s, "
                f"I/O {r['io_wait_seconds']:.1f} s), batch p50 {r['batch_p50']:.2f} s "
                f"p95 {r['batch_p95']:.2f} s, "
                f"peak RSS {r['peak_rss_mb']:.0f} MB, load {r['load_before']:.2f} -> {r['load_after']:.2f}",
                flush=True,
            )
    print("medians:")
    for code, rs in results.items():
        keys = ("papers_per_s", "seconds", "cpu_seconds", "cpu_x_tokenizer", "io_wait_seconds", "batch_p50")
        med = {k: statistics.median(r[k] for r in rs) for k in (*keys, "batch_p95")}
        print(
            f"  {_label(code)}: {med['papers_per_s']:.0f} papers/s, {med['seconds']:.1f} s wall, "
            f"{med['cpu_seconds']:.1f} s CPU ({med['cpu_x_tokenizer']:.1f}x the tokenizer), "
            f"{med['io_wait_seconds']:.1f} s I/O, batch p50 "
            f"{med['batch_p50']:.2f} s p95 {med['batch_p95']:.2f} s ({len(rs)} runs)"
        )
    if args.profile is not None:
        for code in codes:
            print_profile(args.profile, code, args.batch_size)
    if args.out is not None:
        args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
