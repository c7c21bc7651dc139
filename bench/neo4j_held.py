"""Build time and memory of each structure a warm Neo4j version holds (run by hand).

For each structure of :mod:`kg.stores.neo4j.held` (``ties:CO_OCCURS``, the ties heavier than 1;
``ties:COAUTHOR``, every co-author tie; ``pages``, the concept pages' lists and hierarchy),
``--runs`` times, each build in a fresh process against the server at ``--uri``: wall seconds,
the process's CPU seconds (the driver's decoding and the build), the server JVM's CPU seconds
(``--db-pid``), the process's peak RSS growth over its RSS before the build (MB), and the
structure's arrays (MB). The load average is printed with each figure.

    python bench/neo4j_held.py --uri bolt://127.0.0.1:7734 --db-pid $(cat HOME/run/neo4j.pid)
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

STRUCTURES = ("ties:CO_OCCURS", "ties:COAUTHOR", "pages")


def _jvm_cpu(pid: int) -> float:
    if not pid:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _build(uri: str, key: str, db_pid: int, out: Any) -> None:
    import neo4j

    from kg.stores.neo4j import held
    from kg.stores.neo4j.store import Neo4jStore

    driver = neo4j.GraphDatabase.driver(uri)
    store = Neo4jStore(driver)
    store.version()  # the connection open before the clock starts
    rss0 = _rss_mb()
    jvm0, cpu0, t0 = _jvm_cpu(db_pid), time.process_time(), time.perf_counter()

    def read(tx: neo4j.ManagedTransaction) -> Any:
        return held.read_pages(tx) if key == "pages" else held.read_ties(tx, key.split(":")[1])  # type: ignore[arg-type]

    with store._session(fetch_size=held.FETCH) as session:
        built = session.execute_read(read)
    wall, cpu, jvm = time.perf_counter() - t0, time.process_time() - cpu0, _jvm_cpu(db_pid) - jvm0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - rss0
    if key == "pages":
        size, what = built.pages.nbytes, f"{len(built.pages.wide)} closures, {len(built.pages.own)} own lists"
    else:
        size, what = built.nbytes, f"{len(built.keys.keys)} ties, {len(built.ids)} nodes"
    out.put((wall, cpu, jvm, peak, size / 2**20, what))
    driver.close()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--uri", required=True)
    p.add_argument("--db-pid", type=int, default=0, help="the server JVM's pid (its CPU per build)")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--structures", nargs="*", default=list(STRUCTURES), choices=STRUCTURES)
    a = p.parse_args()
    ctx = mp.get_context("spawn")
    for key in a.structures:
        rows = []
        for _ in range(a.runs):
            load0 = os.getloadavg()[0]
            q: Any = ctx.Queue()
            proc = ctx.Process(target=_build, args=(a.uri, key, a.db_pid, q))
            proc.start()
            rows.append(q.get())
            proc.join()
            wall, cpu, jvm, peak, size, what = rows[-1]
            load = f"load {load0:.1f} -> {os.getloadavg()[0]:.1f}"
            print(
                f"{key}: {wall:.2f} s wall, {cpu:.2f} s CPU (API process), {jvm:.2f} s CPU (JVM), "
                f"peak RSS +{peak:.0f} MB, held {size:.1f} MB ({what}); {load}",
                flush=True,
            )
        med = [statistics.median(r[i] for r in rows) for i in range(5)]
        print(
            f"{key} median of {a.runs}: {med[0]:.2f} s wall, {med[1]:.2f} s CPU, {med[2]:.2f} s JVM, "
            f"+{med[3]:.0f} MB peak, {med[4]:.1f} MB held",
            flush=True,
        )


if __name__ == "__main__":
    main()
