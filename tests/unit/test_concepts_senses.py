"""Sense support (extractors/concepts/analysis/senses.py): a weak link to a curated concept stays
below it (``climbs: false``) when the paper supports none of what its is-a parents mean; it
stays ``about`` its own concept.

Real spaCy tokenizer and the shipped vocabulary ("quantization" is under "model compression").
"""

from __future__ import annotations

from extractors.concepts.analysis.senses import WEAK_SALIENCE, names_share_a_word
from extractors.concepts.vocabulary import Vocabulary
from kg.core.ids import concept_id
from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline

# A robot-learning abstract that quantizes an action space: nothing of model compression.
ACTIONS = (
    "Offline reinforcement learning lets robots learn skills from fixed datasets. Continuous action "
    "spaces make policy extraction hard. In this paper, we propose an adaptive scheme for action "
    "quantization. We use a VQ-VAE to learn state-conditioned action quantization, avoiding the "
    "exponential blowup of naive discretization. Experiments on robotic manipulation benchmarks show "
    "large gains."
)


def record(pipeline: Pipeline, abstract: str, title: str) -> PaperRecord:
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)])
    assert not problems
    return records[0]


def link(r: PaperRecord, name: str) -> dict[str, object]:
    cid = concept_id(name)
    found: list[dict[str, object]] = [
        dict(x.properties) for x in r.relationships if x.type == "MENTIONS" and x.end == cid
    ]
    assert found, f"no MENTIONS of {name!r}"
    return found[0]


def test_the_vocabulary_puts_quantization_under_model_compression(vocab: Vocabulary) -> None:
    # The premise of the tests below; pruning is the sibling that supports the parent.
    assert concept_id("model compression") in vocab.concepts[concept_id("quantization")].broader
    assert concept_id("pruning") in vocab.descendants(concept_id("model compression"))
    assert concept_id("quantization") not in vocab.descendants(concept_id("pruning"))


def test_a_weak_link_whose_parent_the_paper_never_touches_stays_below(fast: Pipeline) -> None:
    m = link(record(fast, ACTIONS, "Skill learning from offline data"), "quantization")
    salience = m["salience"]
    assert isinstance(salience, float) and salience < WEAK_SALIENCE
    assert m["about"] is True  # about its own concept still
    assert m["climbs"] is False


def test_a_sibling_under_the_parent_supports_it(fast: Pipeline) -> None:
    text = ACTIONS.replace(
        "avoiding the exponential blowup of naive discretization",
        "and prune the policy network with magnitude pruning",
    )
    m = link(record(fast, text, "Skill learning from offline data"), "quantization")
    assert m["salience"] == 0.4
    assert m["about"] is True and "climbs" not in m


def test_the_parent_named_supports_it(fast: Pipeline) -> None:
    text = ACTIONS.replace(
        "Experiments on robotic", "It is a form of model compression. Experiments on robotic"
    )
    assert "climbs" not in link(record(fast, text, "Skill learning from offline data"), "quantization")


def test_a_concept_in_the_title_needs_no_support(fast: Pipeline) -> None:
    m = link(record(fast, ACTIONS, "Quantization of robot actions"), "quantization")
    assert m["about"] is True and "climbs" not in m


def test_a_parent_the_childs_name_says_is_supported() -> None:
    assert names_share_a_word(("equivariant", "neural", "network"), ("equivariance",))
    assert names_share_a_word(("A:GPT", "4"), ("A:GPT",))
    assert names_share_a_word(("contextual", "bandit"), ("multi", "armed", "bandit"))
    assert not names_share_a_word(("knowledge", "distillation"), ("model", "compression"))
    assert not names_share_a_word(("model",), ("modular",))  # a short shared start is no stem
