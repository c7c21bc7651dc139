"""Neo4j at 100k papers: ``kg ingest --bulk`` of the corpus ``bench/embedded_scale.py`` uses (run by hand).

Corpus: the same 100,000 papers as ``bench/embedded_scale.py`` (every ``DATA/paperlists/`` file,
the JSONL files in ``DATA``, and its seeded top-up of recombined abstracts to reach exactly
100,000 distinct ids), so the Neo4j and the embedded 100k stores hold the same papers. Also
written: ``heldout.jsonl``, ``--heldout`` more recombined papers (another seed, titled ``Held
out <n>``) that are not in the store, for the incremental runs of ``bench/neo4j_load.py``
(extract them with ``--extract-to``, then ``--start 0``).

Measures, as a separate ``kg`` process, against the server ``scripts/neo4j/start`` runs in
``--home`` (KG_NEO4J_HOME; **its database must be empty**: ``--bulk`` refuses anything else):

``kg ingest --backend neo4j --bulk [--no-embed] FILES``: wall seconds, papers/s, the phases
``--bulk`` prints (extraction overlaps the merge; the merge's wait for records says how much of
it extraction bounds), CPU of the ingest, its workers and the importer, peak RSS. ``--no-embed``
unless ``--embed`` (then the workers embed too and the import writes the vectors).

The load average is printed before and after each command: on a shared machine the figures
mean something only next to it.

    uri=$(NEO4J_HOME=DIR NEO4J_BOLT_PORT=7733 NEO4J_HTTP_PORT=7433 scripts/neo4j/start | tail -n 1)
    python bench/neo4j_scale.py ../shared/data --work bench/out/n100k --home DIR --uri $uri [--embed]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.embedded_scale import (  # noqa: E402
    TARGET,
    children_cpu_seconds,
    distinct_papers,
    write_topup,
)

KG = [sys.executable, "-m", "api.cli"]


def write_heldout(paperlists: Path, n: int, out: Path, seed: int = 99) -> Path:
    """``n`` recombined papers (another seed and title than the top-up): none is in the store."""
    return write_topup(paperlists, n, out, seed=seed, title="Held out")


def timed(args: list[str], env: dict[str, str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (the process, its workers and the importer), peak RSS (MB) and
    output of one ``kg`` process; its output is echoed."""
    cpu0 = children_cpu_seconds()
    load0 = os.getloadavg()[0]
    t0 = time.perf_counter()
    done = subprocess.run([*KG, *args], env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    cpu = children_cpu_seconds() - cpu0
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    sys.stdout.write(done.stdout + done.stderr)
    if done.returncode not in (0, 1):
        raise SystemExit(f"kg {args[0]} failed (exit {done.returncode})")
    print(f"  load average {load0:.1f} -> {os.getloadavg()[0]:.1f}")
    return wall, cpu, rss, done.stdout


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("data", type=Path, help="the shared data folder (with paperlists/)")
    p.add_argument("--work", type=Path, required=True, help="scratch folder (top-up and held-out files)")
    p.add_argument("--home", type=Path, required=True, help="the server home (KG_NEO4J_HOME)")
    p.add_argument("--uri", required=True, help="its Bolt URI")
    p.add_argument("--embed", action="store_true", help="embed too (--bulk without --no-embed)")
    p.add_argument("--heldout", type=int, default=8000, help="held-out papers written for incremental runs")
    p.add_argument("--jobs", type=int, default=0, help="kg ingest --jobs (default: one per core)")
    a = p.parse_args()
    work = a.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    data = a.data.resolve()
    sources = [data / "paperlists", *sorted(data.glob("*.jsonl"))]
    distinct = distinct_papers(sources)
    topup = write_topup(data / "paperlists", TARGET - distinct, work / "topup.jsonl")
    write_heldout(data / "paperlists", a.heldout, work / "heldout.jsonl")
    print(f"corpus: {distinct} distinct real papers + {TARGET - distinct} recombined = {TARGET}")
    env = {
        **os.environ,
        "KG_BACKEND": "neo4j",
        "KG_NEO4J_URI": a.uri,
        "KG_NEO4J_HOME": str(a.home.resolve()),
        "KG_DATA_DIR": str(work / "kg"),  # no curations file: the corpus as published
    }
    jobs = ["--jobs", str(a.jobs)] if a.jobs else []
    embed = [] if a.embed else ["--no-embed"]
    wall, cpu, rss, out = timed(["ingest", "--bulk", *embed, *jobs, *map(str, sources), str(topup)], env)
    papers = int(re.search(r"bulk import: (\d+) papers", out).group(1))  # type: ignore[union-attr]
    print(
        f"kg ingest --bulk {' '.join(embed)}: {papers} papers in {wall:.1f} s ({papers / wall:.0f} papers/s "
        f"end to end); CPU {cpu:.0f} s ({1000 * cpu / papers:.2f} ms per paper); peak RSS {rss:.0f} MB"
    )


if __name__ == "__main__":
    main()
