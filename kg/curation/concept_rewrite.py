"""Concept curations as a rewrite of each record before it is written.

Why a rewrite of records and not of the store alone: the store is rebuilt from the listings (a
fresh store, another file order), so a user's decision about a concept must shape every record
that carries it, or the next ingest brings the concept back. The store is changed at once too
(:mod:`kg.curation.concept_apply`), and both paths give the same graph because both end in the same
relationships chosen by the same rule (:func:`winner`).

The three verbs (recorded by :mod:`kg.curation.decisions`, applied in file order):

- ``merge-concepts KEEP OTHER...``: every node, ``MENTIONS``, ``INTRODUCES`` and ``BROADER`` of
  an other concept is the kept one's; the others' names become the kept concept's aliases. Two
  links that become one (a paper mentioning both) keep the one :func:`winner` picks.
- ``hide-concept ID``: the concept and every link to it are left out.
- ``place-concept ID PARENT``: the concept's ``BROADER`` links are replaced by one to ``PARENT``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import orjson

from kg.core.merge import merge_properties
from kg.core.models import Node, PaperRecord, Properties, Relationship, trusted_node, trusted_record
from kg.core.provisional import link_text, parse_link

RelKey = tuple[str, str, str]

MERGE, HIDE, PLACE = "merge-concepts", "hide-concept", "place-concept"
CONCEPT_VERBS = (MERGE, HIDE, PLACE)


class CuratedConcept(Protocol):
    """What a concept curation needs of one decision (``kg.curation.decisions.Curation`` has these)."""

    @property
    def verb(self) -> str: ...
    @property
    def ids(self) -> tuple[str, ...]: ...
    @property
    def name(self) -> str | None: ...
    @property
    def aliases(self) -> tuple[str, ...]: ...


@dataclass
class ConceptPlan:
    """The concept decisions of a curations file, resolved: what each record rewrite applies.

    ``root``: merged concept -> the concept it now is; ``extra``: properties a kept concept's
    node gets (its name, the merged names as aliases); ``hidden``: concepts left out;
    ``placed``: concept -> its one parent, with the parent's node properties.
    """

    root: dict[str, str] = field(default_factory=dict)
    extra: dict[str, Properties] = field(default_factory=dict)
    hidden: frozenset[str] = frozenset()
    placed: dict[str, tuple[str, Properties]] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.root or self.hidden or self.placed or self.extra)

    def to(self, node_id: str) -> str:
        return self.root.get(node_id, node_id)


def plan(curations: Iterable[CuratedConcept]) -> ConceptPlan:
    """The :class:`ConceptPlan` of the decisions, in order (later decisions see earlier merges).

    >>> class C:
    ...     def __init__(self, verb, ids, name=None, aliases=()):
    ...         self.verb, self.ids, self.name, self.aliases = verb, ids, name, aliases
    >>> first = C("merge-concepts", ("c:a", "c:b"), "A", ("B",))
    >>> p = plan([first, C("merge-concepts", ("c:c", "c:a"), "C", ("A",))])
    >>> p.to("c:b"), p.to("c:a"), p.extra["c:c"]["aliases"]
    ('c:c', 'c:c', ['A', 'B'])
    """
    parent: dict[str, str] = {}
    names: dict[str, str] = {}
    aliases: dict[str, set[str]] = defaultdict(set)
    hidden: list[str] = []
    placed: list[tuple[str, str, str | None]] = []

    def find(x: str) -> str:
        while x in parent:
            x = parent[x]
        return x

    for c in curations:
        if c.verb == MERGE:
            keep = find(c.ids[0])
            if c.name:
                names[keep] = c.name
            for other in c.ids[1:]:
                o = find(other)
                if o == keep:
                    continue
                parent[o] = keep
                aliases[keep] |= aliases.pop(o, set())
                if o in names:
                    aliases[keep].add(names.pop(o))
            aliases[keep].update(c.aliases)
        elif c.verb == HIDE:
            hidden.append(c.ids[0])
        elif c.verb == PLACE:
            placed.append((c.ids[0], c.ids[1], c.name))
    out = ConceptPlan()
    out.root = {x: find(x) for x in sorted(parent)}
    out.hidden = frozenset(find(h) for h in hidden)
    for keep in sorted(set(out.root.values())):
        props: Properties = {"aliases": sorted(aliases.get(keep, set()) - {names.get(keep, "")})}
        if keep in names:
            props["name"] = names[keep]
        out.extra[keep] = props
    for child, parent_id, parent_name in placed:
        below, above = find(child), find(parent_id)
        if below == above or above in out.hidden:
            continue
        name = names.get(above, parent_name)
        out.placed[below] = (above, {"name": name} if name else {})
    return out


_SORTED = orjson.OPT_SORT_KEYS


def _score(props: Properties) -> float:
    value = props.get("score")
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def winner(rels: Sequence[Relationship]) -> Relationship:
    """Of links that became one (same start, type and end), the one kept: the highest
    ``score``, then the greatest property map as sorted JSON. A total order, so the pick does
    not depend on the order the links were seen in, nor on which were merged first."""
    return max(
        rels, key=lambda r: (_score(r.properties), orjson.dumps(r.properties, option=orjson.OPT_SORT_KEYS))
    )


def apply_record(record: PaperRecord, concept_plan: ConceptPlan) -> PaperRecord:
    """``record`` with the concept decisions applied (the record itself when none concerns it)."""
    if not concept_plan:
        return record
    to, hidden, placed = concept_plan.to, concept_plan.hidden, concept_plan.placed
    concerned = set(concept_plan.root) | hidden | set(placed) | set(concept_plan.extra)
    referenced = {n.id for n in record.nodes if n.label == "Concept"}
    for r in record.relationships:
        referenced.update((r.start, r.end))
    if referenced.isdisjoint(concerned):
        return record
    nodes: dict[str, Node] = {}
    for n in record.nodes:
        if n.label != "Concept":
            nodes[n.id] = n
            continue
        nid = to(n.id)
        if nid in hidden:
            continue
        props = n.properties if nid == n.id else {}
        if nid in nodes:
            props = merge_properties(nodes[nid].properties, props)
        nodes[nid] = trusted_node(nid, "Concept", props)
    groups = _rewrite(record.relationships, concept_plan)
    present = {e for key in groups for e in (key[0], key[2])} | set(nodes)
    for child in sorted(present & set(placed)):
        parent_id, parent_props = placed[child]
        groups[(child, "BROADER", parent_id)] = Relationship(type="BROADER", start=child, end=parent_id)
        _merge_node(nodes, parent_id, parent_props)
    for keep in sorted(present & set(concept_plan.extra)):
        _merge_node(nodes, keep, concept_plan.extra[keep])
    return trusted_record(record.paper, list(nodes.values()), list(groups.values()))


def _rewrite(rels: Iterable[Relationship], concept_plan: ConceptPlan) -> dict[RelKey, Relationship]:
    """The links ``rels`` become, by key, in first-seen order: ends mapped to the concepts they
    were merged into, links of hidden concepts dropped, a placed concept's ``BROADER`` links
    dropped (its placement is added by the caller), links that became one resolved by
    :func:`winner`. Links no decision touches are kept as they are."""
    to, hidden, placed = concept_plan.to, concept_plan.hidden, concept_plan.placed
    groups: dict[RelKey, list[Relationship]] = defaultdict(list)
    moved_keys: set[RelKey] = set()
    for r in rels:
        start, end = to(r.start), to(r.end)
        if start in hidden or end in hidden:
            continue
        if start == end and (start, end) != (r.start, r.end):
            continue  # a link between two merged concepts
        if r.type == "BROADER" and start in placed:
            continue  # replaced by the placement
        if (start, end) == (r.start, r.end):
            groups[(start, r.type, end)].append(r)
            continue
        moved_keys.add((start, r.type, end))
        groups[(start, r.type, end)].append(
            Relationship(type=r.type, start=start, end=end, properties=r.properties)
        )
    return {key: winner(group) if key in moved_keys else _folded(group) for key, group in groups.items()}


def _folded(group: list[Relationship]) -> Relationship:
    """Repeats of one untouched link, merged as the store would merge them one by one."""
    if len(group) == 1:
        return group[0]
    props: Properties = {}
    for r in group:
        props = merge_properties(props, r.properties)
    return Relationship(type=group[0].type, start=group[0].start, end=group[0].end, properties=props)


def relink(links: Sequence[str], concept_plan: ConceptPlan) -> list[str]:
    """A keyphrase row's kept links (:mod:`kg.core.provisional`) after the decisions, as the record
    rewrite would have left them, sorted."""
    rewritten = _rewrite([parse_link(text) for text in links], concept_plan)
    return sorted({link_text(r) for r in rewritten.values()})


def _merge_node(nodes: dict[str, Node], nid: str, props: Properties) -> None:
    if nid in nodes:
        nodes[nid] = trusted_node(nid, "Concept", merge_properties(nodes[nid].properties, props))
    else:
        nodes[nid] = trusted_node(nid, "Concept", dict(props))
