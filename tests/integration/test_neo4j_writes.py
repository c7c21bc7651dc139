"""The Neo4j store's version counter and concept kind labels, against a real server."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j
import pytest

from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.neo4j.store import Neo4jStore


@pytest.fixture
def store(neo4j_driver: neo4j.Driver) -> Iterator[Neo4jStore]:
    s = Neo4jStore(neo4j_driver)
    s.clear()
    yield s
    s.close()


def record(aliases: list[str], kind: str = "METHOD", title: str = "A paper") -> PaperRecord:
    concept = Node(id="c:gan", label="Concept", properties={"name": "gan", "kind": kind, "aliases": aliases})
    return PaperRecord(
        paper=Node(id="p:1", label="Paper", properties={"title": title, "sources": ["f:1"]}),
        nodes=[Node(id="a:x", label="Author", properties={"name": "X"}), concept],
        relationships=[
            Relationship(type="AUTHORED", start="a:x", end="p:1"),
            Relationship(type="MENTIONS", start="p:1", end="c:gan", properties={"score": 1.0}),
        ],
    )


def labels_of(driver: neo4j.Driver, node_id: str) -> list[str]:
    rows = driver.execute_query("MATCH (n {id: $id}) RETURN labels(n) AS l", {"id": node_id}).records
    return sorted(rows[0]["l"])


def test_every_changing_write_bumps_the_version_and_only_those(store: Neo4jStore) -> None:
    start = store.version()  # clear() bumped it; the version survives clears
    assert start >= 1
    store.upsert([record([])])
    first = store.version()
    assert first == start + 1
    store.upsert([record([])])  # nothing new: no write, same version
    assert store.version() == first
    store.upsert([record(["GAN"])])  # a property-only change: a new alias
    assert store.version() == first + 1
    store.clear()
    assert store.version() == first + 2


def test_concepts_carry_a_kind_label_kept_in_sync(store: Neo4jStore, neo4j_driver: neo4j.Driver) -> None:
    store.upsert([record([], kind="METHOD")])
    assert labels_of(neo4j_driver, "c:gan") == ["Concept", "Method", "__KGNode__"]
    store.upsert([record([], kind="DATASET")])  # a more specific kind wins: the label follows
    assert labels_of(neo4j_driver, "c:gan") == ["Concept", "Dataset", "__KGNode__"]
    store.upsert([record([], kind="CONCEPT")])  # the generic kind loses (kg.core.merge): no change
    assert labels_of(neo4j_driver, "c:gan") == ["Concept", "Dataset", "__KGNode__"]
    store.upsert([record([], kind="MODEL")])
    assert labels_of(neo4j_driver, "c:gan") == ["Concept", "Model", "__KGNode__"]
    node = store.get_nodes(["c:gan"])[0]
    assert node is not None and node.label == "Concept"  # reads never show the kind label
    assert node.properties["kind"] == "MODEL"
    assert [n.id for n in store.nodes_by_label("Concept")] == ["c:gan"]
    assert store.counts().nodes["Concept"] == 1
