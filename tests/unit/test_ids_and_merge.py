"""Deterministic ids and merge rules: the basis of idempotent ingests."""

from __future__ import annotations

import itertools
import json
import re
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kg.core.ids import author_id, fold, paper_id, split_nickname, text_key, topic_id
from kg.core.merge import UNION_LIST_PROPERTIES, merge_all, merge_properties, normalize_properties
from kg.core.models import Properties


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
    old: Properties = {"title": "Real", "titleSource": "LISTING", "sources": ["a:1"], "year": 2020}
    new: Properties = {"title": "Derived", "titleSource": "DERIVED", "sources": ["b:3", "a:1"], "year": None}
    assert merge_properties(old, new) == {
        "title": "Real",
        "titleSource": "LISTING",
        "sources": ["a:1", "b:3"],
        "year": 2020,
    }
    derived: Properties = {"title": "D", "titleSource": "DERIVED"}
    listing: Properties = {"title": "Real", "titleSource": "LISTING"}
    upgraded = merge_properties(derived, listing)
    assert upgraded == {"title": "Real", "titleSource": "LISTING"}


def test_author_spelling_is_independent_of_order() -> None:
    caps: Properties = {"name": "ABHRA CHAUDHURI"}
    mixed: Properties = {"name": "Abhra Chaudhuri"}
    forward = merge_properties(merge_properties({}, caps), mixed)
    backward = merge_properties(merge_properties({}, mixed), caps)
    assert forward == backward == {"name": "Abhra Chaudhuri", "aliases": ["ABHRA CHAUDHURI"]}


def test_accented_spelling_beats_the_ascii_one() -> None:
    merged = merge_properties({"name": "Korbinian Poppel"}, {"name": "Korbinian Pöppel"})
    assert merged["name"] == "Korbinian Pöppel" and merged["aliases"] == ["Korbinian Poppel"]


def test_discovered_concept_name_and_kind_do_not_depend_on_order() -> None:
    a: Properties = {"name": "grape", "kind": "CONCEPT", "source": "discovered", "aliases": ["g"]}
    b: Properties = {"name": "GRAPE", "kind": "METHOD", "source": "discovered", "aliases": []}
    assert merge_properties(a, b) == merge_properties(b, a)
    assert merge_properties(a, b) == {
        "name": "GRAPE",
        "kind": "METHOD",
        "source": "discovered",
        "aliases": ["g", "grape"],
    }


def test_curated_concept_keeps_its_name_against_a_discovered_spelling() -> None:
    seed: Properties = {
        "name": "large language model",
        "kind": "MODEL",
        "source": "vocabulary",
        "aliases": ["LLM"],
    }
    found: Properties = {
        "name": "Large Language Model",
        "kind": "CONCEPT",
        "source": "discovered",
        "aliases": [],
    }
    for merged in (merge_properties(seed, found), merge_properties(found, seed)):
        assert merged["name"] == "large language model" and merged["source"] == "vocabulary"
        assert merged["kind"] == "MODEL" and merged["aliases"] == ["LLM", "Large Language Model"]


def test_union_lists_are_sorted_sets_and_a_first_insert_is_normalised() -> None:
    assert merge_properties({}, {"sources": ["b:2", "a:1"]}) == {"sources": ["a:1", "b:2"]}
    assert merge_properties({"keywords": ["z"]}, {"keywords": ["a", "z"]}) == {"keywords": ["a", "z"]}


def test_listing_titles_are_ranked_not_newest_wins() -> None:
    a: Properties = {"title": "DEEP NETS", "titleSource": "LISTING", "shortTitle": "DEEP NETS"}
    b: Properties = {"title": "Deep Nets", "titleSource": "LISTING", "shortTitle": "Deep Nets"}
    assert merge_properties(a, b) == merge_properties(b, a) == b


def test_other_scalars_take_a_fixed_order() -> None:
    a: Properties = {"year": 2021}
    b: Properties = {"year": 2020}
    assert merge_properties(a, b) == merge_properties(b, a) == {"year": 2021}
    assert merge_properties({"authorsTruncated": True}, {"authorsTruncated": False}) == {
        "authorsTruncated": False
    }


# Property maps as the pipeline emits them, with every conflict the rules decide.
_MAPS: list[Properties] = [
    {"name": "Jie Zhou", "aliases": [], "sources": ["b.json:3"], "year": 2021, "kind": "TASK"},
    {"name": "JIE ZHOU", "sources": ["a.json:9", "c.json:1"], "year": None, "url": "u2"},
    {"name": "jie zhou", "aliases": ["J. Zhou"], "kind": "CONCEPT", "url": "u1", "flag": True},
    {"title": "T", "titleSource": "DERIVED", "shortTitle": "T", "flag": False},
    {"title": "Real Title", "titleSource": "LISTING", "shortTitle": "Real Title", "keywords": ["x"]},
]


def test_merge_is_commutative_associative_and_idempotent() -> None:
    results = {json.dumps(merge_all(order), sort_keys=True) for order in itertools.permutations(_MAPS)}
    assert len(results) == 1
    merged = merge_all(_MAPS)
    for props in _MAPS:
        assert merge_properties(merged, props) == merged  # re-ingesting changes nothing
    assert merged["name"] == "Jie Zhou" and merged["aliases"] == ["J. Zhou", "JIE ZHOU", "jie zhou"]
    assert merged["title"] == "Real Title" and merged["kind"] == "TASK" and merged["url"] == "u1"


_KEYS = st.sampled_from(
    [
        "name",
        "aliases",
        "kind",
        "source",
        "title",
        "titleSource",
        "shortTitle",
        "sources",
        "keywords",
        "year",
        "x",
    ]
)
_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.sampled_from(["discovered", "vocabulary", "DERIVED", "LISTING", "METHOD", "CONCEPT", "Ab", "ab", ""]),
    st.lists(st.sampled_from(["b", "a", "Ab", "ab", "é"]), max_size=4),
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(_KEYS, _VALUES, max_size=8))
def test_normalize_properties_is_merge_with_an_empty_side(props: Properties) -> None:
    """The fast normal form equals ``merge_properties({}, p)``, key order included."""
    expected = merge_properties({}, props)
    got = normalize_properties(props)
    assert list(got.items()) == list(expected.items())


# The paper properties ``kg.ingest.pipeline`` starts from (no name, aliases or kind: those are keys of
# concept and author nodes; union lists are lists) and an extractor's additions (no None, no
# union list), the maps after which it skips merging an extractor's empty map.
_PAPER_KEYS = _KEYS.filter(lambda k: k not in ("name", "aliases", "kind"))
_LISTS = st.lists(st.sampled_from(["b", "a", "Ab", "ab", "é"]), max_size=4)
_PAPER_START = st.dictionaries(_PAPER_KEYS, _VALUES).filter(
    lambda d: all(isinstance(d[k], list) for k in d.keys() & UNION_LIST_PROPERTIES)
)
_ADDED = st.dictionaries(_PAPER_KEYS.filter(lambda k: k not in UNION_LIST_PROPERTIES), _VALUES).filter(
    lambda d: None not in d.values()
)


@settings(max_examples=1000, deadline=None)
@given(_PAPER_START, _ADDED)
def test_merged_paper_properties_merged_with_nothing_are_themselves(old: Properties, new: Properties) -> None:
    """``kg.ingest.pipeline`` skips merging an extractor's empty map into a paper's merged properties."""
    merged = merge_properties(old, new)
    assert list(merge_properties(merged, {}).items()) == list(merged.items())


@pytest.mark.parametrize(
    "props",
    [
        {},
        {
            "name": "GRAPE",
            "kind": "METHOD",
            "aliases": ["b", "a", "GRAPE"],
            "source": "discovered",
            "provisional": True,
        },
        {
            "source": "vocabulary",
            "name": "multi-armed bandits",
            "kind": "CONCEPT",
            "aliases": ["MAB", "bandits"],
        },
        {"name": None, "aliases": ["x"], "kind": "TASK"},  # a None name drops the aliases and kind
        {"aliases": ["y", "x"], "kind": "TASK", "name": "Café"},
        {"kind": "MODEL", "aliases": ["y", "x"]},  # no name at all: aliases and kind kept
        {"title": "T", "titleSource": None, "shortTitle": "T", "sources": ["b:1", "a:2"]},
        {"titleSource": "DERIVED", "shortTitle": "S"},  # no title: the title group is dropped
        {"source": "vocabulary", "kind": None, "name": "x"},
        {"keywords": "not a list", "x": None},
    ],
)
def test_normalize_properties_edge_cases(props: Properties) -> None:
    assert list(normalize_properties(props).items()) == list(merge_properties({}, props).items())


def _reference_fold(text: str) -> str:
    """The former :func:`kg.core.ids.fold`: every character of a non-ASCII text looked at."""
    if text.isascii():
        return re.sub(r"\s+", " ", text.lower()).strip()
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    return re.sub(r"\s+", " ", stripped.casefold()).strip()


def _reference_text_key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", _reference_fold(text)).strip()


TRICKY_TEXTS = [
    "",
    "   ",
    "Korbinian Pöppel",
    "  Équilibres  de Nash: (un) résumé ",
    "Straße \u00df ẞ İstanbul ﬁne Kelvin \u212a",  # casefold and NFKD that produce ASCII letters
    "e\u0301 combining mark after an ASCII letter, and \u0301 a lone one",
    "“curly” — dashes – and\u00a0no-break\u2009spaces\n\tnewlines",
    "日本語のタイトル and ASCII",
    "ASCII only, With Case: 123",
]


@pytest.mark.parametrize("text", TRICKY_TEXTS)
def test_fold_and_text_key_equal_the_reference(text: str) -> None:
    assert fold(text) == _reference_fold(text)
    assert text_key(text) == _reference_text_key(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("aZ 9-\t\né\u0301ßİ\u212a“日\u00a0.ﬁ"), max_size=30))
def test_fold_and_text_key_equal_the_reference_on_generated_text(text: str) -> None:
    assert fold(text) == _reference_fold(text)
    assert text_key(text) == _reference_text_key(text)
