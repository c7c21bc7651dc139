"""Is-a by the appositive's head noun for a field's term outside the vocabulary
(:mod:`extractors.concepts.analysis.heads`): a record links an introduced name to its *head
parent*, and ``concept(K).papers`` of that parent lists the paper.

Real spaCy tokenizer, shipped vocabulary and background table, a real SQLite store read through
the GraphQL schema (``api.concept_eval.SchemaReader``).
"""

from __future__ import annotations

from pathlib import Path

from api.concept_eval import SchemaReader, concept_papers
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline
from kg.stores.sqlite import SQLiteStore

DATASET_PAPER = (
    "QuizBank: Hard Questions for Language Models",
    "We present QuizBank, a challenging dataset of 448 multiple-choice questions written by domain "
    "experts in biology, physics and chemistry. Experts reach 65% accuracy while skilled "
    "non-experts reach 34% with unrestricted web access.",
)
FRAMEWORK_PAPER = (
    "GRAPE: Position Encoding for Long Inputs",
    "We propose GRAPE, a novel framework for position encoding in transformers. GRAPE rotates "
    "queries and keys by learned group actions and extrapolates to inputs eight times longer.",
)
HEADLINE_PAPER = (
    "Multilingual Evaluation of Toxic Degeneration in Language Models",
    "Multilingual evaluation of toxic degeneration is missing for most languages. We build "
    "prompts in 17 languages and run a multilingual evaluation of 60 models, finding that toxicity "
    "grows with model size and falls with instruction tuning.",
)
PRECEDING_PAPER = (
    "Long Inputs Need Long Tests",
    "Needle-in-a-haystack tests overstate the context length of language models. We create a new "
    "synthetic benchmark RULER with configurable sequence length and task complexity, and run it "
    "on 17 models; half of them fall below their claimed length. We also score them on the popular "
    "benchmark LongBench.",
)
SUBTITLE_PAPER = (
    "FoldBench: A Multi-Step Protein Folding Benchmark for Language Models",
    "Language models are tried on protein folding without a shared test. We introduce FoldBench: a "
    "multi-step benchmark of 2,000 problems written by biochemists; the best model solves 41%.",
)


def record(pipeline: Pipeline, title: str, abstract: str, line: int = 1) -> PaperRecord:
    records, problems = pipeline.build([RawPaper(file="t.jsonl", line=line, title=title, abstract=abstract)])
    assert not problems
    return records[0]


def head_parents(r: PaperRecord) -> dict[str, str]:
    """Child name -> parent name, for every BROADER link to a discovered concept."""
    nodes = {n.id: n for n in r.nodes}
    return {
        str(nodes[rel.start].properties["name"]): str(nodes[rel.end].properties["name"])
        for rel in r.relationships
        if rel.type == "BROADER" and nodes[rel.end].properties.get("source") == "discovered"
    }


def node(r: PaperRecord, name: str) -> Node:
    return next(n for n in r.nodes if n.properties.get("name") == name)


def test_an_introduced_name_is_a_kind_of_its_appositive_head(fast: Pipeline) -> None:
    r = record(fast, *DATASET_PAPER)
    assert head_parents(r) == {"QuizBank": "dataset"}
    parent = node(r, "dataset")
    assert parent.id == "concept:dataset"
    assert "provisional" not in parent.properties  # a link needs a node at each end


def test_a_head_that_is_no_field_term_gives_no_parent(fast: Pipeline) -> None:
    # "framework" is an author keyword of 2 NeurIPS 2023 papers, not a field's term
    assert head_parents(record(fast, *FRAMEWORK_PAPER)) == {}


def test_a_headline_phrase_is_no_kind_of_its_last_word(fast: Pipeline) -> None:
    # the wider rule, not kept: "multilingual evaluation" stays where the vocabulary puts it
    assert head_parents(record(fast, *HEADLINE_PAPER)) == {}


def test_the_noun_phrase_before_an_introduced_name_describes_it(fast: Pipeline) -> None:
    # "the popular benchmark LongBench" is one the paper uses, not one it introduces
    assert head_parents(record(fast, *PRECEDING_PAPER)) == {"RULER": "benchmark"}


def test_a_colon_introduces_the_appositive_too(fast: Pipeline) -> None:
    r = record(fast, *SUBTITLE_PAPER)
    assert head_parents(r) == {"FoldBench": "benchmark"}


def test_concept_papers_of_the_parent_list_the_paper_alone_in_its_store(
    fast: Pipeline, tmp_path: Path
) -> None:
    records = [
        record(fast, *p, line=i) for i, p in enumerate((DATASET_PAPER, FRAMEWORK_PAPER, HEADLINE_PAPER))
    ]
    store = SQLiteStore(tmp_path)
    try:
        store.upsert(records)
        reader = SchemaReader(store, Settings(backend="sqlite"))
        assert concept_papers(reader, "dataset") == {records[0].paper.id}
        assert concept_papers(reader, "datasets") == {records[0].paper.id}
    finally:
        store.close()
