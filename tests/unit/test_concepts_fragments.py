"""Candidate rules that keep fragments (pieces of noun phrases) out of a paper's concepts.

Each test holds a failing-before example from the fragment audit of the fast mode (the
fragment definition itself is :func:`kg.eval.concept_quality.is_fragment`). Real spaCy tokenizer,
shipped vocabulary, background table and ranker.
"""

from __future__ import annotations

from extractors.concepts.background import load_background
from extractors.concepts.candidates import cut_after_modifier
from extractors.concepts.tokens import stream_from_doc
from kg.core.models import PaperRecord, RawPaper
from kg.eval.cli import record_keyphrases
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline


def record(pipeline: Pipeline, abstract: str, title: str | None = None) -> PaperRecord:
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)])
    assert not problems
    return records[0]


def names(r: PaperRecord) -> set[str]:
    """Lower-cased concept names and surfaces of every MENTIONS of a record."""
    by_id = {n.id: str(n.properties["name"]).casefold() for n in r.nodes if n.label == "Concept"}
    out: set[str] = set()
    for x in r.relationships:
        if x.type == "MENTIONS":
            out.add(by_id[x.end])
            out.add(str(x.properties.get("surface", "")).casefold())
    return out


def test_no_phrase_starts_between_an_adjective_and_the_term_it_opens(fast: Pipeline) -> None:
    r = record(
        fast,
        "We train deep learning methods on sentence representations with large scale multi-task learning.",
        title="Distributed Sentence Representations via Large Scale Multi-task Learning",
    )
    found = names(r)
    assert "scale multi-task learning" not in found
    assert "learning method" not in found and "learning methods" not in found


def test_an_adjective_that_qualifies_the_whole_phrase_does_not_cut_it() -> None:
    background = load_background()
    nlp = load_nlp(mode="fast")
    stream = stream_from_doc(nlp("robust tactile sensing and natural language prompts"), background.lexicon)
    # "natural language" opens a known term: "language prompts" would be cut out of it.
    assert cut_after_modifier(stream, 5, 4, background.modifier_pairs)
    # "robust tactile" opens none: "tactile sensing" is a phrase of its own.
    assert not cut_after_modifier(stream, 1, 0, background.modifier_pairs)


def test_a_gerund_that_opens_a_clause_is_a_verb(fast: Pipeline) -> None:
    r = record(
        fast,
        "Imitation is a promising strategy for teaching robots a wide range of skills. "
        "We improve the learning rate schedule.",
    )
    found = names(r)
    assert "teaching robot" not in found and "teaching robots" not in found
    assert "learning rate schedules" in found  # a known term: the gerund is a noun there


def test_a_curated_concept_written_only_as_an_adjective_or_verb_shows_its_name(fast: Pipeline) -> None:
    r = record(
        fast, "We compare self-supervised and supervised encoders. Most works focus on evaluating LLMs."
    )
    shown = {p.casefold() for p in record_keyphrases(r, k=20)}
    assert "self-supervised" not in shown and "self-supervised learning" in shown
    assert "evaluating llms" not in shown and "llm evaluation" in shown


def test_no_generic_headed_phrase_is_cut_after_an_adjective(fast: Pipeline) -> None:
    r = record(
        fast, "We propose an efficient search algorithm guided by a learned heuristic for program synthesis."
    )
    found = names(r)
    assert "search algorithm" not in found  # "efficient" may qualify "search"
    assert "program synthesis" in found


def test_title_case_does_not_turn_adverbs_into_names(fast: Pipeline) -> None:
    r = record(
        fast,
        "We study code generation that improves itself.",
        title="STOP: Recursively Self-Improving Code Generation",
    )
    found = names(r)
    assert "recursively self-improving code generation" not in found
    assert "self-improving code generation" in found


def test_a_gerund_before_what_the_activity_uses_stays_a_noun(fast: Pipeline) -> None:
    r = record(fast, "We halve the number of training iterations needed by deep networks on graph data.")
    assert "training iteration" in names(r)  # not a verb taking "iterations" as its object


def test_a_noun_run_ends_before_a_verb_that_a_determiner_follows(fast: Pipeline) -> None:
    r = record(
        fast,
        "In latent space, the inference framework misses an inverse mapping, and deep networks "
        "interconnect their layers.",
    )
    found = names(r)
    assert "inference framework miss" not in found and "deep networks interconnect" not in found
    assert {"inference framework", "deep network"} <= found


def test_verbs_after_have_or_a_relative_pronoun(fast: Pipeline) -> None:
    r = record(
        fast,
        "Prior works have tackled cloth manipulation with single arms. We propose a framework that "
        "automates document editing.",
    )
    found = names(r)
    assert "tackled cloth manipulation" not in found and "automates document editing" not in found
    assert {"cloth manipulation", "document editing"} <= found


def test_whitespace_tokens_break_noun_runs() -> None:
    from extractors.concepts.tokens import Lexicon

    assert Lexicon().word_class("\n") == "." and Lexicon().word_class("  ") == "."


def test_a_name_inside_a_phrase_is_offered_alone_not_with_the_nouns_after_it(fast: Pipeline) -> None:
    r = record(
        fast,
        "Camera-based 3D object detection methods fuse LiDAR point clouds. We analyse the RASP variant.",
    )
    found = names(r)
    assert "3d object" not in found and "lidar point" not in found  # cut out of the longer phrase
    assert {"3d object detection method", "lidar point cloud"} & found
    assert "rasp" in found  # a name inside a longer phrase is still a concept of its own


def test_name_only() -> None:
    from extractors.concepts.candidates import name_only

    background = load_background()
    stream = stream_from_doc(load_nlp(mode="fast")("GPT-4 model and 3D object"), background.lexicon)
    assert stream.text[:2] == ("GPT", "4")
    assert name_only(stream.flags, 0, 2)  # "GPT-4"
    assert not name_only(stream.flags, 0, 3)  # "GPT-4 model"
    assert name_only(stream.flags, 4, 5) and not name_only(stream.flags, 4, 6)  # "3D", "3D object"


def test_a_naming_participle_is_not_part_of_a_phrase(fast: Pipeline) -> None:
    r = record(
        fast,
        "This paper introduces a new neural structure called FusionNet, which extends existing "
        "attention approaches. Our model, termed WSNet, is compact. We improve named entity recognition.",
    )
    found = names(r)
    assert not any("called" in f or "termed" in f for f in found)
    assert {"fusionnet", "wsnet", "named entity recognition"} <= found


def test_the_word_after_an_infinitive_to_is_a_verb(fast: Pipeline) -> None:
    r = record(
        fast,
        "The policy can learn to reorient objects with both hands. A common practice is to label data "
        "via consensus. We translate from images to text descriptions with a learning-to-plan module.",
    )
    found = names(r)
    assert "reorient object" not in found and "reorient objects" not in found
    assert "label data" not in found
    assert "text description" in found  # "to" as a preposition: the noun phrase stays
    assert any("learning-to-plan" in f for f in found)  # a hyphenated compound stays whole


def test_a_gerund_after_at_or_to_opens_a_clause(fast: Pipeline) -> None:
    r = record(
        fast,
        "Existing strategies are good at teaching humans new concepts, and this contributes to "
        "training agents on real robots. We tune the learning rate schedule.",
    )
    found = names(r)
    assert "teaching human" not in found and "teaching humans" not in found
    assert "training agent" not in found and "training agents" not in found
    assert "learning rate schedule" in found  # a known term: the gerund is a noun there


def test_a_noun_class_word_after_a_subject_or_modal_is_a_verb(fast: Pipeline) -> None:
    r = record(
        fast,
        "We frame question answering as retrieval. We currently lack quantitative methods for model "
        "comparison, and such metrics do not favour networks that use the data. GANs can accurately "
        "model complex distributions.",
    )
    found = names(r)
    for fragment in ("frame question answering", "lack quantitative method", "favour network"):
        assert fragment not in found
    assert "model complex distribution" not in found
    assert {"question answering", "complex distribution"} <= found
    # Not after a subject or modal: "model comparison" stays a noun phrase.
    assert "model comparison" in found
