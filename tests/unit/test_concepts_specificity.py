"""Any field's words: specificity against general English, on abstracts outside machine learning.

``tests/data/websec.jsonl`` holds nine abstracts written for this test (web security, IR and
robotics: see tests/data/README.md). A security abstract must get "blockchain", "phishing",
"smart contracts", "Tor"; a robotics one "manipulation", "locomotion", "navigation"; filler made
of everyday words ("security issue", "research question", "grand challenge") must rank below
them, recognised by the words' frequency in general English, not by a list.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from extractors.concepts.analysis import is_filler
from extractors.concepts.background import load_background
from extractors.concepts.specificity import is_common_word, is_low_specificity, load_general_english
from kg.core.errors import ExtractionError
from kg.core.models import PaperRecord, RawPaper
from kg.core.normalize import token_key
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "websec.jsonl"

# Filler named in issue 25 (every one judged generic in a real top 10).
FILLER = (
    "security issue",
    "privacy concern",
    "user input",
    "model response",
    "task requirement",
    "evaluation metric",
    "research question",
    "large dataset",
    "grand challenge",
)
# Not caught: the heads "efficiency" (0.30) and "risk" (0.45) are common in author keywords
# ("energy efficiency", "risk-sensitive RL"), so "cost efficiency" and "security risk" pass.
MISSED = ("cost efficiency", "security risk")


def key(phrase: str) -> tuple[str, ...]:
    return tuple(token_key(w) for w in phrase.split())


@pytest.fixture(scope="module")
def records(nlp_fast: Any) -> dict[str, PaperRecord]:
    papers = read_file(FIXTURE).papers
    built, problems = Pipeline(nlp=nlp_fast).build(papers)
    assert not problems
    return {str(p.title): r for p, r in zip(papers, built, strict=True)}


def ranked(r: PaperRecord) -> list[tuple[str, str]]:
    """(canonical name, surface) of every MENTIONS, best score first."""
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    rels = sorted(
        (x for x in r.relationships if x.type == "MENTIONS"), key=lambda x: -float(str(x.properties["score"]))
    )
    return [(names[x.end], str(x.properties.get("surface") or names[x.end])) for x in rels]


def top_names(r: PaperRecord, k: int = 10) -> list[str]:
    return [name.lower() for name, _ in ranked(r)[:k]]


def paper(records: dict[str, PaperRecord], start: str) -> PaperRecord:
    return next(r for title, r in records.items() if title.startswith(start))


@pytest.mark.parametrize(
    ("title", "wanted"),
    [
        ("SIGSCOPE", {"smart contracts", "decentralized applications", "blockchain"}),
        ("Fingerprinting Onion Services", {"tor", "website fingerprinting"}),
        ("Phishing Kits", {"phishing"}),
        ("Monitoring Ethereum", {"ethereum", "blockchain"}),
        ("Cross-Site Scripting", {"cross-site scripting"}),
        ("Language-Conditioned Manipulation", {"manipulation"}),
        ("Topological Maps", {"navigation"}),
    ],
)
def test_a_fields_own_concepts_reach_the_top_10(
    records: dict[str, PaperRecord], title: str, wanted: set[str]
) -> None:
    top = top_names(paper(records, title))
    assert wanted <= set(top), top


def test_locomotion_is_a_concept_of_the_robotics_abstract(records: dict[str, PaperRecord]) -> None:
    top = top_names(paper(records, "Learning Quadruped Locomotion"))
    assert any(name.split()[-1] == "locomotion" for name in top), top


@pytest.mark.parametrize(
    "title", ["SIGSCOPE", "Fingerprinting", "Phishing", "Monitoring", "Dense", "Cross-Site"]
)
def test_filler_ranks_below_the_fields_concepts_and_out_of_the_top_5(
    records: dict[str, PaperRecord], title: str
) -> None:
    order = [surface.lower() for _, surface in ranked(paper(records, title))]
    filler = [i for i, s in enumerate(order) if s in FILLER]
    assert all(i >= 5 for i in filler), order
    for concept in ("smart contract", "phishing", "tor network", "dense retrieval", "cross-site scripting"):
        if concept in order and filler:
            assert order.index(concept) < min(filler), order


@pytest.mark.parametrize("phrase", FILLER)
def test_filler_is_low_specificity_with_the_shipped_tables(phrase: str) -> None:
    bg = load_background()
    assert is_low_specificity(key(phrase), bg.general, bg.df, bg.n_docs, bg.keywords, bg.affinity)


@pytest.mark.parametrize("phrase", MISSED)
def test_filler_with_a_keyword_head_is_not_caught(phrase: str) -> None:
    """The known limit of the rule (issue 25 lists "cost efficiency"); kept visible here."""
    bg = load_background()
    assert not is_low_specificity(key(phrase), bg.general, bg.df, bg.n_docs, bg.keywords, bg.affinity)


@pytest.mark.parametrize(
    "phrase",
    [
        "task and motion planning",
        "skill learning",
        "reward model",
        "Tor network",
        "website fingerprinting",
        "dense retrieval",
        "knowledge graph",
        "onion service",
        "quadruped robot",
    ],
)
def test_field_phrases_are_specific(phrase: str) -> None:
    bg = load_background()
    assert not is_low_specificity(key(phrase), bg.general, bg.df, bg.n_docs, bg.keywords, bg.affinity)


@pytest.mark.parametrize(
    "word", ["blockchain", "phishing", "locomotion", "manipulation", "navigation", "ethereum"]
)
def test_a_lone_word_rare_in_general_english_is_a_candidate(word: str) -> None:
    assert not is_filler((token_key(word),), load_background())


@pytest.mark.parametrize("word", ["buyer", "recipe", "issue", "concern", "question"])
def test_a_lone_everyday_word_is_filler(word: str) -> None:
    assert is_filler((token_key(word),), load_background())


def test_common_in_papers_counts_as_common() -> None:
    """ "metric" is not an everyday word, but 1.5% of research abstracts use it."""
    bg = load_background()
    assert bg.general["metric"] < 4.2
    assert is_common_word("metric", bg.general, bg.df, bg.n_docs)


def test_without_a_general_english_table_nothing_is_low_specificity() -> None:
    bg = load_background()
    assert not is_low_specificity(key("security issue"), {}, bg.df, bg.n_docs, bg.keywords, bg.affinity)


def test_a_broken_table_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "general_english.json"
    bad.write_text('{"zipf": [1, 2]}', encoding="utf-8")
    with pytest.raises(ExtractionError, match="general-English table"):
        load_general_english(bad)


def test_a_broad_parent_leaves_the_top_10_beside_its_narrower_concept(nlp_fast: Any) -> None:
    abstract = (
        "Reinforcement learning from human feedback (RLHF) aligns language models with preferences. "
        "We show that RLHF reward models overfit to response length and propose a length-debiased "
        "reward model. Unlike standard reinforcement learning, RLHF optimises a learned reward, and "
        "our debiased reward improves RLHF on three benchmarks. Retrieval-augmented generation (RAG) "
        "pipelines trained with our reward cite their sources more often, and RAG answers are shorter. "
        "We analyse the Bradley-Terry preference model, the KL penalty of proximal policy optimization "
        "and direct preference optimization, and report reward hacking, calibration error and win rates "
        "on AlpacaEval, MT-Bench and a held-out summarization task with a Llama 2 policy."
    )
    title = "Length-Debiased Reward Models for RLHF"
    built, _ = Pipeline(nlp=nlp_fast).build(
        [RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)]
    )
    top = top_names(built[0])
    assert "reinforcement learning from human feedback" in top
    assert "reinforcement learning" not in top
    names = [name.lower() for name, _ in ranked(built[0])]
    assert "reinforcement learning" in names  # still a mention, just not a key concept


def test_a_curated_concept_first_named_by_a_generic_short_alias_leaves_the_top(nlp_fast: Any) -> None:
    """ "Diffusion" in a title is diffusion models (the abstract supports it), but the paper first
    names it by the generic word: it ranks below the paper's specific concepts, and is shown by
    the paper's wording of its canonical name ("diffusion model"), not by the shortened alias."""
    title = "Diffusion for Point Cloud Completion"
    abstract = (
        "We complete partial point clouds with a denoising diffusion model conditioned on the observed "
        "points. A point cloud encoder feeds the diffusion model, and shape completion on ShapeNet "
        "improves by 12% in Chamfer distance."
    )
    built, _ = Pipeline(nlp=nlp_fast).build(
        [RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)]
    )
    r = built[0]
    names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
    scores = {
        names[x.end]: (float(str(x.properties["score"])), x.properties["surface"])
        for x in r.relationships
        if x.type == "MENTIONS"
    }
    assert scores["diffusion models"][1] == "diffusion model"
    # demoted as generic: a third of the paper's best or less (about 0.7 without the rule)
    assert scores["diffusion models"][0] < 0.35 * scores["point clouds"][0]
