"""A structure built once a version is warm (kg.stores.warm): built once, outside the lock, and
other threads answered (with ``None``: their statements) while it builds."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from kg.stores.held import closure_pages
from kg.stores.held.closure_pages import ClosurePages, ClosurePagesCache
from kg.stores.held.heavy_ties import HeavyTies, HeavyTiesCache
from kg.stores.protocol import PaperQuery
from kg.stores.sqlite import SQLiteStore
from kg.stores.warm import WarmSlot, attached


def test_a_second_thread_is_answered_while_the_build_runs() -> None:
    slot: WarmSlot[str] = WarmSlot(warm_asks=1)
    started, release = threading.Event(), threading.Event()
    builds: list[int] = []

    def build() -> str:
        builds.append(1)
        started.set()
        assert release.wait(10)
        return "held"

    got: list[str | None] = []
    builder = threading.Thread(target=lambda: got.append(slot.get(7, build)))
    builder.start()
    assert started.wait(10)
    # the build is in progress on the other thread: this ask is answered at once, builds nothing
    assert slot.get(7, build) is None and slot.held(7) is None
    release.set()
    builder.join(10)
    assert got == ["held"] and slot.get(7, build) == "held" and len(builds) == 1


def test_a_background_build_answers_the_warming_ask_at_once() -> None:
    """With ``background`` the ask that warms the version is not the one that waits: it gets
    ``None`` (its statements) and the build runs on a thread of its own; a failed build is
    retried by the next ask."""
    slot: WarmSlot[str] = WarmSlot(warm_asks=2, background=True)
    started, release, done = threading.Event(), threading.Event(), threading.Event()
    builders: list[str] = []

    def build() -> str:
        builders.append(threading.current_thread().name)
        started.set()
        assert release.wait(10)
        done.set()
        return "held"

    def fails() -> str:
        raise RuntimeError("the store went away")

    assert slot.get(7, fails) is None and slot.get(7, fails) is None  # the warming ask: started
    for _ in range(100):  # the failed build is not kept
        if 7 not in slot._building:
            break
        threading.Event().wait(0.01)
    assert slot.held(7) is None
    assert slot.get(7, build) is None  # the next ask builds again, on its own thread
    assert started.wait(10)
    assert slot.get(7, build) is None  # still building: nothing waits
    release.set()
    assert done.wait(10)
    for _ in range(100):
        if slot.held(7) is not None:
            break
        threading.Event().wait(0.01)
    assert slot.get(7, build) == "held" and len(builders) == 1
    assert builders[0] != threading.current_thread().name


def test_wait_returns_once_the_build_is_kept() -> None:
    """``wait`` is how a test or a benchmark waits for a background build without polling: it
    returns when no build runs, and a build it waited for is held by then (kept and no longer
    building in one step); a failed one leaves nothing held."""
    slot: WarmSlot[str] = WarmSlot(warm_asks=1, background=True)
    release = threading.Event()

    def build() -> str:
        assert release.wait(10)
        return "held"

    assert slot.wait(0) and slot.get(7, build) is None
    assert not slot.wait(0.01)  # the build is held back
    release.set()
    assert slot.wait(10) and slot.held(7) == "held"

    def fails() -> str:
        raise RuntimeError("the store went away")

    assert slot.get(8, fails) is None and slot.wait(10) and slot.held(8) is None


def test_asks_of_a_newer_version_during_a_build_count_and_build_after_it() -> None:
    slot: WarmSlot[int] = WarmSlot(warm_asks=2)
    started, release = threading.Event(), threading.Event()

    def slow() -> int:
        started.set()
        assert release.wait(10)
        return 1

    assert slot.get(1, slow) is None
    builder = threading.Thread(target=slot.get, args=(1, slow))
    builder.start()
    assert started.wait(10)
    assert slot.get(2, lambda: 2) is None and slot.get(2, lambda: 2) is None  # counted, not built
    release.set()
    builder.join(10)
    assert slot.get(2, lambda: 2) == 2 and slot.held(1) is None


def test_a_failed_build_is_tried_again_and_none_is_kept() -> None:
    slot: WarmSlot[str] = WarmSlot(warm_asks=1)
    calls: list[int] = []

    def failing() -> str:
        calls.append(1)
        raise RuntimeError("store went away")

    for _ in range(2):
        try:
            slot.get(1, failing)
        except RuntimeError:
            pass
    assert len(calls) == 2
    nothing: list[int] = []
    assert slot.get(1, lambda: nothing.append(1)) is None
    assert slot.get(1, lambda: nothing.append(1)) is None and len(nothing) == 1  # None is kept


def _gated_answers(ask: Any) -> tuple[Any, Any, Any]:
    """``ask(build)`` on a thread whose build waits for an event, ``ask`` here meanwhile, and
    ``ask`` after the build: (the builder's answer, the answer meanwhile, the answer after)."""
    started, release = threading.Event(), threading.Event()

    def gate(build: Any) -> Any:
        def gated() -> Any:
            started.set()
            assert release.wait(10)
            return build()

        return gated

    got: list[Any] = []
    builder = threading.Thread(target=lambda: got.append(ask(gate)))
    builder.start()
    assert started.wait(10)
    meanwhile = ask(gate)
    release.set()
    builder.join(10)
    return got[0], meanwhile, ask(gate)


def test_the_heavy_ties_and_the_lists_answer_while_their_build_runs() -> None:
    """Heavy ties and concept pages, each at its warm ask on one thread: the other is answered."""
    ties = HeavyTiesCache(warm_asks=1)
    built, meanwhile, after = _gated_answers(
        lambda gate: ties.get(3, "CO_OCCURS", gate(lambda: HeavyTies.from_rows([(1, 2, 3)])))
    )
    assert built is not None and meanwhile is None and after is built
    pages = ClosurePagesCache(warm_asks=1)
    built, meanwhile, after = _gated_answers(
        lambda gate: pages.get(3, gate(lambda: ClosurePages.from_rows([], [], {}, 1)))
    )
    assert built is not None and meanwhile is None and after is built


def test_a_page_read_while_the_lists_build_comes_from_the_statements(
    tmp_path: Path, seed_records: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a real store: a concept page asked on another thread while the version's lists are being
    built is answered by the statements, and equals the page from the lists afterwards."""
    monkeypatch.setattr(closure_pages, "OWN_MIN", 1)  # the seed store's concepts are small
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    concept = store.list_concepts(None, None, "PAPER_COUNT", 0, 1).ids[0]
    query = PaperQuery(concepts=(concept,), about_only=True, order="NEWEST")
    cache = ClosurePagesCache(warm_asks=1)
    store._closure_pages_cache = cache
    started, release = threading.Event(), threading.Event()
    real_get = cache.get

    def gated(version: int, build: Any) -> Any:
        def slow() -> Any:
            started.set()
            assert release.wait(10)
            return build()

        return real_get(version, slow)

    cache.get = gated  # type: ignore[method-assign]
    pages: list[Any] = []
    builder = threading.Thread(target=lambda: pages.append(store.papers(query, 0, 10)))
    builder.start()
    assert started.wait(10)
    seen: list[str] = []
    conn = store._reader()
    conn.set_trace_callback(seen.append)
    meanwhile = store.papers(query, 0, 10)  # this thread, while the build waits on the other
    read_meanwhile = sum("rels" in sql for sql in seen)
    release.set()
    builder.join(10)
    seen.clear()
    assert pages == [meanwhile] and store.papers(query, 0, 10) == meanwhile and meanwhile.total > 0
    conn.set_trace_callback(None)
    assert read_meanwhile > 0 and not any("rels" in sql for sql in seen)  # then the held lists
    assert cache._slot.held(store.version()) is not None


def _ask_at_once(threads: int) -> tuple[list[WarmSlot[int]], list[WarmSlot[int]]]:
    """What ``threads`` threads released together get from ``attached`` on one new owner, and
    how many slots were made."""

    class Store:
        pass

    store = Store()
    start = threading.Barrier(threads)
    made: list[WarmSlot[int]] = []
    got: list[WarmSlot[int]] = []

    def make() -> WarmSlot[int]:
        time.sleep(0.01)  # making takes a moment (the GIL passes on): others ask meanwhile
        slot: WarmSlot[int] = WarmSlot()
        made.append(slot)
        return slot

    def ask() -> None:
        start.wait(timeout=10)
        got.append(attached(store, "_slot", make))

    running = [threading.Thread(target=ask) for _ in range(threads)]
    for t in running:
        t.start()
    for t in running:
        t.join(timeout=10)
    return made, got


def test_a_store_attribute_is_made_once_by_threads_asking_at_once() -> None:
    """The stores' read mixins make their caches and slots at first use; threads asking first at
    the same moment all get the one made (before, the last one's replaced the others', and a
    structure built into a replaced slot was thrown away)."""
    for _ in range(5):
        made, got = _ask_at_once(8)
        assert len(made) == 1 and len(got) == 8 and all(g is made[0] for g in got)
