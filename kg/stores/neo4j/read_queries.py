"""The Cypher of the Neo4j read path (:class:`kg.stores.protocol.ReadStore`) and of its index.

Same rules as :mod:`kg.stores.neo4j.queries`: values are parameters, only allow-listed labels
and relationship types are interpolated; what varies in the text is which conditions a query
has, never their values. Each read is one statement that returns one record (lists collected
server-side), and each either seeks an index or expands a bounded neighbourhood from nodes
found by id; only :func:`strongest_nodes` and :func:`heaviest_pairs` aggregate a whole
relationship type (the caller caches them per store version).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kg.core.derived import CO_OCCURS_TOP_K
from kg.core.errors import GraphStoreError
from kg.stores.neo4j.queries import (
    FULLTEXT_INDEX,
    KEYPHRASE_LABEL,
    LOCK_ID,
    LOCK_LABEL,
    NODE_LABEL,
    PAIR_KEY,
    Statement,
    first_ids,
    lucene_terms,
    pair_key,
    rel_type,
    rows_per_id,
)
from kg.stores.protocol import SCORE_WEIGHT, ListOrder, PairType, PaperQuery

KEY_LABEL = "__KGKey"
KEY_OF = "__KEY_OF"
PAIR_TYPES: tuple[PairType, ...] = ("COAUTHOR", "CO_OCCURS")
TEXT_HITS = 1000  # most papers a text condition yields (the embedded store's TEXT_LIMIT)
# With other conditions, the best TEXT_HITS hits that also match them, among at most this many
# Lucene hits (a bound on the work; the embedded store filters before its limit too).
TEXT_SCAN = 20 * TEXT_HITS
_N = NODE_LABEL


NULL_YEAR_RANK = 10_000  # sorts after every real year in a paper's ``_sortKey``


def year_prefix(year: int | None) -> str:
    """How a paper's ``_sortKey`` starts: newest year first, no year (or an impossible one) last.

    So papers of one year are one prefix range of the sort index, already in result order.

    >>> year_prefix(2024) < year_prefix(2023) < year_prefix(None)
    True
    """
    rank = NULL_YEAR_RANK if year is None or not 0 <= year <= 9999 else 9999 - year
    return f"{rank:05d}\x00"


def pair_type(name: str) -> str:
    """``name`` if it is a weighted pair type (``COAUTHOR``/``CO_OCCURS``)."""
    if name not in PAIR_TYPES:
        raise GraphStoreError(f"unknown pair type {name!r} (expected COAUTHOR or CO_OCCURS)")
    return rel_type(name)


# -- schema ------------------------------------------------------------------------------------
def schema_statements() -> list[Statement]:
    """Constraints and indexes of the read path, idempotent; one transaction each."""
    texts = [
        f"CREATE CONSTRAINT paperkg_key IF NOT EXISTS FOR (k:{KEY_LABEL}) REQUIRE k.key IS UNIQUE",
        f"CREATE INDEX paperkg_key_rkey IF NOT EXISTS FOR (k:{KEY_LABEL}) ON (k.rkey)",
        "CREATE INDEX paperkg_paper_sort IF NOT EXISTS FOR (n:Paper) ON (n._sortKey)",
        "CREATE INDEX paperkg_paper_status IF NOT EXISTS FOR (n:Paper) ON (n.status)",
        f"CREATE INDEX paperkg_analysis IF NOT EXISTS FOR (s:{ANALYSIS_LABEL}) ON (s.pair, s.community)",
        "CREATE INDEX paperkg_paper_track IF NOT EXISTS FOR (n:Paper) ON (n.track)",
        "CREATE INDEX paperkg_concept_sort IF NOT EXISTS FOR (n:Concept) ON (n._sortName)",
        "CREATE INDEX paperkg_concept_papers IF NOT EXISTS FOR (n:Concept) ON (n._papers)",
        "CREATE INDEX paperkg_concept_kind IF NOT EXISTS FOR (n:Concept) ON (n.kind)",
        "CREATE TEXT INDEX paperkg_concept_search IF NOT EXISTS FOR (n:Concept) ON (n._search)",
        "CREATE INDEX paperkg_author_sort IF NOT EXISTS FOR (n:Author) ON (n._sortName)",
        "CREATE INDEX paperkg_author_papers IF NOT EXISTS FOR (n:Author) ON (n._papers)",
        "CREATE TEXT INDEX paperkg_author_search IF NOT EXISTS FOR (n:Author) ON (n._search)",
    ]
    for t in PAIR_TYPES:
        texts.append(
            f"CREATE INDEX paperkg_{t.lower()}_papers IF NOT EXISTS "
            f"FOR ()-[r:{pair_type(t)}]-() ON (r.papers)"
        )
    return [Statement(t) for t in texts]


# -- index maintenance (write transaction) -----------------------------------------------------
# What the read index is computed from, and what it stored last time (compared before writing).
INDEX_INPUTS = ("title", "year", "name", "aliases", "source", "nickname")
INDEX_OUTPUTS = ("_sortKey", "_sortName", "_search", "_papers", "_keys")


def index_state(ids: Sequence[str]) -> Statement:
    """``rows`` of ``[id, labels, props, papers]`` for the Paper/Concept/Author nodes among ``ids``.

    ``props`` holds only :data:`INDEX_INPUTS` and :data:`INDEX_OUTPUTS` (not abstracts);
    ``papers``: papers about a concept (``MENTIONS`` not marked ``about: false``), ``AUTHORED``
    out-degree of an author. The ``WITH`` keeps the planner on one index seek per id: returning
    ``n.id`` with ``properties(n)`` made it scan the whole id index per row beyond ~1,000 ids.
    """
    fields = ", ".join(f".{f}" for f in (*INDEX_INPUTS, *INDEX_OUTPUTS))
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{_N} {{id: id}}) WHERE n:Paper OR n:Concept OR n:Author "
        "WITH id, n, CASE WHEN n:Concept THEN COUNT { (n)<-[m:MENTIONS]-() WHERE coalesce(m.about, true) } "
        "WHEN n:Author THEN COUNT { (n)-[:AUTHORED]->() } END AS papers "
        f"RETURN collect([id, labels(n), n {{{fields}}}, papers]) AS rows",
        {"ids": list(ids)},
    )


def delete_keys(ids: Sequence[str]) -> Statement:
    """Remove the key relationships of these nodes, and key nodes left without any."""
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{_N} {{id: id}}) "
        f"CALL (n) {{ MATCH (k:{KEY_LABEL})-[r:{KEY_OF}]->(n) DELETE r "
        "WITH k WHERE NOT EXISTS { (k)-[]->() } DELETE k }",
        {"ids": list(ids)},
    )


def set_index(rows: Sequence[dict[str, Any]]) -> Statement:
    """Set internal properties and add key relationships: rows ``{id, props, keys}`` with
    ``keys`` ``[[key, rank, rkey], ...]`` (only new ones: :func:`delete_keys` ran first)."""
    return Statement(
        f"UNWIND $rows AS row MATCH (n:{_N} {{id: row.id}}) SET n += row.props "
        f"WITH n, row UNWIND row.keys AS key MERGE (k:{KEY_LABEL} {{key: key[0]}}) "
        f"ON CREATE SET k.rkey = key[2] CREATE (k)-[:{KEY_OF} {{rank: key[1]}}]->(n)",
        {"rows": list(rows)},
    )


def set_index_by_eid(rows: Sequence[dict[str, Any]]) -> Statement:
    """:func:`set_index` with each row's node given by ``eid`` (its element id in this
    transaction) instead of ``id``: a record lookup rather than an id-index seek per row."""
    return Statement(
        "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row.eid SET n += row.props "
        f"WITH n, row UNWIND row.keys AS key MERGE (k:{KEY_LABEL} {{key: key[0]}}) "
        f"ON CREATE SET k.rkey = key[2] CREATE (k)-[:{KEY_OF} {{rank: key[1]}}]->(n)",
        {"rows": list(rows)},
    )


# A node's paper count: the read index's ``_papers`` (concepts, authors), counted for a venue or
# topic (few of them, not kept in the index).
_PAPERS = (
    "CASE WHEN n._papers IS NOT NULL THEN n._papers "
    "WHEN n:Venue THEN COUNT { (n)<-[:PUBLISHED_IN]-() } "
    "WHEN n:Topic THEN COUNT { (n)<-[:HAS_TOPIC]-() } ELSE 0 END"
)


def paper_authors(ids: Sequence[str]) -> Statement:
    """``rows`` of ``[paper id, position, author id, labels, props]``, one per byline entry."""
    return rows_per_id(
        ids,
        f"MATCH (:{_N} {{id: id}})<-[r:AUTHORED]-(a:{_N})",
        "id, r.position, a.id, labels(a), properties(a)",
    )


def page_nodes(ids: Sequence[str], authors: bool, venues: bool) -> Statement:
    """``rows`` of ``[id, labels, props, authors, venue]`` per existing paper of ``ids``:
    ``authors`` the ``[position, id, labels, props]`` of its byline entries, ``venue`` a list of
    the ``[id, labels, props]`` of its smallest-id venue (empty without one); each ``null``
    when not asked for. One statement and one record for a page's papers, their authors and
    their venues (what ``get_nodes``, ``paper_authors`` and the venues' ``neighbors`` read).

    >>> "PUBLISHED_IN" in page_nodes(["p"], True, False).text
    False
    """
    text = f"UNWIND $ids AS id MATCH (p:{_N} {{id: id}}) "
    if authors:
        text += (
            f"CALL (p) {{ MATCH (p)<-[r:AUTHORED]-(a:{_N}) "
            "RETURN collect([r.position, a.id, labels(a), properties(a)]) AS authors } "
        )
    if venues:
        text += (
            f"CALL (p) {{ MATCH (p)-[:PUBLISHED_IN]->(v:{_N}) WITH v ORDER BY v.id LIMIT 1 "
            "RETURN collect([v.id, labels(v), properties(v)]) AS venue } "
        )
    shown = f"{'authors' if authors else 'null'}, {'venue' if venues else 'null'}"
    return Statement(
        f"{text}RETURN collect([p.id, labels(p), properties(p), {shown}]) AS rows", {"ids": list(ids)}
    )


def network_nodes(ids: Sequence[str]) -> Statement:
    """``rows`` of ``[id, labels, display name, papers]`` of the existing ids."""
    return rows_per_id(
        ids,
        f"MATCH (n:{_N} {{id: id}})",
        f"id, labels(n), CASE WHEN n:Paper THEN n.title ELSE n.name END, {_PAPERS}",
    )


def add_paper_counts(rows: Sequence[Sequence[Any]]) -> Statement:
    """Add ``delta`` to ``_papers``: rows ``[id, delta]`` (what a batch changed, see the writer)."""
    return Statement(
        f"UNWIND $rows AS row MATCH (n:{_N} {{id: row[0]}}) SET n._papers = coalesce(n._papers, 0) + row[1]",
        {"rows": [list(r) for r in rows]},
    )


def add_paper_counts_by_eid(rows: Sequence[Sequence[Any]]) -> Statement:
    """:func:`add_paper_counts` with rows ``[element id, delta]`` (ids read in this transaction):
    no id-index seek with its index-entry lock per row."""
    return Statement(
        "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row[0] "
        "SET n._papers = coalesce(n._papers, 0) + row[1]",
        {"rows": [list(r) for r in rows]},
    )


def indexed_ids(after: str, limit: int) -> Statement:
    """Ids of Paper/Concept/Author nodes after ``after`` in id order (for rebuilding the index)."""
    return first_ids(
        f"MATCH (n:{_N}) WHERE n.id > $after AND (n:Paper OR n:Concept OR n:Author) WITH n.id AS id",
        "id",
        limit,
        after=after,
    )


def write_count() -> Statement:
    """``n``: how many upsert transactions took the writer lock (0 before the first)."""
    return Statement(
        f"OPTIONAL MATCH (l:{LOCK_LABEL} {{id: $id}}) RETURN coalesce(l.batches, 0) AS n", {"id": LOCK_ID}
    )


# -- names -------------------------------------------------------------------------------------
def nodes_by_keys(keys: Sequence[str], label: str) -> Statement:
    """``rows`` of ``[i, id, labels, props]``: per key (by position), the best-ranked node of
    ``label`` it names, with the node itself (a name is looked up to read its node next: the
    store keeps it for the request, see ``Neo4jReads._remember``)."""
    lb = "Concept" if label == "Concept" else "Author"
    return Statement(
        "UNWIND range(0, size($keys) - 1) AS i "
        f"CALL (i) {{ MATCH (k:{KEY_LABEL} {{key: $keys[i]}})-[r:{KEY_OF}]->(n:{lb}) "
        "RETURN n.id AS id, labels(n) AS labels, properties(n) AS props ORDER BY r.rank, id LIMIT 1 } "
        "RETURN collect([i, id, labels, props]) AS rows",
        {"keys": list(keys)},
    )


def authors_named(key: str, limit: int) -> Statement:
    """``rows`` of ``[id, labels, props, papers]``: the Authors one author key finds, most papers
    (``_papers``) first, then by id, with each node and its ``AUTHORED`` degree (what the
    author's page reads next: ``paperCount`` counts it as :func:`queries.degrees` does)."""
    return Statement(
        f"MATCH (k:{KEY_LABEL} {{key: $key}})-[:{KEY_OF}]->(n:Author) "
        "WITH n, n.id AS id, coalesce(n._papers, 0) AS papers ORDER BY papers DESC, id LIMIT $limit "
        "RETURN collect([id, labels(n), properties(n), COUNT { (n)-[:AUTHORED]->() }]) AS rows",
        {"key": key, "limit": limit},
    )


def concepts_with_key_suffix(rprefix: str, limit: int) -> Statement:
    """``ids``: concepts with a loose key whose reverse starts with ``rprefix``, by id."""
    keys = f"MATCH (k:{KEY_LABEL}) WHERE k.rkey STARTS WITH $prefix"
    return first_ids(
        f"{keys} MATCH (k)-[:{KEY_OF}]->(c:Concept) WITH DISTINCT c.id AS id", "id", limit, prefix=rprefix
    )


def concepts_with_key_prefix(prefix: str, limit: int) -> Statement:
    """``ids``: concepts with a key starting with ``prefix`` (the unique index's range), by id."""
    return Statement(
        f"MATCH (k:{KEY_LABEL}) WHERE k.key STARTS WITH $prefix "
        f"MATCH (k)-[:{KEY_OF}]->(c:Concept) WITH DISTINCT c.id AS id ORDER BY id LIMIT $limit "
        "RETURN collect(id) AS ids",
        {"prefix": prefix, "limit": limit},
    )


def narrower_closure(concept_id: str, limit: int) -> Statement:
    """``found`` (the concept exists) and ``ids``: up to ``limit`` concepts below it, by id."""
    return Statement(
        f"OPTIONAL MATCH (c:{_N}:Concept {{id: $id}}) "
        "CALL (c) { MATCH (n:Concept)-[:BROADER*1..]->(c) WHERE n <> c "
        "WITH DISTINCT n.id AS id ORDER BY id LIMIT $limit RETURN collect(id) AS ids } "
        "RETURN c IS NOT NULL AS found, ids",
        {"id": concept_id, "limit": limit},
    )


# -- papers ------------------------------------------------------------------------------------
def _concept_cond(var: str, about_only: bool, end: str | None = None) -> str:
    """The ``about_only`` test of a link ``var``; with ``end`` (the expression of the linked
    concept's id) a ``MENTIONS`` marked ``climbs: false`` does not count for the ids in
    ``$narrower`` (``PaperQuery.narrower``)."""
    # A MENTIONS without ``about`` counts as about (records from before salience existed).
    about = f"{var}.about IS NULL OR {var}.about <> false"
    if end is not None:
        about = f"({about}) AND ({var}.climbs IS NULL OR {var}.climbs <> false OR NOT {end} IN $narrower)"
    return f" AND (type({var}) = 'INTRODUCES' OR {about})" if about_only else ""


def _paper_filters(query: PaperQuery, driver: str | None) -> list[str]:
    """Conditions on a bound ``p`` for every condition except the one that found ``p``."""
    out = []
    if query.author is not None and driver != "author":
        out.append(f"EXISTS {{ MATCH (p)<-[:AUTHORED]-(a:{_N} {{id: $author}}) }}")
    if query.concepts is not None and driver != "concepts":
        out.append(
            "EXISTS { MATCH (p)-[r:MENTIONS|INTRODUCES]->(c) WHERE c.id IN $concepts"
            f"{_concept_cond('r', query.about_only, 'c.id')} }}"
        )
    if query.phrases is not None and driver != "phrases":
        about = " AND k.about" if query.about_only else ""
        out.append(
            f"EXISTS {{ MATCH (k:{KEYPHRASE_LABEL} {{paper: p.id}}) WHERE k.concept IN $phrases{about} }}"
        )
    if query.venues is not None and driver != "venues":
        out.append("EXISTS { MATCH (p)-[:PUBLISHED_IN]->(v) WHERE v.id IN $venues }")
    if query.topics is not None and driver != "topics":
        out.append("EXISTS { MATCH (p)-[:HAS_TOPIC]->(t) WHERE t.id IN $topics }")
    if query.papers is not None and driver != "papers":
        out.append("p.id IN $papers")
    if query.year is not None and driver != "year":
        out.append("p.year = $year")
    # Listing properties always filter: a query by them alone finds its papers by label.
    if query.status is not None:
        out.append("p.status = $status")
    if query.track is not None:
        out.append("p.track = $track")
    return out


def _driver_match(query: PaperQuery, driver: str) -> str:
    if driver == "author":
        return f"MATCH (:{_N} {{id: $author}})-[:AUTHORED]->(p:Paper) "
    if driver == "concepts":
        return (
            f"UNWIND $concepts AS cid MATCH (:{_N} {{id: cid}})<-[r:MENTIONS|INTRODUCES]-(p) "
            f"WHERE true{_concept_cond('r', query.about_only, 'cid')} WITH DISTINCT p WHERE p:Paper "
        )
    if driver == "phrases":
        about = " AND k.about" if query.about_only else ""
        return (
            f"MATCH (k:{KEYPHRASE_LABEL}) WHERE k.concept IN $phrases{about} "
            f"MATCH (p:{_N}:Paper {{id: k.paper}}) WITH DISTINCT p "
        )
    if driver == "venues":
        return f"UNWIND $venues AS vid MATCH (:{_N} {{id: vid}})<-[:PUBLISHED_IN]-(p:Paper) WITH DISTINCT p "
    if driver == "topics":
        return f"UNWIND $topics AS tid MATCH (:{_N} {{id: tid}})<-[:HAS_TOPIC]-(p:Paper) WITH DISTINCT p "
    if driver == "papers":
        return f"UNWIND $papers AS pid MATCH (p:{_N}:Paper {{id: pid}}) WITH DISTINCT p "
    if driver == "year":
        return "MATCH (p:Paper) WHERE p.year = $year "
    if driver == "listed":
        return "MATCH (p:Paper) "
    raise GraphStoreError(f"unknown paper condition {driver!r}")


_YEAR_RANGE = "MATCH (p:Paper) WHERE p._sortKey STARTS WITH $yprefix AND p.year = $year "


def paper_params(query: PaperQuery) -> dict[str, Any]:
    return {
        "author": query.author,
        "concepts": list(query.concepts or ()),
        "narrower": list(query.narrower),
        "phrases": list(query.phrases or ()),
        "venues": list(query.venues or ()),
        "topics": list(query.topics or ()),
        "year": query.year,
        "yprefix": year_prefix(query.year),
        "status": query.status,
        "track": query.track,
        "papers": list(query.papers or ()),
    }


def paper_fulltext_query(text: str) -> str | None:
    """The Lucene query of a text condition: its words in title and abstract only (so concept
    nodes of the shared fulltext index never match), with the fulltext boosts."""
    return lucene_terms(text, False, ("title", "abstract"))


def papers_page(query: PaperQuery, driver: str | None, offset: int, limit: int) -> Statement:
    """``total`` and ``ids`` (the window) of the papers matching ``query``.

    ``driver``: the condition whose relationships find the candidates (``None``: no condition
    but year/none, answered from the sort indexes). With ``text`` the full-text hits drive and
    rank; otherwise the order is ``_sortKey``.
    """
    params = paper_params(query) | {"offset": offset, "end": offset + limit, "limit": limit}
    if query.text is not None:
        filters = _paper_filters(query, "text")
        params |= {
            "q": paper_fulltext_query(query.text),
            "scan": TEXT_SCAN if filters else TEXT_HITS,
            "hits": TEXT_HITS,
        }
        where = f"WHERE p:Paper{''.join(' AND ' + f for f in filters)} "
        text = (
            f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $q, {{limit: $scan}}) "
            "YIELD node AS p, score "
            f"{where}WITH p, score ORDER BY score DESC, p.id LIMIT $hits "
            f"{paper_order(query, params)}"
            "WITH collect(p.id) AS ids RETURN size(ids) AS total, ids[$offset..$end] AS ids"
        )
        return Statement(text, params)
    if driver is None:
        # No relationship condition: count from the count store (or the year index) and read
        # the window as a scan (index-ordered when newest first) that stops after offset +
        # limit rows.
        if query.year is None:
            count = "MATCH (p:Paper) RETURN count(p) AS total"
            window = f"MATCH (p:Paper) WHERE p._sortKey IS NOT NULL {paper_order(query, params)}"
        else:
            # One year is one prefix range of the sort index (the year test keeps out
            # impossible years, which share the no-year prefix).
            count = _YEAR_RANGE + "RETURN count(p) AS total"
            window = _YEAR_RANGE + paper_order(query, params)
        text = (
            f"CALL () {{ {count} }} "
            f"CALL () {{ {window} SKIP $offset LIMIT $limit RETURN collect(p.id) AS ids }} "
            "RETURN total, ids"
        )
        return Statement(text, params)
    filters = _paper_filters(query, driver)
    where = f"WHERE {' AND '.join(filters)} " if filters else ""
    if driver == "concepts" and query.sort == "RELEVANCE":
        return Statement(_ranked_by_concepts(query, params, where), params)
    matched = f"{_driver_match(query, driver)}WITH p {where}{paper_order(query, params)}"
    text = f"{matched}WITH collect(p) AS ps RETURN size(ps) AS total, [x IN ps[$offset..$end] | x.id] AS ids"
    return Statement(text, params)


def _ranked_by_concepts(query: PaperQuery, params: dict[str, Any], where: str) -> str:
    """``total`` and ``ids`` (the window) of the papers of ``query.concepts`` in relevance order,
    ranked by the links that found them.

    What :func:`paper_order` computes for RELEVANCE (each paper's best link to the concepts),
    taken from the relationships the concept driver walks anyway, instead of a second walk of
    every candidate paper's own MENTIONS: for a concept of 5,000 papers at 100k papers that
    walk read ~140,000 relationships and their ends' ids (two thirds of the statement's db hits).
    The papers are sorted by rank alone, and only those ranked at least as high as the window's
    last one (``last``) have their ``_sortKey`` read for the tie-break: the order of the window
    is the full sort's, without a property read per candidate paper.
    """
    params["w"] = SCORE_WEIGHT
    return (
        f"UNWIND $concepts AS cid MATCH (:{_N} {{id: cid}})<-[r:MENTIONS|INTRODUCES]-(p) "
        f"WHERE true{_concept_cond('r', query.about_only, 'cid')} "
        "WITH p, type(r) = 'INTRODUCES' AS intro, r.about AS about, r.salience AS salience, "
        "coalesce(r.score, 0.0) AS score "
        f"WITH p, max({PROJECTED_RELEVANCE}) AS rank WHERE p:Paper WITH p, rank {where}"
        "WITH p, rank ORDER BY rank DESC WITH collect([rank, p]) AS ranked "
        "WITH ranked, ranked[CASE WHEN $end < 1 THEN 0 ELSE $end - 1 END] AS last "
        "WITH size(ranked) AS total, "
        "[x IN ranked WHERE $end > 0 AND (last IS NULL OR x[0] >= last[0])] AS head "
        "CALL (head) { UNWIND head AS x WITH x[1] AS p, x[0] AS rank ORDER BY rank DESC, p._sortKey "
        "RETURN collect(p.id) AS ordered } "
        "RETURN total, ordered[$offset..$end] AS ids"
    )


# _RELEVANCE over a link's properties read once each (``intro``, ``about``, ``salience`` and
# ``score`` coalesced to 0.0): the server re-read ``score`` for each of its three uses.
PROJECTED_RELEVANCE = (
    "CASE WHEN intro THEN 3.0 "
    "ELSE 2.0 * CASE WHEN about = false THEN 0 ELSE 1 END + coalesce(salience, 0.0) END "
    "+ $w * CASE WHEN score < 0.0 THEN 0.0 WHEN score > 99.0 THEN 99.0 ELSE score END"
)


def paper_order(query: PaperQuery, params: dict[str, Any]) -> str:
    """``WITH p ... ORDER BY ...``: the papers bound to ``p`` (and, for a text query, their
    ``score``) sorted in ``query.sort`` (:data:`kg.stores.protocol.PaperOrder`), adding the
    parameters it needs: the one place an order becomes Cypher
    (``kg.stores.sqlite.reads.paper_order_by`` is its SQL twin). ``_sortKey`` is newest first,
    then folded title, then id (:func:`year_prefix`).
    """
    if query.sort == "RELEVANCE" and query.text is not None:
        return "WITH p, score ORDER BY score DESC, p.id "
    if query.sort == "RELEVANCE" and query.concepts is not None:
        # each paper's best link to the concepts (kg.stores.protocol.link_relevance), then newest
        params["w"] = SCORE_WEIGHT
        return (
            "CALL (p) { MATCH (p)-[r:MENTIONS|INTRODUCES]->(c) WHERE c.id IN $concepts"
            f"{_concept_cond('r', query.about_only, 'c.id')} RETURN max({_RELEVANCE}) AS rank }} "
            "WITH p, rank ORDER BY rank DESC, p._sortKey "
        )
    if query.sort == "OLDEST":  # within one year, _sortKey is folded title, then id
        return "WITH p ORDER BY p.year IS NULL, p.year, p._sortKey "
    return "WITH p ORDER BY p._sortKey "


# The relevance of a link ``r`` (kg.stores.protocol.link_relevance), term for term.
_RELEVANCE = (
    "CASE WHEN type(r) = 'INTRODUCES' THEN 3.0 "
    "ELSE 2.0 * CASE WHEN r.about = false THEN 0 ELSE 1 END + coalesce(r.salience, 0.0) END "
    "+ $w * CASE WHEN coalesce(r.score, 0.0) < 0.0 THEN 0.0 WHEN r.score > 99.0 THEN 99.0 "
    "ELSE coalesce(r.score, 0.0) END"
)


def papers_count(query: PaperQuery, driver: str | None) -> Statement:
    """``total`` of the papers matching ``query`` (no text condition)."""
    params = paper_params(query)
    if driver is None:
        if query.year is None:
            return Statement("MATCH (p:Paper) RETURN count(p) AS total", params)
        return Statement(_YEAR_RANGE + "RETURN count(p) AS total", params)
    filters = _paper_filters(query, driver)
    where = f"WHERE {' AND '.join(filters)} " if filters else ""
    return Statement(f"{_driver_match(query, driver)}WITH p {where}RETURN count(p) AS total", params)


def _matching(query: PaperQuery, driver: str | None) -> str:
    """The start of a statement that binds ``p`` to each paper matching ``query`` (no text)."""
    if query.text is not None:
        raise GraphStoreError("a count by year or concept takes no text condition")
    if driver is None:
        return _YEAR_RANGE if query.year is not None else "MATCH (p:Paper) "
    filters = _paper_filters(query, driver)
    where = f"WHERE {' AND '.join(filters)} " if filters else ""
    return f"{_driver_match(query, driver)}WITH p {where}"


def paper_years(query: PaperQuery, driver: str | None) -> Statement:
    """``rows`` of ``[year, papers]``: the papers matching ``query`` per year, by year."""
    return Statement(
        f"{_matching(query, driver)}WITH p WHERE p.year IS NOT NULL "
        "WITH toInteger(p.year) AS year, count(p) AS n ORDER BY year RETURN collect([year, n]) AS rows",
        paper_params(query),
    )


def concept_counts(
    query: PaperQuery, driver: str | None, kind: str | None, limit: int, about_only: bool = True
) -> Statement:
    """``rows`` of ``[concept id, papers]``: concepts by the papers matching ``query`` that are
    about them, most first, then by id."""
    kind_test = " AND c.kind = $kind" if kind is not None else ""
    return Statement(
        f"{_matching(query, driver)}MATCH (p)-[r:MENTIONS|INTRODUCES]->(c:Concept) "
        f"WHERE true{_concept_cond('r', about_only)}{kind_test} "
        "WITH c.id AS id, count(DISTINCT p) AS n ORDER BY n DESC, id LIMIT $limit "
        "RETURN collect([id, n]) AS rows",
        paper_params(query) | {"kind": kind, "limit": limit},
    )


# -- stored analytics (kg analyze) -------------------------------------------------------------
ANALYSIS_LABEL = "__KGAnalysis"  # one node per analysed node: {pair, node, scores, community}
ANALYSIS_VERSION_LABEL = "__KGAnalysisVersion"  # {pair, version}: what the rows were computed at
MEASURE_PROPERTY: dict[str, str] = {"DEGREE": "degree", "BETWEENNESS": "betweenness", "PAGERANK": "pagerank"}


def analysis_version(pair: str) -> Statement:
    return Statement(
        f"OPTIONAL MATCH (v:{ANALYSIS_VERSION_LABEL} {{pair: $pair}}) RETURN v.version AS version",
        {"pair": pair_type(pair)},
    )


def set_analysis_version(pair: str, version: int) -> Statement:
    return Statement(
        f"MERGE (v:{ANALYSIS_VERSION_LABEL} {{pair: $pair}}) SET v.version = $version",
        {"pair": pair_type(pair), "version": version},
    )


def delete_analysis(pair: str, limit: int) -> Statement:
    """``n``: how many of one graph's analysis nodes were deleted (at most ``limit``)."""
    return Statement(
        f"MATCH (s:{ANALYSIS_LABEL} {{pair: $pair}}) WITH s LIMIT $limit DELETE s RETURN count(*) AS n",
        {"pair": pair_type(pair), "limit": limit},
    )


def create_analysis(pair: str, rows: Sequence[Sequence[Any]]) -> Statement:
    return Statement(
        f"UNWIND $rows AS r CREATE (:{ANALYSIS_LABEL} {{pair: $pair, node: r[0], degree: r[1], "
        "betweenness: r[2], pagerank: r[3], community: r[4]})",
        {"pair": pair_type(pair), "rows": [list(r) for r in rows]},
    )


def central_nodes(pair: str, measure: str, limit: int) -> Statement:
    """``rows`` of ``[node id, score]``: highest stored score first, then by id."""
    prop = MEASURE_PROPERTY[measure]
    return Statement(
        f"MATCH (s:{ANALYSIS_LABEL}) WHERE s.pair = $pair WITH s ORDER BY s.{prop} DESC, s.node "
        f"LIMIT $limit RETURN collect([s.node, s.{prop}]) AS rows",
        {"pair": pair_type(pair), "limit": limit},
    )


def community_sizes(pair: str, limit: int) -> Statement:
    """``sizes``: members of communities 0 .. limit - 1, in that order."""
    return Statement(
        f"MATCH (s:{ANALYSIS_LABEL}) WHERE s.pair = $pair AND s.community < $limit "
        "WITH s.community AS c, count(*) AS n ORDER BY c RETURN collect(n) AS sizes",
        {"pair": pair_type(pair), "limit": limit},
    )


def community_members(pair: str, community: int, limit: int) -> Statement:
    """``ids``: one community's members, most papers (``_papers``) first, then by id."""
    return Statement(
        f"MATCH (s:{ANALYSIS_LABEL}) WHERE s.pair = $pair AND s.community = $c "
        f"MATCH (n:{_N} {{id: s.node}}) WITH n ORDER BY coalesce(n._papers, 0) DESC, n.id "
        "LIMIT $limit RETURN collect(n.id) AS ids",
        {"pair": pair_type(pair), "c": community, "limit": limit},
    )


def coauthor_path(source: str, target: str, max_hops: int) -> Statement:
    """``ids``: the authors of a shortest chain of COAUTHOR ties from one author to another (no
    record when there is none within ``max_hops``). ``shortestPath`` is a bidirectional
    breadth-first search in the server; the bound is a literal (Cypher takes no parameter there)."""
    hops = int(max_hops)
    return Statement(
        f"MATCH (a:{_N}:Author {{id: $source}}), (b:{_N}:Author {{id: $target}}) "
        f"MATCH p = shortestPath((a)-[:COAUTHOR*..{hops}]-(b)) "
        "RETURN [n IN nodes(p) | n.id] AS ids",
        {"source": source, "target": target},
    )


_YEAR_PAPERS = (
    "MATCH (n)-[:AUTHORED]->(p:Paper)<-[:AUTHORED]-(o) WHERE o <> n AND p.year >= $from "
    "AND p.year <= $to AND (p.coauthorPairs IS NULL OR p.coauthorPairs <> false) "
)


def coauthors_in_years(ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int) -> Statement:
    """``rows`` of ``[i, co-author, papers]``: per author (by position) the co-authors of the
    papers of ``years``, most shared papers first, then by id."""
    return Statement(
        f"UNWIND range(0, size($ids) - 1) AS i MATCH (n:{_N} {{id: $ids[i]}}) "
        f"CALL (n) {{ {_YEAR_PAPERS}WITH o.id AS other, count(p) AS w WHERE w >= $min "
        "RETURN other, w ORDER BY w DESC, other LIMIT $limit } "
        "RETURN collect([i, other, w]) AS rows",
        {"ids": list(ids), "from": years[0], "to": years[1], "min": min_weight, "limit": limit},
    )


def author_venues(ids: Sequence[str], limit: int) -> Statement:
    """``rows`` of ``[i, venue, papers]``: per author (by position) the venue editions of its
    papers, most papers first, then by id."""
    return Statement(
        f"UNWIND range(0, size($ids) - 1) AS i MATCH (n:{_N} {{id: $ids[i]}}) "
        f"CALL (n) {{ MATCH (n)-[:AUTHORED]->(:{_N}:Paper)-[:PUBLISHED_IN]->(v:{_N}:Venue) "
        "WITH v.id AS venue, count(*) AS w RETURN venue, w ORDER BY w DESC, venue LIMIT $limit } "
        "RETURN collect([i, venue, w]) AS rows",
        {"ids": list(ids), "limit": limit},
    )


def coauthor_edges_in_years(ids: Sequence[str], years: tuple[int, int], min_weight: int) -> Statement:
    """``rows`` of ``[a, b, papers]``: ties among ``ids`` (a < b) from the papers of ``years``."""
    return Statement(
        f"MATCH (n:{_N}) WHERE n.id IN $ids {_YEAR_PAPERS}AND o.id IN $ids AND n.id < o.id "
        "WITH n.id AS a, o.id AS b, count(p) AS w WHERE w >= $min RETURN collect([a, b, w]) AS rows",
        {"ids": list(ids), "from": years[0], "to": years[1], "min": min_weight},
    )


# Per paper ``p`` of a year range, its best CO_OCCURS_TOP_K mentions by score, then concept id
# (kg.core.derived.top_concepts, a missing score counting as 0), as ``top``.
_YEAR = "p.year >= $from AND p.year <= $to "
_TOP = (
    "CALL (p) { MATCH (p)-[m:MENTIONS]->(x) "
    "WITH x.id AS id, CASE WHEN m.score IS :: INTEGER | FLOAT THEN toFloat(m.score) ELSE 0.0 END AS s "
    "ORDER BY s DESC, id LIMIT $k RETURN collect(id) AS top } "
)
_YEAR_TOPS = f"MATCH (c)<-[:MENTIONS]-(p:Paper) WHERE {_YEAR}{_TOP}"


def concepts_in_years(ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int) -> Statement:
    """``rows`` of ``[i, concept, papers]``: per concept (by position) the concepts it co-occurs
    with in the papers of ``years`` (both among a paper's top mentions), most papers first, then id."""
    return Statement(
        f"UNWIND range(0, size($ids) - 1) AS i MATCH (c:{_N} {{id: $ids[i]}}) "
        f"CALL (c) {{ {_YEAR_TOPS}WITH c, top WHERE c.id IN top "
        "UNWIND top AS other WITH other WHERE other <> c.id "
        "WITH other, count(*) AS w WHERE w >= $min RETURN other, w ORDER BY w DESC, other LIMIT $limit } "
        "RETURN collect([i, other, w]) AS rows",
        {
            "ids": list(ids),
            "from": years[0],
            "to": years[1],
            "k": CO_OCCURS_TOP_K,
            "min": min_weight,
            "limit": limit,
        },
    )


def concept_edges_in_years(ids: Sequence[str], years: tuple[int, int], min_weight: int) -> Statement:
    """``rows`` of ``[a, b, papers]``: co-occurrence ties among ``ids`` (a < b) from the papers
    of ``years``; each paper's top mentions are read once, whichever of ``ids`` led to it."""
    return Statement(
        f"MATCH (c:{_N}) WHERE c.id IN $ids MATCH (c)<-[:MENTIONS]-(p:Paper) WHERE {_YEAR}"
        f"WITH DISTINCT p {_TOP}"
        "WITH [x IN top WHERE x IN $ids] AS kept WHERE size(kept) >= 2 "
        "UNWIND kept AS a UNWIND kept AS b WITH a, b WHERE a < b "
        "WITH a, b, count(*) AS w WHERE w >= $min RETURN collect([a, b, w]) AS rows",
        {"ids": list(ids), "from": years[0], "to": years[1], "k": CO_OCCURS_TOP_K, "min": min_weight},
    )


def condition_sizes(query: PaperQuery) -> Statement:
    """``concepts``, ``venues``, ``topics``: an upper bound of the papers each condition finds
    (sums of degrees, answered from the relationship counts of dense nodes)."""
    return Statement(
        f"CALL () {{ UNWIND $concepts AS id MATCH (n:{_N} {{id: id}}) "
        "RETURN sum(COUNT { (n)<-[:MENTIONS|INTRODUCES]-() }) AS concepts } "
        f"CALL () {{ UNWIND $venues AS id MATCH (n:{_N} {{id: id}}) "
        "RETURN sum(COUNT { (n)<-[:PUBLISHED_IN]-() }) AS venues } "
        f"CALL () {{ UNWIND $topics AS id MATCH (n:{_N} {{id: id}}) "
        "RETURN sum(COUNT { (n)<-[:HAS_TOPIC]-() }) AS topics } "
        "RETURN concepts, venues, topics",
        paper_params(query),
    )


# -- listings ----------------------------------------------------------------------------------
def _order(var: str, order: ListOrder) -> str:
    if order == "PAPER_COUNT":
        return f"{var}._papers DESC, {var}._sortName, {var}.id"
    if order == "NAME":
        return f"{var}._sortName, {var}.id"
    raise GraphStoreError(f"unknown order {order!r} (expected PAPER_COUNT or NAME)")


def listing(
    label: str,
    search: str | None,
    loose: str | None,
    kind: str | None,
    order: ListOrder,
    offset: int,
    limit: int,
) -> Statement:
    """``total`` and ``ids`` of a Concept or Author listing (see ``ReadStore.list_concepts``).

    ``search``/``loose``: folded substrings of ``_search`` (either matches); ``kind``: concepts only.
    """
    lb = "Concept" if label == "Concept" else "Author"
    params: dict[str, Any] = {
        "q": search,
        "loose": loose,
        "kind": kind,
        "offset": offset,
        "end": offset + limit,
        "limit": limit,
    }
    conds = []
    if kind is not None:
        conds.append("c.kind = $kind")
    sort_key = "_papers" if order == "PAPER_COUNT" else "_sortName"
    if search is None:
        where = f"WHERE {' AND '.join(conds)} " if conds else ""
        window_where = " AND ".join([*conds, f"c.{sort_key} IS NOT NULL"])
        text = (
            f"CALL () {{ MATCH (c:{lb}) {where}RETURN count(c) AS total }} "
            f"CALL () {{ MATCH (c:{lb}) WHERE {window_where} WITH c ORDER BY {_order('c', order)} "
            "SKIP $offset LIMIT $limit RETURN collect(c.id) AS ids } RETURN total, ids"
        )
        return Statement(text, params)
    match = "c._search CONTAINS $q"
    if loose and loose != search:
        match = f"({match} OR c._search CONTAINS $loose)"
    where = " AND ".join([match, *conds])
    text = (
        f"MATCH (c:{lb}) WHERE {where} WITH c ORDER BY {_order('c', order)} "
        "WITH collect(c) AS cs RETURN size(cs) AS total, [x IN cs[$offset..$end] | x.id] AS ids"
    )
    return Statement(text, params)


# -- networks ----------------------------------------------------------------------------------
def weighted_neighbors(ids: Sequence[str], pair: str, min_weight: int, limit: int) -> Statement:
    """``rows`` of ``[i, neighbour, weight]``: per id (by position) its heaviest ties, then by id.

    The ties are ranked by weight alone first and only the neighbours that can make the list
    (weight at least the ``limit``-th heaviest) have their ``id`` read for the tie-break: a
    popular concept has thousands of ties and reading every far end's ``id`` to sort them was a
    third of the statement's db hits."""
    t = pair_type(pair)
    return Statement(
        f"UNWIND range(0, size($ids) - 1) AS i MATCH (n:{_N} {{id: $ids[i]}}) "
        f"CALL (n) {{ MATCH (n)-[r:{t}]-(o) WHERE r.papers >= $min "
        "WITH o, r.papers AS w ORDER BY w DESC WITH collect([w, o]) AS ranked "
        "WITH ranked, ranked[$limit - 1][0] AS cut "
        "UNWIND [x IN ranked WHERE cut IS NULL OR x[0] >= cut] AS x "
        "RETURN x[1].id AS other, x[0] AS w ORDER BY w DESC, other LIMIT $limit } "
        "RETURN collect([i, other, w]) AS rows",
        {"ids": list(ids), "min": min_weight, "limit": limit},
    )


def pair_ends(ids: Sequence[str], pair: str) -> Statement:
    """``ends``: ``[id, element id]`` of the existing nodes among ``ids`` (element ids are valid
    in this transaction only); ``ties``: how many ``pair`` ties start at them (degrees: no
    relationship is read). The ids come from the parameter, not from the nodes: no property read."""
    t = pair_type(pair)
    return Statement(
        f"UNWIND $ids AS id MATCH (a:{_N} {{id: id}}) "
        f"RETURN collect([id, elementId(a)]) AS ends, sum(COUNT {{ (a)-[:{t}]->() }}) AS ties",
        {"ids": list(ids)},
    )


def pair_edges_among(eids: Sequence[str], pair: str, min_weight: int) -> Statement:
    """``rows`` of ``[a, b, weight]`` with ``a``, ``b`` element ids: the ties among the nodes
    with these element ids (each stored once, a < b). Testing the far end by element id (a set
    lookup on a parameter) reads no property of the thousands of neighbours a popular concept
    has: 4x faster than by ``id``; the ends are returned as element ids (the caller knows their
    ids), so the only property read is ``papers``."""
    t = pair_type(pair)
    return Statement(
        f"MATCH (a) WHERE elementId(a) IN $eids MATCH (a)-[r:{t}]->(b) "
        "WHERE elementId(b) IN $eids AND r.papers >= $min "
        "RETURN collect([elementId(a), elementId(b), r.papers]) AS rows",
        {"eids": list(eids), "min": min_weight},
    )


def pair_edges_by_key(ends: Sequence[tuple[str, str]], pair: str, min_weight: int) -> Statement:
    """``rows`` of ``[i, j, weight]``: the ties among the nodes ``ends`` (``(id, element id)`` in
    this transaction, as :func:`pair_ends` found them), ``i < j`` their positions in
    :func:`keyed_order` of ``ends``. Each candidate pair is looked up by its indexed key
    (:func:`kg.stores.neo4j.queries.pair_key`) and its ends matched by element id (a record's own
    reference, no property read; a key collision finds nothing extra); a row names its ends by
    position in ``$eids``, so the parameter is not 2 element ids per candidate pair (~450 KB
    for 100 nodes). For nodes with many ties each (popular concepts), where walking every tie
    of every node to test its far end reads them all: the ties among 100 popular concepts at
    100k papers (26-31 ties out per candidate pair) took 143-220 ms that way, 39-77 ms by key;
    at 10k (3 per pair) 20-22 ms against 32-37 (see KEYED_TIES_PER_PAIR)."""
    t = pair_type(pair)
    ordered = keyed_order(ends)
    ids = [i for i, _e in ordered]
    rows = [[pair_key(a, ids[j]), i, j] for i, a in enumerate(ids) for j in range(i + 1, len(ids))]
    return Statement(
        f"UNWIND $rows AS row MATCH (a)-[r:{t}]->(b) USING INDEX r:{t}({PAIR_KEY}) "
        f"WHERE r.{PAIR_KEY} = row[0] AND elementId(a) = $eids[row[1]] AND elementId(b) = $eids[row[2]] "
        "AND r.papers >= $min RETURN collect([row[1], row[2], r.papers]) AS rows",
        {"rows": rows, "eids": [e for _i, e in ordered], "min": min_weight},
    )


def keyed_order(ends: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """``ends`` (``(id, element id)``) by id: a candidate pair of :func:`pair_edges_by_key` is
    two positions ``i < j`` in it, the smaller id first as derived pairs are stored
    (:func:`kg.stores.neo4j.queries.create_pairs`)."""
    return sorted(dict(ends).items())


def strongest_nodes(pair: str, min_weight: int, limit: int) -> Statement:
    """``rows`` of ``[id, weighted degree]``: the ``limit`` strongest nodes (whole-type aggregate)."""
    t = pair_type(pair)
    return Statement(
        f"MATCH (a)-[r:{t}]->(b) WHERE r.papers >= $min "
        "UNWIND [a, b] AS n WITH n, sum(r.papers) AS s ORDER BY s DESC, n.id LIMIT $limit "
        "RETURN collect([n.id, s]) AS rows",
        {"min": min_weight, "limit": limit},
    )


def heaviest_pairs(pair: str, limit: int) -> Statement:
    """``rows`` of ``[a, b, weight]``: the heaviest ``limit`` ties, then by (a, b)."""
    t = pair_type(pair)
    return Statement(
        f"MATCH (a)-[r:{t}]->(b) WHERE r.papers IS NOT NULL "
        "WITH a, b, r.papers AS w ORDER BY w DESC, a.id, b.id LIMIT $limit "
        "RETURN collect([a.id, b.id, w]) AS rows",
        {"limit": limit},
    )
