"""Which of a paper's wordings a curated concept is shown by (``MENTIONS.surface``).

The paper's wording of the canonical name when it writes the name, else its first noun-phrase
wording: among top-10 concepts whose two strings differ, the name's wording matched author
keywords more often on every dev set (bench/README.md, "What the concept targets can reach").
"""

from __future__ import annotations

from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline


def surfaces(record: PaperRecord) -> dict[str, str]:
    """Canonical name -> the surface the record shows, for every ``MENTIONS``."""
    names = {n.id: str(n.properties.get("name")) for n in record.nodes if n.label == "Concept"}
    return {names[r.end]: str(r.properties["surface"]) for r in record.relationships if r.type == "MENTIONS"}


def build(pipeline: Pipeline, title: str, abstract: str) -> PaperRecord:
    built, problems = pipeline.build([RawPaper(file="t.jsonl", line=1, title=title, abstract=abstract)])
    assert not problems
    return built[0]


def test_the_papers_own_wording_of_the_canonical_name_is_shown(fast: Pipeline) -> None:
    record = build(
        fast,
        "Evaluating LLMs as Judges of Code",
        "We ask whether LLMs can grade programs. Large language models are prompted with rubrics, "
        "and their grades are compared with those of teaching assistants on 2,000 student submissions.",
    )
    assert surfaces(record)["large language models"] == "Large language models"  # not "LLMs"


def test_the_first_wording_stays_when_the_paper_never_writes_the_name(fast: Pipeline) -> None:
    record = build(
        fast,
        "Evaluating LLMs as Judges of Code",
        "We ask whether LLMs can grade programs. The LLMs are prompted with rubrics, and their grades "
        "are compared with those of teaching assistants on 2,000 student submissions.",
    )
    assert surfaces(record)["large language models"] == "LLMs"


def test_the_name_inside_a_longer_alias_is_the_wording_shown(fast: Pipeline) -> None:
    record = build(
        fast,
        "Fast Monocular Depth Estimation on Phones",
        "We present a monocular depth estimation network that runs at 30 frames per second on a phone.",
    )
    assert surfaces(record)["depth estimation"] == "Depth Estimation"  # not "Monocular Depth Estimation"
