"""Read-only Cypher that picks the names a Neo4j Browser guide shows (:mod:`kg.browser.guide`).

Each query returns plain rows (names and counts), ordered so the same graph always gives the
same guide. Kept apart from :mod:`kg.stores.neo4j.queries`, which serves the store itself, and
self-contained (plain ``(text, params)`` pairs) so the store's rewrites do not touch it.
"""

from __future__ import annotations

from typing import Any, TypeAlias

GuideQuery: TypeAlias = tuple[str, dict[str, Any]]

# Concepts with the most papers, counted as the API's `paperCount` and the explorer count them
# (one count on every screen, issue 29): papers about the concept or a narrower one (a MENTIONS
# not marked `about: false`, or an INTRODUCES), each paper once; a MENTIONS marked
# `climbs: false` counts for its own concept only (kg.stores.protocol.PaperQuery.narrower).
TOP_CONCEPTS = """
MATCH (c:Concept)
CALL (c) {
  MATCH (x:Concept)-[:BROADER*0..]->(c)
  WITH DISTINCT x
  MATCH (p:Paper)-[r:MENTIONS|INTRODUCES]->(x)
  WHERE type(r) = 'INTRODUCES'
    OR ((r.about IS NULL OR r.about <> false) AND (x = c OR r.climbs IS NULL OR r.climbs <> false))
  RETURN count(DISTINCT p) AS papers
}
WITH c, papers
WHERE papers > 0
RETURN c.name AS name, c.kind AS kind, papers
ORDER BY papers DESC, name
LIMIT $limit
"""

# Authors with the most papers (ties: more co-authors first).
TOP_AUTHORS = """
MATCH (a:Author)
WITH a, COUNT { (a)-[:COAUTHOR]-(:Author) } AS coauthors
WHERE coauthors > 0
RETURN a.name AS name, coauthors, COUNT { (a)-[:AUTHORED]->(:Paper) } AS papers
ORDER BY papers DESC, coauthors DESC, name
LIMIT $limit
"""

# Topics without a parent, the biggest subtrees first.
TOPIC_ROOTS = """
MATCH (t:Topic)
WHERE NOT (t)-[:SUBTOPIC_OF]->(:Topic)
WITH t,
     COUNT { (:Topic)-[:SUBTOPIC_OF*1..]->(t) } AS subtopics,
     COUNT { (:Paper)-[:HAS_TOPIC]->(:Topic)-[:SUBTOPIC_OF*0..]->(t) } AS papers
RETURN t.name AS name, subtopics, papers
ORDER BY subtopics DESC, papers DESC, name
LIMIT $limit
"""

# Venue series (every edition of "ICLR"), by number of papers.
VENUES = """
MATCH (v:Venue)
WITH coalesce(v.series, v.name) AS name, COUNT { (v)<-[:PUBLISHED_IN]-(:Paper) } AS papers
RETURN name, sum(papers) AS papers
ORDER BY papers DESC, name
LIMIT $limit
"""

# How many concept pairs co-occur in exactly `weight` papers.
CO_OCCURS_WEIGHTS = """
MATCH (:Concept)-[r:CO_OCCURS]->(:Concept)
RETURN r.papers AS weight, count(*) AS pairs
ORDER BY weight
"""

# Nodes per user-facing label (internal labels start with "__").
LABEL_COUNTS = """
MATCH (n)
UNWIND [l IN labels(n) WHERE NOT l STARTS WITH '__'] AS label
RETURN label, count(*) AS nodes
ORDER BY nodes DESC, label
"""


def top_concepts(limit: int) -> GuideQuery:
    """``name, kind, papers`` of the concepts with the most papers (``paperCount``'s count)."""
    return (TOP_CONCEPTS, {"limit": limit})


def top_authors(limit: int) -> GuideQuery:
    """``name, coauthors, papers`` of the authors with the most papers (and co-authors).

    Papers first: the author with the most co-authors is often on one paper with many authors,
    whose picture is a clique with every edge 1. Several papers give edges of different weights
    and a circle that is not one author list.
    """
    return (TOP_AUTHORS, {"limit": limit})


def topic_roots(limit: int) -> GuideQuery:
    """``name, subtopics, papers`` of root topics."""
    return (TOPIC_ROOTS, {"limit": limit})


def venues(limit: int) -> GuideQuery:
    """``name, papers`` per venue series."""
    return (VENUES, {"limit": limit})


def co_occurs_weights() -> GuideQuery:
    """``weight, pairs``: the CO_OCCURS weight histogram."""
    return (CO_OCCURS_WEIGHTS, {})


def label_counts() -> GuideQuery:
    """``label, nodes`` for every user-facing label."""
    return (LABEL_COUNTS, {})
