"""``MENTIONS.about`` leaves out asides: auxiliary losses, regularisers, baselines, and concepts
named once outside the title, the opening and the paper's claims (issue 25, item 7)."""

from __future__ import annotations

from typing import Any

import pytest

import extractors.concepts.analysis as analysis
from kg.models import PaperRecord, RawPaper
from kg.pipeline import Pipeline

TITLE = "GraphRank: Link Prediction with Graph Neural Networks"
ABSTRACT = (
    "Link prediction in citation graphs is hard when graphs are sparse. We propose GraphRank, a graph "
    "neural network trained with an auxiliary contrastive learning loss and a knowledge distillation "
    "regularizer. We show that GraphRank improves link prediction on five citation graphs, and we study "
    "the Transformer baseline in detail. Code for spectral clustering is released."
)


def about(nlp: Any) -> dict[str, tuple[float, bool]]:
    """Concept name -> (salience, about)."""
    records, _ = Pipeline(nlp=nlp).build([RawPaper(file="t.jsonl", line=1, title=TITLE, abstract=ABSTRACT)])
    r: PaperRecord = records[0]
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    return {
        names[x.end]: (float(str(x.properties["salience"])), bool(x.properties["about"]))
        for x in r.relationships
        if x.type == "MENTIONS"
    }


def test_the_topic_is_about_and_the_asides_are_not(nlp_fast: Any) -> None:
    found = about(nlp_fast)
    for topic in ("GraphRank", "link prediction", "graph neural networks"):
        assert found[topic][1], (topic, found)
    for aside in ("contrastive learning", "knowledge distillation", "transformers"):
        salience, is_about = found[aside]
        assert salience >= 0.3 and not is_about, (aside, found)  # salient enough, but an aside


def test_without_the_aside_rule_they_would_be_about(nlp_fast: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The rule is what decides: with no aside detected, the auxiliary loss counts as a topic."""
    monkeypatch.setattr(analysis.Analysis, "aside", lambda self, c: False)
    found = about(nlp_fast)
    assert found["contrastive learning"][1] and found["knowledge distillation"][1]


def test_a_concept_named_once_in_passing_is_not_about(nlp_fast: Any) -> None:
    salience, is_about = about(nlp_fast)["spectral clustering"]
    assert salience < 0.3 and not is_about


def test_our_own_method_beside_a_baseline_cue_stays_about(nlp_fast: Any) -> None:
    abstract = (
        "We propose contrastive graph pretraining, and our contrastive graph pretraining outperforms all "
        "baselines on node classification. Contrastive graph pretraining needs no labels."
    )
    records, _ = Pipeline(nlp=nlp_fast).build([RawPaper(file="t.jsonl", line=1, abstract=abstract)])
    r = records[0]
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    flags = {names[x.end]: x.properties["about"] for x in r.relationships if x.type == "MENTIONS"}
    assert flags.get("contrastive graph pretraining"), flags
