"""A paper's key concepts: its ``MENTIONS`` and its paper-only phrases as one ranked list.

Why one list: the store keeps a phrase only one paper carries as a keyphrase row, not a node
(:mod:`kg.core.provisional`), and ``Paper.concepts`` lists nodes only, so a reader saw about 8.7
fewer concepts per paper than the extractor kept ("Tor network", "ASCII art" were invisible).
Here both kinds meet, each with its canonical name, the paper's wording, its score and where it
came from, and the order is decided once, in Python, so both stores list them alike.

Order (best first): concepts the paper is *about* (``MENTIONS.about``) before passing mentions,
then the extractor's ``score`` (its ranking of the paper's concepts: a paper's own method
first), then ``salience``, then the folded name and the id. About first because it scored
better against author keywords than the score alone on every dev set (first 300 papers of
each, F1@10: ICLR 2018 21.33 against 20.40, COLM 2024 19.05 / 18.50, CoRL 16.78 / 16.49, 3DV
2025 13.42 / 13.31; salience before score was worse, 19.41 / 18.38 / 15.26 / 12.79; see
bench/README.md, "Concepts as users see them").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from kg.core.ids import fold
from kg.core.models import Node, Properties
from kg.stores.protocol import Edge, KeyphraseRow

Source = Literal["VOCABULARY", "DISCOVERED", "PREDICTED"]


@dataclass(frozen=True)
class KeyConcept:
    """One concept of a paper as the API lists it (role: read result).

    ``node`` is the Concept node, ``None`` for a paper-only phrase; ``concept_id`` is the id the
    phrase has (and will keep when a second paper makes it a node).
    """

    concept_id: str
    name: str
    surface: str
    score: float
    salience: float
    about: bool
    count: int
    source: Source
    evidence: list[str]
    node: Node | None


def _float(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def source_of(concept: Properties, mention: Properties) -> Source:
    """Where a paper's concept came from: ``PREDICTED`` when the mention says the text implies
    it rather than says it (``MENTIONS {predicted: true}``, whatever the concept's origin; a
    mention property, since the same vocabulary concept is said by one paper and implied by
    another), else the concept's ``source`` (``vocabulary``, or discovered in the text).

    Why not a ``source`` on the mention: the merge rules read ``source`` as the curated flag of
    a named node and drop it from a map without a name (:mod:`kg.core.merge`).

    >>> source_of({"source": "vocabulary"}, {}), source_of({"source": "vocabulary"}, {"predicted": True})
    ('VOCABULARY', 'PREDICTED')
    >>> source_of({"source": "acronym"}, {})
    'DISCOVERED'
    """
    if mention.get("predicted") is True:
        return "PREDICTED"
    return "VOCABULARY" if concept.get("source") == "vocabulary" else "DISCOVERED"


def key_concept(concept_id: str, concept: Properties, mention: Properties, node: Node | None) -> KeyConcept:
    """A key concept from a concept's properties and the paper's ``MENTIONS`` properties."""
    name = concept.get("name")
    surface = mention.get("surface")
    count = mention.get("count")
    evidence = mention.get("evidence")
    display = str(name) if name is not None else concept_id
    return KeyConcept(
        concept_id=concept_id,
        name=display,
        surface=str(surface) if isinstance(surface, str) and surface else display,
        score=_float(mention.get("score")),
        salience=_float(mention.get("salience")),
        about=mention.get("about") is not False,
        count=int(count) if isinstance(count, int | float) and not isinstance(count, bool) else 1,
        source=source_of(concept, mention),
        evidence=[str(s) for s in evidence] if isinstance(evidence, list) else [],
        node=node,
    )


def rank_key(k: KeyConcept) -> tuple[bool, float, float, str, str]:
    """The best-first order (see the module docstring)."""
    return (not k.about, -k.score, -k.salience, fold(k.name), k.concept_id)


COMMON_SHARE = 0.07
"""A concept linked to this share of the store's papers is common ground in this store."""
COMMON_MIN_PAPERS = 100
"""Below this many papers a share says nothing (in the 58 example papers 7% is four papers)."""


def common_ids(concept_ids: Sequence[str], paper_counts: Sequence[int], store_papers: int) -> frozenset[str]:
    """The concepts linked to at least :data:`COMMON_SHARE` of the store's papers.

    >>> sorted(common_ids(["a", "b", "c"], [70, 69, 300], 1000))
    ['a', 'c']
    >>> common_ids(["a"], [50], 99)  # a small store: no share is trusted
    frozenset()
    """
    if store_papers < COMMON_MIN_PAPERS:
        return frozenset()
    floor = COMMON_SHARE * store_papers
    return frozenset(cid for cid, n in zip(concept_ids, paper_counts, strict=True) if n >= floor)


def is_field_word(k: KeyConcept, common: frozenset[str]) -> bool:
    """A one-word concept common in this store: the store's field ("robotics", "planning" in a
    CoRL store), not what one paper is about.

    Why one word only: of the CoRL 2021-25 store's top-10 slots on concepts linked to 7% of its
    papers, "robotics" (512 slots) and "planning" (170) matched the paper's author keywords 3%
    and 8% of the time, while the multi-word ones authors do list, "reinforcement learning" (43%)
    and "imitation learning" (54%), beat the average slot. Moving every common concept down cost
    F1@10 (CoRL 1.45x -> 1.18x YAKE, ICLR 2018 1.41x -> 1.25x); moving the one-word ones cost
    0.02x and took CoRL's common slots from 19.2% to 13.1% (bench/README.md).
    """
    return k.concept_id in common and len(k.name.split()) == 1


def demote_field_words(ranked: list[KeyConcept], common: frozenset[str]) -> list[KeyConcept]:
    """The same list with the store's field words (:func:`is_field_word`) after every other
    concept (stable: both parts keep their best-first order). They stay listed, so a paper with
    few concepts still shows them; they only stop pushing specific ones out of a top 10."""
    if not common:
        return ranked
    return sorted(ranked, key=lambda k: is_field_word(k, common))


def key_concepts(mentions: Sequence[Edge], rows: Sequence[KeyphraseRow]) -> list[KeyConcept]:
    """A paper's key concepts, best first: its ``MENTIONS`` edges and its keyphrase rows (a
    concept id in both, which a store never keeps, is listed once, as the node)."""
    out = [key_concept(e.node.id, e.node.properties, e.rel.properties, e.node) for e in mentions]
    seen = {k.concept_id for k in out}
    out += [key_concept(r.concept, r.node, r.rel, None) for r in rows if r.concept not in seen]
    out.sort(key=rank_key)
    return out
