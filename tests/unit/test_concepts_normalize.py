"""Normal forms and vocabulary matching: plurals, acronyms, hyphens, LaTeX and markdown noise."""

from __future__ import annotations

from typing import Any

import pytest
import spacy
from spacy.language import Language

from extractors.concepts.background import load_background
from extractors.concepts.junk import is_junk, is_vacuous
from extractors.concepts.tokens import stream_from_doc
from extractors.concepts.vocabulary import Vocabulary, match_stream, phrase_key
from extractors.text import clean_text
from kg.core.normalize import display_singular, is_acronym, is_name_like, norm_token, token_key

VOCAB: list[dict[str, Any]] = [
    {"name": "multi-armed bandits", "kind": "CONCEPT", "aliases": ["bandits", "MAB"], "broader": []},
    {"name": "contextual bandits", "kind": "CONCEPT", "aliases": [], "broader": ["multi-armed bandits"]},
    {"name": "Nash equilibrium", "kind": "CONCEPT", "aliases": [], "broader": []},
    {"name": "large language models", "kind": "MODEL", "aliases": ["LLM"], "broader": []},
    {"name": "supervised learning", "kind": "CONCEPT", "aliases": [], "broader": []},
    {"name": "convex optimization", "kind": "CONCEPT", "aliases": [], "broader": []},
    {"name": "equivariance", "kind": "CONCEPT", "aliases": ["equivariant"], "broader": []},
    {"name": "reinforcement learning", "kind": "CONCEPT", "aliases": ["RL"], "broader": []},
    {
        "name": "deep reinforcement learning",
        "kind": "CONCEPT",
        "aliases": [],
        "broader": ["reinforcement learning"],
    },
]


@pytest.fixture(scope="module")
def nlp() -> Language:
    return spacy.blank("en")


@pytest.fixture(scope="module")
def vocab(nlp: Language) -> Vocabulary:
    return Vocabulary.from_entries(VOCAB, nlp.tokenizer)


def matches(nlp: Language, vocab: Vocabulary, text: str, nested: bool = False) -> list[str]:
    stream = stream_from_doc(nlp(clean_text(text)), load_background().lexicon)
    inner: list[tuple[int, int, str]] = []
    found = match_stream(stream, vocab, inner if nested else None)
    return [vocab.concepts[cid].name for _, _, cid in found + inner]


@pytest.mark.parametrize(
    ("surface", "key"),
    [
        ("equilibria", "equilibrium"),
        ("Equilibria", "equilibrium"),
        ("bandits", "bandit"),
        ("policies", "policy"),
        ("losses", "loss"),
        ("approaches", "approach"),
        ("hypotheses", "hypothesis"),
        ("matrices", "matrix"),
        ("analyses", "analysis"),
        ("biases", "bias"),
        ("dynamics", "dynamics"),
        ("Bayes", "bayes"),
        ("LLMs", "A:LLM"),
        ("LLM", "A:LLM"),
        ("GANs", "A:GAN"),
        ("SGD", "A:SGD"),
    ],
)
def test_token_keys(surface: str, key: str) -> None:
    assert token_key(surface) == key


def test_plural_rules_keep_non_plurals() -> None:
    assert norm_token("series") == "series" and norm_token("process") == "process"
    assert norm_token("processes") == "process" and norm_token("corpora") == "corpus"


def test_acronyms_and_names() -> None:
    assert is_acronym("LLMs") and is_acronym("MAB") and not is_acronym("Adam")
    assert is_name_like("xLSTM") and is_name_like("Qwen2.5") and is_name_like("SMoE")
    assert not is_name_like("Transformer")
    assert display_singular("Networks") == "Network" and display_singular("LLMs") == "LLM"


def test_phrase_keys_ignore_case_plural_and_hyphenation(nlp: Language) -> None:
    keys = {
        phrase_key(nlp.tokenizer, s)
        for s in ["multi-armed bandits", "Multi armed bandit", "multi-armed bandit"]
    }
    assert keys == {("multi", "armed", "bandit")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We compute Nash equilibria of games.", ["Nash equilibrium"]),
        ("Modern LLMs and an LLM.", ["large language models", "large language models"]),
        ("Multi-Armed Bandits and multi armed bandits.", ["multi-armed bandits", "multi-armed bandits"]),
        ("Contextual *bandits* with **bandits**.", ["contextual bandits", "multi-armed bandits"]),
        ("An equivariant network.", ["equivariance"]),
    ],
)
def test_vocabulary_matching(nlp: Language, vocab: Vocabulary, text: str, expected: list[str]) -> None:
    assert matches(nlp, vocab, text) == expected


def test_prefixed_compounds_are_other_concepts(nlp: Language, vocab: Vocabulary) -> None:
    assert matches(nlp, vocab, "We study semi-supervised learning.") == []
    assert matches(nlp, vocab, "We study non-convex optimization.") == []
    assert matches(nlp, vocab, "We study supervised learning and convex optimization.") == [
        "supervised learning",
        "convex optimization",
    ]


def test_math_is_never_a_concept(nlp: Language, vocab: Vocabulary) -> None:
    assert matches(nlp, vocab, "We bound $R_T(\\text{bandits}) = \\sum LLM$ tightly.") == []
    assert matches(nlp, vocab, "A $E(3)$-equivariant network.") == ["equivariance"]


def test_nested_curated_concepts(nlp: Language, vocab: Vocabulary) -> None:
    found = matches(nlp, vocab, "Deep reinforcement learning agents.", nested=True)
    assert found == ["deep reinforcement learning", "reinforcement learning"]


def test_junk_rules() -> None:
    for junk in [
        ("this", "paper"),
        ("result",),
        ("approach",),
        ("performance",),
        ("framework",),
        ("state", "of", "the", "art"),
        ("novel", "method"),
        ("extensive", "experiment"),
        ("model",),
        ("problem",),
        ("task",),
        ("data",),
        ("work",),
        ("paper",),
        ("luo", "et", "al"),
        ("A:7B",),
    ]:
        assert is_junk(junk), junk
    for concept in [
        ("kernel", "method"),
        ("world", "model"),
        ("topic", "model"),
        ("sample", "complexity"),
        ("bandit",),
        ("A:LLM",),
    ]:
        assert not is_junk(concept), concept
    assert is_vacuous(("formal", "perspective"), lambda w: "A")
    assert is_vacuous(("minimum", "number"), lambda w: "A")
    assert not is_vacuous(("kernel", "method"), lambda w: "N")
