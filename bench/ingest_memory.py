"""Memory of ``kg ingest``'s author pre-pass, phase by phase (run by hand).

Why: the ingest process reads every file before it extracts anything (who an author is depends
on every slot of the name, :mod:`kg.authors.ingest`), so the raw papers, their author slots and
the resolution are held in the one process that also writes; at 100k papers that process was
the largest, 2.5 GB at its peak. This prints, for the files given, what each phase holds as
Python objects (``tracemalloc``, exact) beside the process's anonymous RSS (what the OS sees,
tracemalloc's own bookkeeping included; freed objects stay in CPython's arenas for the writer's
later allocations, so it does not fall when they are let go):

- the raw papers of every file;
- the author slots (``Collected``) of those papers;
- the resolution (``prepare`` against an empty store), with the slots still held;
- the resolution after the ingest lets go of the slot list and the slots (what it keeps while
  it writes).

    python bench/ingest_memory.py ../shared/data/paperlists
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from kg.authors.ingest import Collected, prepare  # noqa: E402
from kg.readers import iter_input_files, read_file  # noqa: E402
from kg.stores.sqlite.store import SQLiteStore  # noqa: E402


def rss_anon_mb() -> int:
    """The process's anonymous resident memory (its heap), in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("RssAnon:"):
            return int(line.split()[1]) // 1024
    return 0


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", type=Path, nargs="+", help="files or folders, as kg ingest takes them")
    args = p.parse_args()
    files = [f for f in iter_input_files(args.paths) if isinstance(f, Path)]
    tracemalloc.start()

    def phase(name: str, t0: float) -> None:
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] >> 20
        cpu = time.process_time() - t0
        print(f"{name:<48} {held:>6} MB held {rss_anon_mb():>6} MB RssAnon {cpu:6.1f} s CPU")

    t0 = time.process_time()
    results = [read_file(f) for f in files]
    papers = sum(len(r.papers) for r in results)
    print(f"{len(files)} files, {papers:,} papers")
    phase("raw papers", t0)
    t0 = time.process_time()
    collected = Collected()
    for r in results:
        collected.add(r.papers)
    phase(f"+ author slots ({len(collected.slots):,})", t0)
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp))
        t0 = time.process_time()
        prepared = prepare(store, collected)
        phase(f"+ resolution ({len(prepared.resolution.people):,} people)", t0)
        del collected
        prepared.resolution.drop_slots()
        phase("resolution without slots (what the writes keep)", time.process_time())
        del results
        phase("... and the raw papers let go", time.process_time())
        store.close()


if __name__ == "__main__":
    main()
