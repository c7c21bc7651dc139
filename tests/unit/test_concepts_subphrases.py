"""A long phrase of the paper's own yields the known term at its end (stage
:mod:`extractors.concepts.analysis.subphrases`), and a curated concept is not shown by a shortened
alias (:func:`extractors.concepts.analysis.names.wording`).

Real spaCy tokenizer, shipped vocabulary, background table and ranker.
"""

from __future__ import annotations

import pytest

from extractors.concepts.analysis import Analysis, Candidate, subphrases
from extractors.concepts.background import load_background
from extractors.concepts.extract import paper_analysis
from extractors.registry import ExtractInput
from extractors.text import extraction_parts
from kg.core.models import RawPaper
from kg.ingest.pipeline import Pipeline

MERGING = (
    "Momentum-Free Sparse Model Merging",
    "Merging fine-tuned checkpoints into one network loses accuracy when their updates conflict. "
    "Momentum-free sparse model merging keeps, for each weight, the update of the checkpoint with the "
    "largest magnitude and drops the rest. Momentum-free sparse model merging outperforms task "
    "arithmetic on eight vision and language tasks.",
)
PRUNING = (
    "Curvature-Aware Layerwise Pruning of Vision Transformers",
    "We propose curvature-aware layerwise pruning, which removes the attention heads and channels of "
    "a vision transformer whose loss curvature is lowest. Curvature-aware layerwise pruning keeps "
    "accuracy on ImageNet at half the parameters and needs no retraining.",
)
GARMENT = (
    "GarmentDreamer: 3DGS Guided Garment Synthesis with Diverse Geometry",
    "Traditional 3D garment creation is labor-intensive. We propose GarmentDreamer, which uses 3D "
    "Gaussian Splatting as guidance to generate wearable 3D garment meshes from text prompts, with "
    "consistent garment deformation and texture synthesis.",
)
GRASP = (
    "Efficient Grasp Synthesis with Diffusion",
    "Generating hand grasps for unseen objects is slow when every sample needs an iterative "
    "optimization. We introduce a diffusion-model-based approach that generates the grasping pose in "
    "one stage. A latent diffusion model conditioned on the object produces diverse hand poses.",
)


def analysis(pipeline: Pipeline, title: str, abstract: str) -> Analysis:
    """The paper's concept analysis as the extractors read it (a fresh Doc, so nothing cached)."""
    paper = RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)
    text, title_end = extraction_parts(title, abstract)
    doc = pipeline.nlp.tokenizer(text)
    x = ExtractInput(
        paper=paper, paper_id="paper:t", doc=doc, text=text, title_end=title_end, tokens_only=True
    )
    x.context["vocabulary"] = pipeline.context["vocabulary"]
    found = paper_analysis(x)
    assert found is not None
    return found


def names(a: Analysis, k: int = 10) -> list[str]:
    return [c.name for c in a.top(k)]


def by_name(a: Analysis, name: str) -> Candidate:
    return next(c for c in a.top(None) if c.name == name)


def test_a_long_phrase_yields_the_known_term_at_its_end(fast: Pipeline) -> None:
    a = analysis(fast, *MERGING)
    top = names(a)
    long = by_name(a, "momentum free sparse model merging")
    assert long.source == "discovered"
    assert "model merging" in top
    assert by_name(a, "model merging").score == round(long.score * subphrases.LIFT_FACTOR, 4)
    # the paper's own name stays first, the term right after it
    assert top.index("model merging") == top.index("momentum free sparse model merging") + 1


def test_without_the_stage_the_term_is_not_in_the_top(
    fast: Pipeline, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the stage changes: with no candidate looked at, "model merging" is not in the top 10."""
    monkeypatch.setattr(subphrases, "LIFT_TOP", 0)
    assert "model merging" not in names(analysis(fast, *MERGING))


def test_a_curated_concept_yields_only_what_it_is_a_kind_of(fast: Pipeline) -> None:
    a = analysis(fast, *PRUNING)
    vision = by_name(a, "vision transformers")
    assert by_name(a, "transformers").vocab_id in a.vocab.ancestors(vision.vocab_id)
    assert by_name(a, "transformers").score == round(vision.score * subphrases.LIFT_FACTOR, 4)


def test_a_generic_term_is_not_lifted(fast: Pipeline) -> None:
    """ "fine-tuning" is generic (common in abstracts, rarely a keyword): it stays down."""
    background = load_background()
    a = analysis(fast, *MERGING)
    assert subphrases.known_term(("fine", "tuning"), a, background)
    assert not subphrases.liftable(("fine", "tuning"), a, background)


def test_a_sub_phrase_no_field_uses_is_not_lifted(fast: Pipeline) -> None:
    a = analysis(fast, *GARMENT)
    long = next(c for c in a.top(None) if c.key[-2:] == ("garment", "synthesis") and len(c.key) > 2)
    lifted = round(long.score * subphrases.LIFT_FACTOR, 4)
    assert not subphrases.known_term(("garment", "synthesis"), a, load_background())
    assert all(c.score != lifted for c in a.candidates if c.key == ("garment", "synthesis"))


def test_a_curated_concept_is_not_shown_by_a_shortened_alias(fast: Pipeline) -> None:
    a = analysis(fast, *GRASP)
    diffusion = by_name(a, "diffusion models")
    assert diffusion.in_title  # the title says "Diffusion" ...
    assert diffusion.surface.lower() != "diffusion"  # ... but a fuller wording is shown
    assert "diffusion model" in diffusion.surface.lower()
