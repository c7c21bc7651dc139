"""Quoted phrases in ``search`` and in the ``text`` paper condition, on both stores: a phrase
matches its words side by side and in order, the words beside it still rank."""

from __future__ import annotations

from typing import Any

from kg.core.models import Node, PaperRecord
from kg.read.service import ReadService
from kg.stores.protocol import PaperQuery

TEXTS = {
    "paper:p1": ("Diffusion policy for robot arms", "We train a diffusion policy on demonstrations."),
    "paper:p2": ("Policy gradients", "A policy whose noise follows a diffusion process, for robot arms."),
    "paper:p3": ("Learning to rank with transformers", "Ranking documents."),
    "paper:p4": ("Rank learning", "To rank, learning from clicks."),
    "paper:p5": ("Graph networks", "Message passing on molecules."),
}


def records() -> list[PaperRecord]:
    return [
        PaperRecord(paper=Node(id=pid, label="Paper", properties={"title": t, "abstract": a, "year": 2024}))
        for pid, (t, a) in TEXTS.items()
    ]


def hits(store: Any, text: str) -> set[str]:
    return {h.node.id for h in store.search(text, 20)}


def papers(store: Any, text: str) -> set[str]:
    return set(store.papers(PaperQuery(text=text), 0, 20).ids)


def test_a_quoted_phrase_matches_as_a_phrase(store: Any) -> None:
    store.upsert(records())
    assert hits(store, "diffusion policy") == {"paper:p1", "paper:p2"}  # words: either
    assert hits(store, '"diffusion policy"') == {"paper:p1"}
    assert hits(store, '"Diffusion  Policy"') == {"paper:p1"}  # case and spacing do not matter
    assert hits(store, '"policy diffusion"') == set()  # order does
    # stop words inside a phrase count: "learning to rank" is not "rank learning"
    assert hits(store, '"learning to rank"') == {"paper:p3"}
    assert papers(store, '"diffusion policy"') == {"paper:p1"}
    assert papers(store, "diffusion policy") == {"paper:p1", "paper:p2"}


def test_words_beside_a_phrase_narrow_and_rank(store: Any) -> None:
    store.upsert(records())
    # the phrase is required; of the other words at least one
    assert hits(store, '"diffusion policy" robot') == {"paper:p1"}
    assert hits(store, '"diffusion policy" molecules') == set()
    assert papers(store, '"robot arms" diffusion') == {"paper:p1", "paper:p2"}
    service = ReadService(store)
    assert [h.node.id for h in service.search('"robot arms" demonstrations', 5)] == ["paper:p1"]
    # a one-word quote is a word; an unclosed quote is ignored
    assert hits(store, '"graph"') == hits(store, "graph") == {"paper:p5"}
    assert hits(store, '"graph networks') == {"paper:p5"}
