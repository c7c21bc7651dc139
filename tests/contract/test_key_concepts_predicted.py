"""PREDICTED key concepts from real extraction, on every backend (``Paper.keyConcepts``).

Two robotics abstracts that imply concepts they never name ("reinforcement learning",
"sim-to-real transfer"), extracted with the shipped model (:mod:`extractors.concepts.predicted`)
and stored: the implied concepts are listed with ``source`` PREDICTED, their vocabulary node,
no evidence, and below every concept the text shows the paper is about unless the model is
confident (``about``); re-ingesting, in either order, changes nothing.
"""

from __future__ import annotations

from typing import Any

import pytest

from kg.core.models import PaperRecord, RawPaper
from kg.ingest.pipeline import Pipeline
from kg.read.key_concepts import KeyConcept
from kg.read.service import ReadService
from kg.stores.protocol import ReadStore

PAPERS = [
    (
        "Learning Dexterous In-Hand Reorientation from Pixels",
        "We train a policy that rotates objects in a five-fingered hand from camera images. The policy is "
        "trained in simulation with rewards for reaching a goal orientation and with domain randomization, "
        "and then deployed zero-shot on the physical hand, where it reorients unseen objects.",
    ),
    (
        "Quadruped Agility on Rough Terrain",
        "We learn a controller for a legged robot that walks over stairs and gravel. The controller is "
        "trained in a massively parallel simulator with a reward for tracking velocity commands, then "
        "transferred to the real robot without fine-tuning.",
    ),
]


@pytest.fixture(scope="module")
def records(nlp_fast: Any) -> list[PaperRecord]:
    raws = [RawPaper(file="robots.jsonl", line=i, title=t, abstract=a) for i, (t, a) in enumerate(PAPERS, 1)]
    built, problems = Pipeline(nlp=nlp_fast).build(raws)
    assert not problems
    return built


def _listings(store: ReadStore, records: list[PaperRecord]) -> list[list[KeyConcept]]:
    return ReadService(store).key_concepts_many([r.paper.id for r in records])


def test_implied_concepts_are_listed_as_predicted_below_the_text(
    store: Any, records: list[PaperRecord]
) -> None:
    store.upsert(records)
    listings = _listings(store, records)
    predicted = [k for listing in listings for k in listing if k.source == "PREDICTED"]
    assert {k.concept_id for k in predicted} & {
        "concept:reinforcement-learning",
        "concept:sim-to-real-transfer",
    }
    for k in predicted:
        assert k.node is not None and k.node.properties["source"] == "vocabulary"
        assert k.name == k.surface == k.node.properties["name"]
        assert k.evidence == [] and k.salience == 0.0
    for listing in listings:
        ranks = [(k.about, k.score) for k in listing]
        assert ranks == sorted(ranks, reverse=True)
        said = [k for k in listing if k.source != "PREDICTED"]
        assert said and not {k.concept_id for k in said} & {
            k.concept_id for k in listing if k.source == "PREDICTED"
        }
        first_unsure = next(
            (i for i, k in enumerate(listing) if k.source == "PREDICTED" and not k.about), None
        )
        if first_unsure is not None:  # an unconfident prediction comes after everything the paper is about
            assert all(not k.about for k in listing[first_unsure:])
            assert any(k.about for k in listing[:first_unsure])


def test_reingesting_predicted_concepts_in_either_order_changes_nothing(
    store: Any, records: list[PaperRecord]
) -> None:
    store.upsert(records)
    first = _listings(store, records)
    version = store.version()
    again = store.upsert(list(reversed(records)))
    assert (again.added, again.updated, again.unchanged) == (0, 0, len(records))
    assert store.version() == version
    assert _listings(store, records) == first
