"""The embedded store's reads stay index searches (older stores get the indexes: test_sqlite_store).

Why plans are tested, not timed: the seed graph is too small for a wrong plan to be slow, but
SQLite (with no statistics) picks plans from the schema and the SQL alone, so a plan seen here
is the plan at 100k papers. Two wrong plans were found that way at 100k papers: a node's ties
walked every pair in the graph (145 ms per author), and a concept's papers read a table row per
MENTIONS for ``about``.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

from kg.read.service import PaperFilter, ReadService
from kg.stores.protocol import PaperQuery
from kg.stores.sqlite import SQLiteStore

# The only reads that may walk the whole-graph weight index: they rank all pairs.
WHOLE_GRAPH = ("GROUP BY id ORDER BY s DESC", 'ORDER BY weight DESC, start, "end"')


def _plans(conn: sqlite3.Connection, statements: list[str]) -> dict[str, list[str]]:
    plans = {}
    for sql in statements:
        if sql.lstrip().upper().startswith(("SELECT", "WITH")):
            plans[sql] = [row[3] for row in conn.execute("EXPLAIN QUERY PLAN " + sql)]
    return plans


def test_api_reads_search_indexes_and_never_walk_all_pairs(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    service = ReadService(store, refresh_interval_s=0)
    conn = store._reader()  # this thread's read connection: every read below runs on it
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    concept = service.list_concepts(None, None, "PAPER_COUNT", 0, 1)[0][0].properties["name"]
    author = service.list_authors(None, "PAPER_COUNT", 0, 1)[0][0].properties["name"]
    for where in (
        PaperFilter(concept=str(concept), about_only=True),
        PaperFilter(concept=str(concept), year=2024),
        PaperFilter(author=str(author)),
        PaperFilter(author=str(author), text="bandits regret"),
    ):
        service.papers(service.paper_query(where), 0, 20)
    service.coauthors_many([service.require_author(str(author)).id])
    service.author_namesakes(service.require_author(str(author)))  # authors_named, by key
    service.coauthor_network(str(author), depth=2, max_nodes=200)
    service.concept_graph(str(concept), min_weight=1, max_nodes=100)
    service.concept_graph(None, min_weight=1, max_nodes=100)
    service.search("bandits regret", 20)
    conn.set_trace_callback(None)
    plans = _plans(conn, seen)
    assert len(plans) >= 10, seen
    for sql, plan in plans.items():
        steps = " | ".join(plan)
        assert "SCAN rels" not in steps and "SCAN nodes" not in steps, (sql, steps)
        if "pairs_by_weight" in steps:
            assert any(mark in sql for mark in WHOLE_GRAPH), (sql, steps)
        if "'MENTIONS' AND about = 1" in sql:
            assert "COVERING INDEX rels_by_end_about" in steps, (sql, steps)
        if "FROM name_keys k" in sql:
            # A lookup by name starts from the key's few rows: with no statistics SQLite once
            # walked every author by paper count instead (70 ms per name at 100k papers).
            assert plan[0].startswith("SEARCH k USING PRIMARY KEY (key="), (sql, steps)


def test_a_wide_closure_under_the_climbs_rule_reads_one_range_per_term(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    """A concept's papers under the climbs rule (``PaperQuery.narrower``) are ranges of
    ``rels_by_end_about_rank``, however wide the closure: an ``OR`` of the ``about`` values made
    SQLite plan a multi-index OR over both terms once the list was long (the 5,000-concept
    closure of "robotics" at 100k papers: 244 ms to count its papers, 40 ms as ranges)."""
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    service = ReadService(store, refresh_interval_s=0)
    broad = next(
        c for c in service.list_concepts(None, None, "PAPER_COUNT", 0, 500)[0] if service.narrower(c.id)
    )
    closure = service.closure(broad.id)
    # ids no node has widen the list as a real wide closure would, without changing the answer
    wide = closure + tuple(f"concept:absent-{i:04d}" for i in range(3000))
    expected = store.papers(PaperQuery(concepts=closure, about_only=True, narrower=closure[1:]), 0, 20)
    assert expected.total > 0
    conn = store._reader()
    seen: list[str] = []
    conn.set_trace_callback(seen.append)
    for order in ("NEWEST", "RELEVANCE"):
        query = PaperQuery(concepts=wide, about_only=True, narrower=wide[1:], order=order)
        page = store.papers(query, 0, 20)
        assert page.total == expected.total
        assert page.ids == store.papers(replace(query, concepts=closure, narrower=closure[1:]), 0, 20).ids
    store.paper_years(PaperQuery(concepts=wide, about_only=True, narrower=wide[1:]))
    conn.set_trace_callback(None)
    plans = _plans(conn, seen)
    assert any("about = 2" in sql for sql in plans), list(plans)
    for sql, plan in plans.items():
        assert not any("MULTI-INDEX OR" in step for step in plan), (sql, plan)
