"""Concept nodes are built in merge normal form, so the pipeline takes them as they are."""

from __future__ import annotations

import pytest

from extractors.concepts.analysis import Candidate
from extractors.concepts.extract import concept_node, extract_concepts_v2, extract_introduced
from extractors.registry import ExtractInput
from kg.core.merge import normalize_properties
from kg.core.models import RawPaper
from kg.ingest.nlp import load_nlp
from kg.ingest.pipeline import Pipeline

CANDIDATES = [
    Candidate(
        key=("grape",),
        source="discovered",
        name="GRAPE",
        id="concept:grape",
        aliases=["grape", "b", "a", "b"],
    ),
    Candidate(key=("x",), source="discovered", name="x model", id="concept:x", kind="MODEL", introduced=True),
    Candidate(key=("y",), source="discovered", name="y", id="concept:y", aliases=["y", "Y"], named=True),
    Candidate(key=("z",), source="discovered", name="", id="concept:z", aliases=["z"]),
    Candidate(key=("v",), source="vocabulary", name="V", id="concept:v", aliases=["w", "V"]),
]


@pytest.mark.parametrize("c", CANDIDATES, ids=lambda c: c.id)
def test_concept_node_properties_are_their_normal_form(c: Candidate) -> None:
    props = concept_node(c).properties
    assert list(props.items()) == list(normalize_properties(props).items())


def test_concept_extractors_emit_normal_nodes() -> None:
    nlp = load_nlp(mode="fast")
    pipeline = Pipeline(nlp=nlp, mode="fast")
    paper = RawPaper(
        file="t.jsonl",
        line=1,
        title="GRAPE: Group RepresentAtional Position Encoding",
        abstract="We propose GRAPE, a framework for large language models (LLMs) and graph neural networks.",
    )
    text = f"{paper.title}. {paper.abstract}"
    x = ExtractInput(
        paper=paper, paper_id="paper:1", doc=nlp.tokenizer(text), text=text, context=pipeline.context
    )
    for fn in (extract_concepts_v2, extract_introduced):
        parts = fn(x)
        assert parts.normal_nodes and parts.nodes
        for node in parts.nodes:
            assert list(node.properties.items()) == list(normalize_properties(node.properties).items())
