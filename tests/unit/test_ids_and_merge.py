"""Deterministic ids and merge rules: the basis of idempotent ingests."""

from __future__ import annotations

from kg.ids import author_id, paper_id, split_nickname, topic_id
from kg.merge import merge_properties


def test_same_abstract_in_two_listings_is_one_paper() -> None:
    a = paper_id("We study *bandits*.\n With regret.", None)
    b = paper_id("we study bandits with regret", "A title")
    assert a == b and a.startswith("paper:")


def test_title_only_paper_gets_an_id_from_its_title() -> None:
    assert paper_id("", "Scaling Laws") == paper_id(None, "scaling laws")
    assert paper_id("", "Scaling Laws") != paper_id("", "Scaling Law")


def test_author_ids_ignore_accents_case_and_nicknames() -> None:
    assert author_id("Korbinian Pöppel") == author_id("KORBINIAN POPPEL")
    assert author_id("Zhangyang “Atlas” Wang") == author_id("Zhangyang Wang")
    assert split_nickname('Zhangyang "Atlas" Wang') == ("Zhangyang Wang", "Atlas")


def test_topic_ids_are_paths() -> None:
    assert topic_id(["Theory", "Optimization"]) != topic_id(["Optimization"])
    assert topic_id(["Theory", "Optimization"]) == "topic:theory/optimization"


def test_merge_rules() -> None:
    old = {"title": "Real", "titleSource": "LISTING", "sources": ["a:1"], "year": 2020}
    new = {"title": "Derived", "titleSource": "DERIVED", "sources": ["b:3", "a:1"], "year": None}
    assert merge_properties(old, new) == {
        "title": "Real",
        "titleSource": "LISTING",
        "sources": ["a:1", "b:3"],
        "year": 2020,
    }
    upgraded = merge_properties(
        {"title": "D", "titleSource": "DERIVED"}, {"title": "Real", "titleSource": "LISTING"}
    )
    assert upgraded == {"title": "Real", "titleSource": "LISTING"}
