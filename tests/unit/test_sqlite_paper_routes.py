"""The three routes of a page of papers on SQLite (fetch, walk, test) give the same page.

Why: the route is chosen by cost from the sizes alone (``kg.stores.sqlite.reads.page_route``),
so on a small graph most queries take the fetch route, and a wrong walk or test would show
only at 100k papers, on the broadest concepts. Here every route is forced on every query.
"""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from kg.read.service import ReadService
from kg.stores.protocol import PaperQuery, link_relevance
from kg.stores.sqlite import SQLiteStore, reads

ROUTES = ("fetch", "walk", "test")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory, seed_records: list[Any]) -> SQLiteStore:
    s = SQLiteStore(Path(tmp_path_factory.mktemp("routes")))
    s.upsert(seed_records)
    return s


def _queries(store: SQLiteStore) -> list[PaperQuery]:
    service = ReadService(store, refresh_interval_s=0)
    concepts = service.list_concepts(None, None, "PAPER_COUNT", 0, 12)[0]
    authors = service.list_authors(None, "PAPER_COUNT", 0, 4)[0]
    venues = tuple(v.id for v in store.nodes_by_label("Venue"))
    topics = tuple(t.id for t in store.nodes_by_label("Topic"))[:5]
    papers = store.nodes_by_label("Paper")
    years = sorted({y for p in papers if isinstance(y := p.properties.get("year"), int)})
    queries = []
    for c in concepts:
        closure = service.closure(c.id)
        queries += [
            PaperQuery(concepts=closure, about_only=True),
            PaperQuery(concepts=closure, about_only=False),
            PaperQuery(concepts=closure, about_only=True, year=years[-1]),
            PaperQuery(concepts=closure, venues=venues[:2]),
        ]
    for a in authors:
        with_concept = PaperQuery(author=a.id, concepts=service.closure(concepts[0].id))
        queries += [PaperQuery(author=a.id), with_concept]
    queries += [PaperQuery(topics=topics), PaperQuery(venues=venues), PaperQuery(year=years[0])]
    return queries


def test_every_route_gives_the_same_page(store: SQLiteStore, monkeypatch: pytest.MonkeyPatch) -> None:
    queries = _queries(store)
    assert len(queries) > 40
    nonempty = 0
    for query in queries:
        for offset, limit in ((0, 20), (0, 1), (1, 2), (3, 5), (7, 20)):
            pages = {}
            for route in ROUTES:
                monkeypatch.setattr(reads, "page_route", lambda total, window, r=route: r)
                pages[route] = store.papers(query, offset, limit)
            assert pages["walk"] == pages["fetch"] == pages["test"], (query, offset, limit)
            nonempty += bool(pages["fetch"].ids)
    assert nonempty > 100  # the comparison is not between empty pages


def test_the_test_route_reads_each_paper_by_its_own_keys(store: SQLiteStore) -> None:
    """The test route walks the order index and looks each paper's relationships up by the
    primary key: no scan of ``rels`` or ``nodes`` (SQLite has no statistics, so the plan seen
    here is the plan at 100k papers)."""
    service = ReadService(store, refresh_interval_s=0)
    concept = service.list_concepts(None, None, "PAPER_COUNT", 0, 1)[0][0]
    author = service.list_authors(None, "PAPER_COUNT", 0, 1)[0][0]
    closure = service.closure(concept.id)
    query = PaperQuery(concepts=closure, about_only=True, author=author.id, venues=("venue:x",), year=2024)
    members, params = store._paper_tests(query)
    sql = (
        f"SELECT p.id FROM nodes p WHERE p.label = 'Paper'{members} "
        "ORDER BY p.year DESC, p.sort_key, p.id LIMIT 20"
    )
    plan = " | ".join(row[3] for row in store._reader().execute("EXPLAIN QUERY PLAN " + sql, params))
    assert "SCAN" not in plan, plan
    assert "nodes_by_order" in plan and "PRIMARY KEY (start=? AND type=?)" in plan, plan


def _by_relevance(store: SQLiteStore, query: PaperQuery) -> list[str]:
    """The relevance order computed in Python from the stored links (the rule of
    ``kg.stores.protocol.link_relevance``), over the papers the newest order lists."""
    total = store.papers(replace(query, order="NEWEST"), 0, 0).total
    newest = store.papers(replace(query, order="NEWEST"), 0, total).ids
    concepts = set(query.concepts or ())
    links = {
        pid: [
            link_relevance(e.rel.type, e.rel.properties)
            for rel_type in ("MENTIONS", "INTRODUCES")
            for e in store.neighbors_many([pid], rel_type, "out")[0]
            if e.node.id in concepts
            and (
                rel_type == "INTRODUCES" or not query.about_only or e.rel.properties.get("about") is not False
            )
        ]
        for pid in newest
    }
    position = {pid: i for i, pid in enumerate(newest)}  # newest first breaks ties
    return sorted(newest, key=lambda pid: (-max(links[pid]), position[pid]))


def test_the_relevance_order_is_the_rule_on_every_query_and_window(store: SQLiteStore) -> None:
    checked = 0
    for query in _queries(store):
        if query.concepts is None:
            continue
        relevant = replace(query, order="RELEVANCE")
        expected = _by_relevance(store, relevant)
        for offset, limit in ((0, 20), (0, 1), (1, 2), (3, 5), (7, 20)):
            page = store.papers(relevant, offset, limit)
            assert page.ids == expected[offset : offset + limit], (query, offset, limit)
            assert page.total == len(expected)
            checked += bool(page.ids)
    assert checked > 100
    # the order differs from the newest one somewhere, or this tests nothing
    assert any(
        _by_relevance(store, replace(q, order="RELEVANCE")) != store.papers(q, 0, 100).ids
        for q in _queries(store)
        if q.concepts is not None
    )


def test_a_store_written_before_the_rank_gets_it_when_opened(tmp_path: Path, seed_records: list[Any]) -> None:
    """``rels.rank`` and its index are added to an older store (the column filled from each
    link's map), and relevance pages are then what a new store gives."""
    new = SQLiteStore(tmp_path / "new")
    new.upsert(seed_records)
    old_dir = tmp_path / "old"
    old = SQLiteStore(old_dir)
    old.upsert(seed_records)
    old.close()
    c = sqlite3.connect(old_dir / "graph.sqlite")
    c.execute("DROP INDEX rels_by_end_about_rank")
    c.execute('CREATE INDEX rels_by_end_about ON rels ("end", type, about, start)')
    c.execute("ALTER TABLE rels DROP COLUMN rank")
    c.commit()
    c.close()
    reopened = SQLiteStore(old_dir)
    indexes = {
        r[0] for r in reopened._reader().execute("SELECT name FROM sqlite_master WHERE type = 'index'")
    }
    assert "rels_by_end_about_rank" in indexes and "rels_by_end_about" not in indexes
    ranks = 'SELECT start, type, "end", rank FROM rels WHERE rank IS NOT NULL ORDER BY 1, 2, 3'
    assert reopened._all(ranks) == new._all(ranks) != []
    for query in _queries(new):
        if query.concepts is not None:
            relevant = replace(query, order="RELEVANCE")
            assert reopened.papers(relevant, 0, 20) == new.papers(relevant, 0, 20)


def test_listing_fields_give_the_same_page_on_every_route(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``status``/``track`` are read from the property map on every route (a set for fetch and
    walk, a test of the walked paper for test)."""
    from kg.core.models import Node, PaperRecord

    decisions = ["Oral", "Poster", "Reject", None]
    records = [
        PaperRecord(
            paper=Node(
                id=f"paper:{i:02d}",
                label="Paper",
                properties={
                    "title": f"Paper {i}",
                    "year": 2020 + i % 4,
                    **({"status": decisions[i % 4]} if decisions[i % 4] else {}),
                    "track": "main" if i % 3 else "Datasets and Benchmarks",
                },
            )
        )
        for i in range(24)
    ]
    s = SQLiteStore(tmp_path / "kg")
    s.upsert(records)
    expected = {
        PaperQuery(status="Oral"): 6,
        PaperQuery(status="Poster", track="main"): 4,
        PaperQuery(track="Datasets and Benchmarks", year=2021): 2,
        PaperQuery(status="Workshop"): 0,
    }
    for query, total in expected.items():
        for offset, limit in ((0, 20), (1, 2)):
            pages = {}
            for route in ROUTES:
                monkeypatch.setattr(reads, "page_route", lambda total, window, r=route: r)
                pages[route] = s.papers(query, offset, limit)
            assert pages["walk"] == pages["fetch"] == pages["test"], query
            assert pages["fetch"].total == total, query
    s.close()
