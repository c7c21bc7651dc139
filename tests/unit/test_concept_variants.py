"""One concept, one id: a concept's variants in different papers get the same concept id.

The stores merge concepts by id, so identical ids are one node whatever the ingest order; these
tests check the ids the extractor gives (inflections, acronym and spelt-out forms, a head under
modifiers, noun and system forms), that an ambiguous acronym needs support in its own paper, and
that a paper's record is the same alone, in a batch and in either order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractors.concepts.analysis import spell_out_acronyms
from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "websec.jsonl"


def build(nlp: Any, *papers: tuple[str, str]) -> list[PaperRecord]:
    raws = [RawPaper(file="t.jsonl", line=i + 1, title=t, abstract=a) for i, (t, a) in enumerate(papers)]
    records, problems = Pipeline(nlp=nlp).build(raws)
    assert not problems
    return records


def concept_ids(r: PaperRecord) -> dict[str, str]:
    """Concept id -> name of every concept the paper MENTIONS."""
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    return {x.end: names[x.end] for x in r.relationships if x.type == "MENTIONS"}


@pytest.mark.parametrize(
    ("first", "second", "shared"),
    [
        (  # RL spellings
            (
                "Safe Exploration in Constrained RL",
                "We study constrained RL with cost limits and a Lagrangian dual.",
            ),
            (
                "Primal-Dual Constrained Reinforcement Learning",
                "We propose a primal-dual method for constrained reinforcement learning with cost limits.",
            ),
            "constrained reinforcement learning",
        ),
        (  # acronym and expansion across papers
            (
                "Rule Mining",
                "We learn logical rules over a KG and show that KG embeddings miss them; a knowledge graph "
                "stores facts as triples.",
            ),
            (
                "Reasoning over Knowledge Graphs",
                "Knowledge graphs store facts. We answer multi-hop queries over them.",
            ),
            "knowledge graphs",
        ),
        (  # noun and system forms
            (
                "News Recommendation",
                "We study recommendation for news readers and rank articles by predicted clicks.",
            ),
            (
                "Fair Recommender Systems",
                "Recommender systems rank items for users; we make their exposure fair.",
            ),
            "recommender systems",
        ),
        (  # a head under modifiers that are not part of the name; inflections
            (
                "Auditing Contracts",
                "We audit vulnerable smart contracts and find reentrancy bugs in deployed code.",
            ),
            (
                "Decompilers",
                "Our tool decompiles smart contract bytecode into readable Solidity for auditors.",
            ),
            "smart contracts",
        ),
    ],
)
def test_variants_in_two_papers_share_one_id(
    nlp_fast: Any, first: tuple[str, str], second: tuple[str, str], shared: str
) -> None:
    a, b = build(nlp_fast, first, second)
    common = {cid: name for cid, name in concept_ids(a).items() if cid in concept_ids(b)}
    assert shared in common.values(), (concept_ids(a), concept_ids(b))


def test_the_spelt_out_name_keeps_the_papers_wording_as_an_alias(nlp_fast: Any) -> None:
    (r,) = build(
        nlp_fast, ("Safe Constrained RL", "We study constrained RL with cost limits and a Lagrangian dual.")
    )
    node = next(n for n in r.nodes if n.properties.get("name") == "constrained reinforcement learning")
    aliases = node.properties["aliases"]
    assert isinstance(aliases, list) and "constrained RL" in aliases


def test_an_acronym_the_paper_defines_otherwise_is_not_the_vocabularys(nlp_fast: Any) -> None:
    """MoE = Monitoring Ethereum is not mixture of experts (the websec fixture's ws-04)."""
    papers = [p for p in read_file(FIXTURE).papers if str(p.title).startswith("Monitoring Ethereum")]
    records, _ = Pipeline(nlp=nlp_fast).build(papers)
    names = set(concept_ids(records[0]).values())
    assert "mixture of experts" not in names
    assert "monitoring ethereum" in {n.lower() for n in names}


def test_an_acronym_spelt_out_like_the_vocabulary_still_resolves(nlp_fast: Any) -> None:
    (r,) = build(
        nlp_fast,
        ("Sparse Experts", "Mixture-of-experts (MoE) layers route tokens. Our MoE router balances load."),
    )
    assert "mixture of experts" in concept_ids(r).values()


@pytest.mark.parametrize(
    ("paper", "wrong"),
    [
        (
            (
                "Spectral Bias of Networks",
                "Neural networks show a spectral bias: they learn low frequencies first.",
            ),
            "simplicity bias",
        ),
        (
            (
                "Learned Indexes",
                "We propose evolving index structures (ES) for learned indexes. ES rebuilds lazily.",
            ),
            "evolution strategies",
        ),
    ],
)
def test_no_wrong_sense(nlp_fast: Any, paper: tuple[str, str], wrong: str) -> None:
    (r,) = build(nlp_fast, paper)
    assert wrong not in concept_ids(r).values()


def test_an_unfamiliar_acronym_needs_support_in_its_paper(nlp_fast: Any) -> None:
    """ "KG" alone (no "knowledge" nor "graph" in the paper) is not the knowledge-graph concept."""
    (r,) = build(nlp_fast, ("Weights", "Every parcel weighs 2 KG at most, and heavier parcels are split."))
    assert "knowledge graphs" not in concept_ids(r).values()


def test_spell_out_leaves_defined_and_unknown_acronyms(nlp_fast: Any) -> None:
    from extractors.concepts.vocabulary import default_vocabulary

    vocab = default_vocabulary(nlp_fast.tokenizer)
    assert spell_out_acronyms("constrained RL", vocab, set()) == "constrained reinforcement learning"
    assert spell_out_acronyms("LLM agents", vocab, set()) == "large language model agents"
    assert spell_out_acronyms("constrained RL", vocab, {"A:RL"}) == "constrained RL"
    assert spell_out_acronyms("QXZ method", vocab, set()) == "QXZ method"


def test_a_paper_gets_the_same_record_alone_and_in_any_batch_order(nlp_fast: Any) -> None:
    papers = read_file(FIXTURE).papers
    forward, _ = Pipeline(nlp=nlp_fast).build(papers)
    backward, _ = Pipeline(nlp=nlp_fast).build(list(reversed(papers)))
    alone = [Pipeline(nlp=nlp_fast).build([p])[0][0] for p in papers[:3]]
    dump = [r.model_dump_json() for r in forward]
    assert dump == [r.model_dump_json() for r in reversed(backward)]
    assert dump[:3] == [r.model_dump_json() for r in alone]
