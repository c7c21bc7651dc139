"""The plans the Neo4j server makes for the upsert's element-id writes, against a real server.

Why: these statements replaced ones that found each node by an id-index seek (with an
index-entry lock) behind an ``Eager`` barrier (``MATCH (n {id: ...}) SET n += map``: the map
could rewrite ``id``). The speed-up rests on the planner choosing a record lookup by element id
and, for the property updates, no barrier; that is what is checked, on ``EXPLAIN`` (nothing runs).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import neo4j
import pytest

from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.queries import Statement
from kg.stores.neo4j.store import Neo4jStore


@pytest.fixture
def driver(neo4j_driver: neo4j.Driver) -> Iterator[neo4j.Driver]:
    Neo4jStore(neo4j_driver).close()  # the schema (indexes the planner could prefer) is in place
    yield neo4j_driver


def operators(driver: neo4j.Driver, stmt: Statement) -> list[str]:
    summary = driver.execute_query(f"EXPLAIN {stmt.text}", stmt.params).summary
    found: list[str] = []

    def walk(plan: Any) -> None:
        found.append(str(plan["operatorType"]).split("@")[0])
        for child in plan.get("children", []):
            walk(child)

    assert summary.plan is not None
    walk(summary.plan)
    return found


@pytest.mark.parametrize(
    ("stmt", "seeks", "barriers"),
    [
        (q.update_node_properties_by_eid([["4:x:1", {"title": "T"}]]), 0, 0),
        # the index seek left is the MERGE of a key node by its key, and MERGE-then-CREATE keeps
        # the server's barriers (two, as in the id form): only the node's own seek changed
        (rq.set_index_by_eid([{"eid": "4:x:1", "props": {"_sortKey": "k"}, "keys": [["k", 0, "r"]]}]), 1, 2),
        (rq.add_paper_counts_by_eid([["4:x:1", 1]]), 0, 0),
        (q.relabel_concepts_by_eid("METHOD", ["4:x:1"]), 0, 0),
    ],
    ids=["node properties", "read index", "paper counts", "kind labels"],
)
def test_element_id_writes_seek_by_element_id(
    driver: neo4j.Driver, stmt: Statement, seeks: int, barriers: int
) -> None:
    ops = operators(driver, stmt)
    assert "NodeByElementIdSeek" in ops, ops
    assert ops.count("Eager") == barriers, ops
    assert sum(op.startswith("NodeUniqueIndexSeek") for op in ops) == seeks, ops
    assert not any(op.startswith(("AllNodesScan", "NodeByLabelScan")) for op in ops), ops


def test_the_id_keyed_update_it_replaced_had_the_barrier(driver: neo4j.Driver) -> None:
    """The reason for the change, kept honest: if a server version drops the barrier, the id
    form is as good and this test says so."""
    ops = operators(driver, q.update_node_properties([["p:1", {"title": "T"}]]))
    assert "Eager" in ops and any(op.startswith("NodeUniqueIndexSeek") for op in ops), ops
