"""Every paper order (:data:`kg.stores.protocol.PaperOrder`) on every backend, over one fixture.

The table below runs each query shape in each order, unset included, and compares the store's
whole list and several pages with a reference computed here in Python from the fixture and
the order's definition (not from either store), so both stores agree with it and with each
other. The fixture is built for ties: equal years, titles that fold alike ("Graph Nets" /
"graph nets", "Épsilon" / "epsilon"), papers without a year, and equal link relevance, so every
term of every order decides something and the id breaks what is left.

Adding an order: a branch in ``paper_order_by`` (SQLite) and ``paper_order`` (Neo4j), a key in
:func:`reference_key`, and the enum value in ``PaperOrder`` (protocol and API). At the end, the
relevance order of ``concept.papers`` worked out by hand on a second fixture.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from kg.core.ids import fold
from kg.core.models import Node, PaperRecord, Relationship
from kg.read.service import ReadService
from kg.stores.protocol import Page, PaperOrder, PaperQuery, ReadStore, link_relevance

X = Node(id="concept:x", label="Concept", properties={"name": "x", "source": "vocabulary"})
Y = Node(id="concept:y", label="Concept", properties={"name": "y", "source": "vocabulary"})  # below x
A = Node(id="author:a", label="Author", properties={"name": "Ada A"})
V = Node(id="venue:v-2022", label="Venue", properties={"name": "V 2022", "series": "V", "year": 2022})
WORD = "spectral"  # the text query; in the abstracts of the papers with ``text=True``


@dataclass(frozen=True)
class Fixture:
    """One paper: what the stores get and what the reference reads."""

    key: str
    title: str
    year: int | None
    links: tuple[tuple[str, Node, dict[str, Any]], ...] = ()
    by_a: bool = False
    in_v: bool = False
    text: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"paper:{self.key}"


def m(about: bool, salience: float, score: float) -> dict[str, Any]:
    return {"about": about, "salience": salience, "score": score, "count": 1}


SAME = m(True, 0.4, 1.0)  # one link shared by several papers: equal relevance
PAPERS = [
    Fixture("p01", "Graph Nets", 2022, (("MENTIONS", X, SAME),), by_a=True, in_v=True, text=True),
    Fixture("p02", "graph nets", 2022, (("MENTIONS", X, SAME),), by_a=True),  # p01's title folded
    Fixture("p03", "Zeta Graphs", 2022, (("MENTIONS", X, SAME),), in_v=True),
    Fixture("p04", "Alpha", 2024, (("MENTIONS", X, m(False, 0.2, 3.0)),), text=True),  # in passing
    Fixture("p05", "Beta", None, (("MENTIONS", Y, m(True, 0.9, 2.0)),), by_a=True, text=True),
    Fixture("p06", "Gamma", 2019, (("INTRODUCES", X, {"score": 5.0}),), in_v=True),
    Fixture("p07", "Delta", None, (("MENTIONS", X, SAME),)),  # p01's link, no year
    Fixture("p08", "Épsilon", 2020, in_v=True, text=True),
    Fixture("p09", "epsilon", 2020, by_a=True),  # p08's title folded
    Fixture("p10", "Eta", 2024, (("MENTIONS", X, m(True, 0.4, 150.0)),), text=True),  # score capped
    Fixture(
        "p11",
        "Theta",
        2021,
        (("MENTIONS", Y, m(False, 0.3, 1.0)), ("MENTIONS", X, m(True, 0.1, 1.0))),
        in_v=True,
    ),
    Fixture("p12", "Iota", 2022, (("MENTIONS", Y, SAME),), text=True),  # p01's link, to y
]


def record(f: Fixture) -> PaperRecord:
    abstract = f"On {WORD} methods." if f.text else "On other methods."
    props: dict[str, Any] = {"title": f.title, "abstract": abstract}
    if f.year is not None:
        props["year"] = f.year
    paper = Node(id=f.id, label="Paper", properties=props)
    nodes = [X, Y]
    rels = [Relationship(type="BROADER", start=Y.id, end=X.id)]
    for rel_type, concept, link in f.links:
        rels.append(
            Relationship.model_validate(
                {"type": rel_type, "start": f.id, "end": concept.id, "properties": link}
            )
        )
    if f.by_a:
        nodes.append(A)
        rels.append(
            Relationship.model_validate(
                {"type": "AUTHORED", "start": A.id, "end": f.id, "properties": {"position": 1}}
            )
        )
    if f.in_v:
        nodes.append(V)
        rels.append(Relationship(type="PUBLISHED_IN", start=f.id, end=V.id))
    return PaperRecord(paper=paper, nodes=nodes, relationships=rels)


# -- the reference -------------------------------------------------------------------------------
def counted_links(f: Fixture, q: PaperQuery) -> list[tuple[str, dict[str, Any]]]:
    """The paper's links that make it match ``q.concepts`` (about only, as the query says)."""
    return [
        (t, link)
        for t, c, link in f.links
        if q.concepts is not None
        and c.id in q.concepts
        and (t == "INTRODUCES" or not q.about_only or link.get("about") is not False)
    ]


def matches(f: Fixture, q: PaperQuery) -> bool:
    return (
        (q.concepts is None or bool(counted_links(f, q)))
        and (q.author is None or f.by_a)
        and (q.venues is None or f.in_v)
        and (q.year is None or f.year == q.year)
        and (q.text is None or f.text)
    )


def reference_key(f: Fixture, q: PaperQuery) -> tuple[Any, ...]:
    """The protocol's order, written out: every order ends in the id."""
    newest = (f.year is None, -(f.year or 0), fold(f.title), f.id)
    if q.sort == "OLDEST":
        return (f.year is None, f.year or 0, fold(f.title), f.id)
    if q.sort == "RELEVANCE" and q.concepts is not None and q.text is None:
        return (-max(link_relevance(t, link) for t, link in counted_links(f, q)), *newest)
    return newest


def reference(q: PaperQuery) -> list[str]:
    return [f.key for f in sorted((f for f in PAPERS if matches(f, q)), key=lambda f: reference_key(f, q))]


# -- the table -----------------------------------------------------------------------------------
SHAPES: dict[str, PaperQuery] = {
    "all": PaperQuery(),
    "year": PaperQuery(year=2022),
    "concept closure, about": PaperQuery(concepts=(X.id, Y.id), about_only=True),
    "concept closure, mentions": PaperQuery(concepts=(X.id, Y.id)),
    "concept alone, mentions": PaperQuery(concepts=(X.id,)),
    "concept + venue": PaperQuery(concepts=(X.id, Y.id), venues=(V.id,)),
    "concept + year": PaperQuery(concepts=(X.id, Y.id), year=2022),
    "author": PaperQuery(author=A.id),
    "venue": PaperQuery(venues=(V.id,)),
    "text": PaperQuery(text=WORD),
    "text + concept": PaperQuery(text=WORD, concepts=(X.id, Y.id)),
}
ORDERS: tuple[PaperOrder | None, ...] = (None, "NEWEST", "OLDEST", "RELEVANCE")
WINDOWS = [(0, 1), (0, 3), (1, 2), (2, 4), (5, 10), (11, 3), (40, 5)]


def ids(store: ReadStore, q: PaperQuery, offset: int = 0, limit: int = 50) -> list[str]:
    return [i.split(":")[1] for i in store.papers(q, offset, limit).ids]


@pytest.mark.parametrize("shape", list(SHAPES))
def test_every_order_lists_what_the_reference_lists(store: ReadStore, shape: str) -> None:
    store.upsert([record(f) for f in PAPERS])
    for order in ORDERS:
        q = replace(SHAPES[shape], order=order)
        want = reference(q)
        got = ids(store, q)
        if q.sort == "RELEVANCE" and q.text is not None:
            # the text score is each engine's own (BM25 / Lucene): the same papers, best first
            assert sorted(got) == sorted(want), (shape, order)
            want = got
        assert got == want, (shape, order)
        assert store.papers(q, 0, 0).total == len(want), (shape, order)
        for offset, limit in WINDOWS:
            assert ids(store, q, offset, limit) == want[offset : offset + limit], (shape, order, offset)


def test_the_services_concept_query_is_ordered_as_asked(store: ReadStore) -> None:
    """What ``concept.papers`` asks the store: the closure, papers about it only, in the order
    given (newest when none is), and a condition nothing meets lists nothing in any order."""
    store.upsert([record(f) for f in PAPERS])
    service = ReadService(store)
    for order in ORDERS:
        query = service.concept_query(X.id, order=order or "NEWEST")
        assert set(query.concepts or ()) == {X.id, Y.id} and query.about_only
        assert ids(store, query) == reference(query), order
        nobody = replace(query, author="author:nobody")
        assert store.papers(nobody, 0, 20) == store.papers(nobody, 0, 0) == Page(ids=[], total=0)
    assert service.concept_query(X.id).sort == "NEWEST"


def test_the_reference_lets_every_term_decide() -> None:
    """The fixture is worth running: in these lists each tie-break of the order decides."""
    newest = reference(PaperQuery())
    assert newest[:2] == ["p04", "p10"]  # 2024: "Alpha" before "Eta"
    assert newest[2:6] == ["p01", "p02", "p12", "p03"]  # 2022: "graph nets" twice (by id), "Iota", "Zeta"
    assert newest[-2:] == ["p05", "p07"]  # no year last: "Beta", "Delta"
    assert newest.index("p08") + 1 == newest.index("p09")  # "Épsilon" folds to "epsilon"
    relevant = reference(PaperQuery(concepts=(X.id, Y.id), order="RELEVANCE"))
    # introduces (3.0005), about y 0.9 (2.9002), capped score (2.4099), then the 2.4001 tie newest
    # first (three 2022 papers by title and id, the yearless one last), then the passing ones
    assert relevant == ["p06", "p05", "p10", "p01", "p02", "p12", "p03", "p07", "p11", "p04"]
    assert reference(PaperQuery(concepts=(X.id, Y.id), about_only=True, order="RELEVANCE"))[-1] == "p11"
    assert reference(PaperQuery(text=WORD, order="NEWEST")) == ["p04", "p10", "p01", "p12", "p08", "p05"]
    oldest = reference(PaperQuery(order="OLDEST"))
    assert oldest[:3] == ["p06", "p08", "p09"] and oldest[-2:] == ["p05", "p07"]  # no year still last


# -- hand-derived orders of concept.papers by relevance (moved from test_relevance.py) -----------
# Each part of the rule decides something here (see the expected orders' comments); the
# reference above is checked against the same arithmetic by these literal lists.
def _hand_paper(key: str, year: int | None, links: list[tuple[str, Node, dict[str, Any]]]) -> PaperRecord:
    props: dict[str, Any] = {"title": f"Paper {key}", "abstract": f"Abstract {key}."}
    if year is not None:
        props["year"] = year
    pid = f"paper:{key}"
    rels = [Relationship(type="BROADER", start=Y.id, end=X.id)]
    for t, c, p in links:
        rels.append(Relationship.model_validate({"type": t, "start": pid, "end": c.id, "properties": p}))
    return PaperRecord(paper=Node(id=pid, label="Paper", properties=props), nodes=[X, Y], relationships=rels)


HAND_RECORDS = [
    _hand_paper("a", 2020, [("MENTIONS", X, m(True, 0.4, 1.0))]),
    _hand_paper("b", 2024, [("MENTIONS", X, m(False, 0.15, 4.0))]),  # newest, in passing
    _hand_paper("c", 2023, [("MENTIONS", Y, m(True, 0.9, 2.0)), ("MENTIONS", X, m(False, 0.1, 0.5))]),
    _hand_paper("d", 2022, [("INTRODUCES", X, {"score": 5.0}), ("MENTIONS", X, m(True, 0.3, 5.0))]),
    _hand_paper("e", 2021, [("MENTIONS", X, m(True, 0.4, 3.0))]),  # a's salience, a better score
    _hand_paper("f", None, [("MENTIONS", X, m(True, 0.4, 1.0))]),  # a's link exactly, no year
    _hand_paper("g", 2019, [("MENTIONS", X, m(True, 0.4, 150.0))]),  # a score beyond 99 counts as 99
]
# by relevance: d introduces x (3.0005), c is about y below x (2.9002), then the salience-0.4
# papers by score (g 2.4099, e 2.4003, then a and f tied at 2.4001: newest first, no year last)
HAND_RELEVANT = ["d", "c", "g", "e", "a", "f"]
HAND_NEWEST = ["c", "d", "e", "a", "g", "f"]


@pytest.fixture
def hand_service(store: ReadStore) -> ReadService:
    store.upsert(HAND_RECORDS)
    return ReadService(store)


def _hand_ids(service: ReadService, query: PaperQuery, offset: int = 0, limit: int = 20) -> list[str]:
    return [i.split(":")[1] for i in service.papers(query, offset, limit).ids]


def test_papers_of_a_concept_by_relevance_then_newest(hand_service: ReadService) -> None:
    relevant = hand_service.concept_query(X.id, order="RELEVANCE")
    assert _hand_ids(hand_service, relevant) == HAND_RELEVANT
    assert _hand_ids(hand_service, hand_service.concept_query(X.id, order="NEWEST")) == HAND_NEWEST
    assert (
        _hand_ids(hand_service, hand_service.concept_query(X.id)) == HAND_NEWEST
    )  # the store's default order
    mentions = hand_service.concept_query(X.id, about_only=False, order="RELEVANCE")
    # c's best link is still y's; b only mentions x in passing (0.15)
    assert _hand_ids(hand_service, mentions) == [*HAND_RELEVANT, "b"]
    direct = hand_service.concept_query(X.id, include_narrower=False, about_only=False, order="RELEVANCE")
    # without y, c's link to x is a passing one with salience 0.1, below b's 0.15
    assert _hand_ids(hand_service, direct) == ["d", "g", "e", "a", "f", "b", "c"]
    assert hand_service.papers(relevant, 0, 2).total == len(HAND_RELEVANT)


@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (1, 2), (2, 3), (4, 10), (6, 5), (9, 1)])
def test_pages_by_relevance_are_windows_of_the_whole_order(
    hand_service: ReadService, offset: int, limit: int
) -> None:
    query = hand_service.concept_query(X.id, about_only=False, order="RELEVANCE")
    whole = _hand_ids(hand_service, query)
    assert _hand_ids(hand_service, query, offset, limit) == whole[offset : offset + limit]


def test_relevance_with_other_conditions_and_without_concepts(hand_service: ReadService) -> None:
    both = PaperQuery(concepts=hand_service.closure(X.id), year=2021, order="RELEVANCE")
    assert _hand_ids(hand_service, both) == ["e"]
    with_author = PaperQuery(concepts=(X.id,), author="author:nobody", order="RELEVANCE")
    assert _hand_ids(hand_service, with_author) == []
    assert _hand_ids(hand_service, PaperQuery(order="RELEVANCE")) == ["b", *HAND_NEWEST]  # no concept: newest
