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

A row must hold everything the paper's record said about the hidden concept, or the graph would
depend on which carrier came first: a discovered concept's ``BROADER`` link to its vocabulary
head is decided per paper ("model augmentation" -> data augmentation in one abstract, no head
in another), so a concept promoted by a paper without the link, after a carrier with it, lost
the link, which the first carrier's re-ingest then wrote (reported ``updated``, a new store
version; the other order gave a different graph). So the row's concept map also keeps, under
internal keys the stores never show (:data:`LINKS`, :data:`PHRASES`), the concept's other
relationships in the record and the names the paper's ``keyphrases`` got for it; a promotion
(:class:`Promotion`) restores both.

A phrase the paper is *about* (``MENTIONS.about``) that its title or the abstract's first
sentence names is no one-off: it earns its node with the first paper (:func:`earns_node`),
decided from the record alone, so it is the same in any order and batch.

What a row holds is still shown: the API lists a paper's rows as key concepts with no node
(``Paper.keyConcepts``), finds papers by a row's name (:func:`phrase_key`, ``papers(where:
{concept})``) and indexes the paper's ``keyphrases`` for ``search``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kg.core.merge import merge_properties, normalize_properties, sorted_set
from kg.core.models import (
    Node,
    PaperRecord,
    Properties,
    Relationship,
    SettledRecord,
    settled_record,
    trusted_node,
    trusted_record,
)
from kg.core.names import loose_key

PROVISIONAL = "provisional"
KEYPHRASES = "keyphrases"
# Internal keys of a keyphrase row's concept map (never on a node): the concept's relationships
# in the record other than the paper's MENTIONS, as :func:`_link_text` strings, and the names
# the paper's ``keyphrases`` holds for it when they are not just the row's ``name``. Both are
# left out when empty or default, so rows written before they existed compare equal.
LINKS = "_links"
PHRASES = "_phrases"
# concept id -> paper id -> (concept properties, MENTIONS properties), as a store keeps them
Stored = Mapping[str, Mapping[str, tuple[Properties, Properties]]]


class Promotion(NamedTuple):
    """A stored keyphrase row that becomes part of the graph when its concept turns into a node.

    ``node``/``rel``: the concept's properties and the paper's MENTIONS properties, as the row
    kept them; ``phrases``: the names to take out of the paper's ``keyphrases``; ``links``: the
    concept's other relationships of the paper's record (its ``BROADER`` links), to merge once
    the node exists. The other end of a link was a node of the same record, so it is stored.
    """

    concept: str
    paper: str
    node: Properties
    rel: Properties
    phrases: list[str]
    links: list[Relationship]


@dataclass
class Plan:
    """What the batch does with provisional concepts.

    ``records``: the batch with hidden concepts taken out; ``keep``: keyphrase rows to write,
    by ``(concept, paper)``; ``promote``: stored rows that become MENTIONS (and links) of a new
    node; ``drop``: concepts whose rows go; ``changed_papers``: papers whose rows changed (an
    update).
    """

    records: list[PaperRecord]
    keep: dict[tuple[str, str], tuple[Properties, Properties]] = field(default_factory=dict)
    promote: list[Promotion] = field(default_factory=list)
    drop: set[str] = field(default_factory=set)
    changed_papers: set[str] = field(default_factory=set)


# Where an abstract's first sentence ends: a full stop, question or exclamation mark before
# space and a capital or digit (close enough to the extractor's splitter for a rule about the
# opening words; "e.g. the" does not end it).
_SENTENCE_END = re.compile(r"[.!?](?=\s+[A-Z0-9(\[])")


def first_sentence(abstract: str) -> str:
    """The abstract's first sentence (the whole text when it has one sentence).

    >>> first_sentence("We study Tor networks. They are slow.")
    'We study Tor networks.'
    """
    text = abstract.strip()
    m = _SENTENCE_END.search(text)
    return text if m is None else text[: m.end()]


def _has_run(have: Sequence[str], want: Sequence[str]) -> bool:
    """Whether the words ``want`` occur in the words ``have`` in a row."""
    n = len(want)
    return n > 0 and any(have[i : i + n] == want for i in range(len(have) - n + 1))


def headline_words(paper: Properties) -> list[list[str]]:
    """The loose-key words of the places :func:`earns_node` looks in: the paper's title and its
    abstract's first sentence.

    Why apart: a record has a dozen provisional concepts and every one was checked against the
    same title and sentence, keyed again each time (7% of the writer at 10k papers); a record's
    places are keyed once (:func:`_headline`).
    """
    title, abstract = paper.get("title"), paper.get("abstract")
    places = [str(title)] if isinstance(title, str) else []
    if isinstance(abstract, str):
        places.append(first_sentence(abstract))
    return [loose_key(place).split() for place in places]


def earns_node(
    paper: Properties, node: Properties, rel: Properties, places: list[list[str]] | None = None
) -> bool:
    """Whether a provisional concept of one record is a node from its first paper: the paper is
    about it (``rel``: its ``MENTIONS``) and its title or the abstract's first sentence names it
    (its ``surface`` or ``name``). ``places``: :func:`headline_words` of ``paper``, when the
    caller checks several concepts of one paper.

    Why: "Tor network" in the title and first sentence of the one paper about it was hidden
    until a second paper used the phrase; a paper's headline phrase is what a reader looks for.
    Only the record decides (its paper's title and abstract, the mention), so every listing of
    the paper decides alike and the graph does not depend on the order papers arrive in.
    """
    if rel.get("about") is not True:
        return False
    phrases = {str(x) for x in (rel.get("surface"), node.get("name")) if isinstance(x, str) and x}
    if not phrases:
        return False
    wants = [loose_key(phrase).split() for phrase in phrases]
    words = headline_words(paper) if places is None else places
    return any(_has_run(have, want) for have in words for want in wants)


def phrase_key(node: Properties) -> str:
    """The key a keyphrase row is found by: the :func:`kg.core.names.loose_key` of its name
    (``papers(where: {concept: "Tor networks"})`` finds the row named "Tor network")."""
    name = node.get("name")
    return loose_key(str(name)) if name is not None else ""


def row_concept(node: Properties) -> Properties:
    """A row's concept map as a reader sees it: the internal keys left out."""
    return {k: v for k, v in node.items() if k not in (LINKS, PHRASES)}


def relinked_row(
    node: Properties, concept_ids: Collection[str], fn: Callable[[list[str]], list[str]]
) -> Properties | None:
    """A row's concept map with its kept links rewritten by ``fn``, or ``None`` when no link
    names one of ``concept_ids`` or ``fn`` changes nothing (the rule both stores' ``relink``
    apply to their keyphrase rows after ``kg curate``).

    >>> relinked_row({"name": "x", LINKS: ["a|b"]}, ["b"], lambda ls: [])
    {'name': 'x'}
    >>> relinked_row({"name": "x", LINKS: ["a|b"]}, ["c"], lambda ls: []) is None
    True
    """
    links = sorted_set(node.get(LINKS))
    if not any(i in link for link in links for i in concept_ids):
        return None
    new = fn(links)
    if new == links:
        return None
    changed = {k: v for k, v in node.items() if k != LINKS}
    if new:
        changed[LINKS] = new
    return changed


def row_about(rel: Properties) -> bool:
    """Whether a row's paper is about the phrase (a mention without ``about`` counts as about,
    as for ``MENTIONS``)."""
    return rel.get("about") is not False


def settle(record: PaperRecord) -> SettledRecord:
    """``record`` with the headline rule applied (its provisional concepts that :func:`earns_node`
    made regular nodes), typed so :func:`plan` does not apply the rule again.

    Why: the rule reads only the record (its title, first sentence and mentions), so ``kg
    ingest`` runs it in the extraction workers (:mod:`kg.ingest.extract_pool`), off the one
    writer, where keying each record's headline words was about 5% of the writer's CPU.
    """
    if isinstance(record, SettledRecord):
        return record
    return settled_record(_headline(record))


def _headline(record: PaperRecord) -> PaperRecord:
    """``record`` with its provisional concepts that :func:`earns_node` made regular nodes
    (``record`` itself when it was :func:`settle` d)."""
    if isinstance(record, SettledRecord):
        return record
    provisional = {
        n.id: n for n in record.nodes if n.label == "Concept" and n.properties.get(PROVISIONAL) is True
    }
    if not provisional:
        return record
    paper = record.paper.properties
    places: list[list[str]] | None = None  # keyed once, when a concept is about the paper
    earned = set()
    for rel in record.relationships:
        if (
            rel.type == "MENTIONS"
            and rel.start == record.paper.id
            and rel.end in provisional
            and rel.properties.get("about") is True
        ):
            if places is None:
                places = headline_words(paper)
            if earns_node(paper, provisional[rel.end].properties, rel.properties, places):
                earned.add(rel.end)
    if not earned:
        return record
    nodes = [_unmarked(n) if n.id in earned else n for n in record.nodes]
    return trusted_record(record.paper, nodes, record.relationships, record.embedding)


def _is_provisional(node: Node) -> bool:
    # The loops over every node of a batch spell this test out (``label`` first, as here): a
    # call per node was 3% of the writer's CPU (bench/README.md, "The writer's CPU per paper").
    return node.label == "Concept" and node.properties.get(PROVISIONAL) is True


def _stripped(props: Properties) -> Properties:
    return {k: v for k, v in props.items() if k != PROVISIONAL}


def _unmarked(node: Node) -> Node:
    """``node`` without its provisional mark. Built without validation (its values come from a
    validated node; ``model_copy`` cost a tenth of the plan, copying each model's internals)."""
    return trusted_node(node.id, node.label, _stripped(node.properties))


def _link_text(rel: Relationship) -> str:
    """A relationship as one string (ids never contain a tab; properties as sorted JSON)."""
    return "\t".join((rel.start, rel.type, rel.end, json.dumps(rel.properties, sort_keys=True)))


def _link(text: str) -> Relationship:
    start, rel_type, end, props = text.split("\t", 3)
    return Relationship.model_validate(
        {"type": rel_type, "start": start, "end": end, "properties": json.loads(props)}
    )


# The link form of a row, for code that rewrites rows' links (kg.curation.concept_rewrite).
link_text = _link_text
parse_link = _link


def _row_node(node: Properties, phrases: Iterable[str], links: Iterable[str]) -> Properties:
    """The row's concept map: ``node`` with the internal keys, each only when it says more than
    the default (no links; the phrase is the concept's ``name``)."""
    out = {k: v for k, v in node.items() if k not in (LINKS, PHRASES)}
    link_list, phrase_list = sorted(set(links)), sorted(set(phrases))
    if link_list:
        out[LINKS] = link_list
    if phrase_list and phrase_list != [str(node.get("name"))]:
        out[PHRASES] = phrase_list
    return out


def _row_parts(node: Properties) -> tuple[Properties, list[str], list[str]]:
    """``(concept properties, phrases, links)`` of a row's concept map (inverse of :func:`_row_node`)."""
    props = {k: v for k, v in node.items() if k not in (LINKS, PHRASES)}
    phrases = sorted_set(node.get(PHRASES)) or ([str(props["name"])] if props.get("name") is not None else [])
    return props, phrases, sorted_set(node.get(LINKS))


def _merge_row(
    old: tuple[Properties, Properties] | None,
    node: Properties,
    rel: Properties,
    phrase: str,
    links: list[str],
) -> tuple[Properties, Properties]:
    """The row once one more record of its paper carried the concept: each part merged by its
    own rule (the maps by :func:`kg.core.merge.merge_properties`, phrases and links as sets), so the
    row does not depend on the order the paper's listings came in."""
    if old is None:
        # normalize_properties(p) is merge_properties({}, p) without ranking a side that is
        # not there: most rows are new, and their names sent them down the general merge path
        return _row_node(normalize_properties(node), [phrase], links), normalize_properties(rel)
    props, phrases, stored_links = _row_parts(old[0])
    merged = merge_properties(props, node)
    return _row_node(merged, [*phrases, phrase], [*stored_links, *links]), merge_properties(old[1], rel)


def provisional_ids(records: Sequence[PaperRecord]) -> list[str]:
    """The ids of the batch's provisional concepts: what a store must look up for :func:`plan`."""
    return sorted(
        {
            n.id
            for r in records
            for n in r.nodes
            if n.label == "Concept" and n.properties.get(PROVISIONAL) is True
        }
    )


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
    records = [_headline(r) for r in records]
    carriers: dict[str, set[str]] = {}
    solid: set[str] = set()  # concepts that are nodes in this batch whatever the rule says
    marked: list[bool] = []  # whether each record has a provisional concept
    for r in records:
        has = False
        for n in r.nodes:
            if n.label == "Concept":
                if n.properties.get(PROVISIONAL) is True:
                    carriers.setdefault(n.id, set()).add(r.paper.id)
                    has = True
                else:
                    solid.add(n.id)
        marked.append(has)
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
        for pid, (row_node, rel_props) in sorted(stored.get(cid, {}).items()):
            node_props, phrases, texts = _row_parts(row_node)
            out.promote.append(Promotion(cid, pid, node_props, rel_props, phrases, [_link(t) for t in texts]))
        if cid in stored:
            out.drop.add(cid)
    for r, has in zip(records, marked, strict=True):
        if not has:
            out.records.append(r)  # nothing provisional: the record as it came (no copies)
            continue
        hidden = {n.id: n for n in r.nodes if n.id not in visible and _is_provisional(n)}
        if not hidden:
            nodes = [_unmarked(n) if _is_provisional(n) else n for n in r.nodes]
            out.records.append(trusted_record(r.paper, nodes, r.relationships, r.embedding))
            continue
        rels = [rel for rel in r.relationships if rel.end not in hidden and rel.start not in hidden]
        # The hidden concept's other relationships (BROADER to its vocabulary head) go into its
        # row: dropped here, they would be missing when another paper promotes the concept.
        # A link between two hidden concepts would have no node at either end; the extractors
        # link discovered concepts only to vocabulary concepts, which are never provisional.
        links: dict[str, list[str]] = {}
        for rel in r.relationships:
            ends = [e for e in (rel.start, rel.end) if e in hidden]
            if len(ends) == 1 and not (rel.type == "MENTIONS" and rel.start == r.paper.id):
                links.setdefault(ends[0], []).append(_link_text(rel))
        for rel in r.relationships:
            if rel.end in hidden and rel.type == "MENTIONS" and rel.start == r.paper.id:
                key = (rel.end, r.paper.id)
                # the batch's own row first: a paper listed twice in the batch merges into what
                # its first listing made of the stored row, not into the stored row again
                old = out.keep.get(key) or stored.get(rel.end, {}).get(r.paper.id)
                node = _stripped(hidden[rel.end].properties)
                merged = _merge_row(
                    old, node, rel.properties, _phrase(hidden[rel.end]), links.get(rel.end, [])
                )
                if old != merged:
                    out.keep[key] = merged
                    out.changed_papers.add(r.paper.id)
        names = sorted({_phrase(n) for n in hidden.values()})
        paper_props = {**r.paper.properties, KEYPHRASES: names}
        nodes = [_unmarked(n) if _is_provisional(n) else n for n in r.nodes if n.id not in hidden]
        paper = trusted_node(r.paper.id, r.paper.label, paper_props)
        out.records.append(trusted_record(paper, nodes, rels, r.embedding))
    return out


def _phrase(node: Node) -> str:
    """The name a hidden concept gets in its paper's ``keyphrases``."""
    return str(node.properties.get("name") or node.id)


def without_phrase(paper: Properties, names: Collection[object]) -> Properties | None:
    """The paper's properties once the phrase ``names`` stand for is a node (``None`` if none of
    them was kept): :attr:`Promotion.phrases`, every spelling the paper's listings gave it.

    Promotion makes the paper look as if the concept had been a node from the start, so the
    order the papers came in does not show.
    """
    phrases = paper.get(KEYPHRASES)
    if not isinstance(phrases, list) or not any(x in names for x in phrases):
        return None
    kept = [str(x) for x in phrases if x not in names]
    out = {k: v for k, v in paper.items() if k != KEYPHRASES}
    if kept:
        out[KEYPHRASES] = kept
    return out
