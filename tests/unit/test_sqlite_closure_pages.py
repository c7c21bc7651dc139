"""A concept's page from the version's held lists (:mod:`kg.stores.held.closure_pages`) is the
page the statements give: every concept of a small store and of the seed store, with and without
its narrower concepts, both orders, many windows; and after a write, at the new version."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from kg.core.models import Node, PaperRecord, Relationship
from kg.read.service import below
from kg.stores.held import closure_pages
from kg.stores.held.closure_pages import CLIMBS, HELD_CLOSURE, WARM_ASKS, ClosurePages, ClosurePagesCache
from kg.stores.protocol import CLOSURE_LIMIT, Page, PaperQuery
from kg.stores.sqlite import SQLiteStore
from tests.graph_builders import curated_concept

FIELD = curated_concept("robot-learning", "robot learning")
MID = curated_concept("imitation-learning", "imitation learning")
LEAF = curated_concept("behavior-cloning", "behavior cloning")
SIDE = curated_concept("reinforcement-learning", "reinforcement learning")
LONELY = curated_concept("model-based-control", "model-based control")  # no paper links it
HIERARCHY = [(MID, FIELD), (LEAF, MID), (SIDE, FIELD)]
NEVER = 10**9  # warm asks of a cache that never builds: the statements answer


def _mention(
    pid: str, concept: Node, salience: float, about: bool = True, climbs: bool = True
) -> Relationship:
    props: dict[str, Any] = {"count": 1, "score": 1.0, "evidence": [], "salience": salience, "about": about}
    if not climbs:
        props["climbs"] = False
    return Relationship(type="MENTIONS", start=pid, end=concept.id, properties=props)


def _paper(pid: str, year: int | None, links: list[Relationship]) -> PaperRecord:
    props: dict[str, Any] = {"title": f"Paper {pid[-2:]}", "abstract": f"about {pid}"}
    if year is not None:
        props["year"] = year
    return PaperRecord(
        paper=Node(id=pid, label="Paper", properties=props),
        nodes=[FIELD, MID, LEAF, SIDE, LONELY],
        relationships=[*links, *(Relationship(type="BROADER", start=n.id, end=b.id) for n, b in HIERARCHY)],
    )


def _small_store_records() -> list[PaperRecord]:
    """Papers whose links exercise the rule: about, passing mentions, ``climbs: false``,
    ``INTRODUCES``, one paper linked to several concepts of a closure, tied ranks and years, a
    paper with no year."""
    records = []
    concepts = [FIELD, MID, LEAF, SIDE]
    for i in range(24):
        pid = f"paper:s{i:02d}"
        year = None if i % 11 == 5 else 2015 + i % 4
        first, second = concepts[i % 4], concepts[(i // 4) % 4]
        links = [_mention(pid, first, 0.5 if i % 3 else 0.25, about=i % 5 != 0, climbs=i % 7 != 3)]
        if second != first:
            links.append(_mention(pid, second, 0.5 + (i % 2) / 4, climbs=i % 6 != 1))
        if i % 8 == 2:
            links.append(Relationship(type="INTRODUCES", start=pid, end=LEAF.id, properties={"score": 1.0}))
        records.append(_paper(pid, year, links))
    return records


def _queries(store: SQLiteStore, concept_ids: list[str]) -> list[PaperQuery]:
    """Each concept's page query as ``ReadService.concept_query`` makes it, with and without the
    narrower concepts, both orders."""
    queries = []
    for cid in concept_ids:
        closure = tuple(store.narrower_closure(cid, CLOSURE_LIMIT))
        assert closure, f"{cid} is a node"
        for ids in (closure, (cid,)):
            for order in ("RELEVANCE", "NEWEST"):
                queries.append(
                    PaperQuery(concepts=ids, about_only=True, order=order, narrower=below(cid, ids))
                )
    return queries


def _pages(store: SQLiteStore, queries: list[PaperQuery]) -> list[Page]:
    pages = []
    for q in queries:
        total = store.papers(q, 0, 1).total
        for offset in sorted({0, 1, 2, 5, max(0, total - 2), total - 1, total, total + 3} - {-1}):
            for limit in (1, 3, 20):
                pages.append(store.papers(q, offset, limit))
    return pages


def _statements_run(store: SQLiteStore, queries: list[PaperQuery], warm_asks: int) -> tuple[list[Page], int]:
    """Every page of ``queries`` with a fresh cache building at ``warm_asks``, and how many
    statements read ``rels`` to answer them."""
    store._closure_pages_cache = ClosurePagesCache(warm_asks=warm_asks)
    seen: list[str] = []
    conn = store._reader()
    store.papers(queries[0], 0, 1)  # builds the lists when warm_asks is 1
    conn.set_trace_callback(seen.append)
    try:
        pages = _pages(store, queries)
    finally:
        conn.set_trace_callback(None)
    return pages, sum("rels" in sql for sql in seen)


def _held_equals_statements(store: SQLiteStore, concept_ids: list[str]) -> int:
    queries = _queries(store, concept_ids)
    by_statements, read = _statements_run(store, queries, NEVER)
    held, _ = _statements_run(store, queries, 1)
    assert held == by_statements
    # every list with a paper was held (a concept with none alone is no list: the statements)
    linked = [q for q in queries if store.papers(q, 0, 1).total > 0]
    assert read > 0 and _statements_run(store, linked, 1)[1] == 0, "the held lists answered"
    return len(held)


@pytest.fixture
def every_list(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every concept's own list held, however few its links (these stores' concepts are small)."""
    monkeypatch.setattr(closure_pages, "OWN_MIN", 1)


@pytest.mark.usefixtures("every_list")
def test_every_page_of_a_small_store_is_the_statements_page(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(_small_store_records())
    assert _held_equals_statements(store, [FIELD.id, MID.id, LEAF.id, SIDE.id]) > 300


@pytest.mark.usefixtures("every_list")
def test_every_concept_of_the_seed_store(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    ids = store.list_concepts(None, None, "PAPER_COUNT", 0, 10_000).ids
    broad = [
        r[0]
        for r in sqlite3.connect(store.path).execute(
            "SELECT DISTINCT \"end\" FROM rels WHERE type = 'BROADER'"
        )
    ]
    assert len(ids) > 50 and broad
    assert _held_equals_statements(store, sorted({*ids, *broad})) > 1000


@pytest.mark.usefixtures("every_list")
def test_a_write_is_seen_at_the_next_version(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    records = _small_store_records()
    store.upsert(records[:20])
    query = _queries(store, [FIELD.id])[0]  # by relevance, with the narrower concepts
    for _ in range(WARM_ASKS + 1):  # the statements, then the held lists
        before = store.papers(query, 0, 50)
    store.upsert(records[20:])  # a new version: four more papers, one under the field
    after = [store.papers(query, 0, 50) for _ in range(WARM_ASKS + 1)]
    assert after[0].total > before.total
    assert all(page == after[0] for page in after)
    assert _held_equals_statements(store, [FIELD.id, MID.id, LEAF.id, SIDE.id]) > 0


def test_other_conditions_and_orders_keep_the_statements(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(_small_store_records())
    closure = tuple(store.narrower_closure(FIELD.id, CLOSURE_LIMIT))
    plain = PaperQuery(concepts=closure, about_only=True, narrower=closure[1:], order="RELEVANCE")
    others = [
        PaperQuery(concepts=closure, about_only=False, narrower=closure[1:], order="RELEVANCE"),
        PaperQuery(concepts=closure, about_only=True, narrower=closure[1:], order="OLDEST"),
        PaperQuery(concepts=closure, about_only=True, narrower=closure[1:], year=2016),
        PaperQuery(concepts=closure[:2], about_only=True, narrower=closure[1:2]),  # not the whole closure
        PaperQuery(concepts=closure, about_only=True, narrower=closure),  # the concept counted as narrower
    ]
    _, read = _statements_run(store, [plain, *others], 1)
    assert read > 0  # the others read rels
    _, read_plain = _statements_run(store, [plain], 1)
    assert read_plain == 0


def test_a_concept_of_few_links_alone_keeps_the_statements(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(_small_store_records())
    wide, alone = _queries(store, [FIELD.id])[::2]  # by relevance: with the closure, alone
    assert len(alone.concepts or ()) == 1 and store.papers(alone, 0, 50).total < closure_pages.OWN_MIN
    assert _statements_run(store, [wide], 1)[1] == 0
    lonely = _queries(store, [LONELY.id])  # no paper links it
    for queries in ([alone], lonely):
        by_statements, read = _statements_run(store, queries, NEVER)
        held, read_held = _statements_run(store, queries, 1)
        assert read_held == read > 0 and held == by_statements


def test_a_link_from_no_paper_leaves_its_concepts_to_the_statements() -> None:
    pages = ClosurePages.from_rows(
        ["paper:a"],
        [
            [
                ("concept:c", "paper:a", CLIMBS, 1.0),
                ("concept:c", "paper:gone", CLIMBS, 2.0),
                ("concept:d", "paper:a", CLIMBS, 1.0),
            ]
        ],
        {"concept:d": ("concept:c",)},
        own_min=1,
    )
    assert pages.page(("concept:c",), (), "NEWEST", 0, 5) is None
    assert pages.page(("concept:d", "concept:c"), ("concept:c",), "NEWEST", 0, 5) is None
    assert pages.page(("concept:d",), (), "NEWEST", 0, 5) == Page(ids=["paper:a"], total=1)


def test_the_held_closures_are_the_ones_queries_list() -> None:
    assert HELD_CLOSURE == CLOSURE_LIMIT


@pytest.mark.parametrize("asks", [1, 2, 3])
def test_the_lists_are_built_at_the_warm_ask(asks: int) -> None:
    built: list[int] = []
    cache = ClosurePagesCache(warm_asks=3)

    def build() -> ClosurePages:
        built.append(1)
        return ClosurePages.from_rows([], [], {}, 1)

    results = [cache.get(7, build) for _ in range(asks)]
    assert [r is not None for r in results] == [False, False, True][:asks]
    assert cache.get(8, build) is None  # a new version starts over
    assert len(built) == (1 if asks == 3 else 0)


def test_closures_walked_for_the_lists_are_the_closures(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    c = sqlite3.connect(store.path)
    concepts = [r[0] for r in c.execute("SELECT id FROM nodes WHERE label = 'Concept' ORDER BY id")]
    walked = {
        (cid, limit): store.narrower_closure(cid, limit) for cid in concepts for limit in (HELD_CLOSURE, 2)
    }
    query = _queries(store, [concepts[0]])[0]
    for _ in range(WARM_ASKS):  # the lists are built: every closure walked at the held limit
        store.papers(query, 0, 5)
    assert store.wait_builds(60)  # built on a thread of their own
    assert store._closure_pages_cache.get(store.version(), lambda: None) is not None
    assert {(cid, limit): store.narrower_closure(cid, limit) for cid, limit in walked} == walked


@pytest.mark.usefixtures("every_list")
def test_the_in_memory_store_answers_alike() -> None:
    store = SQLiteStore(None)  # one connection under the store's lock: the build reads through it
    store.upsert(_small_store_records())
    queries = _queries(store, [FIELD.id, MID.id, LEAF.id, SIDE.id])
    store._closure_pages_cache = ClosurePagesCache(warm_asks=NEVER)
    by_statements = _pages(store, queries)
    store._closure_pages_cache = ClosurePagesCache(warm_asks=1)
    assert _pages(store, queries) == by_statements
    assert store._closure_pages_cache.get(store.version(), lambda: None) is not None
