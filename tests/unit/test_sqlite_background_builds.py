"""The SQLite store's held structures are built on a thread of their own (``background_builds``),
each from one snapshot read on a connection opened for the build (``SQLiteStore._built``): the
asking request does not wait, a write committed during a build is never half in it, and no
connection outlives a build. Real database files; the interleavings are forced by hooks around
the real readers of :mod:`kg.stores.sqlite.held_rows`, never by sleeping."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from kg.read.service import below
from kg.stores.held.closure_pages import WARM_ASKS, ClosurePagesCache
from kg.stores.protocol import CLOSURE_LIMIT, PaperQuery
from kg.stores.sqlite import SQLiteStore, held_rows

NEVER = 10**9  # warm asks of a cache that never builds: the statements answer
WAIT_S = 60.0  # a bound on waits for builds, never reached when the code is right


def _ids(store: SQLiteStore, sql: str) -> list[str]:
    return [str(r[0]) for r in store._all(sql)]  # on this thread's reader: no connection opened


def _coauthor_nodes(store: SQLiteStore) -> list[str]:
    return _ids(store, "SELECT DISTINCT start FROM rels WHERE type = 'COAUTHOR' ORDER BY start")


def _concept_queries(store: SQLiteStore) -> list[PaperQuery]:
    """Each linked concept's page query as ``ReadService.concept_query`` makes it (closure, newest
    and relevance)."""
    queries = []
    for cid in _ids(store, 'SELECT DISTINCT "end" FROM rels WHERE type = \'MENTIONS\' ORDER BY "end"'):
        closure = tuple(store.narrower_closure(cid, CLOSURE_LIMIT))
        for order in ("RELEVANCE", "NEWEST"):
            queries.append(
                PaperQuery(concepts=closure, about_only=True, order=order, narrower=below(cid, closure))
            )
    return queries


def _open_files(path: str) -> int | None:
    """How many of this process's file descriptors are open on the store's files (its database,
    WAL and shared memory); ``None`` where /proc does not tell."""
    fds = Path("/proc/self/fd")
    if not fds.is_dir():
        return None
    found = 0
    for fd in fds.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed while listed
            continue
        found += target.startswith(path)
    return found


def test_the_warming_ask_returns_at_once_and_the_statements_answer(
    tmp_path: Path, seed_records: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    nodes = _coauthor_nodes(store)
    want = store.pair_edges_among(nodes, "COAUTHOR", 1)  # the statements' answer
    assert want
    started, release = threading.Event(), threading.Event()
    real = held_rows.coauthor_ties

    def held_back(c: sqlite3.Connection) -> Any:  # the build waits until the test lets it go
        started.set()
        assert release.wait(WAIT_S)
        return real(c)

    monkeypatch.setattr(held_rows, "coauthor_ties", held_back)
    slot = store._coauthor_slot()
    version = store.version()
    # the asks up to the warming one: answered by the statements; the warming one starts the
    # build and returns while the build is held back (were it built on this thread, the ask
    # would not return before the wait's bound and the build would fail)
    answers = [store.pair_edges_among(nodes, "COAUTHOR", 1) for _ in range(WARM_ASKS)]
    assert started.wait(WAIT_S) and not release.is_set()
    assert answers == [want] * WARM_ASKS and slot.held(version) is None
    assert store.pair_edges_among(nodes, "COAUTHOR", 1) == want  # meanwhile: the statements
    release.set()
    assert store.wait_builds(WAIT_S)
    assert slot.held(version) is not None  # built, and kept for the version asked for
    assert store.pair_edges_among(nodes, "COAUTHOR", 1) == want
    store.close()


def test_a_write_committed_during_a_build_is_not_in_it(
    tmp_path: Path, seed_records: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The write lands between the build's first reads (the hierarchy, the store version) and
    its lists' reads; read in autocommit mode those would have seen it, and the lists kept for
    the version before it would have mixed the two versions."""
    store = SQLiteStore(tmp_path)
    half = len(seed_records) // 2
    store.upsert(seed_records[:half])
    queries = _concept_queries(store)
    store._closure_pages_cache = ClosurePagesCache(warm_asks=NEVER)
    before = [store.papers(q, 0, 50) for q in queries]
    version = store.version()
    real = held_rows.closure_pages
    wrote: list[int] = []

    def write_first(c: sqlite3.Connection, closures: Any) -> Any:
        store.upsert(seed_records[half:])  # committed by the store's writer, on this thread
        wrote.append(store.version())
        return real(c, closures)

    monkeypatch.setattr(held_rows, "closure_pages", write_first)
    cache = store._closure_pages_cache = ClosurePagesCache(warm_asks=1, background=True)
    assert store.papers(queries[0], 0, 50) == before[0]  # the warming ask: the statements
    assert cache.wait(WAIT_S)
    assert wrote and wrote[0] > version  # the write came in during the build
    pages = cache.get(version, lambda: None)
    assert pages is not None  # kept for the version of its snapshot
    held = [pages.page(q.concepts or (), q.narrower, q.sort, 0, 50) for q in queries]
    store._closure_pages_cache = ClosurePagesCache(warm_asks=NEVER)
    after = [store.papers(q, 0, 50) for q in queries]
    # every list held is the page before the write (a concept with no paper is no list), and
    # the write changed some of them: read after it, they would have differed
    compared = [(h, b, a) for h, b, a in zip(held, before, after, strict=True) if h is not None]
    assert all(h == b for h, b, _ in compared)
    assert any(b != a for _, b, a in compared)
    store.close()


def test_a_version_moved_before_the_build_keeps_nothing(
    tmp_path: Path, seed_records: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = SQLiteStore(tmp_path)
    half = len(seed_records) // 2
    store.upsert(seed_records[:half])
    version = store.version()
    store.upsert(seed_records[half:])  # the store moved on after the version was read
    assert store._built(version, held_rows.coauthor_ties) is None
    assert store._built(store.version(), held_rows.coauthor_ties) is not None
    store.close()


def test_no_connection_is_left_open_after_builds(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    most = len(seed_records) - 3
    store.upsert(seed_records[:most])
    store.version()  # this thread's reader, open from now on
    readers = len(store._readers)
    versions = []
    for rest in (seed_records[most:], []):  # two versions, each built
        nodes = _coauthor_nodes(store)
        concepts = _ids(store, "SELECT id FROM nodes WHERE label = 'Concept' ORDER BY id")
        query = _concept_queries(store)[0]
        for _ in range(WARM_ASKS + 1):
            store.pair_edges_among(nodes, "COAUTHOR", 1)
            store.pair_edges_among(concepts, "CO_OCCURS", 2)
            store.papers(query, 0, 20)
        assert store.wait_builds(WAIT_S)
        versions.append(store.version())
        assert store._closure_pages_cache.get(versions[-1], lambda: None) is not None
        assert store._coauthor_slot().held(versions[-1]) is not None
        store.upsert(rest)
    assert versions[0] < versions[1]
    assert len(store._readers) == readers  # no build opened a reader of its thread
    # and none left a connection of its own open: once the store has closed its connections,
    # no descriptor stays on its files (SQLite's unix VFS keeps a closed connection's
    # descriptor while others hold locks on the file, so they are counted after the close)
    store.close()
    assert _open_files(store.path) in (0, None)


def test_hold_now_builds_every_structure_on_the_calling_thread(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    version = store.version()
    store.hold_now()
    assert store._closure_pages().build_now(version, _fails) is not None  # held: not built again
    assert store._heavy_cache().build_now(version, "CO_OCCURS", _fails) is not None
    assert store._coauthor_slot().held(version) is not None
    store.close()


def test_the_in_memory_store_builds_where_asked(seed_records: list[Any]) -> None:
    store = SQLiteStore(None)
    store.upsert(seed_records)
    assert not store.background_builds
    nodes = sorted({a for r in seed_records for a in [n.id for n in r.nodes if n.label == "Author"]})
    for _ in range(WARM_ASKS):
        store.pair_edges_among(nodes, "COAUTHOR", 1)
    assert store._coauthor_slot().held(store.version()) is not None  # built by the warming ask


def _fails() -> Any:
    raise AssertionError("built again")
