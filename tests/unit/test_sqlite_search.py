"""The embedded store's search ranks on the FTS5 index alone and reads nodes for the page only.

Why: joining nodes before the sort pushed every match's row (a paper's abstract) through the
sorter. The page must still be exactly ``ORDER BY score DESC, id`` over all matches, including
when scores tie at the cut, where the ids decide which tied nodes make the page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.core.models import Node, PaperRecord
from kg.core.text_index import FIELD_BOOST
from kg.stores.sqlite import SQLiteStore

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
