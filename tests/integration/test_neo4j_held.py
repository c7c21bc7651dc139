"""On Neo4j, a warm version's held structures (:mod:`kg.stores.neo4j.held`) answer exactly what
the statements answer: the ties among nodes and each node's heaviest neighbours (both pair
types, every weight and limit), a concept's closure and its pages (both orders, many windows,
with and without its narrower concepts); and a write by another client (a new version) is
seen: the held structure of the old version is not used for it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from kg.read.service import below
from kg.stores.held import closure_pages
from kg.stores.neo4j.store import Neo4jStore
from kg.stores.protocol import CLOSURE_LIMIT, PairEdge, PairType, PaperQuery
from kg.stores.warm import WarmSlot
from tests.unit.test_sqlite_closure_pages import _small_store_records

NEVER = 10**9  # warm asks of a slot that never builds: the statements answer


def _stores(driver: Any) -> tuple[Neo4jStore, Neo4jStore]:
    """Two stores on one server: one that holds a version at its first ask, one that never does."""
    held, plain = Neo4jStore(driver), Neo4jStore(driver)
    held._held_slot = WarmSlot(1)
    plain._held_slot = WarmSlot(NEVER)
    return held, plain


@pytest.fixture
def empty(neo4j_driver: Any) -> Iterator[Any]:
    Neo4jStore(neo4j_driver).clear()
    yield neo4j_driver


def _ties(store: Neo4jStore, pair: PairType) -> list[PairEdge]:
    nodes = sorted({i for e in store.heaviest_pairs(pair, 100_000) for i in (e.source, e.target)})
    return store.pair_edges_among(nodes, pair, 1)


@pytest.mark.parametrize("pair", ["COAUTHOR", "CO_OCCURS"])
def test_held_ties_answer_as_the_statements(empty: Any, seed_records: list[Any], pair: PairType) -> None:
    held, plain = _stores(empty)
    held.upsert(seed_records)
    ties = _ties(plain, pair)
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    assert len(nodes) > 10 and any(t.weight > 1 for t in ties)
    for chosen in (nodes, nodes[::3], nodes[1::2] + ["concept:no-such-node"], nodes[:1]):
        for min_weight in (1, 2, 3, 5):
            assert held.pair_edges_among(chosen[::-1], pair, min_weight) == plain.pair_edges_among(
                chosen[::-1], pair, min_weight
            )
            for limit in (0, 1, 3, 50):
                got = held.weighted_neighbors([*chosen[:20], "author:nobody"], pair, min_weight, limit)
                assert got == plain.weighted_neighbors(
                    [*chosen[:20], "author:nobody"], pair, min_weight, limit
                )
    floor = 1 if pair == "COAUTHOR" else 2
    ties_held = held._held_slot.held(held.version(), f"ties:{pair}")
    assert ties_held is not None and ties_held.floor == floor  # the held ones answered


def _page_queries(store: Neo4jStore, concept_ids: list[str]) -> list[PaperQuery]:
    queries = []
    for cid in concept_ids:
        closure = tuple(store.narrower_closure(cid, CLOSURE_LIMIT))
        for ids in (closure, (cid,)):
            for order in ("RELEVANCE", "NEWEST"):
                queries.append(
                    PaperQuery(concepts=ids, about_only=True, order=order, narrower=below(cid, ids))
                )
    return queries


@pytest.mark.parametrize("records", ["small", "seed"])
def test_held_pages_answer_as_the_statements(
    empty: Any, seed_records: list[Any], records: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(closure_pages, "OWN_MIN", 1)  # these stores' concepts are small
    held, plain = _stores(empty)
    held.upsert(_small_store_records() if records == "small" else seed_records)
    concepts = plain.list_concepts(None, None, "PAPER_COUNT", 0, 10_000).ids
    broad = [c for c in concepts if len(plain.narrower_closure(c, CLOSURE_LIMIT)) > 1]
    assert broad, "a concept with narrower ones"
    for cid in [*concepts, "concept:no-such-node"]:
        assert held.narrower_closure(cid, CLOSURE_LIMIT) == plain.narrower_closure(cid, CLOSURE_LIMIT)
        assert held.narrower_closure(cid, 2) == plain.narrower_closure(cid, 2)
    pages = held._held_slot.held(held.version(), "pages")
    assert pages is not None and set(broad) <= pages.broad_concepts
    answered = 0
    for query in _page_queries(plain, concepts):
        for offset, limit in ((0, 10), (0, 0), (1, 3), (5, 100), (50, 10)):
            want = plain.papers(query, offset, limit)
            assert held.papers(query, offset, limit) == want, (query, offset, limit)
            answered += (
                pages.pages.page(query.concepts, query.narrower, query.sort, offset, limit) is not None
            )
    assert answered > 0  # the held lists answered some of them


def test_a_write_by_another_client_is_seen(empty: Any, seed_records: list[Any], neo4j_driver: Any) -> None:
    import neo4j

    from tests.conftest import neo4j_uri

    held, plain = _stores(empty)
    half = len(seed_records) - 5  # the rest written by another client
    held.upsert(seed_records[:half])
    top = plain.list_concepts(None, None, "PAPER_COUNT", 0, 1).ids[0]
    query = PaperQuery(concepts=(top,), about_only=True, order="NEWEST")
    ties = _ties(plain, "COAUTHOR")
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    assert held.papers(query, 0, 500) == plain.papers(query, 0, 500)
    assert ties and held.pair_edges_among(nodes, "COAUTHOR", 1) == ties
    before = held.version()
    assert held._held_slot.held(before, "ties:COAUTHOR") is not None
    other = neo4j.GraphDatabase.driver(neo4j_uri())  # another client writes the rest
    try:
        writer = Neo4jStore(other)
        writer.upsert(seed_records[half:])
    finally:
        other.close()
    assert held.version() != before
    want = plain.papers(query, 0, 500)
    assert held.papers(query, 0, 500) == want and want.total > 0
    ties = _ties(plain, "COAUTHOR")
    nodes = sorted({t.source for t in ties} | {t.target for t in ties})
    assert held.pair_edges_among(nodes, "COAUTHOR", 1) == ties
    assert held._held_slot.held(held.version(), "ties:COAUTHOR") is not None
    assert held._held_slot.held(before, "ties:COAUTHOR") is None  # the old version's are dropped
