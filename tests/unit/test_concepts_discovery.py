"""Open discovery: acronym definitions, introduced names, models/datasets, heads, titles, ranking."""

from __future__ import annotations

from typing import Any

import pytest
import spacy
from spacy.language import Language

from extractors.concepts.analysis import Analysis, analyse
from extractors.concepts.background import load_background
from extractors.concepts.discovery import find_acronyms, schwartz_hearst
from extractors.concepts.titles import derive_title, study_phrase
from extractors.concepts.tokens import stream_from_doc
from extractors.concepts.vocabulary import Vocabulary
from extractors.text import extraction_text, title_length

VOCAB: list[dict[str, Any]] = [
    {"name": "multi-armed bandits", "kind": "CONCEPT", "aliases": ["bandits", "bandit"], "broader": []},
    {"name": "large language models", "kind": "MODEL", "aliases": ["LLM", "LLMs"], "broader": []},
    {"name": "Qwen", "kind": "MODEL", "aliases": [], "broader": ["large language models"]},
    {"name": "mixture of experts", "kind": "METHOD", "aliases": ["MoE"], "broader": []},
    {"name": "positional encoding", "kind": "METHOD", "aliases": ["position encoding"], "broader": []},
]
GRAPE = (
    "We present GRAPE (Group RepresentAtional Position Encoding), a unified framework for positional "
    "encoding based on group actions. GRAPE brings together two families of mechanisms."
)
DMNL = (
    "Conventional (contextual) MNL bandits model relevance-driven choice. We bridge this gap with the "
    "*diversified multinomial logit* (DMNL) contextual bandit. DMNL bandits serves as a principled basis."
)


@pytest.fixture(scope="module")
def nlp() -> Language:
    return spacy.blank("en")


@pytest.fixture(scope="module")
def vocab(nlp: Language) -> Vocabulary:
    return Vocabulary.from_entries(VOCAB, nlp.tokenizer)


def run(nlp: Language, vocab: Vocabulary, abstract: str, title: str | None = None) -> Analysis:
    text = extraction_text(title, abstract)
    return analyse(nlp(text), text, title_length(title), vocab, load_background())


def by_name(a: Analysis) -> dict[str, Any]:
    return {c.name: c for c in a.top()}


def test_schwartz_hearst_alignment() -> None:
    long = "a new Sparse Mixture of Experts"
    assert long[schwartz_hearst("SMoE", long) :] == "Sparse Mixture of Experts"
    long = "this paper proposes Turing mAchine Imitation Learning"
    assert long[schwartz_hearst("TAIL", long) :] == "Turing mAchine Imitation Learning"


@pytest.mark.parametrize(
    ("text", "short", "long"),
    [
        ("Merging for Sparse Mixture of Experts (SMoE) is hard.", "SMoE", "Sparse Mixture of Experts"),
        (
            "This paper proposes **T**uring m**A**chine **I**mitation **L**earning (**TAIL**) to help.",
            "TAIL",
            "Turing mAchine Imitation Learning",
        ),
        ("Stochastic gradient descent (SGD) is simple.", "SGD", "Stochastic gradient descent"),
        (
            "Models called mean-field sequence predictors (MFPs) work.",
            "MFP",
            "mean-field sequence predictors",
        ),
        (GRAPE, "GRAPE", "Group RepresentAtional Position Encoding"),
    ],
)
def test_acronym_definitions(nlp: Language, text: str, short: str, long: str) -> None:
    stream = stream_from_doc(nlp(extraction_text(None, text)), load_background().lexicon)
    found = {a.short: a.long_text for a in find_acronyms(stream, extraction_text(None, text))}
    assert found.get(short) == long


def test_acronym_uses_count_for_the_long_form(nlp: Language, vocab: Vocabulary) -> None:
    a = run(nlp, vocab, "We merge Sparse Mixture of Experts (SMoE) layers. SMoE is fast. An SMoE wins.")
    smoe = next(c for c in a.top() if "SMoE" in c.aliases)
    assert smoe.count == 3 and smoe.source == "discovered" and smoe.defined


def test_introduced_names_with_expansion(nlp: Language, vocab: Vocabulary) -> None:
    a = run(nlp, vocab, GRAPE)
    grape = next(i for i in a.introduced if i.surface == "GRAPE")
    assert grape.expansion == "Group RepresentAtional Position Encoding"
    concept = by_name(a)["GRAPE"]
    assert concept.kind == "METHOD" and concept.introduced and concept.count == 3  # name, expansion, reuse
    assert "Group RepresentAtional Position Encoding" in concept.aliases
    assert derive_title(a) == "GRAPE: Group RepresentAtional Position Encoding"


@pytest.mark.parametrize(
    ("abstract", "name"),
    [
        ("In this work, we introduce xLSTM 7B, a 7-billion-parameter LLM that is fast.", "xLSTM 7B"),
        ("We propose a white-box UCB-based algorithm, OFU-DMNL, for assortments.", "OFU-DMNL"),
        (
            "We propose a model for this problem called ``pricing with an attribution oracle,''.",
            "pricing with an attribution oracle",
        ),
        ("We introduce averaging complexity, a framework for quantifying symmetry.", "averaging complexity"),
        ("We propose a new class of models dubbed NeuralThing for graphs.", "NeuralThing"),
    ],
)
def test_introduced_names(nlp: Language, vocab: Vocabulary, abstract: str, name: str) -> None:
    a = run(nlp, vocab, abstract)
    assert name in [i.surface for i in a.introduced]
    assert any(c.name == name and c.kind == "METHOD" for c in a.top())


def test_no_introduction_without_a_name(nlp: Language, vocab: Vocabulary) -> None:
    a = run(nlp, vocab, "We propose using a lightweight surrogate network to estimate contributions.")
    assert a.introduced == []


def test_models_and_datasets(nlp: Language, vocab: Vocabulary) -> None:
    a = run(
        nlp,
        vocab,
        "We fine-tune Qwen2.5-7B and DeepSeek-R1 on GSM8K and MATH, beating Llama-3.1-8B-Instruct.",
    )
    found = {c.name: c.kind for c in a.top() if c.named}
    assert found["Qwen2.5-7B"] == "MODEL" and found["DeepSeek-R1"] == "MODEL"
    assert found["GSM8K"] == "DATASET" and found["Llama-3.1-8B-Instruct"] == "MODEL"
    qwen = by_name(a)["Qwen2.5-7B"]
    assert qwen.broader == [vocab.index[("qwen",)]]  # linked to its family in the vocabulary


def test_discovered_heads_link_into_the_hierarchy(nlp: Language, vocab: Vocabulary) -> None:
    a = run(nlp, vocab, DMNL)
    concepts = by_name(a)
    dmnl = concepts["diversified multinomial logit bandit"]
    assert dmnl.source == "discovered" and "DMNL bandit" in dmnl.aliases
    assert dmnl.broader == ["concept:multi-armed-bandits"]
    assert concepts["diversified multinomial logit"].aliases == ["DMNL"]


def test_generic_phrases_never_rank(nlp: Language, vocab: Vocabulary) -> None:
    a = run(
        nlp,
        vocab,
        "In this paper, we propose a novel method and a new framework. Extensive experiments show "
        "state-of-the-art performance and strong results on the task, and the approach improves data work.",
    )
    names = {c.name.lower() for c in a.top()}
    assert not names & {
        "paper",
        "method",
        "novel method",
        "framework",
        "experiment",
        "performance",
        "result",
        "task",
        "approach",
        "data",
        "work",
        "state-of-the-art",
    }


def test_scores_rank_the_topic_first(nlp: Language, vocab: Vocabulary) -> None:
    a = run(
        nlp,
        vocab,
        "We study multi-armed bandits with delayed feedback. Bandits with delays arise in ads. "
        "Our bandit algorithm uses a simple confidence bound.",
        title="Delayed Bandits",
    )
    top = a.top(3)
    assert top[0].name == "multi-armed bandits" and top[0].count == 4 and top[0].in_title
    assert all(isinstance(c.score, float) for c in a.candidates)
    assert [c.score for c in a.candidates] == sorted((c.score for c in a.candidates), reverse=True)


def test_study_phrase_titles(nlp: Language, vocab: Vocabulary) -> None:
    assert study_phrase("We study equilibrium finding in polymatrix games under privacy, which is hard.") == (
        "Equilibrium finding in polymatrix games under privacy"
    )
    a = run(
        nlp, vocab, "In this work, we study the problem of learning utility functions of agents in games."
    )
    assert derive_title(a) == "Learning utility functions of agents in games"
