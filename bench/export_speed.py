"""Time and peak memory of ``kg export`` in every format, on an existing store.

Usage::

    python bench/export_speed.py --data-dir STORE [--formats json gexf ...] [--out DIR]
                                 [--repo CHECKOUT] [--runs N] [-- extra kg export flags]

Each export runs as its own ``python -m api.cli export`` process (run from ``--repo``, default
this checkout, so an older checkout can be measured with the same script), and its peak
resident memory is that process's own (``os.wait4``), not this script's. Prints one row per
format: wall seconds (median of ``--runs``), peak RSS, file size and the line ``kg export``
printed. The store of the issue: the 68 paperlists files of ICLR, ICML, CoRL, COLT, UAI,
AISTATS and NeurIPS 2010-2018 (17,657 papers), ingested with ``kg ingest``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

FORMATS = ("json", "graphml", "cypher", "gexf", "vosviewer")
SUFFIX = {"json": "json", "graphml": "graphml", "cypher": "cypher", "gexf": "gexf", "vosviewer": "json"}


def run_once(repo: Path, data_dir: Path, fmt: str, out: Path, extra: list[str]) -> tuple[float, int, str]:
    """``(seconds, peak RSS bytes, stderr)`` of one ``kg export``."""
    argv = [sys.executable, "-m", "api.cli", "export", "--format", fmt, "-o", str(out)]
    argv += ["--data-dir", str(data_dir), *extra]
    env = {**os.environ, "KG_BACKEND": "sqlite"}
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=repo, env=env, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    err = proc.stderr.read()
    _, status, usage = os.wait4(proc.pid, 0)
    seconds = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"kg export --format {fmt} failed ({proc.returncode}): {err.strip()}")
    return seconds, usage.ru_maxrss * 1024, err.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data-dir", type=Path, required=True, help="an existing embedded store")
    parser.add_argument("--formats", nargs="+", choices=FORMATS, default=list(FORMATS))
    parser.add_argument("--out", type=Path, default=Path("bench/out"), help="folder for the files")
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("extra", nargs="*", help="more kg export flags, after --")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"store {args.data_dir}, code {args.repo}, load average {os.getloadavg()[0]:.2f}")
    print(f"{'format':<10} {'seconds':>8} {'peak RSS':>10} {'file':>10}  kg export said")
    for fmt in args.formats:
        out = (args.out / f"export.{fmt}.{SUFFIX[fmt]}").resolve()
        runs = [run_once(args.repo, args.data_dir.resolve(), fmt, out, args.extra) for _ in range(args.runs)]
        seconds = statistics.median(r[0] for r in runs)
        rss = max(r[1] for r in runs)
        size = out.stat().st_size
        figures = f"{seconds:>8.1f} {rss / 2**20:>8.0f}MB {size / 2**20:>8.1f}MB"
        print(f"{fmt:<10} {figures}  {runs[-1][2]}", flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
