"""A concept decision applied to a store at once, by the same rewrite every ingest applies.

Why the same rewrite: ``kg curate merge-concepts`` on a built store and a fresh ingest with the
curations file must give the same graph (an identical ``kg export``). So the store's links of the
concepts a decision concerns are read back as records, one per paper (the links between concepts
ride on one of them), rewritten by :func:`kg.curation.concept_rewrite.apply_record` with every recorded
decision, and the difference is written: concepts merged away or hidden and links the rewrite
dropped or changed are removed (:meth:`kg.stores.protocol.GraphStore.remove_concepts`), the
links kept in keyphrase rows are rewritten by the same rule (``relink_keyphrases``), and the
rewritten records are upserted.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from kg.core.errors import KGError
from kg.core.models import Node, PaperRecord, Relationship, RelType, trusted_record
from kg.curation.concept_rewrite import CuratedConcept, plan, relink
from kg.curation.concept_rewrite import apply_record as curate_record
from kg.stores.protocol import Direction, PaperQuery, ReadStore

RelKey = tuple[str, str, str]
# The links of a concept a decision can change, read from the concept's side.
_SIDES: tuple[tuple[RelType, Direction], ...] = (
    ("MENTIONS", "in"),
    ("INTRODUCES", "in"),
    ("BROADER", "out"),
    ("BROADER", "in"),
)


class ConceptCurationError(KGError):
    """A concept decision that names no stored concept (the id and what was expected)."""


@dataclass(frozen=True)
class Applied:
    """What :func:`apply_now` changed."""

    removed: int
    cut: int
    written: int


def concepts(store: ReadStore, ids: Sequence[str]) -> list[Node]:
    """The stored Concept nodes of ``ids``; :class:`ConceptCurationError` for one that is none."""
    nodes = store.get_nodes(list(ids))
    out = []
    for cid, node in zip(ids, nodes, strict=True):
        if node is None or node.label != "Concept":
            raise ConceptCurationError(
                f"no Concept {cid!r} in the store (ids look like concept:graph-neural-network; "
                "see a concept's id in the API or `kg export`)"
            )
        out.append(node)
    return out


def names_of(node: Node) -> list[str]:
    """A concept's name and aliases, as the store shows them."""
    name = node.properties.get("name")
    aliases = node.properties.get("aliases")
    out = [name] if isinstance(name, str) else []
    if isinstance(aliases, list):
        out.extend(str(a) for a in aliases)
    return out


def apply_now(store: ReadStore, decision: CuratedConcept, recorded: Sequence[CuratedConcept]) -> Applied:
    """Change ``store`` as an ingest with ``recorded`` (which ends with ``decision``) would have."""
    concept_plan = plan(recorded)
    concerned = sorted(set(decision.ids))
    stored = [e.rel for side in _SIDES for edges in store.neighbors_many(concerned, *side) for e in edges]
    rels = {r.key: r for r in stored}
    by_paper: dict[str, list[Relationship]] = defaultdict(list)
    between: list[Relationship] = []
    for key in sorted(rels):
        r = rels[key]
        (by_paper[r.start] if r.type in ("MENTIONS", "INTRODUCES") else between).append(r)
    anchor = sorted(by_paper)[:1] or store.papers(PaperQuery(), 0, 1).ids
    if not anchor:
        return Applied(0, 0, 0)
    papers = sorted(set(by_paper) | set(anchor))
    paper_nodes = {n.id: n for n in store.get_nodes(papers) if n is not None}
    nodes = [n for n in store.get_nodes(concerned) if n is not None]
    records: list[PaperRecord] = []
    for pid in papers:
        if pid not in paper_nodes:
            continue
        first = pid == anchor[0]
        links = by_paper.get(pid, []) + (between if first else [])
        record = trusted_record(paper_nodes[pid], list(nodes) if first else [], links)
        records.append(curate_record(record, concept_plan))
    gone = sorted(c for c in concerned if concept_plan.to(c) != c or c in concept_plan.hidden)
    kept = {r.key: r for rec in records for r in rec.relationships}
    cut = sorted(
        key
        for key, r in rels.items()
        if key[0] not in gone
        and key[2] not in gone
        and (key not in kept or kept[key].properties != r.properties)
    )
    store.relink_keyphrases(concerned, lambda links: relink(links, concept_plan))
    store.remove_concepts(gone, cut)
    store.upsert(records)
    return Applied(len(gone), len(cut), len(records))
