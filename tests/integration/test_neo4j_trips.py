"""On Neo4j, what spares a request its server trips answers exactly what the trips answered: a
page's papers with their authors and venues in one statement (``PageReads.page_nodes``), the
nodes and an author's paper count a name look-up brings along (kept for one request only), an
author's co-author count from the held ties, and a search that waits for the fulltext index
only after a write (a write by another client is still found at once)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kg.core.models import Node, PaperRecord
from kg.core.names import author_query_key, query_keys
from kg.read.service import ReadService
from kg.stores import request_scope
from kg.stores.neo4j.store import Neo4jStore
from kg.stores.protocol import PageReads, PaperQuery
from kg.stores.warm import WarmSlot

pytestmark = pytest.mark.neo4j


@pytest.fixture
def seeded(neo4j_driver: Any, seed_records: list[Any]) -> Iterator[Neo4jStore]:
    store = Neo4jStore(neo4j_driver)
    store.clear()
    store.upsert(seed_records)
    yield store


def _sessions(store: Neo4jStore, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A counter of the sessions (server trips) the store opens from now on."""
    opened = [0]
    plain = store._session

    def counting(*args: Any, **kwargs: Any) -> Any:
        opened[0] += 1
        return plain(*args, **kwargs)

    monkeypatch.setattr(store, "_session", counting)
    return opened


def test_a_page_in_one_statement_answers_as_three_reads(seeded: Neo4jStore) -> None:
    store = seeded
    assert isinstance(store, PageReads)
    ids = store.papers(PaperQuery(), 0, 500).ids
    assert len(ids) > 20
    service = ReadService(store)
    for chosen in (ids, ids[:20], ids[5:9][::-1], ["paper:no-such-paper", *ids[:3]], ids[:1]):
        for authors in (True, False):
            for venues in (True, False):
                found = store.page_nodes(chosen, authors, venues)
                assert found.papers == store.get_nodes(chosen)
                assert found.authors == (store.paper_authors(chosen) if authors else None)
                assert found.venues == (service.paper_venue_many(chosen) if venues else None)
    found = store.page_nodes(ids, True, True)
    assert found.authors is not None and found.venues is not None
    assert any(len(a) > 1 for a in found.authors) and any(v is not None for v in found.venues)
    assert store.page_nodes([], True, True) == ([], [], [])


def test_a_page_with_authors_and_venues_is_one_trip(
    seeded: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded
    query = PaperQuery(order="NEWEST")
    page = store.papers(query, 0, 20)
    service = ReadService(store)
    opened = _sessions(store, monkeypatch)
    bare = service.paper_page(query, 0, 20)
    alone = opened[0]
    full = service.paper_page(query, 0, 20, authors=True, venues=True)
    assert opened[0] - alone == alone  # the authors and venues came with the papers
    assert [p.id for p in full.papers] == [p.id for p in bare.papers] == page.ids
    assert full.authors == store.paper_authors(page.ids)
    assert full.venues == service.paper_venue_many(page.ids)


def test_a_look_up_brings_its_node_for_the_request_only(
    seeded: Neo4jStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded
    concept = store.list_concepts(None, None, "PAPER_COUNT", 0, 1).ids[0]
    name = str(store.get_nodes([concept])[0].properties["name"])  # type: ignore[union-attr]
    author = store.list_authors(None, "PAPER_COUNT", 0, 1).ids[0]
    author_name = str(store.get_nodes([author])[0].properties["name"])  # type: ignore[union-attr]
    want_nodes = store.get_nodes([concept, author])
    want_papers = store.degree_many([author], "AUTHORED", "out")
    assert want_papers[0] > 1
    opened = _sessions(store, monkeypatch)
    with request_scope.request_scope():
        found = store.concepts_by_keys(query_keys(name))
        named = store.authors_named(author_query_key(author_name), 1)
        assert concept in found and named == [author]
        before = opened[0]
        assert store.get_nodes([concept, author]) == want_nodes
        assert store.degree_many([author], "AUTHORED", "out") == want_papers
        assert opened[0] == before  # both taken from what the look-ups brought
        assert store.degree_many([author, concept], "AUTHORED", "out") == [want_papers[0], 0]
        assert opened[0] == before + 1  # one not brought along: read
    with request_scope.request_scope():  # a new request starts with nothing kept
        before = opened[0]
        assert store.get_nodes([concept]) == want_nodes[:1]
        assert opened[0] == before + 1
    store.concepts_by_keys(query_keys(name))
    before = opened[0]
    assert store.get_nodes([concept]) == want_nodes[:1]  # outside a request nothing is kept
    assert opened[0] == before + 1


def test_held_coauthor_counts_answer_as_the_statements(
    seeded: Neo4jStore, neo4j_driver: Any, seed_records: list[Any]
) -> None:
    held, plain = Neo4jStore(neo4j_driver), Neo4jStore(neo4j_driver)
    held._held_slot = WarmSlot(1)
    plain._held_slot = WarmSlot(10**9)
    authors = plain.list_authors(None, "PAPER_COUNT", 0, 10_000).ids
    ids = [*authors, "author:nobody", authors[0]]
    want = plain.degree_many(ids, "COAUTHOR", "both")
    assert max(want) > 1 and 0 in want
    assert held.degree_many(ids, "COAUTHOR", "both") == want
    assert held._held_slot.held(held.version(), "ties:COAUTHOR") is not None  # the held ties answered
    assert held.degree_many(ids, "COAUTHOR", "out") == plain.degree_many(ids, "COAUTHOR", "out")


def test_a_search_after_another_clients_write_finds_it(seeded: Neo4jStore) -> None:
    import neo4j

    from tests.conftest import neo4j_uri

    store = seeded
    assert store.search("zyzzyvaphrase", 5) == []
    assert store.search("zyzzyvaphrase", 5) == []  # the same version: no wait for the index
    paper = Node(id="paper:zyzzyva", label="Paper", properties={"title": "Zyzzyvaphrase nets", "year": 2024})
    other = neo4j.GraphDatabase.driver(neo4j_uri())
    try:
        Neo4jStore(other).upsert([PaperRecord(paper=paper)])
    finally:
        other.close()
    hits = store.search("zyzzyvaphrase", 5)
    assert [h.node.id for h in hits] == [paper.id]
