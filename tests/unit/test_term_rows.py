"""The PREDICTED stage's term rows read from ORTH hashes equal those of the built terms, exactly."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from extractors.concepts.predicted import doc_terms, load_predictor
from extractors.concepts.term_rows import TermRows
from extractors.text import extraction_text

DATA = Path(__file__).resolve().parents[1] / "data" / "iclr2018.jsonl"
# Hyphens (skipped, pairs across them kept), an en dash, math (a wall), acronyms, punctuation.
EDGE_CASES = [
    "Multi-armed bandits – and multi - armed bandits: deep reinforcement learning (RL) for LLMs.",
    "Policy gradient $x^2$ policy gradient; reinforcement\nlearning — graph neural networks",
    "",
    "-",
    "GNNs GNN gnn Graph-Neural-Networks. Ça marche: élève naïve, GPT-4 on GSM8K.",
]


def _texts() -> list[str]:
    rows = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()[:150]]
    return [extraction_text(r.get("title"), r.get("abstract", "")) for r in rows] + EDGE_CASES


def test_rows_from_orths_equal_the_rows_of_the_terms(nlp_fast: Any) -> None:
    model = load_predictor()
    assert model is not None
    index = TermRows(model.terms)
    known = 0
    for _ in range(2):  # the second pass reads every token from the ORTH cache
        for text in _texts():
            doc = nlp_fast.tokenizer(text)
            expected = sorted({model.terms[t] for t in doc_terms(doc) if t in model.terms})
            got = index.rows(doc)
            assert index.rows(doc, doc.to_array("ORTH").tolist()).tolist() == expected
            assert got.tolist() == expected, text[:80]
            known += len(expected)
    assert known > 2_000


def test_probabilities_of_a_doc_are_those_of_its_terms_bit_for_bit(nlp_fast: Any) -> None:
    model = load_predictor()
    assert model is not None
    for text in _texts():
        doc = nlp_fast.tokenizer(text)
        assert np.array_equal(model.doc_probabilities(doc), model.probabilities(doc_terms(doc)))


def test_a_pair_across_a_hyphen_counts_and_one_across_punctuation_does_not(nlp_fast: Any) -> None:
    index = TermRows({"multi": 0, "multi armed": 1, "armed": 2, "armed bandit": 3})
    assert index.rows(nlp_fast.tokenizer("multi-armed bandit")).tolist() == [0, 1, 2, 3]
    assert index.rows(nlp_fast.tokenizer("multi, armed. bandit")).tolist() == [0, 2]
