"""The embedded store's search from held word scores (:mod:`kg.stores.sqlite.word_scores`) gives
the statements' page to the last bit: same rows, same order, same scores.

Why: once a version is warm, search adds each word's part of FTS5's ``bm25()`` itself instead of
asking FTS5 to score every matching row; any difference in a score (the order of the additions,
a word's idf, a column weight) or in the page's rule (ties at the cut, the any-word split) would
change answers that the statements gave before.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from kg.core import deadline, text_index
from kg.core.models import Node, PaperRecord
from kg.stores.sqlite import SQLiteStore, word_scores
from tests.graph_builders import rare_and_common_word_papers

TEXTS = (
    "bandits",
    "Nash equilibria",
    "learning regret games",
    "equivariant networks",
    "graph neural networks for molecules",
    "robot learning from demonstrations",
    "zorblax learning",
    "zorblax",
    "learning",
    "nothing matches this qqqq",
    "learning learning other study",
)


@pytest.fixture(autouse=True)
def _warm_at_the_third_search(monkeypatch: Any) -> None:
    monkeypatch.setattr(word_scores, "WARM_SEARCHES", 3)


def _warm(store: SQLiteStore) -> word_scores.WordScores:
    for _ in range(5):
        held = store._word_scores()
        if held is not None:
            return held
        assert store.wait_builds(60)  # read on a thread of its own once warm
    raise AssertionError("the version never warmed")


def _pages(store: SQLiteStore, limits: tuple[int, ...] = (1, 3, 5, 20, 500)) -> dict[Any, list[Any]]:
    return {
        (text, limit, every): [(h.node.id, h.node.label, h.score) for h in store.search(text, limit, every)]
        for text in TEXTS
        for limit in limits
        for every in (False, True)
    }


def _statements(store: SQLiteStore, monkeypatch: Any) -> dict[Any, list[Any]]:
    with monkeypatch.context() as m:
        m.setattr(store, "_held_search", lambda *args: None)
        return _pages(store)


@pytest.fixture
def store(tmp_path: Path, seed_records: list[Any]) -> SQLiteStore:
    s = SQLiteStore(tmp_path)
    s.upsert(seed_records)
    s.upsert(rare_and_common_word_papers())
    return s


@pytest.mark.parametrize("share", [0.001, 0.2, 2.0])
@pytest.mark.parametrize("budget", [1, 10, text_index.RARE_ROWS])
def test_held_pages_are_the_statements_pages(
    store: SQLiteStore, monkeypatch: Any, budget: int, share: float
) -> None:
    # budget 1 and 10: the any-word split with commoner words asked of the rarer words' rows,
    # and the next split taken when those do not fill the page; share: every word read at
    # build, the commonest, none (every word read when first asked)
    monkeypatch.setattr(text_index, "RARE_ROWS", budget)
    monkeypatch.setattr(word_scores, "HELD_SHARE", share)
    expected = _statements(store, monkeypatch)
    assert sum(len(v) for v in expected.values()) > 500
    held = _warm(store)
    assert bool(held.words) == (share <= 1)  # the store's commonest words were read at build
    used = []
    original = store._held_search

    def spy(*args: Any) -> Any:
        found = original(*args)
        used.append(found is not None)
        return found

    monkeypatch.setattr(store, "_held_search", spy)
    assert _pages(store) == expected  # == on floats: the same bits
    assert used and all(used)


def test_ties_at_the_cut_follow_the_ids(tmp_path: Path, monkeypatch: Any) -> None:
    store = SQLiteStore(tmp_path)
    papers = [
        Node(
            id=f"paper:{c}",
            label="Paper",
            properties={"title": "Zorblax methods", "abstract": f"We study {c}."},
        )
        for c in "gfedcba"
    ]
    store.upsert([PaperRecord(paper=p) for p in papers])
    _warm(store)
    for limit in (1, 3, 7):
        hits = store.search("zorblax", limit)
        assert [h.node.id for h in hits] == [f"paper:{c}" for c in "abcdefg"][:limit]
        assert len({h.score for h in hits}) == 1


def test_a_write_makes_the_statements_answer_until_the_new_version_is_warm(store: SQLiteStore) -> None:
    held = _warm(store)
    store.upsert([PaperRecord(paper=Node(id="paper:new", label="Paper", properties={"title": "Quuxwidget"}))])
    assert store._word_scores() is None  # the new version's first ask: not warm
    assert [h.node.id for h in store.search("quuxwidget")] == ["paper:new"]
    # a word read on a connection past the held version is not kept: the statements answer
    assert held.of(store._reader(), "quuxwidget") is None
    newer = _warm(store)
    assert newer.version == store.version() != held.version
    assert [h.node.id for h in store.search("quuxwidget")] == ["paper:new"]


def test_words_read_when_asked_stay_within_their_bound(store: SQLiteStore, monkeypatch: Any) -> None:
    monkeypatch.setattr(word_scores, "LAZY_ENTRIES", 5)
    monkeypatch.setattr(word_scores, "HELD_SHARE", 2.0)  # no word read at build
    held = _warm(store)
    conn = store._reader()
    for word in ("zorblax", "bandits", "nash", "equilibria", "regret", "games"):
        rows, parts = held.of(conn, word) or (None, None)
        assert rows is not None and parts is not None and len(rows) == len(parts) > 0
        assert list(rows) == sorted(rows)
        assert 0 < held._lazy_entries <= 5 or len(held._lazy) == 1
    assert held.of(conn, "games") is held.of(conn, "games")  # kept


def test_the_in_memory_store_answers_alike(seed_records: list[Any], monkeypatch: Any) -> None:
    store = SQLiteStore(None)
    store.upsert(seed_records)
    expected = _statements(store, monkeypatch)
    _warm(store)
    assert _pages(store) == expected


def test_the_read_is_not_stopped_by_the_asking_requests_time_limit(store: SQLiteStore) -> None:
    # a read stopped at the asking request's deadline would be begun again by every later ask
    with deadline.deadline_scope(30.0):
        store._word_scores()
        store._word_scores()
    with deadline.deadline_scope(1e-6):
        time.sleep(0.01)
        store._word_scores()  # the warming ask, past its deadline
        assert store.wait_builds(60)
    held = store._word_scores()
    assert held is not None and held.words


def test_a_version_searched_fewer_times_is_answered_by_the_statements(
    tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.setattr(word_scores, "WARM_SEARCHES", 50)
    store = SQLiteStore(tmp_path)
    store.upsert(rare_and_common_word_papers())
    for _ in range(49):
        store.search("zorblax learning")
    assert store._word_scores_slot.held(store.version()) is None
    store.search("zorblax learning")
    assert store.wait_builds(60)
    assert store._word_scores_slot.held(store.version()) is not None
