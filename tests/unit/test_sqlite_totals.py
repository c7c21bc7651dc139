"""The embedded store counts a paper list once per store version (:mod:`kg.stores.sqlite.totals`):
every page and every order of the same conditions share the count, and a write that changes the
set is seen by the next page."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.protocol import PaperQuery
from kg.stores.sqlite import SQLiteStore
from kg.stores.sqlite.totals import Totals
from tests.graph_builders import curated_concept

FIELD = curated_concept("model-compression", "model compression")
QUANT = curated_concept("quantization", "quantization")


def _paper(pid: str, year: int, concept: Node) -> PaperRecord:
    props: dict[str, Any] = {"count": 2, "score": 1.0, "evidence": [], "salience": 0.8, "about": True}
    return PaperRecord(
        paper=Node(
            id=pid, label="Paper", properties={"title": pid, "abstract": f"about {pid}", "year": year}
        ),
        nodes=[FIELD, QUANT],
        relationships=[
            Relationship(type="MENTIONS", start=pid, end=concept.id, properties=props),
            Relationship(type="BROADER", start=QUANT.id, end=FIELD.id),
        ],
    )


def _counts_run(store: SQLiteStore, query: PaperQuery, offset: int) -> tuple[int, int]:
    """The total of one page of ``query`` and how many statements counting a set it ran."""
    seen: list[str] = []
    conn = store._reader()
    conn.set_trace_callback(seen.append)
    try:
        total = store.papers(query, offset, 2).total
    finally:
        conn.set_trace_callback(None)
    return total, sum("SELECT COUNT(*) FROM (" in sql for sql in seen)


def test_a_list_is_counted_once_per_version_in_every_order_and_window(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(
        [_paper(f"paper:q{i}", 2020 + i, QUANT) for i in range(4)] + [_paper("paper:f", 2019, FIELD)]
    )
    concepts = (FIELD.id, QUANT.id)
    newest = PaperQuery(concepts=concepts, about_only=True, narrower=(QUANT.id,), order="NEWEST")
    relevance = PaperQuery(concepts=concepts, about_only=True, narrower=(QUANT.id,), order="RELEVANCE")
    assert _counts_run(store, newest, 0) == (5, 1)
    assert _counts_run(store, newest, 2) == (5, 0)  # the next page: counted already
    assert _counts_run(store, PaperQuery(concepts=concepts, order="OLDEST"), 0) == (5, 1)  # other conditions
    # A page by relevance counts its set as it ranks it; newest first then needs no count.
    other = PaperQuery(concepts=(QUANT.id,), about_only=True)
    assert store.papers(PaperQuery(concepts=(QUANT.id,), about_only=True, order="RELEVANCE"), 0, 2).total == 4
    assert _counts_run(store, other, 0) == (4, 0)
    assert store.paper_count(other) == 4
    # A write that adds a paper to the set: the next page counts again and sees it.
    store.upsert([_paper("paper:q9", 2030, QUANT)])
    assert _counts_run(store, newest, 2) == (6, 1)
    assert store.papers(relevance, 0, 2).total == 6
    assert store.papers(other, 0, 10).ids[0] == "paper:q9"


def test_the_counts_are_bounded_and_forget_an_older_version() -> None:
    totals = Totals(entries=2)
    for i, key in enumerate("abc"):
        totals.put(7, key, i)
    assert [totals.get(7, k) for k in "abc"] == [None, 1, 2]  # the oldest went
    totals.put(8, "b", 5)
    assert totals.get(8, "c") is None and totals.get(8, "b") == 5
    assert totals.get(7, "b") is None  # another version than the last: nothing known
    assert totals.get(8, "b") is None  # and that emptied it (a store file made again counts from lower)
