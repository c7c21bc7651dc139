"""``MENTIONS.about`` leaves out asides (auxiliary losses, regularisers, baselines, comparisons,
examples), concepts named once outside the title, the opening and the paper's claims, and
acronyms defined in passing in one sentence (issue 25, item 7)."""

from __future__ import annotations

from typing import Any

import pytest

import extractors.concepts.analysis as analysis
from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline

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


def flags_of(nlp: Any, abstract: str, title: str | None = None) -> dict[str, tuple[float, bool]]:
    """Concept name -> (salience, about) of one paper."""
    records, _ = Pipeline(nlp=nlp).build([RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)])
    r = records[0]
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    return {
        names[x.end]: (float(str(x.properties["salience"])), bool(x.properties["about"]))
        for x in r.relationships
        if x.type == "MENTIONS"
    }


FLOW = (
    "Diffusion and flow matching policies generate smooth robot actions but need many inference steps. "
    "We propose a few-step flow policy trained with optimal transport couplings. "
    "The proposed policy achieves a 10x speed-up compared to diffusion policy on simulated tasks. "
    "Our method also retains the same training complexity as diffusion policy."
)


def test_what_the_paper_compares_against_is_not_about(nlp_fast: Any) -> None:
    """Every mention of "diffusion policy" is a comparison ("compared to X", "the same ... as X"),
    so the paper uses it as its yardstick, not its topic (a CoRL 2025 abstract, shortened)."""
    found = flags_of(nlp_fast, FLOW, title="Fast Flow-based Visuomotor Policies")
    assert not found["diffusion policy"][1], found
    assert found["optimal transport"][1], found  # its own method stays about


def test_x_as_a_baseline_is_an_aside(nlp_fast: Any) -> None:
    abstract = (
        "We propose GraphRank for link prediction in citation graphs. We study GraphRank on five graphs "
        "and use spectral clustering as a strong baseline. Spectral clustering as a baseline is cheap."
    )
    found = flags_of(nlp_fast, abstract)
    assert not found["spectral clustering"][1], found


def test_an_acronym_defined_in_one_sentence_in_passing_is_not_about(nlp_fast: Any) -> None:
    """A definition used to earn "about" on its own; named in one sentence (not the first), it
    is a mention in passing. Named again in another sentence, the definition counts again."""
    passing = (
        "Robot fleets need human supervisors when robots fail. "
        "This data is collected through imitation learning (IL), where robots learn from humans. "
        "We propose a submodular allocation of supervisors to robots and prove its approximation ratio."
    )
    salience, is_about = flags_of(nlp_fast, passing)["imitation learning"]
    assert not is_about and salience < 0.3, salience
    repeated = passing + " With it, imitation learning needs fewer supervisors."
    assert flags_of(nlp_fast, repeated)["imitation learning"][1]


def test_what_the_method_is_built_from_is_claimed(nlp_fast: Any) -> None:
    """ "We begin by training a diffusion policy" says what the paper's own method is made of."""
    abstract = (
        "Bimanual assembly needs tactile feedback that demonstrations alone do not teach. "
        "In this work, we present a visuo-tactile framework for precise bimanual assembly. "
        "We begin by training a diffusion policy on a small set of demonstrations. "
        "The policy is then refined in simulation with reinforcement learning."
    )
    assert flags_of(nlp_fast, abstract)["diffusion policy"][1]
