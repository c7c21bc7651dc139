"""A link marked ``climbs: false`` counts for its own concept, not for the concepts above it
(``PaperQuery.narrower``), on every backend and through every read that follows the closure.

Hand-built: "quantization" is under "model compression". ``paper:weights`` is about
quantization and climbs; ``paper:actions`` quantizes a robot's actions: about quantization, but
its link stays below (the extractor's sense rule, extractors/concepts/analysis/senses.py).
``paper:pruning`` is about model compression's other child. Every backend must answer as written.
"""

from __future__ import annotations

from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from kg.read.service import PaperFilter, ReadService
from kg.stores.protocol import ReadStore
from tests.graph_builders import curated_concept


def _concept(cid: str, name: str) -> Node:
    return curated_concept(cid, name)


COMPRESSION = _concept("model-compression", "model compression")
QUANT = _concept("quantization", "quantization")
PRUNING = _concept("pruning", "pruning")
NODES = [COMPRESSION, QUANT, PRUNING]


def _paper(pid: str, year: int, concept: Node, salience: float, **extra: Any) -> PaperRecord:
    props: dict[str, Any] = {"count": 2, "score": 1.0, "evidence": [], "salience": salience, "about": True}
    return PaperRecord(
        paper=Node(
            id=pid, label="Paper", properties={"title": pid, "abstract": f"about {pid}", "year": year}
        ),
        nodes=NODES,
        relationships=[
            Relationship(type="MENTIONS", start=pid, end=concept.id, properties={**props, **extra}),
            Relationship(type="BROADER", start=QUANT.id, end=COMPRESSION.id),
            Relationship(type="BROADER", start=PRUNING.id, end=COMPRESSION.id),
        ],
    )


RECORDS = [
    _paper("paper:weights", 2023, QUANT, 0.9),
    _paper("paper:actions", 2025, QUANT, 0.4, climbs=False),
    _paper("paper:pruning", 2024, PRUNING, 0.9),
]


def _ids(service: ReadService, name: str, include_narrower: bool = True, order: Any = "NEWEST") -> list[str]:
    cid = service.require_concept(name).id
    query = service.concept_query(cid, include_narrower=include_narrower, order=order)
    return service.store.papers(query, 0, 10).ids


def test_a_link_that_does_not_climb_counts_for_its_own_concept_only(store: ReadStore) -> None:
    store.upsert(RECORDS)
    service = ReadService(store)
    # Its own concept lists it, with or without the narrower ones, in either order.
    assert _ids(service, "quantization") == ["paper:actions", "paper:weights"]
    assert _ids(service, "quantization", include_narrower=False) == ["paper:actions", "paper:weights"]
    assert _ids(service, "quantization", order="RELEVANCE") == ["paper:weights", "paper:actions"]
    # The concept above does not, by any route.
    assert _ids(service, "model compression") == ["paper:pruning", "paper:weights"]
    assert _ids(service, "model compression", order="RELEVANCE") == ["paper:pruning", "paper:weights"]
    page = service.papers(service.paper_query(PaperFilter(concept="model compression")), 0, 10)
    assert page.ids == ["paper:pruning", "paper:weights"]
    filtered = service.paper_query(PaperFilter(concept="model compression", year=2025))
    assert store.papers(filtered, 0, 10).total == 0
    assert store.paper_count(filtered) == 0
    trend = service.concept_trend(COMPRESSION.id, include_narrower=True)
    assert {t.year: t.papers for t in trend} == {2023: 1, 2024: 1, 2025: 0}
    # Its own paper count counts it (the stored count of papers about the concept).
    assert store.paper_counts([QUANT.id, COMPRESSION.id]) == [2, 0]
