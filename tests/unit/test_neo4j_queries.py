"""Cheap checks of the Cypher builders: allow-lists, parameters instead of values, escaping.

What the statements *do* is checked against a real server by the contract suite; these tests
only pin the safety rules, so a harmless query refactor does not break them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from kg.errors import GraphStoreError
from kg.models import DERIVED_REL_TYPES, LABELS, REL_TYPES
from kg.stores.neo4j import queries as q

EVIL = "Paper) DETACH DELETE n //"
VALUE = "s3cr3t-value-'; MATCH (x) DETACH DELETE x"

LABEL_BUILDERS: list[Callable[[str], q.Statement]] = [
    lambda lb: q.create_nodes(lb, [{"id": VALUE}]),
    lambda lb: q.nodes_with_label(lb),
]
TYPE_BUILDERS: list[Callable[[str], q.Statement]] = [
    lambda t: q.create_relationships(t, [[VALUE, VALUE, {}]]),
    lambda t: q.replace_relationship_properties(t, [[VALUE, VALUE, {}]]),
    lambda t: q.relationships_by_key(t, [[VALUE, VALUE]]),
    lambda t: q.relationships_of_type(t),
    lambda t: q.neighbors([VALUE], t, "both"),
    lambda t: q.degrees([VALUE], t, "both"),
]


@pytest.mark.parametrize("build", LABEL_BUILDERS)
def test_unknown_labels_are_refused(build: Callable[[str], q.Statement]) -> None:
    for bad in (EVIL, "paper", "Person", ""):
        with pytest.raises(GraphStoreError, match="unknown node label"):
            build(bad)
    for good in LABELS:
        assert f":{good}" in build(good).text


@pytest.mark.parametrize("build", TYPE_BUILDERS)
def test_unknown_relationship_types_are_refused(build: Callable[[str], q.Statement]) -> None:
    for bad in (EVIL, "authored", "KNOWS", ""):
        with pytest.raises(GraphStoreError, match="unknown relationship type"):
            build(bad)
    for good in REL_TYPES:
        assert f":{good}" in build(good).text


@pytest.mark.parametrize("build", [q.bump_pairs, q.create_pairs])
def test_only_derived_types_get_pair_statements(build: Callable[[str, list[Any]], q.Statement]) -> None:
    for t in DERIVED_REL_TYPES:
        assert build(t, [["x", "y", 1]]).params["rows"] == [["x", "y", 1]]
    for bad in ("AUTHORED", EVIL):
        with pytest.raises(GraphStoreError):
            build(bad, [])


def all_statements() -> list[q.Statement]:
    nodes: list[dict[str, Any]] = [{"id": VALUE, "name": VALUE}]
    rels: list[list[Any]] = [[VALUE, VALUE, {"evidence": [VALUE]}]]
    pairs: list[list[Any]] = [[VALUE, VALUE, 1]]
    return [
        *q.schema_statements(),
        q.lock_writers(),
        q.nodes_by_id([VALUE]),
        q.relationships_around([VALUE]),
        q.relationships_by_key("BROADER", [[VALUE, VALUE]]),
        q.create_nodes("Concept", nodes),
        q.replace_node_properties(nodes),
        q.create_relationships("MENTIONS", rels),
        q.replace_relationship_properties("MENTIONS", rels),
        q.bump_pairs("COAUTHOR", pairs),
        q.create_pairs("CO_OCCURS", pairs),
        q.nodes_with_label("Author"),
        q.neighbors([VALUE], "AUTHORED", "in"),
        q.degrees([VALUE], "AUTHORED", "out"),
        q.relationships_of_type("AUTHORED"),
        q.all_nodes(),
        q.all_relationships(),
        q.counts(),
        q.fulltext_search(VALUE, 7),
        q.delete_all(),
        q.ping(),
    ]


def test_values_travel_as_parameters_never_in_the_text() -> None:
    statements = all_statements()
    for stmt in statements:
        assert VALUE not in stmt.text
        assert "7" not in stmt.text  # the search limit is a parameter too
    with_values = [s for s in statements if VALUE in repr(s.params)]
    assert len(with_values) == 12
    for stmt in with_values:
        assert any(f"${name}" in stmt.text for name in stmt.params)


def test_writes_and_batched_reads_unwind_rows() -> None:
    nodes: list[dict[str, Any]] = [{"id": "a"}, {"id": "b"}]
    rels: list[list[Any]] = [["a", "b", {"position": 1}]]
    pairs: list[list[Any]] = [["a", "b", 2]]
    for stmt, rows in (
        (q.create_nodes("Paper", nodes), nodes),
        (q.replace_node_properties(nodes), nodes),
        (q.create_relationships("AUTHORED", rels), rels),
        (q.bump_pairs("CO_OCCURS", pairs), pairs),
        (q.create_pairs("COAUTHOR", pairs), pairs),
    ):
        assert stmt.text.startswith("UNWIND $rows AS row")
        assert stmt.params["rows"] == rows
    assert q.nodes_by_id(["a", "b"]).text.startswith("UNWIND $ids AS id")


def test_every_label_gets_an_id_constraint_and_search_gets_a_fulltext_index() -> None:
    texts = [s.text for s in q.schema_statements()]
    assert all("IF NOT EXISTS" in t for t in texts)
    for lb in LABELS:
        assert any(f"(n:{lb}) REQUIRE n.id IS UNIQUE" in t for t in texts)
    (fulltext,) = [t for t in texts if "FULLTEXT" in t]
    assert q.FULLTEXT_INDEX in fulltext and "n:Paper|Concept" in fulltext
    for prop in ("title", "abstract", "name", q.ALIAS_TEXT):
        assert f"n.{prop}" in fulltext


def test_counts_cover_every_label_and_type() -> None:
    text = q.counts().text
    for lb in LABELS:
        assert f"'{lb}'" in text
    for t in REL_TYPES:
        assert f"'{t}'" in text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a+b", r"a\+b"),
        ("(x) AND [y]", r"\(x\) AND \[y\]"),
        ('"q" ~2 ^3 * ? : / \\', r"\"q\" \~2 \^3 \* \? \: \/ \\"),
        ("a && b || !c -d {e}", r"a \&& b \|| \!c \-d \{e\}"),
    ],
)
def test_lucene_escape(text: str, expected: str) -> None:
    assert q.lucene_escape(text) == expected


def test_fulltext_query_is_words_only() -> None:
    query = q.fulltext_query('Nash: "equilibria" OR title:(x)^9 AND *')
    assert query is not None
    clause = query.split(" OR ")[0]
    assert clause == "title:(nash equilibria or title x 9 and)^2"
    assert q.fulltext_query("") is None
    assert q.fulltext_query("¿?¡!") is None
    assert q.fulltext_query("Pöppel") == q.fulltext_query("poppel")
