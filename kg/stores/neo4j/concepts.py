"""Concept curation's store operation on Neo4j: remove concepts and links, derived values kept.

The same contract as :mod:`kg.stores.sqlite.concepts` (see there for why this is not part of the
upsert). One write transaction under the writer lock; ``CO_OCCURS`` pairs follow each touched
paper's top concepts before and after (:func:`kg.core.derived.cooccurs_changes`), and the read index
of every touched concept (``_papers``) is recomputed from the stored state at the end
(:func:`kg.stores.neo4j.read_index.index_nodes`).
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

import neo4j

from kg.core.derived import cooccurs_deltas
from kg.core.provisional import relinked_row
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.read_index import index_nodes

Tx = neo4j.ManagedTransaction | neo4j.Transaction
_N = q.NODE_LABEL
RelKey = tuple[str, str, str]
_LINK_TYPES = ("MENTIONS", "INTRODUCES", "BROADER")


def _run(tx: Tx, text: str, **params: Any) -> list[Any]:
    return list(tx.run(text, params))


def _score(value: object) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def remove(tx: Tx, concepts: Sequence[str], links: Sequence[RelKey]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.remove_concepts`; True when anything changed."""
    gone = sorted(
        r["id"]
        for r in _run(
            tx,
            f"UNWIND $ids AS id MATCH (c:{_N}:Concept {{id: id}}) RETURN c.id AS id",
            ids=sorted(set(concepts)),
        )
    )
    removed = set(gone)
    wanted = sorted(
        k for k in set(links) if k[1] in _LINK_TYPES and k[0] not in removed and k[2] not in removed
    )
    cut: list[RelKey] = []
    for rel_type in _LINK_TYPES:
        rows = [[s, e] for s, t, e in wanted if t == rel_type]
        if rows:
            cut.extend(
                (r["s"], rel_type, r["e"])
                for r in _run(
                    tx,
                    f"UNWIND $rows AS row MATCH (a:{_N} {{id: row[0]}})-[:{rel_type}]->"
                    f"(b:{_N} {{id: row[1]}}) RETURN DISTINCT a.id AS s, b.id AS e",
                    rows=rows,
                )
            )
    if not gone and not cut:
        return False
    papers = {k[0] for k in cut if k[1] == "MENTIONS"}
    papers.update(
        r["id"]
        for r in _run(
            tx,
            f"UNWIND $ids AS id MATCH (p:{_N}:Paper)-[:MENTIONS]->(:{_N} {{id: id}}) "
            "RETURN DISTINCT p.id AS id",
            ids=gone,
        )
    )
    mentions: dict[str, dict[str, float]] = defaultdict(dict)
    for r in _run(
        tx,
        f"UNWIND $ids AS id MATCH (p:{_N}:Paper {{id: id}})-[m:MENTIONS]->(c:{_N}) "
        "RETURN p.id AS paper, c.id AS concept, m.score AS score",
        ids=sorted(papers),
    ):
        mentions[r["paper"]][r["concept"]] = _score(r["score"])
    cut_mentions = {(k[0], k[2]) for k in cut if k[1] == "MENTIONS"}
    deltas = cooccurs_deltas({pid: mentions[pid] for pid in papers}, removed, cut_mentions)
    touched: set[str] = {a for pair in deltas for a in pair} | {k[2] for k in cut}
    touched.update(
        r["id"]
        for r in _run(
            tx,
            f"UNWIND $ids AS id MATCH (:{_N} {{id: id}})-[:CO_OCCURS]-(o:{_N}) RETURN DISTINCT o.id AS id",
            ids=gone,
        )
    )
    touched -= removed
    for rel_type in _LINK_TYPES:
        rows = [[s, e] for s, t, e in cut if t == rel_type]
        if rows:
            _run(
                tx,
                f"UNWIND $rows AS row MATCH (a:{_N} {{id: row[0]}})-[r:{rel_type}]->"
                f"(b:{_N} {{id: row[1]}}) DELETE r",
                rows=rows,
            )
    bump = q.add_pair_papers("CO_OCCURS", deltas)
    if bump is not None:
        _run(tx, bump.text, **bump.params)
    if gone:
        stmt = rq.delete_keys(gone)
        tx.run(stmt.text, stmt.params).consume()
        _run(tx, f"UNWIND $ids AS id MATCH (c:{_N} {{id: id}}) DETACH DELETE c", ids=gone)
    index_nodes(tx, sorted(touched))
    stmt = q.bump_version()
    tx.run(stmt.text, stmt.params).consume()
    return True


def relink(tx: Tx, concept_ids: Sequence[str], fn: Callable[[list[str]], list[str]]) -> bool:
    """See :meth:`kg.stores.protocol.GraphStore.relink_keyphrases`; True when a row changed."""
    ids = sorted(set(concept_ids))
    if not ids:
        return False
    rows = []
    for r in _run(
        tx,
        f"MATCH (k:{q.KEYPHRASE_LABEL}) WHERE any(id IN $ids WHERE k.node CONTAINS id) "
        "RETURN k.id AS id, k.node AS node",
        ids=ids,
    ):
        changed = relinked_row(json.loads(r["node"]), ids, fn)
        if changed is not None:
            rows.append([r["id"], json.dumps(changed, sort_keys=True)])
    if rows:
        _run(
            tx,
            f"UNWIND $rows AS row MATCH (k:{q.KEYPHRASE_LABEL} {{id: row[0]}}) SET k.node = row[1]",
            rows=rows,
        )
        stmt = q.bump_version()
        tx.run(stmt.text, stmt.params).consume()
    return bool(rows)
