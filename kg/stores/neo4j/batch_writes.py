"""The Neo4j store's side of an upsert: the reads a write plan makes, and the plan as rows.

The rules (merging, derived pairs, provisional concepts) are in :mod:`kg.stores.write_plan`;
this module answers its :class:`~kg.stores.write_plan.StoredGraph` reads with ``UNWIND``
statements in the upsert's transaction (remembering each node's element id and stored map on
the way) and turns the plan into the plain-list rows of the write statements
(:mod:`kg.stores.neo4j.queries`). The bulk import (:mod:`kg.stores.neo4j.bulk_csv`) uses the
same property maps and keyphrase rows.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, TypeVar

from kg.core.errors import GraphStoreError
from kg.core.models import LABELS, Label, Properties
from kg.core.provisional import KEYPHRASES, phrase_key, row_about
from kg.stores.neo4j import queries as q
from kg.stores.neo4j.read_index import same_value
from kg.stores.write_plan import KeyphraseRow, RelKey, WritePlan

T = TypeVar("T")
Rows = Callable[[q.Statement], list[list[Any]]]  # run a statement, its collected ``rows``


def chunks(rows: list[T], size: int) -> Iterator[list[T]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


def strip_internal(props: dict[str, Any]) -> Properties:
    return {k: v for k, v in props.items() if k not in q.INTERNAL_NODE_PROPERTIES}


def label_of(labels: Sequence[str]) -> Label:
    for lb in labels:
        if lb in LABELS:
            return lb
    raise GraphStoreError(f"a paperkg node has none of the labels {', '.join(LABELS)}: {sorted(labels)}")


def db_node_properties(node_id: str, label: str, props: Properties) -> dict[str, Any]:
    """What Neo4j stores for a node: its properties, ``id`` and the internal fulltext fields."""
    row: dict[str, Any] = dict(props)
    row["id"] = node_id
    if label == "Concept":
        aliases = props.get("aliases")
        if isinstance(aliases, list) and aliases:
            row[q.ALIAS_TEXT] = " ".join(str(a) for a in aliases)
    elif label == "Paper":
        # its paper-only phrases (kg.core.provisional) as its aliases: search finds a paper by them
        phrases = props.get(KEYPHRASES)
        if isinstance(phrases, list) and phrases:
            row[q.ALIAS_TEXT] = " ".join(str(a) for a in phrases)
    return row


class StoredNodes:
    """:class:`kg.stores.write_plan.StoredGraph` in one transaction; also keeps what the writes
    need of the nodes it read: element ids (stable within the transaction only, cheaper than a
    second index seek per relationship end) and the stored maps with their internal keys."""

    def __init__(self, rows: Rows, statement_rows: int) -> None:
        self.rows = rows
        self.size = statement_rows
        self.eids: dict[str, str] = {}
        self.stored: dict[str, dict[str, Any]] = {}

    def read_nodes(self, ids: Sequence[str]) -> Iterator[tuple[str, str, Properties]]:
        for chunk in chunks(list(ids), self.size):
            for node_id, labels, props, eid in self.rows(q.nodes_by_id(chunk)):
                self.eids[node_id] = eid
                self.stored[node_id] = props
                yield node_id, label_of(labels), strip_internal(props)

    def read_keyphrase_rows(self, concepts: Sequence[str]) -> Iterator[KeyphraseRow]:
        for chunk in chunks(list(concepts), self.size):
            for cid, pid, node, rel in self.rows(q.keyphrases_of(chunk)):
                yield cid, pid, json.loads(node), json.loads(rel)

    def read_relationships(
        self, keys: Sequence[RelKey], papers: Sequence[str], carriers: Sequence[str]
    ) -> Iterator[tuple[RelKey, Properties]]:
        """Everything around ``papers``, the MENTIONS of ``carriers`` (a carrier outside the
        batch only gains a MENTIONS and its concept's links, whose concept is new), and the
        other ``keys`` (BROADER, SUBTOPIC_OF, ... away from the papers) by their ends' ids."""
        for build, ids in ((q.relationships_around, papers), (q.mentions_of, carriers)):
            for chunk in chunks(list(ids), self.size):
                for start, rtype, end, props, start_eid, end_eid in self.rows(build(chunk)):
                    self.eids[start] = start_eid
                    self.eids[end] = end_eid
                    yield (start, rtype, end), props
        around, mentioned = set(papers), set(carriers)
        by_type: dict[str, list[list[str]]] = defaultdict(list)
        for start, rtype, end in keys:
            if start in around or end in around or (rtype == "MENTIONS" and start in mentioned):
                continue
            by_type[rtype].append([self.eids[start], self.eids[end]])
        for rtype, pairs in by_type.items():
            for pair_chunk in chunks(pairs, self.size):
                for start, found_type, end, props in self.rows(q.relationships_by_key(rtype, pair_chunk)):
                    yield (start, found_type, end), props


def keyphrase_rows(plan: WritePlan) -> list[q.KeyphraseRow]:
    """The kept keyphrase rows with their lookup key and ``about`` (:mod:`kg.core.provisional`)."""
    return [
        q.KeyphraseRow(
            cid,
            pid,
            json.dumps(node, sort_keys=True),
            json.dumps(rel, sort_keys=True),
            phrase_key(node),
            row_about(rel),
        )
        for cid, by_paper in sorted(plan.keep.items())
        for pid, (node, rel) in sorted(by_paper.items(), key=lambda item: item[0])
    ]


def new_node_rows(plan: WritePlan) -> dict[tuple[str, str | None], list[dict[str, Any]]]:
    """Rows of the created nodes per ``(label, concept kind)``: a kind gets its own label."""
    groups: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
    for node_id in plan.new_nodes:
        lb, props = plan.labels[node_id], plan.nodes[node_id]
        kind = props.get("kind") if lb == "Concept" else None
        key = (lb, kind if isinstance(kind, str) and q.kind_label(kind) else None)
        groups[key].append(db_node_properties(node_id, lb, props))
    return groups


def relabel_ids(plan: WritePlan) -> dict[str | None, list[str]]:
    """Stored concepts whose kind label changed, per new kind."""
    groups: dict[str | None, list[str]] = defaultdict(list)
    for node_id, old in plan.changed_nodes.items():
        if plan.labels[node_id] != "Concept":
            continue
        kind = plan.nodes[node_id].get("kind")
        if q.kind_label(old.get("kind")) != q.kind_label(kind):
            groups[kind if isinstance(kind, str) else None].append(node_id)
    return groups


def node_changes(plan: WritePlan, stored: dict[str, dict[str, Any]]) -> list[list[Any]]:
    """Rows ``[id, {key: new value or None}]`` of the changed nodes: only the properties that
    differ from the stored node (the read index's own keys aside, which
    :func:`kg.stores.neo4j.read_index.update_read_index` keeps).

    Why not the whole map: a paper whose keyphrase was promoted changes one list, and
    rewriting its title, abstract and sort key made the server update their records and
    indexes at commit, for ~630 such papers per batch.
    """
    rows: list[list[Any]] = []
    for node_id in plan.changed_nodes:
        new = db_node_properties(node_id, plan.labels[node_id], plan.nodes[node_id])
        old = {k: v for k, v in stored[node_id].items() if k not in q.READ_INDEX_PROPERTIES}
        changes: dict[str, Any] = {k: v for k, v in new.items() if not same_value(old.get(k), v)}
        changes.update((k, None) for k in old if k not in new)  # SET n += {k: null} removes k
        if changes:
            rows.append([node_id, changes])
    return rows


def rel_rows(plan: WritePlan, keys: Iterable[RelKey], eids: dict[str, str]) -> dict[str, list[list[Any]]]:
    """Rows ``[start eid, end eid, properties]`` of ``keys`` per type."""
    by_type: dict[str, list[list[Any]]] = defaultdict(list)
    for key in keys:
        by_type[key[1]].append([eids[key[0]], eids[key[2]], plan.rels[key]])
    return by_type


def pair_rows(
    plan: WritePlan, eids: dict[str, str]
) -> tuple[dict[str, list[list[Any]]], dict[str, list[list[Any]]]]:
    """Pair deltas as ``(new, existing)`` rows ``[start eid, end eid, delta, key]`` per type.

    A pair with a node created in this batch cannot have a relationship yet: it is created
    outright. The others may exist and are looked up by their indexed key.
    """
    new: dict[str, list[list[Any]]] = defaultdict(list)
    maybe: dict[str, list[list[Any]]] = defaultdict(list)
    fresh = plan.new_nodes
    for (a, rtype, b), n in plan.pair_changes():
        row = [eids[a], eids[b], n, q.pair_key(a, b)]
        (new if a in fresh or b in fresh else maybe)[rtype].append(row)
    return new, maybe


def paper_delta(plan: WritePlan) -> dict[str, int]:
    """How the batch changed the read index's ``_papers``: each concept's papers about it and
    each author's papers (a new AUTHORED)."""
    delta: dict[str, int] = defaultdict(int)
    delta.update(plan.about_delta)
    for start, rtype, _end in plan.new_rels:
        if rtype == "AUTHORED":
            delta[start] += 1
    return delta
