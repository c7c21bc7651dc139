"""The concept extractors inside the pipeline: output contract, modes, determinism, caps."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from extractors.concepts.extract import MAX_MENTIONS, MAX_VOCABULARY_MENTIONS, _node
from kg.core.ids import concept_id
from kg.core.merge import merge_properties
from kg.core.models import CONCEPT_KINDS, Node, PaperRecord, RawPaper, Relationship, trusted_relationship
from kg.eval.cli import record_keyphrases
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import DEFAULT_EXTRACTORS, Pipeline

PAPERS = [
    RawPaper(
        file="t.jsonl",
        line=1,
        title="Diversified MNL Bandits",
        abstract=(
            "Conventional (contextual) MNL bandits ignore diversity. We bridge this gap with the "
            "*diversified multinomial logit* (DMNL) contextual bandit. We develop a UCB-based algorithm, "
            "$\\texttt{OFU-DMNL}$, with regret $\\tilde{O}(\\sqrt{T})$. DMNL bandits serves as a basis."
        ),
    ),
    RawPaper(
        file="t.jsonl",
        line=2,
        abstract=(
            "We present GRAPE (Group RepresentAtional Position Encoding), a unified framework for "
            "positional encoding based on group actions. GRAPE recovers RoPE and ALiBi as special cases."
        ),
    ),
    RawPaper(
        file="t.jsonl",
        line=3,
        abstract=(
            "We study the existence and computation of Nash equilibria in concave games. We fine-tune "
            "Qwen2.5-7B and DeepSeek-R1 on GSM8K to play them, and large language models (LLMs) do well."
        ),
    ),
]


@pytest.fixture(scope="module")
def accurate() -> Iterator[Pipeline]:
    yield Pipeline(nlp=load_nlp(mode="accurate"), mode="accurate")


def build(pipeline: Pipeline, papers: list[RawPaper]) -> list[PaperRecord]:
    records, problems = pipeline.build(papers)
    assert not problems
    return records


def shape(record: PaperRecord) -> set[tuple[str, ...]]:
    """The contract of a record: relationship types with their property names and types."""
    out: set[tuple[str, ...]] = set()
    for r in record.relationships:
        props = tuple(sorted(f"{k}:{type(v).__name__}" for k, v in r.properties.items()))
        out.add((r.type, *props))
    for n in record.nodes:
        if n.label == "Concept":
            out.add(("Concept", *sorted(f"{k}:{type(v).__name__}" for k, v in n.properties.items())))
    return out


def test_default_extractors_are_the_v2_family() -> None:
    assert DEFAULT_EXTRACTORS[-3:] == ("kg.concepts.v2", "kg.introduces.v1", "kg.titles.v1")


def test_mentions_contract(fast: Pipeline) -> None:
    for record in build(fast, PAPERS):
        mentions = [r for r in record.relationships if r.type == "MENTIONS"]
        assert mentions and len(mentions) <= MAX_MENTIONS + MAX_VOCABULARY_MENTIONS
        for m in mentions:
            # a concept the text implies (MENTIONS {predicted: true}) occurs 0 times, with no evidence
            said = m.properties.get("predicted") is not True
            assert isinstance(m.properties["count"], int) and (m.properties["count"] >= 1) is said
            assert isinstance(m.properties["score"], float)
            evidence = m.properties["evidence"]
            assert isinstance(evidence, list) and bool(evidence) is said
            assert all(isinstance(s, str) for s in evidence)
            assert isinstance(m.properties["surface"], str)
        concepts = [n for n in record.nodes if n.label == "Concept"]
        ids = {n.id for n in concepts}
        assert {m.end for m in mentions} <= ids
        for n in concepts:
            assert n.properties["kind"] in CONCEPT_KINDS
            assert n.properties["source"] in ("vocabulary", "discovered")
            assert isinstance(n.properties["aliases"], list)
        for rel in record.relationships:
            if rel.type == "BROADER":
                assert rel.start in ids and rel.end in ids


def test_introduces_and_derived_titles(fast: Pipeline) -> None:
    titled, grape, nash = build(fast, PAPERS)
    assert titled.paper.properties["title"] == "Diversified MNL Bandits"
    assert titled.paper.properties["titleSource"] == "LISTING"
    assert grape.paper.properties["title"] == "GRAPE: Group RepresentAtional Position Encoding"
    assert grape.paper.properties["titleSource"] == "DERIVED"
    introduced = {r.end for r in grape.relationships if r.type == "INTRODUCES"}
    assert introduced == {"concept:grape"}
    node = next(n for n in grape.nodes if n.id == "concept:grape")
    assert node.properties["kind"] == "METHOD" and node.properties["source"] == "discovered"
    assert (
        nash.paper.properties["title"] == "The existence and computation of Nash equilibria in concave games"
    )


def test_discovered_heads_and_models(fast: Pipeline) -> None:
    dmnl, _, nash = build(fast, PAPERS)
    broader: dict[str, set[str]] = {}
    for r in dmnl.relationships:
        if r.type == "BROADER":
            broader.setdefault(r.start, set()).add(r.end)
    dmnl_id = concept_id("diversified multinomial logit bandit", variants=True)  # a discovered phrase
    up, todo = set(), [dmnl_id]
    while todo:
        for b in broader.get(todo.pop(), ()):
            if b not in up:
                up.add(b)
                todo.append(b)
    assert "concept:mnl-bandits" in broader[dmnl_id]  # its head
    assert "concept:multi-armed-bandits" in up
    kinds = {str(n.properties["name"]): n.properties["kind"] for n in nash.nodes if n.label == "Concept"}
    assert kinds["Qwen2.5-7B"] == "MODEL" and kinds["DeepSeek-R1"] == "MODEL" and kinds["GSM8K"] == "DATASET"
    assert "Nash equilibrium" in kinds and "large language models" in kinds


def test_fast_and_accurate_share_the_contract(fast: Pipeline, accurate: Pipeline) -> None:
    for f, a in zip(build(fast, PAPERS), build(accurate, PAPERS), strict=True):
        assert f.paper.id == a.paper.id
        assert shape(f) == shape(a)
        assert set(f.paper.properties) == set(a.paper.properties)
        top_f, top_a = set(record_keyphrases(f, 5)), set(record_keyphrases(a, 5))
        assert len(top_f & top_a) >= 2  # same paper, largely the same top concepts


@pytest.mark.parametrize("mode", ["fast", "accurate"])
def test_a_paper_gets_the_same_record_alone_or_in_a_batch(
    mode: str, fast: Pipeline, accurate: Pipeline
) -> None:
    pipeline = fast if mode == "fast" else accurate
    batch = build(pipeline, PAPERS * 3)[:3]
    for paper, in_batch in zip(PAPERS, batch, strict=True):
        alone = build(pipeline, [paper])[0]
        assert alone.model_dump() == in_batch.model_dump()
    again = build(pipeline, PAPERS)
    assert [r.model_dump() for r in again] == [r.model_dump() for r in batch]


def test_record_keyphrases_uses_the_papers_wording(fast: Pipeline) -> None:
    _, _, nash = build(fast, PAPERS)
    top = record_keyphrases(nash)
    assert "Nash equilibria" in top and len(top) <= 10


def test_fast_node_construction_equals_validation() -> None:
    props: dict[str, Any] = {"name": "x", "kind": "CONCEPT", "aliases": ["y"], "source": "discovered"}
    fast_node = _node("concept:x", props)
    assert fast_node == Node(id="concept:x", label="Concept", properties=props)
    assert fast_node.model_dump() == Node(id="concept:x", label="Concept", properties=props).model_dump()
    fast_node.properties = {"name": "y"}  # still an ordinary, mutable pydantic model
    assert fast_node.model_copy().properties == {"name": "y"}


def test_trusted_relationship_equals_validation() -> None:
    props: dict[str, Any] = {"count": 2, "score": 1.5, "evidence": ["a"], "about": True}
    fast_rel = trusted_relationship("MENTIONS", "paper:1", "concept:x", props)
    slow = Relationship(type="MENTIONS", start="paper:1", end="concept:x", properties=props)
    assert fast_rel == slow and fast_rel.model_dump() == slow.model_dump()


def test_records_share_normalised_vocabulary_nodes_without_changing_them(fast: Pipeline) -> None:
    """A curated concept's node is normalised once and shared; sharing changes no record."""
    first = build(fast, PAPERS)
    second = build(fast, PAPERS)
    shared = [
        (a, b)
        for r1, r2 in zip(first, second, strict=True)
        for a, b in zip(r1.nodes, r2.nodes, strict=True)
        if a.properties.get("source") == "vocabulary"
    ]
    assert shared and all(a is b for a, b in shared)
    # Each equals the validated node built from scratch with normalised properties.
    for node, _ in shared:
        props = merge_properties({}, node.properties)
        assert node == Node(id=node.id, label=node.label, properties=props)
    # Discovered nodes are per paper: never the same object in two builds.
    discovered = [
        (a, b)
        for r1, r2 in zip(first, second, strict=True)
        for a, b in zip(r1.nodes, r2.nodes, strict=True)
        if a.properties.get("source") == "discovered"
    ]
    assert discovered and all(a is not b and a == b for a, b in discovered)
