"""A real ``kg ingest`` (``--no-embed`` unless ``--embed``) timed per process: writer CPU, workers', wall.

Why: in ``kg ingest`` the ingest process is the one writer (reads the files, resolves authors,
plans and writes every batch) and the extraction runs in forked workers; with two cores the
writer is the critical path (bench/README.md, "The writer's CPU per paper"). This runs the
command on an input into a fresh store and reports, from inside the ingest process when it
exits, its own CPU (``RUSAGE_SELF``: the writer) and its reaped children's (``RUSAGE_CHILDREN``:
the workers), with the wall time and the load average. Several ``--code`` checkouts alternate
run by run, so the shared machine's drift hits each alike; compare medians.
``--keep DIR`` keeps each checkout's last store (``bench/sqlite_dump.py`` compares them).

    python bench/ingest_writer_cpu.py INPUT --code ../wt-base --code . --runs 3 --work bench/out/iwc
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

# Runs in the ingest process: report its CPU and its workers' when it exits.
_WRAPPER = """
import atexit, json, resource, sys
def _report():
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(OUT, "w") as f:
        json.dump({"writer": me.ru_utime + me.ru_stime, "workers": kids.ru_utime + kids.ru_stime,
                   "writer_rss_mb": me.ru_maxrss / 1024, "workers_rss_mb": kids.ru_maxrss / 1024}, f)
OUT = sys.argv.pop(1)
atexit.register(_report)
from api.cli import run
sys.argv[0] = "kg"
run()
"""


def one_run(
    code: Path, inputs: list[str], data_dir: Path, out: Path, embed: bool = False
) -> dict[str, float]:
    if data_dir.exists():
        shutil.rmtree(data_dir)
    env = {**os.environ, "KG_DATA_DIR": str(data_dir), "PYTHONPATH": str(code.resolve())}
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-c",
            _WRAPPER,
            str(out),
            "ingest",
            "--no-progress",
            *([] if embed else ["--no-embed"]),
            *inputs,
        ],
        env=env,
        cwd=code,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    wall = time.perf_counter() - t0
    result: dict[str, float] = json.loads(out.read_text())
    result.update(wall=wall, load_before=load, load_after=os.getloadavg()[0])
    return result


def _runs(rs: list[dict[str, float]], key: str) -> str:
    return " / ".join(f"{x[key]:.1f}" for x in rs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("inputs", nargs="+")
    ap.add_argument("--code", action="append", type=Path, required=True, help="checkout to run (repeatable)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--work", type=Path, required=True)
    ap.add_argument("--keep", action="store_true", help="keep each checkout's last store in --work")
    ap.add_argument("--embed", action="store_true", help="embed the papers too (kg ingest's default)")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    inputs = [str(Path(i).resolve()) for i in args.inputs]
    results: dict[int, list[dict[str, float]]] = {i: [] for i in range(len(args.code))}
    for r in range(args.runs):
        for i, code in enumerate(args.code):
            data_dir = args.work / (f"store-{i}" if args.keep else "store")
            res = one_run(code, inputs, data_dir, args.work / "cpu.json", args.embed)
            results[i].append(res)
            print(
                f"run {r + 1} {code}: writer {res['writer']:.1f} s, workers {res['workers']:.1f} s, "
                f"wall {res['wall']:.1f} s, RSS writer {res['writer_rss_mb']:.0f} MB / "
                f"worker {res['workers_rss_mb']:.0f} MB, "
                f"load {res['load_before']:.1f} -> {res['load_after']:.1f}",
                flush=True,
            )
    for i, code in enumerate(args.code):
        rs = results[i]

        def med(key: str, rs: list[dict[str, float]] = rs) -> float:
            return statistics.median(x[key] for x in rs)

        print(
            f"{code}: writer CPU median {med('writer'):.2f} s ({_runs(rs, 'writer')}), "
            f"workers {med('workers'):.2f} s, wall {med('wall'):.2f} s ({_runs(rs, 'wall')})"
        )


if __name__ == "__main__":
    main()
