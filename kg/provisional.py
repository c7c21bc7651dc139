"""Provisional concepts: a discovered phrase earns a Concept node only once two papers carry it.

Why: most phrases discovered in one abstract ("greater flexibility", "called mu layer") are never
seen again; as nodes they were 85% of the concept graph. The extractor marks such concepts
``provisional: true`` (see README, "Record contract"). Until a second paper of the store carries
the same concept id, the phrase is kept aside as a *keyphrase row* (the concept's properties and
the paper's MENTIONS properties) and its name in the paper's ``keyphrases`` property; when the
second paper arrives, in any order and in any later ingest, the node is created with the
MENTIONS of every paper that carried it, and the keyphrase rows go. A concept that already is a
node (curated, or promoted earlier) is simply linked.

This module is the rule, shared by both stores so they give the same graph; each store keeps
the rows its own way (a SQLite table, Neo4j ``KGKeyphrase`` nodes) and passes what it holds to
:func:`plan`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from kg.merge import merge_properties
from kg.models import Node, PaperRecord, Properties

PROVISIONAL = "provisional"
KEYPHRASES = "keyphrases"
# concept id -> paper id -> (concept properties, MENTIONS properties), as a store keeps them
Stored = Mapping[str, Mapping[str, tuple[Properties, Properties]]]


@dataclass
class Plan:
    """What the batch does with provisional concepts.

    ``records``: the batch with hidden concepts taken out; ``keep``: keyphrase rows to write,
    by ``(concept, paper)``; ``promote``: stored rows that become MENTIONS of a new node;
    ``drop``: concepts whose rows go; ``changed_papers``: papers whose rows changed (an update).
    """

    records: list[PaperRecord]
    keep: dict[tuple[str, str], tuple[Properties, Properties]] = field(default_factory=dict)
    promote: list[tuple[str, str, Properties, Properties]] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)
    changed_papers: set[str] = field(default_factory=set)


def _is_provisional(node: Node) -> bool:
    return node.label == "Concept" and node.properties.get(PROVISIONAL) is True


def _stripped(props: Properties) -> Properties:
    return {k: v for k, v in props.items() if k != PROVISIONAL}


def provisional_ids(records: Sequence[PaperRecord]) -> list[str]:
    """The ids of the batch's provisional concepts: what a store must look up for :func:`plan`."""
    return sorted({n.id for r in records for n in r.nodes if _is_provisional(n)})


def concept_ids(records: Sequence[PaperRecord]) -> list[str]:
    """Every concept id of the batch: what a store must look up keyphrase rows for, since a
    concept that arrives as a regular node (curated, defined, introduced) promotes them too."""
    return sorted({n.id for r in records for n in r.nodes if n.label == "Concept"})


def plan(records: Sequence[PaperRecord], existing: Collection[str], stored: Stored) -> Plan:
    """Rewrite the batch: provisional concepts become nodes when they have earned it, keyphrase
    rows otherwise.

    Args:
        records: the batch.
        existing: which of :func:`provisional_ids` are nodes already.
        stored: the keyphrase rows the store holds for the batch's :func:`concept_ids`.
    """
    carriers: dict[str, set[str]] = {}
    solid: set[str] = set()  # concepts that are nodes in this batch whatever the rule says
    for r in records:
        for n in r.nodes:
            if _is_provisional(n):
                carriers.setdefault(n.id, set()).add(r.paper.id)
            elif n.label == "Concept":
                solid.add(n.id)
    if not carriers and not solid & set(stored):
        return Plan(list(records))
    visible = {
        cid
        for cid in carriers
        if cid in existing or cid in solid or len(carriers[cid] | set(stored.get(cid, {}))) >= 2
    }
    visible |= solid & set(stored)  # a regular node now: its earlier keyphrase carriers link to it
    out = Plan([])
    for cid in visible:
        for pid, (node_props, rel_props) in sorted(stored.get(cid, {}).items()):
            out.promote.append((cid, pid, node_props, rel_props))
        if cid in stored:
            out.drop.add(cid)
    for r in records:
        hidden = {n.id: n for n in r.nodes if _is_provisional(n) and n.id not in visible}
        if not hidden and not any(_is_provisional(n) for n in r.nodes):
            out.records.append(r)  # nothing provisional: the record as it came (no copies)
            continue
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


def without_phrase(paper: Properties, name: object) -> Properties | None:
    """The paper's properties once the phrase ``name`` is a node (``None`` if it was not kept).

    Promotion makes the paper look as if the concept had been a node from the start, so the
    order the papers came in does not show.
    """
    phrases = paper.get(KEYPHRASES)
    if not isinstance(phrases, list) or name not in phrases:
        return None
    kept = [str(x) for x in phrases if x != name]
    out = {k: v for k, v in paper.items() if k != KEYPHRASES}
    if kept:
        out[KEYPHRASES] = kept
    return out
