"""Memory of ``kg ingest``'s author pre-pass, phase by phase (run by hand).

Why: the ingest process resolves authors from every file before it extracts anything (who an
author is depends on every slot of the name, :mod:`kg.authors.ingest`), in the one process that
also writes; at 100k papers that process was the largest, 2.5 GB at its peak. This prints, for
the files given, what each phase holds as Python objects (``tracemalloc``, exact) beside the
process's anonymous RSS (what the OS sees, tracemalloc's own bookkeeping included; freed
objects stay in CPython's arenas for the writer's later allocations, so it does not fall when
they are let go), in the order ``kg ingest`` runs them:

- the author slots (``Collected``), each file's raw papers let go once its slots are taken
  (the ingest reads each file again when it extracts it);
- the resolution (``prepare`` against an empty store), with the slots still held;
- the resolution after the ingest lets go of the slot list and the slots (what it keeps while
  it writes);
- for comparison, the raw papers of every file, which the pre-pass held until 2026-12-04.

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


def slots_of(files: list[Path]) -> tuple[Collected, int]:
    """The slots of every file's papers, each file's papers let go once read (as ``kg ingest``)."""
    collected = Collected()
    papers = 0
    for f in files:
        read = read_file(f).papers
        papers += len(read)
        collected.add(read)
    return collected, papers


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
    collected, papers = slots_of(files)
    print(f"{len(files)} files, {papers:,} papers")
    phase(f"author slots ({len(collected.slots):,}), papers let go", t0)
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp))
        t0 = time.process_time()
        prepared = prepare(store, collected)
        phase(f"+ resolution ({len(prepared.resolution.people):,} people)", t0)
        del collected
        prepared.resolution.drop_slots()
        phase("resolution without slots (what the writes keep)", time.process_time())
        store.close()
    t0 = time.process_time()
    results = [read_file(f) for f in files]
    phase("+ the raw papers of every file (no longer held)", t0)
    del results


if __name__ == "__main__":
    main()
