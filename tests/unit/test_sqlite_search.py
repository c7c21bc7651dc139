"""The embedded store's search ranks on the FTS5 index alone and reads nodes for the page only.

Why: joining nodes before the sort pushed every match's row (a paper's abstract) through the
sorter. The page must still be exactly ``ORDER BY score DESC, id`` over all matches, including
when scores tie at the cut, where the ids decide which tied nodes make the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kg.core import text_index
from kg.core.models import Node, PaperRecord
from kg.core.text_index import FIELD_BOOST
from kg.stores.sqlite import SQLiteStore, word_rows
from tests.graph_builders import rare_and_common_word_papers

EXACT = (
    "SELECT n.id, -bm25(fts, ?, ?, ?, ?) AS s FROM fts JOIN nodes n ON n.rowid = fts.rowid "
    "WHERE fts MATCH ? ORDER BY s DESC, n.id LIMIT ?"
)


def _exact(store: SQLiteStore, fts: str, limit: int) -> list[tuple[str, float]]:
    b = FIELD_BOOST
    rows = store._reader().execute(EXACT, (b["title"], b["abstract"], b["name"], b["aliases"], fts, limit))
    return [(i, float(s)) for i, s in rows.fetchall()]


def test_pages_equal_the_full_ranking(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    for text, fts in (
        ("bandits", '"bandits"'),
        ("Nash equilibria", '"nash" OR "equilibria"'),
        ("learning regret games", '"learning" OR "regret" OR "games"'),
        ("equivariant networks", '"equivariant" OR "networks"'),
    ):
        for limit in (1, 2, 5, 20, 500):
            got = [(h.node.id, h.score) for h in store.search(text, limit)]
            assert got == _exact(store, fts, limit), (text, limit)


def test_a_tie_at_the_cut_keeps_the_smaller_ids(tmp_path: Path) -> None:
    # Same title, abstracts of the same length: "zorblax" scores the same in all five papers.
    papers = [
        Node(
            id=f"paper:{c}",
            label="Paper",
            properties={"title": "Zorblax methods", "abstract": f"We study {w}."},
        )
        for c, w in zip("qbxda", ("alpha", "gamma", "delta", "omega", "theta"), strict=True)
    ]
    store = SQLiteStore(tmp_path)
    store.upsert([PaperRecord(paper=p) for p in papers])
    hits = store.search("zorblax", limit=3)
    assert len({h.score for h in hits}) == 1
    assert [h.node.id for h in hits] == ["paper:a", "paper:b", "paper:d"]
    assert [(h.node.id, h.score) for h in hits] == _exact(store, '"zorblax"', 3)


def _papers(rows: list[tuple[str, str, str]]) -> list[PaperRecord]:
    return [
        PaperRecord(
            paper=Node(id=f"paper:{pid}", label="Paper", properties={"title": title, "abstract": abstract})
        )
        for pid, title, abstract in rows
    ]


def test_many_rows_tied_past_the_rows_read_at_first(tmp_path: Path) -> None:
    # Seven papers score alike, more than the TIE_ROOM rows a page of one reads at first: the
    # read goes on past the cut until the ties end, and the smallest id makes the page.
    store = SQLiteStore(tmp_path)
    store.upsert(_papers([(c, "Zorblax methods", f"We study {c}.") for c in "gfedcba"]))
    assert [h.node.id for h in store.search("zorblax", limit=1)] == ["paper:a"]
    assert [(h.node.id, h.score) for h in store.search("zorblax", limit=3)] == _exact(store, '"zorblax"', 3)


def _word_store(tmp_path: Path) -> SQLiteStore:
    store = SQLiteStore(tmp_path)
    store.upsert(rare_and_common_word_papers())
    return store


def test_any_word_ranks_the_rows_holding_a_rarer_word(tmp_path: Path, monkeypatch: Any) -> None:
    # With a budget of rows below the 34 rows of "learning", the page is the rows holding
    # "zorblax" in the order of the whole any-word ranking (the "learning" part of their score
    # included), and the papers with "learning" alone stay out though some score higher.
    store = _word_store(tmp_path)
    whole = _exact(store, '"zorblax" OR "learning"', 100)
    monkeypatch.setattr(text_index, "RARE_ROWS", 10)
    got = [(h.node.id, h.score) for h in store.search("zorblax learning", limit=5)]
    expected = [(i, s) for i, s in whole if i.startswith("paper:z")][:5]
    assert [i for i, _ in got] == [i for i, _ in expected]
    assert [s for _, s in got] == pytest.approx([s for _, s in expected], rel=1e-12)
    assert any(i.startswith("paper:l") for i, _ in whole[:5])  # "learning" alone can score higher
    monkeypatch.setattr(text_index, "RARE_ROWS", 100)  # every word within the budget: as before
    assert [(h.node.id, h.score) for h in store.search("zorblax learning", limit=5)] == whole[:5]


def test_any_word_takes_the_commoner_words_when_the_rarer_do_not_fill_the_page(
    tmp_path: Path, monkeypatch: Any
) -> None:
    store = _word_store(tmp_path)
    monkeypatch.setattr(text_index, "RARE_ROWS", 10)
    got = [(h.node.id, h.score) for h in store.search("zorblax learning", limit=20)]
    assert got == _exact(store, '"zorblax" OR "learning"', 20)


def test_word_row_counts_follow_writes(tmp_path: Path) -> None:
    store = _word_store(tmp_path)
    conn = store._reader()
    rows = word_rows.WordRows()
    assert rows.get(conn, store.version(), ["zorblax", "learning", "nothing"]) == {
        "zorblax": 6,
        "learning": 34,
        "nothing": 0,
    }
    store.upsert(_papers([("new", "Zorblax again", "More.")]))
    assert rows.get(conn, store.version(), ["zorblax"]) == {"zorblax": 7}
