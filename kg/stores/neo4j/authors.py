"""Author resolution's two store operations on Neo4j: read stored slots, re-point them.

The same contract as :mod:`kg.stores.sqlite.authors` (see there for why these are not part of
the upsert). Re-pointing runs in one write transaction under the writer lock; the read index of
every touched Author (keys, ``_papers``) is recomputed from the stored state at the end
(:func:`kg.stores.neo4j.read_index.index_nodes`), and derived ``COAUTHOR`` pairs are adjusted
by the same before/after rule the upsert uses.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

import neo4j

from kg.core.derived import coauthor_deltas, coauthor_pairs_allowed
from kg.core.merge import merge_properties
from kg.core.models import Properties
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.read_index import AUTHOR_PREFIX, index_nodes
from kg.stores.protocol import AuthorMove, StoredSlot

Tx = neo4j.ManagedTransaction | neo4j.Transaction
_N = q.NODE_LABEL


def _run(tx: Tx, text: str, **params: Any) -> list[Any]:
    return list(tx.run(text, params))


def slots_query(name_keys: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """The Cypher of :func:`author_slots` (one row per stored slot)."""
    text = (
        f"UNWIND $keys AS key MATCH (:{rq.KEY_LABEL} {{key: key}})-[:{rq.KEY_OF}]->(a:{_N}:Author) "
        "WITH DISTINCT a MATCH (a)-[r:AUTHORED]->(p:Paper) "
        "OPTIONAL MATCH (p)-[:PUBLISHED_IN]->(v:Venue) "
        "WITH a, r, p, collect(v.series)[0] AS series "
        "CALL (p, a) { MATCH (o:Author)-[ro:AUTHORED]->(p) WHERE o <> a "
        "RETURN collect([coalesce(ro.position, 0), coalesce(ro.name, o.name, '')]) AS others } "
        "RETURN a.id AS author, p.id AS paper, properties(r) AS props, p.year AS year, series, others "
        "ORDER BY author, paper"
    )
    return text, {"keys": sorted({AUTHOR_PREFIX + k for k in name_keys})}


def author_slots(tx: Tx, name_keys: Sequence[str]) -> list[StoredSlot]:
    """See :meth:`kg.stores.protocol.GraphStore.author_slots`."""
    text, params = slots_query(name_keys)
    out = []
    for row in tx.run(text, params):
        year = row["year"]
        others = tuple(sorted((int(pos), str(name)) for pos, name in row["others"]))
        out.append(
            StoredSlot(
                row["author"],
                row["paper"],
                dict(row["props"]),
                int(year) if isinstance(year, int) else None,
                None if row["series"] is None else str(row["series"]),
                others,
            )
        )
    return out


def reassign(tx: Tx, moves: Sequence[AuthorMove], nodes: dict[str, Properties]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.reassign_authors`; True when anything changed."""
    touched: set[str] = set()
    changed = _set_nodes(tx, nodes, touched)
    papers = sorted({m.paper for m in moves})
    before: dict[str, set[str]] = defaultdict(set)
    allowed: dict[str, bool] = {}
    for row in _run(
        tx,
        f"UNWIND $ids AS id MATCH (p:{_N}:Paper {{id: id}}) "
        "OPTIONAL MATCH (a:Author)-[:AUTHORED]->(p) RETURN p.id AS paper, properties(p) AS props, "
        "collect(a.id) AS authors",
        ids=papers,
    ):
        before[row["paper"]] = set(row["authors"])
        allowed[row["paper"]] = coauthor_pairs_allowed(row["props"])
    after = {p: set(a) for p, a in before.items()}
    for move in sorted(set(moves)):
        if move.old == move.new:
            continue
        found = _run(
            tx,
            f"MATCH (o:{_N} {{id: $old}})-[r:AUTHORED]->(p:{_N} {{id: $paper}}) "
            "WITH o, r, p, properties(r) AS props DELETE r RETURN props",
            old=move.old,
            paper=move.paper,
        )
        if not found:
            continue
        props: Properties = dict(found[0]["props"])
        existing = _run(
            tx,
            f"MATCH (n:{_N} {{id: $new}})-[r:AUTHORED]->(p:{_N} {{id: $paper}}) "
            "RETURN properties(r) AS props",
            new=move.new,
            paper=move.paper,
        )
        if existing:
            props = merge_properties(dict(existing[0]["props"]), props)
            _run(
                tx,
                f"MATCH (n:{_N} {{id: $new}})-[r:AUTHORED]->(p:{_N} {{id: $paper}}) SET r = $props",
                new=move.new,
                paper=move.paper,
                props=props,
            )
        else:
            _run(
                tx,
                f"MATCH (n:{_N} {{id: $new}}) MATCH (p:{_N} {{id: $paper}}) "
                "CREATE (n)-[r:AUTHORED]->(p) SET r = $props",
                new=move.new,
                paper=move.paper,
                props=props,
            )
        after[move.paper].discard(move.old)
        after[move.paper].add(move.new)
        touched.update((move.old, move.new))
        changed = True
    pairs = coauthor_deltas(papers, before, after, allowed)
    bump = q.add_pair_papers("COAUTHOR", pairs)
    if bump is not None:
        _run(tx, bump.text, **bump.params)
    gone = [
        r["id"]
        for r in _run(
            tx,
            f"UNWIND $ids AS id MATCH (a:{_N}:Author {{id: id}}) WHERE NOT EXISTS {{ (a)-[:AUTHORED]->() }} "
            "RETURN a.id AS id",
            ids=sorted(touched),
        )
    ]
    if gone:
        stmt = rq.delete_keys(gone)
        tx.run(stmt.text, stmt.params).consume()
        _run(tx, f"UNWIND $ids AS id MATCH (a:{_N} {{id: id}}) DETACH DELETE a", ids=gone)
    index_nodes(tx, sorted(touched - set(gone)))
    if changed:
        stmt = q.bump_version()
        tx.run(stmt.text, stmt.params).consume()
    return changed


def _set_nodes(tx: Tx, nodes: dict[str, Properties], touched: set[str]) -> bool:
    """Authors set to exactly ``nodes`` (created when missing); True when any changed."""
    if not nodes:
        return False
    stored = {
        r["id"]: {k: v for k, v in dict(r["props"]).items() if k not in q.INTERNAL_NODE_PROPERTIES}
        for r in _run(
            tx,
            f"UNWIND $ids AS id MATCH (n:{_N} {{id: id}}) RETURN n.id AS id, properties(n) AS props",
            ids=sorted(nodes),
        )
    }
    create: list[dict[str, Any]] = []
    update: list[tuple[str, dict[str, Any]]] = []
    for nid in sorted(nodes):
        props = nodes[nid]
        if nid not in stored:
            create.append({**props, "id": nid})
        elif stored[nid] != props:
            removed: dict[str, Any] = {k: None for k in stored[nid] if k not in props}
            update.append((nid, {**props, **removed}))
    if create:
        stmt = q.create_nodes("Author", create)
        tx.run(stmt.text, stmt.params).consume()
    if update:
        stmt = q.update_node_properties(update)
        tx.run(stmt.text, stmt.params).consume()
    touched.update(str(r["id"]) for r in create)
    touched.update(nid for nid, _ in update)
    return bool(create or update)
