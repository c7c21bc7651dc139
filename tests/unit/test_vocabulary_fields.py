"""The vocabulary grown from robotics, vision and NLP author keywords, case-sensitive mixed-case
names, and lexical support that ignores predicted links; on papers run through the real
pipeline."""

from __future__ import annotations

from typing import Any

import pytest

from extractors.concepts.vocabulary import Vocabulary
from kg.core.ids import concept_id
from kg.core.models import PaperRecord, RawPaper, Relationship
from kg.eval.concept_quality import lexical_support
from kg.ingest.pipeline import Pipeline


def record(pipeline: Pipeline, title: str, abstract: str) -> PaperRecord:
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)])
    assert not problems
    return records[0]


def linked(r: PaperRecord) -> set[str]:
    """Names of the concepts a record's MENTIONS reach directly."""
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    return {names[x.end] for x in r.relationships if x.type == "MENTIONS" and x.end in names}


def test_a_rope_is_not_rotary_position_embedding(fast: Pipeline) -> None:
    robot = record(
        fast,
        "Learning Rope Manipulation with a Soft Palm",
        "We study dynamic rope manipulation with a robot whose palm and glove carry tactile sensors.",
    )
    assert "rotary position embedding" not in linked(robot)
    assert not {"PaLM", "GloVe"} & linked(robot)
    llm = record(
        fast,
        "Extending RoPE to Long Contexts",
        "We rescale RoPE frequencies of PaLM-style language models and compare with GloVe features.",
    )
    assert {"rotary position embedding", "PaLM", "GloVe"} <= linked(llm)


def test_case_blind_names_still_match_any_case(fast: Pipeline) -> None:
    r = record(fast, "Efficient Adapters", "We fine-tune Llama models with Lora adapters on a single GPU.")
    assert {"LoRA", "Llama"} <= linked(r)


@pytest.mark.parametrize(
    ("keyword", "concept", "parent"),
    [
        ("Grasping", "grasping", "robotic manipulation"),
        ("dexterous grasping", "dexterous grasping", "grasping"),
        ("Teleoperation", "teleoperation", "robotics"),
        ("Loco-Manipulation", "loco-manipulation", "mobile manipulation"),
        ("Domain Randomization", "domain randomization", "sim-to-real transfer"),
        ("quadrotors", "aerial robots", "robotics"),
        ("Control Barrier Functions", "control barrier functions", "safe control"),
        ("BEV perception", "bird's-eye view perception", "autonomous driving"),
        ("head avatars", "3D avatars", "3D vision"),
        ("sparse view reconstruction", "sparse-view reconstruction", "3D reconstruction"),
        ("stereotypes", "stereotypes", "social bias"),
        ("temporal logic", "temporal logic", "formal methods"),
    ],
)
def test_field_keywords_resolve_under_their_parent(
    vocab: Vocabulary, nlp_fast: Any, keyword: str, concept: str, parent: str
) -> None:
    found = vocab.lookup(nlp_fast.tokenizer, keyword)
    assert found is not None and found.name == concept
    assert concept_id(parent) in vocab.ancestors(found.id)


def test_bimanual_alone_names_bimanual_manipulation(fast: Pipeline) -> None:
    r = record(
        fast,
        "Learning Bimanual Scooping Policies for Food Acquisition",
        "We learn bimanual policies that scoop food with two arms.",
    )
    assert "bimanual manipulation" in linked(r)


def test_lexical_support_ignores_predicted_links(fast: Pipeline, vocab: Vocabulary) -> None:
    r = record(
        fast,
        "Regret Bounds for Multi-Armed Bandits",
        "We study multi-armed bandits with heavy-tailed rewards and prove regret bounds.",
    )
    (bandits,) = lexical_support([r], vocab, ["multi-armed bandits"])
    assert (bandits.linked, bandits.supported) == (1, 1)
    # The PREDICTED stage's link to a concept the text never names (extract.py writes it so).
    predicted = Relationship(
        type="MENTIONS",
        start=r.paper.id,
        end=concept_id("robotic manipulation"),
        properties={"count": 0, "score": 7.0, "evidence": [], "about": True, "predicted": True},
    )
    with_prediction = r.model_copy(update={"relationships": [*r.relationships, predicted]})
    (manipulation,) = lexical_support([with_prediction], vocab, ["robotic manipulation"])
    assert (manipulation.linked, manipulation.supported) == (0, 0)
    unmarked = predicted.model_copy(update={"properties": {**predicted.properties, "predicted": False}})
    as_text = r.model_copy(update={"relationships": [*r.relationships, unmarked]})
    (counted,) = lexical_support([as_text], vocab, ["robotic manipulation"])
    assert (counted.linked, counted.supported) == (1, 0)
