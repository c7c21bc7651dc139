"""``concept.papers`` by relevance (``PaperQuery.order``) on every backend: hand-built links
where each part of the rule decides something (see the expected orders' comments)."""

from __future__ import annotations

from typing import Any

import pytest

from kg.core.models import Node, PaperRecord, Relationship
from kg.read.service import ReadService
from kg.stores.protocol import PaperQuery, ReadStore

X = Node(id="concept:x", label="Concept", properties={"name": "x", "source": "vocabulary"})
Y = Node(id="concept:y", label="Concept", properties={"name": "y", "source": "vocabulary"})


def _paper(key: str, year: int | None, links: list[tuple[str, Node, dict[str, Any]]]) -> PaperRecord:
    props: dict[str, Any] = {"title": f"Paper {key}", "abstract": f"Abstract {key}."}
    if year is not None:
        props["year"] = year
    pid = f"paper:{key}"
    rels = [Relationship(type="BROADER", start=Y.id, end=X.id)]
    for t, c, p in links:
        rels.append(Relationship.model_validate({"type": t, "start": pid, "end": c.id, "properties": p}))
    return PaperRecord(paper=Node(id=pid, label="Paper", properties=props), nodes=[X, Y], relationships=rels)


def m(about: bool, salience: float, score: float) -> dict[str, Any]:
    return {"about": about, "salience": salience, "score": score, "count": 1}


RECORDS = [
    _paper("a", 2020, [("MENTIONS", X, m(True, 0.4, 1.0))]),
    _paper("b", 2024, [("MENTIONS", X, m(False, 0.15, 4.0))]),  # newest, in passing
    _paper("c", 2023, [("MENTIONS", Y, m(True, 0.9, 2.0)), ("MENTIONS", X, m(False, 0.1, 0.5))]),
    _paper("d", 2022, [("INTRODUCES", X, {"score": 5.0}), ("MENTIONS", X, m(True, 0.3, 5.0))]),
    _paper("e", 2021, [("MENTIONS", X, m(True, 0.4, 3.0))]),  # a's salience, a better score
    _paper("f", None, [("MENTIONS", X, m(True, 0.4, 1.0))]),  # a's link exactly, no year
    _paper("g", 2019, [("MENTIONS", X, m(True, 0.4, 150.0))]),  # a score beyond 99 counts as 99
]
# by relevance: d introduces x (3.0005), c is about y below x (2.9002), then the salience-0.4
# papers by score (g 2.4099, e 2.4003, then a and f tied at 2.4001: newest first, no year last)
RELEVANT = ["d", "c", "g", "e", "a", "f"]
NEWEST = ["c", "d", "e", "a", "g", "f"]


@pytest.fixture
def service(store: ReadStore) -> ReadService:
    store.upsert(RECORDS)
    return ReadService(store)


def _ids(service: ReadService, query: PaperQuery, offset: int = 0, limit: int = 20) -> list[str]:
    return [i.split(":")[1] for i in service.papers(query, offset, limit).ids]


def test_papers_of_a_concept_by_relevance_then_newest(service: ReadService) -> None:
    relevant = service.concept_query(X.id, order="RELEVANCE")
    assert _ids(service, relevant) == RELEVANT
    assert _ids(service, service.concept_query(X.id, order="NEWEST")) == NEWEST
    assert _ids(service, service.concept_query(X.id)) == NEWEST  # the store's default order
    mentions = service.concept_query(X.id, about_only=False, order="RELEVANCE")
    # c's best link is still y's; b only mentions x in passing (0.15)
    assert _ids(service, mentions) == [*RELEVANT, "b"]
    direct = service.concept_query(X.id, include_narrower=False, about_only=False, order="RELEVANCE")
    # without y, c's link to x is a passing one with salience 0.1, below b's 0.15
    assert _ids(service, direct) == ["d", "g", "e", "a", "f", "b", "c"]
    assert service.papers(relevant, 0, 2).total == len(RELEVANT)


@pytest.mark.parametrize(("offset", "limit"), [(0, 1), (1, 2), (2, 3), (4, 10), (6, 5), (9, 1)])
def test_pages_by_relevance_are_windows_of_the_whole_order(
    service: ReadService, offset: int, limit: int
) -> None:
    query = service.concept_query(X.id, about_only=False, order="RELEVANCE")
    whole = _ids(service, query)
    assert _ids(service, query, offset, limit) == whole[offset : offset + limit]


def test_relevance_with_other_conditions_and_without_concepts(service: ReadService) -> None:
    both = PaperQuery(concepts=service.closure(X.id), year=2021, order="RELEVANCE")
    assert _ids(service, both) == ["e"]
    with_author = PaperQuery(concepts=(X.id,), author="author:nobody", order="RELEVANCE")
    assert _ids(service, with_author) == []
    assert _ids(service, PaperQuery(order="RELEVANCE")) == ["b", *NEWEST]  # no concept: newest
