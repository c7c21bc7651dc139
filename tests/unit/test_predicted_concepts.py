"""PREDICTED concepts: the shipped model loads, predicts deterministically, and is emitted by rule.

The rule (:mod:`extractors.concepts.predicted`): only concepts the text does not mention, at
most ``max_predicted``, each ``MENTIONS {predicted: true, score: 10 x probability}`` with no
evidence, ``about`` only from ``about_probability`` up; nothing when the pipeline's context
turns the predictor off.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from extractors.concepts.analysis import RANKER_SCALE
from extractors.concepts.predicted import (
    DEFAULT_PREDICTOR,
    SCORE_SCALE,
    ConceptPredictor,
    load_predictor,
    read_predictor,
)
from extractors.concepts.vocabulary import default_vocabulary
from kg.core.errors import ExtractionError
from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline

# A CoRL-style abstract: it never says "reinforcement learning", "robot learning" or "robotics".
TITLE = "Learning Dexterous In-Hand Reorientation from Pixels"
ABSTRACT = (
    "We train a policy that rotates objects in a five-fingered hand from camera images. The "
    "policy is trained in simulation with rewards for reaching a goal orientation and with "
    "domain randomization, and then deployed zero-shot on the physical hand, where it "
    "reorients unseen objects. We compare against a teacher policy with privileged state."
)


@pytest.fixture(scope="module")
def model() -> ConceptPredictor:
    m = load_predictor()
    assert m is not None, f"{DEFAULT_PREDICTOR} is shipped"
    return m


def _terms(nlp: Any, text: str) -> set[str]:
    from extractors.concepts.predicted import doc_terms

    return doc_terms(nlp.tokenizer(text))


def test_the_shipped_model_is_small_and_names_vocabulary_concepts(
    model: ConceptPredictor, nlp_fast: Any
) -> None:
    assert DEFAULT_PREDICTOR.stat().st_size < 3_000_000
    vocab = default_vocabulary(nlp_fast.tokenizer)
    assert len(model.concepts) >= 30
    assert all(c in vocab.concepts for c in model.concepts)
    assert 0 < model.min_probability < model.about_probability < 1
    assert "scripts/train_predictor.py" in model.provenance


def test_predicted_scores_share_the_text_mentions_scale() -> None:
    assert SCORE_SCALE == RANKER_SCALE


def test_predictions_are_deterministic_and_probabilities(model: ConceptPredictor, nlp_fast: Any) -> None:
    terms = _terms(nlp_fast, f"{TITLE}. {ABSTRACT}")
    first = model.probabilities(terms)
    again = read_predictor(DEFAULT_PREDICTOR).probabilities(sorted(terms, reverse=True))
    assert np.array_equal(first, again)
    assert ((first > 0) & (first < 1)).all()
    assert model.predict(terms) == model.predict(set(terms))
    # words the model never saw change nothing
    assert np.array_equal(first, model.probabilities(terms | {"zzqx", "zzqx qqzx"}))


def build(nlp: Any, context: dict[str, object] | None = None) -> PaperRecord:
    pipeline = Pipeline(nlp=nlp, context=dict(context or {}))
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=TITLE, abstract=ABSTRACT)])
    assert not problems
    return records[0]


def test_implied_concepts_are_predicted_mentions_by_the_rule(model: ConceptPredictor, nlp_fast: Any) -> None:
    record = build(nlp_fast)
    mentions = [r for r in record.relationships if r.type == "MENTIONS"]
    predicted = [r for r in mentions if r.properties.get("predicted") is True]
    text = [r for r in mentions if "predicted" not in r.properties]
    assert predicted and text
    assert len(predicted) <= model.max_predicted
    probs = dict(
        zip(model.concepts, model.probabilities(_terms(nlp_fast, f"{TITLE}. {ABSTRACT}")), strict=True)
    )
    names = {n.id: n.properties["name"] for n in record.nodes if n.label == "Concept"}
    for r in predicted:
        p = probs[r.end]
        assert p >= model.min_probability
        assert r.properties["score"] == round(RANKER_SCALE * round(p, 4), 4)
        assert r.properties["about"] is bool(round(float(p), 4) >= model.about_probability)
        assert r.properties["evidence"] == [] and r.properties["count"] == 0
        assert r.properties["surface"] == names[r.end]  # a vocabulary node, in the record
    # the text mention wins: no concept is both said and implied
    assert not {r.end for r in predicted} & {r.end for r in text}
    # what a robotics abstract implies without saying it
    assert {"concept:reinforcement-learning", "concept:sim-to-real-transfer"} & {r.end for r in predicted}


def test_a_concept_the_text_names_is_never_predicted(nlp_fast: Any, model: ConceptPredictor) -> None:
    record = build(nlp_fast)
    implied = {r.end for r in record.relationships if r.properties.get("predicted") is True}
    said = {r.end for r in record.relationships if r.type == "MENTIONS" and not r.properties.get("predicted")}
    assert implied
    # a second paper that says the implied concepts outright
    vocab = default_vocabulary(nlp_fast.tokenizer)
    spelled = "; ".join(vocab.concepts[c].name for c in sorted(implied))
    pipeline = Pipeline(nlp=nlp_fast)
    (other,), _ = pipeline.build(
        [RawPaper(file="t", line=1, title=TITLE, abstract=f"{ABSTRACT} We use {spelled}.")]
    )
    again = {r.end: r.properties for r in other.relationships if r.type == "MENTIONS"}
    assert implied <= set(again) and said <= set(again)
    assert not any(again[c].get("predicted") for c in implied)


def test_the_context_turns_the_model_off(nlp_fast: Any) -> None:
    record = build(nlp_fast, {"predictor": None})
    assert not [r for r in record.relationships if r.properties.get("predicted")]
    with_model = build(nlp_fast)
    same = [r for r in with_model.relationships if not r.properties.get("predicted")]
    assert len(same) < len(with_model.relationships)


def test_a_damaged_model_file_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "predictor.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ExtractionError, match="predictor.npz: not a concept predictor model file"):
        read_predictor(bad)
    with np.load(DEFAULT_PREDICTOR, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    arrays["bias"] = arrays["bias"][:-1]
    np.savez(bad.with_name("short.npz"), **arrays)
    with pytest.raises(ExtractionError, match="short.npz: concept predictor arrays have inconsistent shapes"):
        read_predictor(bad.with_name("short.npz"))
    assert load_predictor(tmp_path / "absent.npz") is None
