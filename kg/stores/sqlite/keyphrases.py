"""Provisional concepts: a discovered phrase earns a Concept node only once two papers carry it.

Why: most phrases discovered in one abstract ("greater flexibility", "called mu layer") are never
seen again; as nodes they were 85% of the concept graph. The extractor marks such concepts
``provisional: true`` (see README, "Record contract"). Until a second paper of the store carries
the same concept id, the phrase is kept in the ``keyphrases`` table (the concept's properties
and the paper's MENTIONS properties) and its name in the paper's ``keyphrases`` property; when
the second paper arrives, in any order and in any later ingest, the node is created with the
MENTIONS of every paper that carried it, and the keyphrase rows go. A concept that already is a
node (curated, or promoted earlier) is simply linked.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field

from kg.merge import merge_properties
from kg.models import Node, PaperRecord, Properties
from kg.stores.sqlite import schema
from kg.stores.sqlite.reads import chunked

PROVISIONAL = "provisional"
KEYPHRASES = "keyphrases"


@dataclass
class Plan:
    """What the batch does with provisional concepts."""

    records: list[PaperRecord]
    keep: dict[tuple[str, str], tuple[Properties, Properties]] = field(default_factory=dict)
    promote: list[tuple[str, str, Properties, Properties]] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)
    changed_papers: set[str] = field(default_factory=set)


def _is_provisional(node: Node) -> bool:
    return node.label == "Concept" and node.properties.get(PROVISIONAL) is True


def _stripped(props: Properties) -> Properties:
    return {k: v for k, v in props.items() if k != PROVISIONAL}


def plan(c: sqlite3.Connection, records: Sequence[PaperRecord]) -> Plan:
    """Rewrite the batch: provisional concepts become nodes when they have earned it, keyphrase
    rows otherwise."""
    carriers: dict[str, set[str]] = {}
    for r in records:
        for n in r.nodes:
            if _is_provisional(n):
                carriers.setdefault(n.id, set()).add(r.paper.id)
    if not carriers:
        return Plan(list(records))
    ids = sorted(carriers)
    existing: set[str] = set()
    stored: dict[str, dict[str, tuple[Properties, Properties]]] = {}
    for chunk in chunked(ids):
        marks = ",".join("?" * len(chunk))
        existing.update(row[0] for row in c.execute(f"SELECT id FROM nodes WHERE id IN ({marks})", chunk))
        for cid, pid, node, rel in c.execute(
            f"SELECT concept_id, paper_id, node, rel FROM keyphrases WHERE concept_id IN ({marks})", chunk
        ):
            stored.setdefault(cid, {})[pid] = (schema.loads(node), schema.loads(rel))
    visible = {cid for cid in ids if cid in existing or len(carriers[cid] | set(stored.get(cid, {}))) >= 2}
    out = Plan([])
    for cid in visible:
        for pid, (node, rel) in sorted(stored.get(cid, {}).items()):
            out.promote.append((cid, pid, node, rel))
        if cid in stored:
            out.drop.add(cid)
    for r in records:
        hidden = {n.id: n for n in r.nodes if _is_provisional(n) and n.id not in visible}
        if not hidden:
            nodes = [
                n.model_copy(update={"properties": _stripped(n.properties)}) if _is_provisional(n) else n
                for n in r.nodes
            ]
            out.records.append(r.model_copy(update={"nodes": nodes}))
            continue
        rels = [rel for rel in r.relationships if rel.end not in hidden and rel.start not in hidden]
        for rel in r.relationships:
            if rel.end in hidden and rel.type == "MENTIONS":
                key = (rel.end, r.paper.id)
                old = stored.get(rel.end, {}).get(r.paper.id) or out.keep.get(key)
                node = _stripped(hidden[rel.end].properties)
                merged = (
                    merge_properties(old[0], node) if old else merge_properties({}, node),
                    merge_properties(old[1], rel.properties) if old else merge_properties({}, rel.properties),
                )
                if old != merged:
                    out.keep[key] = merged
                    out.changed_papers.add(r.paper.id)
        names = sorted({str(n.properties.get("name") or n.id) for n in hidden.values()})
        paper_props = {**r.paper.properties, KEYPHRASES: names}
        nodes = [
            n.model_copy(update={"properties": _stripped(n.properties)}) if _is_provisional(n) else n
            for n in r.nodes
            if n.id not in hidden
        ]
        out.records.append(
            r.model_copy(
                update={
                    "paper": r.paper.model_copy(update={"properties": paper_props}),
                    "nodes": nodes,
                    "relationships": rels,
                }
            )
        )
    return out


def write(c: sqlite3.Connection, p: Plan) -> None:
    """Apply the keyphrase-table side of a plan (inside the batch's transaction)."""
    c.executemany(
        "INSERT OR REPLACE INTO keyphrases (concept_id, paper_id, node, rel) VALUES (?,?,?,?)",
        [(cid, pid, schema.dumps(node), schema.dumps(rel)) for (cid, pid), (node, rel) in p.keep.items()],
    )
    c.executemany("DELETE FROM keyphrases WHERE concept_id = ?", [(cid,) for cid in sorted(p.drop)])
