"""One write plan for both stores: what an upsert batch changes, decided once.

Why: the embedded and the Neo4j store used to plan each batch with their own copy of the same
rules (read what the batch touches, merge with :mod:`kg.core.merge`, derive the ``COAUTHOR`` and
``CO_OCCURS`` pair changes of :mod:`kg.core.derived`, promote provisional concepts of
:mod:`kg.core.provisional`), and a rule fixed in one copy had to be found and fixed in the other.
Here the rules run once, over the stored state a backend hands in through :class:`StoredGraph`
(a few reads, each backend answering them its own fastest way), and the result is a
:class:`WritePlan`: the merged nodes and relationships with what is new or changed, the
batch's net pair-weight changes, the change of each concept's paper count, and the keyphrase
rows to keep or drop. Each store then only loads (its :class:`StoredGraph`) and applies the
plan in its own terms (SQL rows, ``UNWIND`` lists, import CSVs).

Pair weights are aggregated here, per batch: a pair bumped by many papers of the batch is one
delta, so a store applies each touched pair once, in key order.

A plan can also outlive one batch: the Neo4j bulk import (:mod:`kg.stores.neo4j.bulk_csv`)
merges a whole corpus into one plan, chunk after chunk, starting from an empty store.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from kg.core.derived import coauthor_pairs_allowed, cooccurs_changes, new_pairs, top_concepts
from kg.core.errors import GraphStoreError
from kg.core.merge import merge_properties
from kg.core.models import DERIVED_REL_TYPES, PaperRecord, Properties, UpsertSummary
from kg.core.provisional import Plan, Promotion, concept_ids, provisional_ids, without_phrase
from kg.core.provisional import plan as plan_provisional

RelKey = tuple[str, str, str]  # (start, type, end)
# concept id -> paper id -> (concept properties, MENTIONS properties): keyphrase rows
KeyphraseRows = dict[str, dict[str, tuple[Properties, Properties]]]
KeyphraseRow = tuple[str, str, Properties, Properties]  # (concept, paper, concept props, MENTIONS props)


class StoredGraph(Protocol):
    """The reads a plan makes of the stored graph, inside the batch's write transaction."""

    def read_nodes(self, ids: Sequence[str]) -> Iterable[tuple[str, str, Properties]]:
        """``(id, label, properties)`` of the stored nodes among ``ids`` (absent ones left out)."""
        ...

    def read_keyphrase_rows(self, concepts: Sequence[str]) -> Iterable[KeyphraseRow]:
        """``(concept, paper, concept properties, MENTIONS properties)`` kept for ``concepts``."""
        ...

    def read_relationships(
        self, keys: Sequence[RelKey], papers: Sequence[str], carriers: Sequence[str]
    ) -> Iterable[tuple[RelKey, Properties]]:
        """The stored relationships among ``keys`` (both ends stored), every ``AUTHORED`` into
        and ``MENTIONS`` out of ``papers``, and every ``MENTIONS`` out of ``carriers``. A backend
        may answer more (all of a paper's relationships): the plan keeps what it is given."""
        ...


def _score(props: Properties) -> float:
    value = props.get("score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def _about(props: Properties | None) -> int:
    """1 when a MENTIONS counts its paper as about the concept (no ``about`` counts: records from
    before salience existed), 0 otherwise or when there is no relationship."""
    return 0 if props is None or props.get("about") is False else 1


@dataclass
class WritePlan:
    """The merged state one batch (or a bulk load) touches, and what it changes.

    ``nodes``/``labels``/``rels``: every node and relationship read or merged, as they are after
    the batch; ``new_nodes``/``new_rels``: created (ordered sets); ``changed_nodes``: stored nodes
    whose properties changed, with their stored properties; ``changed_rels``: stored
    relationships whose properties changed; ``pair_deltas``: the net change of each derived
    pair's paper count; ``about_delta``: the change of each concept's "papers about it";
    ``keep``/``drop``: keyphrase rows to write, concepts whose rows go (:mod:`kg.core.provisional`).
    """

    nodes: dict[str, Properties] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    rels: dict[RelKey, Properties] = field(default_factory=dict)
    new_nodes: dict[str, None] = field(default_factory=dict)
    changed_nodes: dict[str, Properties] = field(default_factory=dict)
    new_rels: dict[RelKey, None] = field(default_factory=dict)
    changed_rels: dict[RelKey, None] = field(default_factory=dict)
    pair_deltas: Counter[RelKey] = field(default_factory=Counter)
    about_delta: Counter[str] = field(default_factory=Counter)
    keep: KeyphraseRows = field(default_factory=dict)
    drop: set[str] = field(default_factory=set)
    summary: UpsertSummary = field(default_factory=UpsertSummary)
    # papers whose authors and mentions are followed (the batch's and the promoted carriers)
    tracked: set[str] = field(default_factory=set)
    authors: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    mentions: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    # The input last merged into each node/relationship: merging is idempotent, so the same
    # input again (a shared author or concept in the next record) cannot change anything.
    last_input: dict[str | RelKey, Properties] = field(default_factory=dict)

    # -- what the store holds --------------------------------------------------------------------
    def know_node(self, node_id: str, label: str, props: Properties) -> None:
        self.nodes[node_id] = props
        self.labels[node_id] = label

    def know_rel(self, key: RelKey, props: Properties) -> None:
        self.rels[key] = props
        start, rtype, end = key
        if rtype == "AUTHORED" and end in self.tracked:
            self.authors[end].add(start)
        elif rtype == "MENTIONS" and start in self.tracked:
            self.mentions[start][end] = _score(props)

    # -- what to write ---------------------------------------------------------------------------
    @property
    def changes(self) -> bool:
        """Does the plan write anything (and so bump the store version)?"""
        return bool(
            self.new_nodes
            or self.changed_nodes
            or self.new_rels
            or self.changed_rels
            or any(self.pair_deltas.values())
            or self.keep
            or self.drop
        )

    def pair_changes(self) -> list[tuple[RelKey, int]]:
        """The non-zero pair deltas in key order (a pair gained and lost in one batch nets to
        nothing; key order keeps a store's B-tree writes local)."""
        return sorted((key, n) for key, n in self.pair_deltas.items() if n)

    def written_nodes(self) -> list[str]:
        """Created, then changed nodes."""
        return [*self.new_nodes, *(n for n in self.changed_nodes if n not in self.new_nodes)]

    # -- merging -----------------------------------------------------------------------------------
    def apply_provisional(self, plan: Plan) -> None:
        """Merge a batch rewritten by :func:`kg.core.provisional.plan`: its records, then the earlier
        carriers of the concepts it promotes (their papers must be known and tracked)."""
        self.tracked.update(r.paper.id for r in plan.records)
        for record in plan.records:
            self.apply(record, changed=record.paper.id in plan.changed_papers)
        for promotion in plan.promote:
            self._promote(promotion)
        for (cid, pid), rows in plan.keep.items():
            self.keep.setdefault(cid, {})[pid] = rows
        for cid in plan.drop:
            self.drop.add(cid)
            self.keep.pop(cid, None)

    def apply(self, record: PaperRecord, changed: bool = False) -> None:
        """Merge one record; ``changed``: its keyphrase rows changed (an update even if nothing
        else did)."""
        pid = record.paper.id
        existed = pid in self.nodes
        before_authors = set(self.authors[pid])
        before_top = top_concepts(self.mentions[pid].items())
        for node in itertools.chain([record.paper], record.nodes):
            changed |= self._merge_node(node.id, node.label, node.properties)
        for rel in record.relationships:
            changed |= self._merge_rel((rel.start, rel.type, rel.end), rel.properties)
        if coauthor_pairs_allowed(self.nodes[pid]):  # hyperauthored papers make no pairs
            for a, b in new_pairs(before_authors, self.authors[pid]):
                self.pair_deltas[(a, "COAUTHOR", b)] += 1
        self._bump_cooccurs(before_top, pid)
        if not existed:
            self.summary.added += 1
        elif changed:
            self.summary.updated += 1
        else:
            self.summary.unchanged += 1

    def _promote(self, promotion: Promotion) -> None:
        # The phrase is a node now: it leaves the paper's keyphrases, as if it had been one from
        # the start, so the order the papers came in does not show.
        cid, pid, node, rel, phrases, links = promotion
        paper = self.nodes.get(pid)
        promoted = without_phrase(paper, phrases) if paper is not None else None
        if paper is not None and promoted is not None:
            if pid not in self.new_nodes:
                self.changed_nodes.setdefault(pid, paper)
            self.nodes[pid] = promoted
            self.last_input.pop(pid, None)
        before_top = top_concepts(self.mentions[pid].items())
        self._merge_node(cid, "Concept", node)
        for link in links:  # its BROADER links, which the row kept (kg.core.provisional)
            for end in (link.start, link.end):
                if end not in self.nodes:
                    raise GraphStoreError(
                        f"the keyphrase row of concept {cid} (paper {pid}) links to unknown node "
                        f"{end}; nothing of this batch was written"
                    )
            self._merge_rel((link.start, link.type, link.end), link.properties)
        self._merge_rel((pid, "MENTIONS", cid), rel)
        self._bump_cooccurs(before_top, pid)

    def _bump_cooccurs(self, before: set[str], pid: str) -> None:
        for (a, b), n in cooccurs_changes(before, top_concepts(self.mentions[pid].items())):
            self.pair_deltas[(a, "CO_OCCURS", b)] += n

    def _merge_node(self, node_id: str, label: str, props: Properties) -> bool:
        # Most of a batch's node merges repeat an input (a vocabulary concept or an author
        # across its records): one dict comparison instead of a merge.
        if self.last_input.get(node_id) == props:
            return False
        self.last_input[node_id] = props
        old = self.nodes.get(node_id)
        merged = merge_properties(old or {}, props)  # also drops None values of a new node
        if old is not None and merged == old:
            return False
        if old is None:
            self.labels[node_id] = label
            self.new_nodes[node_id] = None
        elif node_id not in self.new_nodes:
            self.changed_nodes.setdefault(node_id, old)
        self.nodes[node_id] = merged
        return True

    def _merge_rel(self, key: RelKey, props: Properties) -> bool:
        if self.last_input.get(key) == props:
            return False
        self.last_input[key] = props
        old = self.rels.get(key)
        merged = merge_properties(old or {}, props)
        if old is not None and merged == old:
            return False
        if old is None:
            self.new_rels[key] = None
        elif key not in self.new_rels:
            self.changed_rels[key] = None
        self.know_rel(key, merged)
        if key[1] == "MENTIONS":
            # A concept's paper count changes by what this merge changed (kept by delta: a
            # recount would read every relationship of a popular concept in every batch).
            was, now = _about(old), _about(merged)
            if now != was:
                self.about_delta[key[2]] += now - was
        return True


def _record_ids(records: Iterable[PaperRecord]) -> list[str]:
    """Every node id the records name: papers, nodes and relationship ends."""
    ids: dict[str, None] = {}
    for r in records:
        ids[r.paper.id] = None
        ids.update((n.id, None) for n in r.nodes)
        for rel in r.relationships:
            ids[rel.start] = None
            ids[rel.end] = None
    return list(ids)


class _Reader:
    """The plan's reads of one batch: each node looked up once (the provisional plan and the
    batch state need mostly the same nodes)."""

    def __init__(self, graph: StoredGraph, plan: WritePlan) -> None:
        self.graph = graph
        self.plan = plan
        self.looked: set[str] = set()

    def nodes(self, ids: Iterable[str]) -> None:
        todo = [i for i in dict.fromkeys(ids) if i not in self.looked]
        self.looked.update(todo)
        if todo:
            for node_id, label, props in self.graph.read_nodes(todo):
                self.plan.know_node(node_id, label, props)


def check_relationships(records: Sequence[PaperRecord], known: dict[str, Properties]) -> None:
    """Refuse a batch with a derived relationship, or one that refers to a node neither in the
    batch nor in the store: nothing of it is written."""
    batch_ids = {n.id for r in records for n in itertools.chain([r.paper], r.nodes)}
    for r in records:
        for rel in r.relationships:
            if rel.type in DERIVED_REL_TYPES:
                raise GraphStoreError(f"{rel.type} relationships are derived by the store, not upserted")
            for end in (rel.start, rel.end):
                if end not in batch_ids and end not in known:
                    raise GraphStoreError(
                        f"relationship {rel.type} of paper {r.paper.id} refers to unknown node {end}; "
                        "nothing of this batch was written"
                    )


def plan_upsert(graph: StoredGraph, records: Sequence[PaperRecord]) -> WritePlan:
    """The plan of upserting ``records`` into the store ``graph`` reads.

    Only concepts that are not nodes can have keyphrase rows (a concept's rows are dropped in
    the transaction that makes it a node, and none are written for a node), so the rows are
    read for those alone: most concepts of a batch into a grown store are nodes.
    """
    out = WritePlan()
    reader = _Reader(graph, out)
    reader.nodes(_record_ids(records))
    existing = {i for i in provisional_ids(records) if i in out.nodes}
    stored: KeyphraseRows = {}
    absent = [c for c in concept_ids(records) if c not in out.nodes]
    if absent:
        for cid, pid, node, rel in graph.read_keyphrase_rows(absent):
            stored.setdefault(cid, {})[pid] = (node, rel)
    provisional = plan_provisional(records, existing, stored)
    carriers = [p.paper for p in provisional.promote]
    reader.nodes(
        [*carriers, *(end for p in provisional.promote for link in p.links for end in (link.start, link.end))]
    )
    check_relationships(provisional.records, out.nodes)
    papers = {r.paper.id for r in provisional.records}
    own = [p for p in dict.fromkeys(r.paper.id for r in provisional.records) if p in out.nodes]
    others = [p for p in dict.fromkeys(carriers) if p in out.nodes and p not in papers]
    out.tracked.update(papers, others)
    merged = (rel for r in provisional.records for rel in r.relationships)
    keys = [
        key
        for key in dict.fromkeys((rel.start, rel.type, rel.end) for rel in merged)
        if key[0] in out.nodes and key[2] in out.nodes
    ]
    for key, props in graph.read_relationships(keys, own, others):
        out.know_rel(key, props)
    out.apply_provisional(provisional)
    return out
