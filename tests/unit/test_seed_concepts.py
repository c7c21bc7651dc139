"""Concept queries on the seed listings with the real model and the shipped vocabulary.

"Which papers are about X" means: papers that MENTION X or a concept narrower than X (following
BROADER links, as ``concept(name:) { papers(includeNarrower: true) }`` does). Papers are identified
by a distinctive phrase of their abstract, never by id.
"""

from __future__ import annotations

from typing import Any

import pytest

from kg.core.ids import concept_id

BANDIT_PAPERS = {
    "Conventional (contextual) MNL bandits",  # contextual MNL bandits
    "generalized linear bandits or ridge bandits",  # SGD for single-index models
    "simple multi-armed bandit protocol",  # social learning dynamics
    "offline imitation learning in contextual bandits",  # multiple correct answers
}
EQUIVARIANCE_PAPERS = {
    "Metanetworks are neural architectures",
    "Universality results for equivariant neural networks",
    "Equivariance is a powerful inductive bias",  # the projection regulariser
    "-equivariant neural networks have proven",  # E(3) tensor products
    "floating-point transformers",
    "reducing the dimensionality of linear programming",  # LP projection
}
NASH_PAPERS = {
    "mean-field continuous sequence predictors",
    "Extensive-form games (EFGs)",
    "existence and computation of Nash equilibria in concave games",
    "new notion of equilibrium for data pricing",
    "symmetric Nash equilibrium policy",
}


def about(records: list[Any], name: str, about_only: bool = False) -> set[str]:
    """Abstracts of the papers mentioning a concept (or a narrower one); with ``about_only``,
    only mentions flagged ``about`` (what ``concept.papers`` returns by default) count."""
    broader: dict[str, set[str]] = {}
    for r in records:
        for rel in r.relationships:
            if rel.type == "BROADER":
                broader.setdefault(rel.start, set()).add(rel.end)

    def reaches(cid: str, target: str) -> bool:
        seen, todo = set(), [cid]
        while todo:
            x = todo.pop()
            if x == target:
                return True
            if x not in seen:
                seen.add(x)
                todo.extend(broader.get(x, ()))
        return False

    target = concept_id(name)
    return {
        str(r.paper.properties["abstract"])
        for r in records
        if any(
            rel.type == "MENTIONS"
            and reaches(rel.end, target)
            and (not about_only or (rel.properties["about"] and climbs(rel.properties, rel.end, target)))
            for rel in r.relationships
        )
    }


def climbs(props: dict[str, Any], end: str, target: str) -> bool:
    """An about link counts for ``target`` above its own concept unless marked ``climbs: false``
    (what the API's ``PaperQuery.narrower`` does)."""
    return end == target or props.get("climbs") is not False


def identify(abstracts: set[str], phrases: set[str]) -> set[str]:
    """The phrases whose abstract is in ``abstracts`` (each phrase names exactly one seed abstract)."""
    return {p for p in phrases if any(p in a for a in abstracts)}


def test_every_phrase_names_one_seed_abstract(seed_records: list[Any]) -> None:
    abstracts = [str(r.paper.properties["abstract"]) for r in seed_records]
    for phrase in BANDIT_PAPERS | EQUIVARIANCE_PAPERS | NASH_PAPERS:
        assert sum(phrase in a for a in abstracts) == 1, phrase


def test_bandit_papers_are_exactly_the_four(seed_records: list[Any]) -> None:
    found = about(seed_records, "multi-armed bandits")
    assert len(found) == 4
    assert identify(found, BANDIT_PAPERS) == BANDIT_PAPERS


def test_equivariance_papers_include_the_six(seed_records: list[Any]) -> None:
    found = about(seed_records, "equivariance")
    assert identify(found, EQUIVARIANCE_PAPERS) == EQUIVARIANCE_PAPERS
    assert not any(
        "single predictor across multiple subpopulations" in a for a in found
    )  # "scale invariance"


def test_nash_papers_include_the_five(seed_records: list[Any]) -> None:
    found = about(seed_records, "Nash equilibrium")
    assert identify(found, NASH_PAPERS) == NASH_PAPERS
    assert not any("Nash Merging of Experts" in a for a in found)  # a method named after Nash


@pytest.mark.parametrize(
    ("name", "phrases"),
    [
        ("multi-armed bandits", BANDIT_PAPERS),
        ("equivariance", EQUIVARIANCE_PAPERS),
        ("Nash equilibrium", NASH_PAPERS),
    ],
)
def test_seed_papers_are_about_their_concept(seed_records: list[Any], name: str, phrases: set[str]) -> None:
    assert identify(about(seed_records, name, about_only=True), phrases) == phrases


@pytest.mark.parametrize(
    ("phrase", "title"),
    [
        ("We present GRAPE", "GRAPE: Group RepresentAtional Position Encoding"),
        ("(**TAIL**)", "TAIL: Turing mAchine Imitation Learning"),
        ("we introduce Nash Merging of Experts", "NAMEx: Nash Merging of Experts"),
        ("we introduce xLSTM 7B", "xLSTM 7B: A 7-billion-parameter LLM"),
    ],
)
def test_derived_titles_of_introduced_names(seed_records: list[Any], phrase: str, title: str) -> None:
    record = next(r for r in seed_records if phrase in str(r.paper.properties["abstract"]))
    assert record.paper.properties["title"] == title
    assert record.paper.properties["titleSource"] == "DERIVED"
    assert any(rel.type == "INTRODUCES" for rel in record.relationships)


def test_no_generic_junk_in_any_seed_top_ten(seed_records: list[Any]) -> None:
    junk = {
        "this paper",
        "paper",
        "results",
        "approach",
        "performance",
        "framework",
        "state of the art",
        "state-of-the-art",
        "method",
        "model",
        "problem",
        "task",
        "data",
        "experiments",
        "work",
    }
    for r in seed_records:
        names = {n.id: str(n.properties["name"]) for n in r.nodes if n.label == "Concept"}
        mentions = sorted(
            (m for m in r.relationships if m.type == "MENTIONS"), key=lambda m: -float(m.properties["score"])
        )
        for m in mentions[:10]:
            assert names[m.end].lower() not in junk and str(m.properties["surface"]).lower() not in junk
