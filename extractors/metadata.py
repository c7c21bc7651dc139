"""Venue, author and topic extractors: structure the reader already found, made into nodes.

Author identity (kg.authors.v1):

- An author slot with external ids (OpenReview ``~Ada_Lovelace1``, ORCID, DBLP, ACL
  Anthology, IEEE, or a hashed OpenReview email) is keyed by the strongest of them
  (:func:`kg.core.ids.author_node_id`): one id under two spellings is one Author (the spellings
  meet in ``aliases`` by the merge rules), one name with two ids is two Authors. Every id of
  the slot is kept in the sorted ``externalIds`` list.
- A slot without ids is keyed by its folded name, as before (accents, case and nicknames
  ignored). It is never merged into an id-keyed Author of the same name, since the name alone
  cannot say which of several people it is; ``kg ingest`` reports such names.
- A paper with more than :data:`kg.core.derived.COAUTHOR_PAIR_CAP` authors gets
  ``coauthorPairs: false``: all its ``AUTHORED`` edges are kept, stores derive no ``COAUTHOR``
  pairs from it.
"""

from __future__ import annotations

from extractors.registry import ExtractInput, Parts, register
from kg.core.derived import COAUTHOR_PAIR_CAP, COAUTHOR_PAIRS_PROPERTY
from kg.core.ids import author_node_id, split_nickname, topic_id, venue_id
from kg.core.models import Node, Properties, Relationship
from kg.core.topics import topic_path

__all__ = ["extract_authors", "extract_topics", "extract_venue"]


@register("kg.venue.v1")
def extract_venue(x: ExtractInput) -> Parts:
    """``Venue {name: "ICLR 2026", series, year}`` and ``PUBLISHED_IN``, when the paper has one.

    The paper also gets ``year``, ``track`` and ``status`` (paperlists' "main"/"Poster"...).
    """
    p = x.paper
    parts = Parts()
    if p.year is not None:
        parts.paper_properties["year"] = p.year
    if p.track:
        parts.paper_properties["track"] = p.track
    if p.status:
        parts.paper_properties["status"] = p.status
    if not p.venue:
        return parts
    vid = venue_id(p.venue, p.year)
    name = p.venue if p.year is None else f"{p.venue} {p.year}"
    parts.nodes.append(
        Node(id=vid, label="Venue", properties={"name": name, "series": p.venue, "year": p.year})
    )
    parts.relationships.append(Relationship(type="PUBLISHED_IN", start=x.paper_id, end=vid))
    return parts


@register("kg.authors.v1")
def extract_authors(x: ExtractInput) -> Parts:
    """Authors with ``AUTHORED {position}``, keyed by external id when the listing has one."""
    parts = Parts()
    p = x.paper
    parts.paper_properties["authorsTruncated"] = p.authors_truncated
    seen: set[str] = set()
    for position, raw in enumerate(p.authors, start=1):
        name, nickname = split_nickname(raw)
        keys = p.author_keys[position - 1] if position <= len(p.author_keys) else ()
        aid = author_node_id(raw, keys)
        if aid in seen:
            continue
        seen.add(aid)
        props: Properties = {"name": name}
        if nickname:
            props["nickname"] = nickname
        if keys:
            props["externalIds"] = sorted(keys)
        parts.nodes.append(Node(id=aid, label="Author", properties=props))
        # The edge keeps the slot as printed, so a later ingest can re-resolve who it is
        # (kg.authors.ingest): the Author it points to may gather several people's spellings.
        slot: Properties = {"position": position, **props}
        affiliations = p.author_affiliations[position - 1] if position <= len(p.author_affiliations) else ()
        if affiliations:
            slot["affiliations"] = sorted(affiliations)
        places = p.author_institutions[position - 1] if position <= len(p.author_institutions) else ()
        if places:
            slot["institutions"] = sorted(places)
        parts.relationships.append(Relationship(type="AUTHORED", start=aid, end=x.paper_id, properties=slot))
    if len(seen) > COAUTHOR_PAIR_CAP:
        parts.paper_properties[COAUTHOR_PAIRS_PROPERTY] = False
    return parts


@register("kg.topics.v1")
def extract_topics(x: ExtractInput) -> Parts:
    """Each topic path as a chain of ``SUBTOPIC_OF``; the paper ``HAS_TOPIC`` each leaf.

    The paths are the reader's ``topic`` (``Deep Learning · LLMs``) and its ``topics``
    (IJCAI taxonomy keywords such as ``Computer Vision: CV: Applications``).
    """
    parts = Parts()
    paths: list[list[str]] = []
    if x.paper.topic:
        paths.append(topic_path(x.paper.topic))
    paths.extend(x.paper.topics)
    done: set[str] = set()
    for path in paths:
        if not path:
            continue
        for depth in range(1, len(path) + 1):
            prefix = path[:depth]
            tid = topic_id(prefix)
            if tid in done:
                continue
            done.add(tid)
            parts.nodes.append(Node(id=tid, label="Topic", properties={"name": prefix[-1], "path": prefix}))
            if depth > 1:
                parts.relationships.append(
                    Relationship(type="SUBTOPIC_OF", start=tid, end=topic_id(path[: depth - 1]))
                )
        parts.relationships.append(Relationship(type="HAS_TOPIC", start=x.paper_id, end=topic_id(path)))
    return parts
