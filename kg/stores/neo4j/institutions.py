"""The institution graph on Neo4j (:mod:`kg.authors.institutions`): the same contract as
:mod:`kg.stores.sqlite.institutions` (see there for why the graph is replaced whole)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import neo4j

from kg.authors.institutions import SLOT_PROPERTY, graph_digest
from kg.core.models import Node, Relationship
from kg.stores.neo4j import queries as q
from kg.stores.neo4j.batch_writes import strip_internal
from kg.stores.neo4j.whole_graph import rel_properties

Tx = neo4j.ManagedTransaction | neo4j.Transaction
_N = q.NODE_LABEL
BATCH = 5_000


def affiliation_rows(tx: Tx) -> list[tuple[str, str, object, object]]:
    """See :meth:`kg.stores.protocol.GraphStore.affiliation_rows` (one collected row)."""
    text = (
        f"MATCH (a:{_N}:Author)-[r:AUTHORED]->(p:{_N}:Paper) WHERE r.{SLOT_PROPERTY} IS NOT NULL "
        f"WITH a.id AS author, p.id AS paper, p.year AS year, r.{SLOT_PROPERTY} AS entries "
        "ORDER BY author, paper RETURN collect([author, paper, year, entries]) AS rows"
    )
    record = tx.run(text).single()
    rows: list[list[Any]] = record["rows"] if record is not None else []
    return [(str(a), str(p), y, list(e)) for a, p, y, e in rows if e]


def digest(session: neo4j.Session) -> str:
    """See :meth:`kg.stores.protocol.GraphStore.institutions_digest`: the relationships (the bulk)
    read as the driver fetches them, a page at a time, never collected; the nodes (one per
    institution) first, as a list, since one session streams one result at a time. Internal
    properties left out as every read leaves them (``strip_internal``, ``rel_properties``)."""
    nodes = session.run(f"MATCH (i:{_N}:Institution) RETURN i.id AS id, properties(i) AS props")
    node_rows = [(str(r["id"]), strip_internal(r["props"])) for r in nodes]
    rels = session.run(
        f"MATCH (a:{_N})-[r:AFFILIATED_WITH]->(b:{_N}) "
        "RETURN a.id AS start, b.id AS end, properties(r) AS props"
    )
    return graph_digest(
        node_rows,
        ((str(r["start"]), str(r["end"]), rel_properties(r["props"])) for r in rels),
    )


def replace(tx: Tx, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
    """See :meth:`kg.stores.protocol.GraphStore.replace_institutions` (inside a transaction)."""
    tx.run(f"MATCH (i:{_N}:Institution) DETACH DELETE i").consume()
    node_rows = [{**n.properties, "id": n.id} for n in nodes]
    for i in range(0, len(node_rows), BATCH):
        tx.run(
            f"UNWIND $rows AS row CREATE (n:{_N}:Institution) SET n = row",
            {"rows": node_rows[i : i + BATCH]},
        ).consume()
    rel_rows = [[r.start, r.end, r.properties] for r in rels]
    for i in range(0, len(rel_rows), BATCH):
        tx.run(
            f"UNWIND $rows AS row MATCH (a:{_N} {{id: row[0]}}) MATCH (b:{_N} {{id: row[1]}}) "
            "CREATE (a)-[r:AFFILIATED_WITH]->(b) SET r = row[2]",
            {"rows": rel_rows[i : i + BATCH]},
        ).consume()
    stmt = q.bump_version()
    tx.run(stmt.text, stmt.params).consume()
