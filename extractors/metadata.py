"""Venue, author and topic extractors: structure the reader already found, made into nodes."""

from __future__ import annotations

from extractors.registry import ExtractInput, Parts, register
from kg.ids import author_id, split_nickname, topic_id, venue_id
from kg.models import Node, Relationship
from kg.readers.fields import topic_path

__all__ = ["extract_authors", "extract_topics", "extract_venue"]


@register("kg.venue.v1")
def extract_venue(x: ExtractInput) -> Parts:
    """``Venue {name: "ICLR 2026", series, year}`` and ``PUBLISHED_IN``, when the paper has one."""
    p = x.paper
    parts = Parts()
    if p.year is not None:
        parts.paper_properties["year"] = p.year
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
    """Authors with ``AUTHORED {position}``; a quoted nickname is kept apart from the name."""
    parts = Parts()
    parts.paper_properties["authorsTruncated"] = x.paper.authors_truncated
    seen: set[str] = set()
    for position, raw in enumerate(x.paper.authors, start=1):
        name, nickname = split_nickname(raw)
        aid = author_id(raw)
        if aid in seen:
            continue
        seen.add(aid)
        props: dict[str, str | int | float | bool | None | list[str] | list[int] | list[float]] = {
            "name": name
        }
        if nickname:
            props["nickname"] = nickname
        parts.nodes.append(Node(id=aid, label="Author", properties=props))
        parts.relationships.append(
            Relationship(type="AUTHORED", start=aid, end=x.paper_id, properties={"position": position})
        )
    return parts


@register("kg.topics.v1")
def extract_topics(x: ExtractInput) -> Parts:
    """The topic path as a chain of ``SUBTOPIC_OF``; the paper ``HAS_TOPIC`` its leaf."""
    parts = Parts()
    if not x.paper.topic:
        return parts
    path = topic_path(x.paper.topic)
    if not path:
        return parts
    for depth in range(1, len(path) + 1):
        prefix = path[:depth]
        parts.nodes.append(
            Node(id=topic_id(prefix), label="Topic", properties={"name": prefix[-1], "path": prefix})
        )
        if depth > 1:
            parts.relationships.append(
                Relationship(type="SUBTOPIC_OF", start=topic_id(prefix), end=topic_id(path[: depth - 1]))
            )
    parts.relationships.append(Relationship(type="HAS_TOPIC", start=x.paper_id, end=topic_id(path)))
    return parts
