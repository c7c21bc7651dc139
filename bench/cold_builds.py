"""A store version's first asks of each held structure, in-process: what the slowest of them
waits, and what each build costs (the SQLite store, bench/README.md "SQLite: held structures
built in the background").

Usage (from each of two trees, e.g. a base checkout and a branch, on one store)::

    python bench/cold_builds.py STORE_DIR [--asks 6] [--held 3] [--texts 150]

Per structure (the concept pages' lists, the heavy concept ties, every co-author tie, the
nearest papers' first pass), a fresh store object (every cache cold, as at a store's new
version) is asked ``--asks`` times with distinct parameters, then (where the tree builds in the
background) the builds are waited for and it is asked ``--held`` times more. Printed per ask: the
wall ms and the asking thread's CPU ms (``time.thread_time``: a build on a thread of its own is
not in it). The slowest of the first asks is the "cold max" a request of a new version meets.

Then, where the tree has them (``SQLiteStore._built``): each structure built alone on this
thread, its CPU and the growth of the process's RSS; and the word scores of search
(:mod:`kg.stores.sqlite.word_scores`): their build's CPU and memory, and the search latency
(``ReadService.search``, wall, one text after another on this thread) of ``--texts`` texts with
no build running and again while the word scores are built on a thread of their own (the GIL
shared with it), p50 / p95 / max, and the same texts once held.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's kg and bench
from bench.api_latency import pick_parameters  # noqa: E402
from kg.read.service import ReadService  # noqa: E402
from kg.stores.sqlite import SQLiteStore  # noqa: E402

WARM_TEXTS = 30  # search texts that warm the process before any is timed


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def _timed(fn: Callable[[], Any]) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    fn()
    return (time.perf_counter() - wall) * 1000, (time.thread_time() - cpu) * 1000


def _asks(
    store_dir: Path, name: str, make: Callable[[SQLiteStore], list[Callable[[], Any]]], args: Any
) -> None:
    store = SQLiteStore(store_dir)
    make(store)[0]()  # not counted: the OS's page cache warmed for this structure's reads
    store.close()
    store = SQLiteStore(store_dir)
    calls = make(store)
    first = [_timed(c) for c in calls[: args.asks]]
    waited = 0.0
    wait = getattr(store, "wait_builds", None)
    if wait is not None:
        start = time.perf_counter()
        wait(600)
        waited = (time.perf_counter() - start) * 1000
    held = [_timed(c) for c in calls[args.asks : args.asks + args.held]]
    worst = max(range(len(first)), key=lambda i: first[i][0])
    print(
        f"{name}: asks {' '.join(f'{w:.0f}/{c:.0f}' for w, c in first)} (wall/CPU ms); cold max "
        f"{first[worst][0]:.0f} ms wall at ask {worst + 1}; builds waited for {waited:.0f} ms after; "
        f"then {' '.join(f'{w:.1f}/{c:.1f}' for w, c in held)}"
    )
    store.close()


def _concept_pages(store: SQLiteStore) -> list[Callable[[], Any]]:
    service = ReadService(store)
    ids = store.list_concepts(None, None, "PAPER_COUNT", 0, 40).ids
    queries = [service.concept_query(cid, True, True, "RELEVANCE") for cid in ids]
    return [lambda q=q: store.papers(q, 0, 20) for q in queries]  # type: ignore[misc]


def _heavy_ties(store: SQLiteStore) -> list[Callable[[], Any]]:
    ids = store.list_concepts(None, None, "PAPER_COUNT", 0, 2000).ids
    sets = [ids[i::20][:100] for i in range(20)]
    return [lambda s=s: store.pair_edges_among(s, "CO_OCCURS", 2) for s in sets]  # type: ignore[misc]


def _coauthor_ties(store: SQLiteStore) -> list[Callable[[], Any]]:
    ids = store.list_authors(None, "PAPER_COUNT", 0, 4000).ids
    sets = [ids[i::20][:200] for i in range(20)]
    return [lambda s=s: store.pair_edges_among(s, "COAUTHOR", 1) for s in sets]  # type: ignore[misc]


def _first_pass(store: SQLiteStore) -> list[Callable[[], Any]]:
    ids = store.list_concepts(None, None, "PAPER_COUNT", 0, 1).ids
    papers = store.papers(ReadService(store).concept_query(ids[0], True, True, "NEWEST"), 0, 20).ids
    vectors = [v for v in store.paper_embeddings(papers) if v is not None]
    return [
        lambda v=v, p=p: store.nearest_papers(v, 20, (p,), approximate=True)  # type: ignore[misc]
        for v, p in zip(vectors, papers, strict=False)
    ]


def _builds(store_dir: Path) -> None:
    """Each structure built alone on this thread (where the tree reads them in a snapshot)."""
    from kg.stores.sqlite import held_rows, reads

    store = SQLiteStore(store_dir)
    if not hasattr(store, "_built"):
        print("builds: this tree has no SQLiteStore._built")
        return
    version = store.version()
    parts: dict[str, Callable[[Any], Any]] = {
        "concept pages' lists": reads._read_closure_pages,
        "heavy concept ties": lambda c: held_rows.heavy_ties(c, "CO_OCCURS"),
        "every co-author tie": held_rows.coauthor_ties,
    }
    for name, read in parts.items():
        rss = _rss_mib()
        kept: list[Any] = []  # held while RSS is read
        wall, cpu = _timed(lambda read=read, kept=kept: kept.append(store._built(version, read)))  # type: ignore[misc]
        print(f"build {name}: {cpu:.0f} ms CPU, {wall:.0f} ms wall, RSS +{_rss_mib() - rss:.0f} MiB")
    store.close()


def _search(store_dir: Path, texts: list[str]) -> None:
    """Search latency with no build, during the word scores' build, and once they are held."""
    try:
        from kg.stores.sqlite import reads, word_scores
    except ImportError:
        print("search: this tree has no held word scores")
        return
    store = SQLiteStore(store_dir)
    service = ReadService(store)
    version = store.version()

    def latencies(batch: list[str]) -> list[float]:
        ms = []
        for text in batch:
            start = time.perf_counter()
            service.search(text, 20)
            ms.append((time.perf_counter() - start) * 1000)
        return ms

    def summary(ms: list[float]) -> str:
        ms = sorted(ms)
        p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
        return f"p50 {statistics.median(ms):.1f} / p95 {p95:.1f} / max {ms[-1]:.1f} ms ({len(ms)} texts)"

    # warm: the matrix, its first pass and this thread's reader (not the word scores)
    latencies(texts[:WARM_TEXTS])
    store.wait_builds(600)
    block = (len(texts) - WARM_TEXTS) // 3
    plain, during_texts, after = (
        texts[WARM_TEXTS + i * block : WARM_TEXTS + (i + 1) * block] for i in range(3)
    )
    print(f"search, no build running: {summary(latencies(plain))}")
    read_cpu: list[float] = []
    rss = _rss_mib()

    def build() -> None:
        start = time.thread_time()
        store._words_slot().build_now(
            version,
            lambda: store._built(version, lambda c: word_scores.WordScores.read(c, version, reads._BOOSTS)),
        )
        read_cpu.append((time.thread_time() - start) * 1000)

    thread = threading.Thread(target=build)
    start = time.perf_counter()
    thread.start()
    during: list[float] = []
    while thread.is_alive() and during_texts:
        during += latencies(during_texts[:5])
        during_texts = during_texts[5:]
    thread.join()
    wall = (time.perf_counter() - start) * 1000
    held = store._word_scores_slot.held(version)
    words = 0 if held is None else sum(len(r) for r, _ in held.words.values())
    print(
        f"word scores' build: {read_cpu[0]:.0f} ms CPU, {wall:.0f} ms wall (searches beside it), "
        f"{0 if held is None else len(held.words)} words, {words} (word, row) pairs, "
        f"RSS +{_rss_mib() - rss:.0f} MiB"
    )
    print(f"search during the build: {summary(during)}")
    print(f"search, word scores held: {summary(latencies(after))}")
    store.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("store", type=Path)
    parser.add_argument("--asks", type=int, default=6)
    parser.add_argument("--held", type=int, default=3)
    parser.add_argument("--texts", type=int, default=1500)
    parser.add_argument("--only", nargs="*", default=["asks", "builds", "search"])
    args = parser.parse_args()
    if "asks" in args.only:
        for name, make in (
            ("concept pages", _concept_pages),
            ("heavy ties (conceptGraph minWeight 2)", _heavy_ties),
            ("co-author ties (weight 1)", _coauthor_ties),
            ("nearest papers' first pass", _first_pass),
        ):
            _asks(args.store, name, make, args)
    if "builds" in args.only:
        _builds(args.store)
    if "search" in args.only:
        store = SQLiteStore(args.store)
        texts = [p["text"] for p in pick_parameters(store, args.texts).measured["search"]]
        store.close()
        _search(args.store, texts)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
