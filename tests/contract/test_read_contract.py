"""The ``ReadStore`` contract: every API read, on every backend, against one small hand-built graph.

The graph (below) has aliases and acronyms, a curated and a discovered concept on one key, a
BROADER chain, papers with and without a year and with equal folded titles, venues, a topic
tree, ``MENTIONS`` with ``about`` true and false, an ``INTRODUCES``, and COAUTHOR/CO_OCCURS
weights. The expected answers were derived by hand from it (the comments show the working), so
every backend that passes gives the same answers, and each ordering rule of
:mod:`kg.stores.protocol` is checked where it decides something.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, cast

import pytest

from kg.core.models import Node, PaperRecord, Relationship
from kg.core.names import author_query_key, query_keys
from kg.stores.protocol import NodeRow, PairEdge, PaperQuery, ReadStore, Weighted, YearCount


# -- the graph -----------------------------------------------------------------------------------
def concept(
    cid: str, name: str, aliases: Sequence[str] = (), kind: str = "CONCEPT", curated: bool = True
) -> Node:
    props: dict[str, Any] = {"name": name, "kind": kind, "aliases": list(aliases)}
    props["source"] = "vocabulary" if curated else "discovered"
    return Node(id=f"concept:{cid}", label="Concept", properties=props)


def author(aid: str, name: str, nickname: str | None = None) -> Node:
    props: dict[str, Any] = {"name": name}
    if nickname:
        props["nickname"] = nickname
    return Node(id=f"author:{aid}", label="Author", properties=props)


ML = concept("machine-learning", "Machine Learning", ["ML"])
DL = concept("deep-learning", "Deep Learning", ["DL"], kind="METHOD")
CNN = concept(
    "convolutional-neural-network", "Convolutional Neural Networks", ["CNNs", "ConvNets"], kind="MODEL"
)
LLM = concept("large-language-model", "Large Language Models", ["LLMs"], kind="MODEL")
MAB = concept("multi-armed-bandit", "Multi-armed Bandits", ["MAB"])
CB = concept("contextual-bandit", "Contextual Bandits")
DML = concept("discovered-ml", "ML", curated=False)  # loses "ML" to the curated alias
RL = concept("reinforcement-learning", "Reinforcement Learning", ["RL"])
ZRL = concept("zrl", "RL")  # a curated name beats a curated alias, whatever the ids
GNA = concept("graph-network-a", "Graph Networks", curated=False)  # same loose key as GNB:
GNB = concept("graph-network-b", "graph network", curated=False)  # the smaller id wins
SA = concept("sparse-attention", "Sparse Attention", curated=False)
BROADER = [(DL, ML), (CNN, DL), (LLM, DL), (CB, MAB)]

A = author("alice-smith", "Alice Smith")
B = author("bob-jones", "Bob Jones")
C = author("carol-ng", "Carol Ng")
D = author("dan-brown", "Dan Brown")
E = author("elodie-durand", "Élodie Durand")
W = author("zhangyang-wang", "Zhangyang Wang", "Atlas")
AW = author("atlas-wang", "Atlas Wang")  # shares the key "atlas wang" with W's nickname form

V1 = Node(
    id="venue:iclr-2024", label="Venue", properties={"name": "ICLR 2024", "series": "ICLR", "year": 2024}
)
V2 = Node(
    id="venue:neurips-2023",
    label="Venue",
    properties={"name": "NeurIPS 2023", "series": "NeurIPS", "year": 2023},
)
T1 = Node(id="topic:ml", label="Topic", properties={"name": "ML", "path": ["ML"]})
T2 = Node(id="topic:ml/vision", label="Topic", properties={"name": "Vision", "path": ["ML", "Vision"]})
T3 = Node(id="topic:theory", label="Topic", properties={"name": "Theory", "path": ["Theory"]})


def rel(type_: str, start: Node, end: Node, **props: Any) -> Relationship:
    return Relationship.model_validate({"type": type_, "start": start.id, "end": end.id, "properties": props})


def paper_record(
    key: str,
    title: str,
    year: int | None,
    authors: Sequence[Node],
    venue: Node | None = None,
    topic: Node | None = None,
    mentions: Sequence[tuple[Node, bool, float]] = (),
    introduces: Sequence[Node] = (),
    listed: tuple[str, str] | None = None,
) -> PaperRecord:
    props: dict[str, Any] = {"title": title, "abstract": f"Abstract of {key}."}
    if year is not None:
        props["year"] = year
    if listed is not None:
        props["status"], props["track"] = listed
    p = Node(id=f"paper:{key}", label="Paper", properties=props)
    nodes: list[Node] = [*authors, *(c for c, _, _ in mentions), *introduces]
    rels = [rel("AUTHORED", a, p, position=i) for i, a in enumerate(authors, start=1)]
    rels += [rel("MENTIONS", p, c, count=1, score=s, about=about) for c, about, s in mentions]
    rels += [rel("INTRODUCES", p, c) for c in introduces]
    if venue is not None:
        nodes.append(venue)
        rels.append(rel("PUBLISHED_IN", p, venue))
    if topic is not None:
        nodes.append(topic)
        rels.append(rel("HAS_TOPIC", p, topic))
    return PaperRecord(paper=p, nodes=nodes, relationships=rels)


RECORDS = [
    paper_record(
        "p1",
        "Deep Learning for Vision",
        2024,
        [A, B],
        V1,
        T2,
        [(CNN, True, 0.9), (DL, False, 0.5)],
        listed=("Oral", "main"),
    ),
    paper_record(
        "p2",
        "A Study of Bandits",
        2024,
        [A, C],
        V1,
        T3,
        [(MAB, True, 0.8), (CB, True, 0.7)],
        listed=("Poster", "main"),
    ),
    paper_record(
        "p3",
        "Attention Is All You Need",
        2023,
        [B, C, D],
        V2,
        T1,
        [(LLM, True, 0.9), (DL, True, 0.6)],
        [SA],
        listed=("Poster", "Datasets and Benchmarks"),
    ),
    paper_record("p4", "Zebra Learning", None, [D], mentions=[(ML, False, 0.3)]),
    paper_record(
        "p5", "Another Attention Paper", 2023, [A, B], V2, T2, [(LLM, False, 0.4), (GNA, True, 0.5)]
    ),
    paper_record("p6", "Élan Vital", 2022, [W, AW], mentions=[(CB, False, 0.2), (RL, True, 0.9)]),
    paper_record("p7", "alpha", None, [E]),
    paper_record(
        "p8",
        "deep learning for vision",
        2024,
        [C],
        V1,
        mentions=[(CNN, True, 0.5)],
        listed=("Reject", "main"),
    ),
    paper_record(
        "p9",
        "Bandit Feedback",
        2024,
        [A],
        V1,
        T3,
        [(MAB, False, 0.6), (ZRL, True, 0.5), (GNB, False, 0.1), (DML, True, 0.2)],
    ),
]
# The hierarchy rides on the first record (its nodes may come with any paper).
RECORDS[0] = PaperRecord(
    paper=RECORDS[0].paper,
    nodes=[*RECORDS[0].nodes, ML, DL, CNN, LLM, MAB, CB],
    relationships=[*RECORDS[0].relationships, *(rel("BROADER", a, b) for a, b in BROADER)],
)


def pid(*keys: str) -> list[str]:
    return [f"paper:{k}" for k in keys]


def ids(*nodes: Node) -> list[str]:
    return [n.id for n in nodes]


# Newest first, no year last; then folded title, then id:
# 2024: "a study of bandits" p2, "bandit feedback" p9, "deep learning for vision" p1 = p8 (by id)
# 2023: "another attention paper" p5, "attention is all you need" p3; 2022: p6; none: "alpha" p7, "zebra" p4
READ_METHODS = [
    "concepts_by_keys",
    "concepts_with_key_suffix",
    "concepts_with_key_prefix",
    "narrower_closure",
    "authors_by_keys",
    "papers",
    "paper_count",
    "list_concepts",
    "list_authors",
    "weighted_neighbors",
    "pair_edges_among",
    "strongest_nodes",
    "heaviest_pairs",
    "paper_counts",
    "network_nodes",
    "paper_authors",
    "search",
    "paper_years",
    "concept_counts",
    "coauthors_in_years",
    "author_venues",
    "coauthor_edges_in_years",
    "concepts_in_years",
    "concept_edges_in_years",
    "coauthor_path",
    "save_analysis",
    "analysis_version",
    "central_nodes",
    "community_sizes",
    "community_members",
]
ALL_PAPERS = pid("p2", "p9", "p1", "p8", "p5", "p3", "p6", "p7", "p4")


BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("neo4j", id="neo4j", marks=pytest.mark.neo4j),
]


def open_store(backend: str, request: pytest.FixtureRequest) -> Any:
    """An empty store of ``backend`` (the Neo4j one wiped), as the ``store`` fixture makes them."""
    if backend == "sqlite":
        from kg.stores.sqlite import SQLiteStore

        return SQLiteStore(None)
    from kg.stores.neo4j.store import Neo4jStore

    s = Neo4jStore(request.getfixturevalue("neo4j_driver"))
    s.clear()
    return s


def load(s: Any) -> ReadStore:
    """The graph in two batches, so the read index is kept across transactions, not built once."""
    missing = [m for m in READ_METHODS if not callable(getattr(s, m, None))]
    assert not missing, f"{s.backend_name} lacks ReadStore methods {missing}"
    s.upsert(RECORDS[:4])
    s.upsert(RECORDS[4:])
    return cast(ReadStore, s)


@pytest.fixture(scope="module", params=BACKENDS)
def rs(request: pytest.FixtureRequest) -> Iterator[ReadStore]:
    """Each backend loaded once for the read-only tests of this module."""
    s = open_store(request.param, request)
    yield load(s)
    s.close()


@pytest.fixture(params=BACKENDS)
def fresh(request: pytest.FixtureRequest) -> Iterator[ReadStore]:
    """Each backend loaded for one test that writes."""
    s = open_store(request.param, request)
    yield load(s)
    s.close()


# -- names ---------------------------------------------------------------------------------------
def test_concepts_by_keys_rank_curated_then_name_then_id(rs: ReadStore) -> None:
    keys = [
        *query_keys("ML"),  # s:ML, l:ml: the curated alias beats the discovered name
        *query_keys("RL"),  # a curated name (zrl) beats a curated alias (reinforcement-learning)
        "l:graph network",  # two discovered names: the smaller id
        *query_keys("LLMs"),
        *query_keys("CNN"),
        "l:contextual bandit",
        "l:bandit",  # nobody's key (only a suffix of two)
        "l:nothing at all",
        "l:ml",  # a repeated key answers again
    ]
    assert rs.concepts_by_keys(keys) == [
        ML.id,
        ML.id,
        ZRL.id,
        ZRL.id,
        GNA.id,
        LLM.id,
        LLM.id,
        CNN.id,
        CNN.id,
        CB.id,
        None,
        None,
        ML.id,
    ]
    assert rs.concepts_by_keys([]) == []


def test_concepts_with_key_suffix_are_longer_keys_ending_in_the_words_by_id(rs: ReadStore) -> None:
    assert rs.concepts_with_key_suffix("bandit", 10) == ids(CB, MAB)
    assert rs.concepts_with_key_suffix("network", 10) == ids(CNN, GNA, GNB)
    assert rs.concepts_with_key_suffix("learning", 10) == ids(DL, ML, RL)
    assert rs.concepts_with_key_suffix("learning", 2) == ids(DL, ML)
    assert rs.concepts_with_key_suffix("contextual bandit", 10) == []  # not longer than itself


def test_concepts_with_key_prefix_are_longer_keys_starting_with_the_words_by_id(rs: ReadStore) -> None:
    assert rs.concepts_with_key_prefix("graph", 10) == ids(GNA, GNB)
    assert rs.concepts_with_key_prefix("large language", 10) == ids(LLM)
    assert rs.concepts_with_key_prefix("multi", 10) == ids(MAB)  # "multi armed bandit", whole words
    assert rs.concepts_with_key_prefix("mult", 10) == []  # a word's start is not a word
    assert rs.concepts_with_key_prefix("graph", 1) == ids(GNA)
    assert rs.concepts_with_key_prefix("graph network", 10) == []  # not longer than itself
    assert rs.concepts_with_key_prefix(" ", 10) == []
    assert rs.concepts_with_key_suffix("andit", 10) == []  # whole words only


def test_narrower_closure_is_self_then_descendants_by_id(rs: ReadStore) -> None:
    assert rs.narrower_closure(ML.id, 10) == ids(ML, CNN, DL, LLM)
    assert rs.narrower_closure(ML.id, 2) == ids(ML, CNN)
    assert rs.narrower_closure(DL.id, 10) == ids(DL, CNN, LLM)
    assert rs.narrower_closure(SA.id, 10) == ids(SA)
    assert rs.narrower_closure("concept:missing", 10) == []


def test_authors_by_keys_fold_and_take_nickname_forms(rs: ReadStore) -> None:
    keys = [
        author_query_key(n) for n in ("ALICE SMITH", "Atlas Wang", "Zhangyang “Atlas” Wang", "Elodie Durand")
    ]
    assert rs.authors_by_keys([*keys, "nobody", "alice smith"]) == [A.id, AW.id, W.id, E.id, None, A.id]
    # "atlas wang" is AW's name and W's nickname form: the smaller id (AW) wins.
    assert rs.authors_by_keys(["atlas wang"]) == [AW.id]


# -- papers --------------------------------------------------------------------------------------
CLOSURE_DL = (DL.id, CNN.id, LLM.id)
PAPER_CASES: list[tuple[str, PaperQuery, list[str]]] = [
    ("everything", PaperQuery(), ALL_PAPERS),
    # DL or below: p1 (CNN, DL), p3 (LLM, DL), p5 (LLM), p8 (CNN)
    ("concepts", PaperQuery(concepts=CLOSURE_DL), pid("p1", "p8", "p5", "p3")),
    # about only: p5 mentions LLM with about false
    ("about only", PaperQuery(concepts=CLOSURE_DL, about_only=True), pid("p1", "p8", "p3")),
    ("introduces counts", PaperQuery(concepts=(SA.id,), about_only=True), pid("p3")),
    ("about false", PaperQuery(concepts=(CB.id,)), pid("p2", "p6")),
    ("about true", PaperQuery(concepts=(CB.id,), about_only=True), pid("p2")),
    ("author", PaperQuery(author=A.id), pid("p2", "p9", "p1", "p5")),
    ("author and year", PaperQuery(author=A.id, year=2024), pid("p2", "p9", "p1")),
    ("venue", PaperQuery(venues=(V1.id,)), pid("p2", "p9", "p1", "p8")),
    ("topics", PaperQuery(topics=(T1.id, T2.id)), pid("p1", "p5", "p3")),
    ("venue and concepts", PaperQuery(venues=(V1.id,), concepts=(MAB.id, CB.id)), pid("p2", "p9")),
    ("concepts and topic", PaperQuery(concepts=CLOSURE_DL, topics=(T2.id,)), pid("p1", "p5")),
    (
        "author, concepts, venues",
        PaperQuery(author=B.id, concepts=CLOSURE_DL, venues=(V1.id, V2.id)),
        pid("p1", "p5", "p3"),
    ),
    ("year", PaperQuery(year=2023), pid("p5", "p3")),
    ("year alone", PaperQuery(year=2022), pid("p6")),
    ("no such year", PaperQuery(year=1999), []),
    ("no such author", PaperQuery(author="author:nobody"), []),
    ("empty concepts", PaperQuery(concepts=()), []),
    ("venue and year", PaperQuery(venues=(V1.id, V2.id), year=2023), pid("p5", "p3")),
    # listing fields: p1 Oral/main, p2 Poster/main, p3 Poster/Datasets and Benchmarks, p8 Reject/main
    ("status", PaperQuery(status="Poster"), pid("p2", "p3")),
    ("track", PaperQuery(track="main"), pid("p2", "p1", "p8")),
    ("status and track", PaperQuery(status="Poster", track="main"), pid("p2")),
    ("status and year", PaperQuery(status="Poster", year=2023), pid("p3")),
    ("status and venue", PaperQuery(status="Oral", venues=(V1.id,)), pid("p1")),
    ("status and about", PaperQuery(status="Reject", concepts=CLOSURE_DL, about_only=True), pid("p8")),
    ("track and author", PaperQuery(track="main", author=C.id), pid("p2", "p8")),
    ("status as listed", PaperQuery(status="poster"), []),
    ("no such track", PaperQuery(track="Workshop"), []),
]


@pytest.mark.parametrize(("case", "query", "expected"), PAPER_CASES, ids=[c[0] for c in PAPER_CASES])
def test_papers_in_result_order_with_total(
    rs: ReadStore, case: str, query: PaperQuery, expected: list[str]
) -> None:
    page = rs.papers(query, 0, 100)
    assert page.ids == expected
    assert page.total == len(expected)
    assert rs.paper_count(query) == len(expected)
    assert rs.papers(query, 0, 0).ids == [] and rs.papers(query, 0, 0).total == len(expected)


def test_papers_windows(rs: ReadStore) -> None:
    assert rs.papers(PaperQuery(), 2, 3).ids == ALL_PAPERS[2:5]
    assert rs.papers(PaperQuery(), 2, 3).total == 9
    assert rs.papers(PaperQuery(), 8, 5).ids == ALL_PAPERS[8:]
    assert rs.papers(PaperQuery(), 20, 5).ids == [] and rs.papers(PaperQuery(), 20, 5).total == 9
    q = PaperQuery(concepts=CLOSURE_DL)
    assert rs.papers(q, 1, 2).ids == pid("p8", "p5") and rs.papers(q, 1, 2).total == 4
    q = PaperQuery(year=2024)
    assert rs.papers(q, 1, 2).ids == pid("p9", "p1") and rs.papers(q, 1, 2).total == 4


def test_papers_by_text_are_the_matches_ranked(rs: ReadStore) -> None:
    # Relevance scores differ between backends (BM25 in FTS5 and in Lucene), so the set is
    # the contract, and the window never repeats a paper.
    page = rs.papers(PaperQuery(text="attention"), 0, 10)
    assert sorted(page.ids) == pid("p3", "p5") and page.total == 2
    assert set(rs.papers(PaperQuery(text="attention"), 0, 1).ids) < {*pid("p3", "p5")}
    assert rs.papers(PaperQuery(text="attention", author=C.id), 0, 10).ids == pid("p3")
    assert sorted(rs.papers(PaperQuery(text="ATTENTION", year=2023), 0, 10).ids) == pid("p3", "p5")
    assert rs.paper_count(PaperQuery(text="attention", venues=(V1.id,))) == 0
    assert rs.paper_count(PaperQuery(text="elan")) == 1  # accents folded
    assert rs.papers(PaperQuery(text="attention", status="Poster"), 0, 10).ids == pid("p3")
    assert rs.paper_count(PaperQuery(text="attention", track="main")) == 0
    assert rs.papers(PaperQuery(text="?!"), 0, 10).total == 0


# -- listings ------------------------------------------------------------------------------------
# Papers about each concept (MENTIONS not marked about: false, the API's paperCount): CNN 2;
# CB, DL, GNA, LLM, DML, MAB, RL, ZRL 1; GNB, ML 0 (passing mentions only); SA 0 (INTRODUCES
# only). Ties by folded name: "graph networks" (GNA) before "large language models", "ml" (DML)
# before "multi-armed bandits"; "graph network" (GNB) before "machine learning".
CONCEPTS_BY_COUNT = ids(CNN, CB, DL, GNA, LLM, DML, MAB, RL, ZRL, GNB, ML, SA)
CONCEPTS_BY_NAME = ids(CB, CNN, DL, GNB, GNA, LLM, ML, DML, MAB, RL, ZRL, SA)
CONCEPT_CASES: list[tuple[str | None, str | None, str, list[str]]] = [
    (None, None, "PAPER_COUNT", CONCEPTS_BY_COUNT),
    (None, None, "NAME", CONCEPTS_BY_NAME),
    ("learn", None, "PAPER_COUNT", ids(DL, RL, ML)),
    ("Bandits", None, "PAPER_COUNT", ids(CB, MAB)),
    ("networks", None, "PAPER_COUNT", ids(CNN, GNA, GNB)),  # GNB via its loose key "graph network"
    ("ml", None, "NAME", ids(ML, DML)),  # by alias and by name
    ("convnets", None, "NAME", ids(CNN)),
    (None, "MODEL", "PAPER_COUNT", ids(CNN, LLM)),
    ("conv", "MODEL", "NAME", ids(CNN)),
    ("   ", None, "NAME", CONCEPTS_BY_NAME),  # a blank search is no search
    ("zzz", None, "NAME", []),
]


@pytest.mark.parametrize(("search", "kind", "order", "expected"), CONCEPT_CASES)
def test_list_concepts(
    rs: ReadStore, search: str | None, kind: str | None, order: Any, expected: list[str]
) -> None:
    page = rs.list_concepts(search, kind, order, 0, 100)
    assert page.ids == expected and page.total == len(expected)


def test_list_concepts_window(rs: ReadStore) -> None:
    page = rs.list_concepts(None, None, "PAPER_COUNT", 3, 2)
    assert page.ids == CONCEPTS_BY_COUNT[3:5] and page.total == 12
    # "l" is in every name or alias but the graph networks' and sparse attention's (9 of 12)
    page = rs.list_concepts("l", None, "NAME", 1, 2)
    assert page.ids == ids(CNN, DL) and page.total == 9


# Papers per author: A 4; B 3; C 3; D 2; AW, E, W 1. Folded names: alice smith, atlas wang,
# bob jones, carol ng, dan brown, elodie durand, zhangyang wang.
AUTHOR_CASES: list[tuple[str | None, str, list[str]]] = [
    (None, "PAPER_COUNT", ids(A, B, C, D, AW, E, W)),
    (None, "NAME", ids(A, AW, B, C, D, E, W)),
    ("atlas", "NAME", ids(AW, W)),  # W by nickname
    ("ÉLO", "NAME", ids(E)),
    ("o", "PAPER_COUNT", ids(B, C, D, E)),
    ("nobody", "NAME", []),
]


@pytest.mark.parametrize(("search", "order", "expected"), AUTHOR_CASES)
def test_list_authors(rs: ReadStore, search: str | None, order: Any, expected: list[str]) -> None:
    page = rs.list_authors(search, order, 0, 100)
    assert page.ids == expected and page.total == len(expected)
    window = rs.list_authors(search, order, 1, 2)
    assert window.ids == expected[1:3] and window.total == len(expected)


# -- networks ------------------------------------------------------------------------------------
# COAUTHOR: p1 A-B, p2 A-C, p3 B-C B-D C-D, p5 A-B, p6 AW-W: A-B 2, the others 1.
def test_weighted_neighbors_heaviest_first_then_id(rs: ReadStore) -> None:
    got = rs.weighted_neighbors([A.id, B.id, "author:nobody", A.id], "COAUTHOR", 1, 10)
    a = [Weighted(B.id, 2), Weighted(C.id, 1)]
    assert got == [a, [Weighted(A.id, 2), Weighted(C.id, 1), Weighted(D.id, 1)], [], a]
    assert rs.weighted_neighbors([A.id, B.id], "COAUTHOR", 2, 10) == [
        [Weighted(B.id, 2)],
        [Weighted(A.id, 2)],
    ]
    assert rs.weighted_neighbors([B.id], "COAUTHOR", 1, 2) == [[Weighted(A.id, 2), Weighted(C.id, 1)]]
    # CO_OCCURS of MAB: p2 with CB, p9 with ZRL, GNB, DML (all once)
    assert rs.weighted_neighbors([MAB.id], "CO_OCCURS", 1, 10) == [
        [Weighted(CB.id, 1), Weighted(DML.id, 1), Weighted(GNB.id, 1), Weighted(ZRL.id, 1)]
    ]
    # a list cut among ties of equal weight keeps the smallest ids (Neo4j ranks by weight first
    # and reads ids only for the ties that can make the list)
    assert rs.weighted_neighbors([MAB.id], "CO_OCCURS", 1, 2) == [[Weighted(CB.id, 1), Weighted(DML.id, 1)]]
    assert rs.weighted_neighbors([B.id, A.id], "COAUTHOR", 1, 1) == [[Weighted(A.id, 2)], [Weighted(B.id, 2)]]
    assert rs.weighted_neighbors([], "COAUTHOR", 1, 10) == []


@pytest.mark.parametrize("by_key", [False, True], ids=["walk", "by-key"])
def test_pair_edges_among(rs: ReadStore, monkeypatch: pytest.MonkeyPatch, by_key: bool) -> None:
    # Neo4j walks the nodes' ties or looks every candidate pair up by key, by their degrees
    # (kg.stores.neo4j.reads.KEYED_TIES_PER_PAIR): both routes forced here (SQLite has one)
    monkeypatch.setattr("kg.stores.neo4j.reads.KEYED_TIES_PER_PAIR", -1 if by_key else 10**9)
    assert rs.pair_edges_among([D.id, C.id, B.id, A.id, "author:nobody"], "COAUTHOR", 1) == [
        PairEdge(A.id, B.id, 2),
        PairEdge(A.id, C.id, 1),
        PairEdge(B.id, C.id, 1),
        PairEdge(B.id, D.id, 1),
        PairEdge(C.id, D.id, 1),
    ]
    assert rs.pair_edges_among([A.id, B.id, C.id], "COAUTHOR", 2) == [PairEdge(A.id, B.id, 2)]
    assert rs.pair_edges_among([B.id, "author:nobody"], "COAUTHOR", 1) == []  # one node found
    assert rs.pair_edges_among([DL.id, CNN.id, LLM.id], "CO_OCCURS", 1) == [
        PairEdge(CNN.id, DL.id, 1),
        PairEdge(DL.id, LLM.id, 1),
    ]


def test_paper_counts_are_the_stored_paper_counts(rs: ReadStore) -> None:
    # papers about a concept (see CONCEPTS_BY_COUNT), an author's papers, a venue's, a topic's
    assert rs.paper_counts([CNN.id, MAB.id, ML.id, SA.id, "concept:nothing", CNN.id]) == [2, 1, 0, 0, 0, 2]
    assert rs.paper_counts(ids(A, B, C, D, E)) == [4, 3, 3, 2, 1]
    assert rs.paper_counts([V1.id, V2.id, T1.id, T2.id, T3.id]) == [4, 2, 1, 2, 2]
    assert rs.paper_counts([]) == []


def test_paper_authors_are_in_byline_order(rs: ReadStore) -> None:
    bylines = rs.paper_authors([*pid("p3", "nothing", "p6"), "paper:p3"])
    assert [[a.id for a in authors] for authors in bylines] == [ids(B, C, D), [], ids(W, AW), ids(B, C, D)]
    assert bylines[0][0] == B
    assert rs.paper_authors([]) == []


def test_network_nodes_are_display_names_and_stored_paper_counts(rs: ReadStore) -> None:
    rows = rs.network_nodes([CNN.id, "concept:nothing", A.id, V1.id, B.id])
    assert rows == [
        NodeRow(CNN.id, "Concept", "Convolutional Neural Networks", 2),
        NodeRow(A.id, "Author", "Alice Smith", 4),
        NodeRow(V1.id, "Venue", "ICLR 2024", 4),
        NodeRow(B.id, "Author", "Bob Jones", 3),
    ]
    assert rs.network_nodes([]) == []


def test_search_every_word_keeps_nodes_with_all_the_words(rs: ReadStore) -> None:
    # "A Study of Bandits" (p2) is the one node with both words; any word also finds the
    # bandit concepts. Scores differ between backends, so sets are the contract.
    assert [h.node.id for h in rs.search("bandits study", 10, every_word=True)] == pid("p2")
    some = {h.node.id for h in rs.search("bandits study", 10)}
    assert {*pid("p2"), MAB.id, CB.id} <= some
    assert rs.search("bandits zzzunknown", 10, every_word=True) == []


def test_strongest_nodes_by_weighted_degree_then_id(rs: ReadStore) -> None:
    # weighted degree: B 4; A 3, C 3; D 2; AW 1, W 1
    assert rs.strongest_nodes("COAUTHOR", 1, 3) == (ids(B, A, C), True)
    assert rs.strongest_nodes("COAUTHOR", 1, 6) == (ids(B, A, C, D, AW, W), False)
    assert rs.strongest_nodes("COAUTHOR", 2, 2) == (ids(A, B), False)
    # CO_OCCURS: MAB 4; DML, GNB, ZRL 3 (p9's four concepts pairwise); ...
    assert rs.strongest_nodes("CO_OCCURS", 1, 3) == (ids(MAB, DML, GNB), True)


def test_heaviest_pairs_then_by_ends(rs: ReadStore) -> None:
    assert rs.heaviest_pairs("COAUTHOR", 3) == [
        PairEdge(A.id, B.id, 2),
        PairEdge(A.id, C.id, 1),
        PairEdge(AW.id, W.id, 1),
    ]
    # CO_OCCURS: one pair each from p1, p2, p3, p5, p6 and six among p9's four concepts
    assert len(rs.heaviest_pairs("CO_OCCURS", 100)) == 11
    assert rs.heaviest_pairs("COAUTHOR", 0) == []


# -- time ----------------------------------------------------------------------------------------
# Years: p1, p2, p8, p9 2024; p3, p5 2023; p6 2022; p4, p7 none.
YEAR_CASES: list[tuple[str, PaperQuery, list[tuple[int, int]]]] = [
    ("everything", PaperQuery(), [(2022, 1), (2023, 2), (2024, 4)]),
    ("venues", PaperQuery(venues=(V1.id, V2.id)), [(2023, 2), (2024, 4)]),
    ("about CNN", PaperQuery(concepts=(CNN.id,), about_only=True), [(2024, 2)]),
    ("DL and below, mentions too", PaperQuery(concepts=CLOSURE_DL), [(2023, 2), (2024, 2)]),
    ("introduced", PaperQuery(concepts=(SA.id,), about_only=True), [(2023, 1)]),
    ("status", PaperQuery(status="Poster"), [(2023, 1), (2024, 1)]),
    ("one year", PaperQuery(year=2023), [(2023, 2)]),
    ("nobody", PaperQuery(author="author:nobody"), []),
]


@pytest.mark.parametrize(("case", "query", "expected"), YEAR_CASES, ids=[c[0] for c in YEAR_CASES])
def test_paper_years_count_the_matching_papers_per_year(
    rs: ReadStore, case: str, query: PaperQuery, expected: list[tuple[int, int]]
) -> None:
    got = rs.paper_years(query)
    assert got == [YearCount(y, n) for y, n in expected]
    # a year's count is the papers of that year
    for y, n in expected:
        assert rs.paper_count(PaperQuery(**{**query.__dict__, "year": y})) == n


def _cc(*pairs: tuple[Node, int]) -> list[Weighted]:
    return [Weighted(c.id, n) for c, n in pairs]


# Papers about each concept (MENTIONS not about: false, or INTRODUCES): CNN p1 p8; CB p2; DL p3;
# GNA p5; LLM p3; MAB p2; RL p6; ZRL p9; DML p9; SA p3 (introduced). Ties by id.
ALL_ABOUT = _cc(
    (CNN, 2), (CB, 1), (DL, 1), (DML, 1), (GNA, 1), (LLM, 1), (MAB, 1), (RL, 1), (SA, 1), (ZRL, 1)
)
CONCEPT_COUNT_CASES: list[tuple[str, PaperQuery, str | None, int, list[Weighted]]] = [
    ("everything", PaperQuery(), None, 100, ALL_ABOUT),
    ("first two", PaperQuery(), None, 2, ALL_ABOUT[:2]),
    ("2024", PaperQuery(year=2024), None, 100, _cc((CNN, 2), (CB, 1), (DML, 1), (MAB, 1), (ZRL, 1))),
    ("2024 models", PaperQuery(year=2024), "MODEL", 100, _cc((CNN, 2))),
    ("NeurIPS 2023", PaperQuery(venues=(V2.id,)), None, 100, _cc((DL, 1), (GNA, 1), (LLM, 1), (SA, 1))),
    ("posters' methods", PaperQuery(status="Poster"), "METHOD", 100, _cc((DL, 1))),
    ("nothing", PaperQuery(author="author:nobody"), None, 100, []),
    ("no room", PaperQuery(), None, 0, []),
]


@pytest.mark.parametrize(
    ("case", "query", "kind", "limit", "expected"),
    CONCEPT_COUNT_CASES,
    ids=[c[0] for c in CONCEPT_COUNT_CASES],
)
def test_concept_counts_by_papers_about_them(
    rs: ReadStore, case: str, query: PaperQuery, kind: str | None, limit: int, expected: list[Weighted]
) -> None:
    got = rs.concept_counts(query, kind, limit)
    assert got == expected
    for w in got:  # each count is what a paper query about that concept counts
        about = PaperQuery(**{**query.__dict__, "concepts": (w.id,), "about_only": True})
        assert rs.paper_count(about) == w.weight


# COAUTHOR by year: p1 2024 A-B; p2 2024 A-C; p3 2023 B-C B-D C-D; p5 2023 A-B; p6 2022 AW-W.
def test_author_venues_most_papers_first_then_by_id(rs: ReadStore) -> None:
    iclr, neurips = V1.id, V2.id
    # Alice: p1, p2, p9 at ICLR 2024, p5 at NeurIPS 2023; Bob: p1 at ICLR, p3 and p5 at NeurIPS;
    # Dan: p3 at NeurIPS and p4 without a venue; Wang (p6) has no venue; a missing id has none.
    got = rs.author_venues([A.id, B.id, D.id, W.id, "author:nobody", A.id], 10)
    assert got == [
        [Weighted(iclr, 3), Weighted(neurips, 1)],
        [Weighted(neurips, 2), Weighted(iclr, 1)],
        [Weighted(neurips, 1)],
        [],
        [],
        [Weighted(iclr, 3), Weighted(neurips, 1)],
    ]
    assert rs.author_venues([C.id], 1) == [[Weighted(iclr, 2)]]  # p2, p8 at ICLR; p3 at NeurIPS
    assert rs.author_venues([C.id], 0) == [[]]


def test_coauthors_in_years_count_only_those_papers(rs: ReadStore) -> None:
    assert rs.coauthors_in_years([A.id, B.id, "author:nobody"], (2024, 2024), 1, 10) == [
        [Weighted(B.id, 1), Weighted(C.id, 1)],
        [Weighted(A.id, 1)],
        [],
    ]
    assert rs.coauthors_in_years([B.id], (2023, 2024), 1, 10) == [
        [Weighted(A.id, 2), Weighted(C.id, 1), Weighted(D.id, 1)]
    ]
    assert rs.coauthors_in_years([B.id], (2023, 2024), 1, 2) == [[Weighted(A.id, 2), Weighted(C.id, 1)]]
    assert rs.coauthors_in_years([A.id], (2023, 2024), 2, 10) == [[Weighted(B.id, 2)]]
    assert rs.coauthors_in_years([W.id], (2022, 2022), 1, 10) == [[Weighted(AW.id, 1)]]
    assert rs.coauthors_in_years([A.id], (2025, 2030), 1, 10) == [[]]
    # every year: the stored COAUTHOR ties
    everything = rs.coauthors_in_years([A.id, B.id], (0, 9999), 1, 10)
    assert everything == rs.weighted_neighbors([A.id, B.id], "COAUTHOR", 1, 10)


def test_coauthor_edges_in_years_are_the_ties_of_those_papers(rs: ReadStore) -> None:
    chosen = [D.id, C.id, B.id, A.id, "author:nobody"]
    assert rs.coauthor_edges_in_years(chosen, (2023, 2023), 1) == [
        PairEdge(A.id, B.id, 1),
        PairEdge(B.id, C.id, 1),
        PairEdge(B.id, D.id, 1),
        PairEdge(C.id, D.id, 1),
    ]
    assert rs.coauthor_edges_in_years(chosen, (2024, 2024), 1) == [
        PairEdge(A.id, B.id, 1),
        PairEdge(A.id, C.id, 1),
    ]
    assert rs.coauthor_edges_in_years(chosen, (2023, 2024), 2) == [PairEdge(A.id, B.id, 2)]
    assert rs.coauthor_edges_in_years(chosen, (0, 9999), 1) == rs.pair_edges_among(chosen, "COAUTHOR", 1)
    assert rs.coauthor_edges_in_years([A.id], (0, 9999), 1) == []


# CO_OCCURS by year: p1 2024 CNN-DL; p2 2024 MAB-CB; p3 2023 LLM-DL; p5 2023 LLM-GNA; p6 2022
# CB-RL; p9 2024 MAB-ZRL-GNB-DML (each paper has fewer than CO_OCCURS_TOP_K mentions).
def test_concepts_in_years_count_only_those_papers(rs: ReadStore) -> None:
    assert rs.concepts_in_years([DL.id, LLM.id, "concept:nobody"], (2023, 2023), 1, 10) == [
        [Weighted(LLM.id, 1)],
        [Weighted(DL.id, 1), Weighted(GNA.id, 1)],
        [],
    ]
    assert rs.concepts_in_years([DL.id], (2024, 2024), 1, 10) == [[Weighted(CNN.id, 1)]]
    assert rs.concepts_in_years([DL.id], (2023, 2024), 1, 10) == [[Weighted(CNN.id, 1), Weighted(LLM.id, 1)]]
    four = [Weighted(CB.id, 1), Weighted(DML.id, 1), Weighted(GNB.id, 1), Weighted(ZRL.id, 1)]
    assert rs.concepts_in_years([MAB.id], (2024, 2024), 1, 10) == [four]
    assert rs.concepts_in_years([MAB.id], (2024, 2024), 1, 2) == [four[:2]]
    assert rs.concepts_in_years([LLM.id], (2023, 2024), 2, 10) == [[]]
    assert rs.concepts_in_years([CB.id], (2025, 2030), 1, 10) == [[]]
    every = ids(ML, DL, CNN, LLM, MAB, CB, DML, RL, ZRL, GNA, GNB)
    assert rs.concepts_in_years(every, (0, 9999), 1, 10) == rs.weighted_neighbors(every, "CO_OCCURS", 1, 10)


def test_concept_edges_in_years_are_the_ties_of_those_papers(rs: ReadStore) -> None:
    chosen = [LLM.id, GNA.id, DL.id, CNN.id, "concept:nobody"]
    assert rs.concept_edges_in_years(chosen, (2023, 2024), 1) == [
        PairEdge(CNN.id, DL.id, 1),
        PairEdge(DL.id, LLM.id, 1),
        PairEdge(GNA.id, LLM.id, 1),
    ]
    assert rs.concept_edges_in_years(chosen, (2024, 2024), 1) == [PairEdge(CNN.id, DL.id, 1)]
    assert rs.concept_edges_in_years(chosen, (2023, 2024), 2) == []
    every = ids(ML, DL, CNN, LLM, MAB, CB, DML, RL, ZRL, GNA, GNB)
    assert rs.concept_edges_in_years(every, (0, 9999), 1) == rs.pair_edges_among(every, "CO_OCCURS", 1)
    assert rs.concept_edges_in_years([DL.id], (0, 9999), 1) == []


@pytest.mark.parametrize("backend", BACKENDS)
def test_concepts_in_years_follow_the_top_mentions_rule(backend: str, request: pytest.FixtureRequest) -> None:
    """A paper with more mentions than CO_OCCURS_TOP_K: the year-range ties are the stored ones
    (best scores, ties by id), so a range covering every year changes nothing."""
    scores = [0.9, 0.8, 0.8, 0.7, 0.6, 0.5, 0.5, 0.4, 0.4, 0.1]  # the 8th and 9th tie: id decides
    cs = [concept(f"c{i}", f"Concept {i}") for i in range(len(scores))]
    many = paper_record(
        "q1", "Many", 2020, [A], mentions=[(c, True, s) for c, s in zip(cs, scores, strict=True)]
    )
    later = paper_record("q2", "Later", 2021, [A], mentions=[(cs[9], True, 0.9), (cs[0], True, 0.8)])
    every = [c.id for c in cs]
    s = open_store(backend, request)
    try:
        s.upsert([many, later])
        assert s.concepts_in_years(every, (0, 9999), 1, 20) == s.weighted_neighbors(every, "CO_OCCURS", 1, 20)
        assert s.concept_edges_in_years(every, (0, 9999), 1) == s.pair_edges_among(every, "CO_OCCURS", 1)
        assert s.concepts_in_years([cs[8].id, cs[9].id], (2020, 2020), 1, 20) == [[], []]
        assert s.concepts_in_years([cs[9].id], (2021, 2021), 1, 20) == [[Weighted(cs[0].id, 1)]]
        assert len(s.concepts_in_years([cs[0].id], (2020, 2020), 1, 20)[0]) == 7
    finally:
        s.close()


# -- updates are visible, hidden state is not ----------------------------------------------------
def test_property_only_update_is_found_by_its_new_key(fresh: ReadStore) -> None:
    assert fresh.concepts_by_keys(["l:sparse transformer"]) == [None]
    renamed = concept("sparse-attention", "Sparse Attention", ["Sparse Transformers"], curated=False)
    again = paper_record("p3", "Attention Is All You Need", 2023, [B, C, D], V2, T1, introduces=[renamed])
    fresh.upsert([again])
    assert fresh.concepts_by_keys(["l:sparse transformer"]) == [SA.id]
    assert fresh.list_concepts("transformers", None, "NAME", 0, 10).ids == [SA.id]


def test_reingest_changes_no_answer(fresh: ReadStore) -> None:
    before = (fresh.papers(PaperQuery(), 0, 100), fresh.list_concepts(None, None, "PAPER_COUNT", 0, 100))
    summary = fresh.upsert(RECORDS)
    assert summary.unchanged == len(RECORDS)
    assert (
        fresh.papers(PaperQuery(), 0, 100),
        fresh.list_concepts(None, None, "PAPER_COUNT", 0, 100),
    ) == before


def test_internal_keys_never_show(rs: ReadStore) -> None:
    nodes = rs.get_nodes([ML.id, A.id, "paper:p1"])
    for n in nodes:
        assert n is not None and not any(k.startswith("_") for k in n.properties), n
    graph = rs.export()
    assert {n.label for n in graph.nodes} == {"Paper", "Author", "Concept", "Venue", "Topic"}
    assert all(not k.startswith("_") for n in graph.nodes for k in n.properties)
    assert len(graph.nodes) == sum(rs.counts().nodes.values())
    assert ML == next(n for n in graph.nodes if n.id == ML.id)


def test_version_grows_with_every_write(fresh: ReadStore) -> None:
    before = fresh.version()
    fresh.upsert([paper_record("p10", "A New Paper", 2025, [A])])
    assert fresh.version() > before


@pytest.fixture(params=[b for b in BACKENDS if "neo4j" in str(getattr(b, "values", b))])
def fresh_neo4j(request: pytest.FixtureRequest) -> Iterator[ReadStore]:
    """The Neo4j store alone, loaded for one test (its read index is its own)."""
    s = open_store(request.param, request)
    yield load(s)
    s.close()


def test_neo4j_read_index_rebuilds_from_the_stored_graph(fresh_neo4j: ReadStore) -> None:
    """A database written without the read index (an older paperkg, a bulk import) gets it from
    ``rebuild_read_index``, with the same answers as one indexed while writing."""
    fresh = fresh_neo4j
    from kg.stores.neo4j.queries import READ_INDEX_PROPERTIES
    from kg.stores.neo4j.read_queries import KEY_LABEL

    def answers() -> list[Any]:
        return [
            fresh.concepts_by_keys([*query_keys("ML"), *query_keys("RL"), "l:graph network"]),
            fresh.concepts_with_key_suffix("bandit", 10),
            fresh.authors_by_keys(["atlas wang", "zhangyang wang"]),
            fresh.papers(PaperQuery(), 0, 100),
            fresh.papers(PaperQuery(year=2023), 0, 100),
            fresh.list_concepts(None, None, "PAPER_COUNT", 0, 100),
            fresh.list_concepts("networks", None, "NAME", 0, 100),
            fresh.list_authors(None, "PAPER_COUNT", 0, 100),
        ]

    expected = answers()
    wipe = ", ".join(f"n.`{p}`" for p in sorted(READ_INDEX_PROPERTIES))
    with fresh._driver.session() as session:  # type: ignore[attr-defined]
        session.run(f"MATCH (k:{KEY_LABEL}) DETACH DELETE k").consume()
        session.run(f"MATCH (n) REMOVE {wipe}").consume()
    assert fresh.list_concepts(None, None, "PAPER_COUNT", 0, 100).ids == []  # the index is gone
    assert fresh.rebuild_read_index(chunk=7) > 0  # type: ignore[attr-defined]
    assert answers() == expected
    assert fresh.rebuild_read_index() == 0  # type: ignore[attr-defined]


# -- paths ---------------------------------------------------------------------------------------
# COAUTHOR ties: A-B, A-C, B-C, B-D, C-D, AW-W; E has none.
def _is_chain(rs: ReadStore, path: list[str]) -> bool:
    ties = {(e.source, e.target) for e in rs.pair_edges_among(path, "COAUTHOR", 1)}
    return all((min(a, b), max(a, b)) in ties for a, b in zip(path, path[1:], strict=False))


@pytest.mark.parametrize(
    ("source", "target", "hops"),
    [(A, D, 2), (D, A, 2), (A, B, 1), (C, B, 1), (AW, W, 1), (A, A, 0), (E, E, 0)],
    ids=["two hops", "reversed", "direct", "direct in", "pair", "self", "lone self"],
)
def test_coauthor_path_is_a_shortest_chain(rs: ReadStore, source: Node, target: Node, hops: int) -> None:
    path = rs.coauthor_path(source.id, target.id, 10)
    assert path is not None and len(path) == hops + 1
    assert path[0] == source.id and path[-1] == target.id
    assert _is_chain(rs, path)
    assert rs.coauthor_path(source.id, target.id, 10) == path  # the same graph, the same chain


def test_coauthor_path_is_none_when_apart_too_far_or_missing(rs: ReadStore) -> None:
    assert rs.coauthor_path(A.id, W.id, 10) is None  # other component
    assert rs.coauthor_path(A.id, E.id, 10) is None  # no ties at all
    assert rs.coauthor_path(A.id, D.id, 1) is None  # two hops needed
    assert rs.coauthor_path(A.id, "author:nobody", 10) is None
    assert rs.coauthor_path("author:nobody", "author:nobody", 10) is None
    assert rs.coauthor_path(ML.id, ML.id, 10) is None  # not an author


# -- stored analytics (kg analyze) ---------------------------------------------------------------
# COAUTHOR degree centrality (6 authors with ties, so degree / 5): B 0.6, C 0.6; A 0.4, D 0.4;
# AW 0.2, W 0.2. E has no tie and is not analysed.
def test_stored_analytics_are_read_back_in_rank_order(fresh: ReadStore) -> None:
    from kg.analyze import analyze

    assert fresh.analysis_version("COAUTHOR") is None
    assert fresh.central_nodes("COAUTHOR", "DEGREE", 3) == []
    version = fresh.version()
    summaries = analyze(fresh)
    assert [(s.pair, s.nodes, s.ties) for s in summaries] == [("COAUTHOR", 6, 6), ("CO_OCCURS", 10, 11)]
    assert fresh.version() == version  # storing analytics is not a change to the graph
    assert fresh.analysis_version("COAUTHOR") == version == fresh.analysis_version("CO_OCCURS")
    assert fresh.central_nodes("COAUTHOR", "DEGREE", 3) == [(B.id, 0.6), (C.id, 0.6), (A.id, 0.4)]
    pagerank = fresh.central_nodes("COAUTHOR", "PAGERANK", 10)
    assert [i for i, _ in pagerank][:1] == [B.id] and len(pagerank) == 6
    assert abs(sum(s for _, s in pagerank) - 1.0) < 1e-6
    sizes = fresh.community_sizes("COAUTHOR", 10)
    assert sum(sizes) == 6 and sizes == sorted(sizes, reverse=True)
    members = [fresh.community_members("COAUTHOR", i, 10) for i in range(len(sizes))]
    assert [len(m) for m in members] == sizes
    pair = next(m for m in members if W.id in m)
    assert sorted(pair) == sorted(ids(AW, W))  # the other component is a community of its own
    for m in members:  # most papers first, then by id
        counts = fresh.paper_counts(m)
        assert [(-c, i) for c, i in zip(counts, m, strict=True)] == sorted(
            (-c, i) for c, i in zip(counts, m, strict=True)
        )
    assert fresh.community_members("COAUTHOR", 99, 10) == []
    assert fresh.community_sizes("COAUTHOR", 1) == sizes[:1]
    analyze(fresh)  # again: the rows are replaced, not added
    assert sum(fresh.community_sizes("COAUTHOR", 10)) == 6
