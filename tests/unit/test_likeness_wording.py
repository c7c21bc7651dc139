"""``kg.read.likeness.wording_similarity``: the words `similar` compares next to the embedding.

Why these cases: the score is a tf-idf cosine whose document frequencies come from the texts
compared, so a word every hit has must weigh little, a word only the query and one hit share
must weigh most, stop words and case must not count, and a text without words must score 0,
not fail.
"""

from __future__ import annotations

import pytest

from kg.core.models import Node
from kg.read.key_concepts import KeyConcept
from kg.read.likeness import rank_similar, wording_similarity


def test_the_same_text_scores_one_and_a_text_without_shared_words_zero() -> None:
    query = "Tactile sensing improves robotic grasping of deformable objects"
    got = wording_similarity(query, [query, "Language models answer trivia questions", ""])
    assert got[0] == pytest.approx(1.0)
    assert got[1] == 0.0
    assert got[2] == 0.0


def test_a_word_every_hit_has_weighs_less_than_one_few_share() -> None:
    query = "robot tactile"
    hits = ["robot tactile", "robot arm", "robot legs", "robot wheels"]
    got = wording_similarity(query, hits)
    # "robot" alone (in every text) against "tactile" too (only the query and the first hit)
    assert got[0] > 0.99
    assert 0.0 < got[1] < 0.2
    assert got[1] == pytest.approx(got[2]) == pytest.approx(got[3])


def test_stop_words_and_case_do_not_count() -> None:
    got = wording_similarity("The Policy of THE robot", ["policy robot", "the of and with"])
    assert got[0] == pytest.approx(1.0)
    assert got[1] == 0.0


def test_the_wording_changes_the_order_of_equal_cosines() -> None:
    a, b = Node(id="paper:a", label="Paper"), Node(id="paper:b", label="Paper")
    hits: list[tuple[Node, float, list[KeyConcept]]] = [(a, 0.5, []), (b, 0.5, [])]
    assert [s.node.id for s in rank_similar([], hits, {}, 10)] == ["paper:a", "paper:b"]
    ranked = rank_similar([], hits, {}, 10, wording=[0.1, 0.3])
    assert [s.node.id for s in ranked] == ["paper:b", "paper:a"]
    assert [s.score for s in ranked] == [1.1, 0.7]  # cosine + 2 x wording
    assert [s.cosine for s in ranked] == [0.5, 0.5]
