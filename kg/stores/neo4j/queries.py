"""Every Cypher statement of the Neo4j backend, as functions returning parameterised statements.

Rules this module keeps (and ``tests/unit/test_neo4j_queries.py`` checks):

- Only labels and relationship types are interpolated into Cypher text, and only after
  :func:`label` / :func:`rel_type` checked them against the allow-lists in :mod:`kg.core.models`.
  Every value travels as a parameter.
- Writes are batched: ``UNWIND $rows AS row ...`` with one row per node or relationship.
- Batched lookups return ONE record whose ``rows`` column collects a list per result row: the
  driver handles every record as its own Bolt message (tens of microseconds of Python each),
  while one list is decoded in a single call; an upsert of 500 papers reads ~20,000 rows.
- Every paperkg node also carries :data:`NODE_LABEL`, whose uniqueness constraint on ``id`` is
  the one index all lookups by id use, whatever the node's label (ids are unique across labels,
  as in the embedded store). The per-label constraints keep ``id`` unique for each label too.

Internal properties (:data:`INTERNAL_NODE_PROPERTIES`) exist only for Neo4j (the fulltext index
cannot index a list, so a Concept's ``aliases`` are also stored joined as :data:`ALIAS_TEXT`);
the store strips them on read, so exports equal the embedded store's.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from kg.core.errors import GraphStoreError
from kg.core.models import DERIVED_REL_TYPES, LABELS, REL_TYPES
from kg.core.text_index import FIELD_BOOST, search_terms

Direction = Literal["out", "in", "both"]

NODE_LABEL = "__KGNode__"
LOCK_LABEL = "__KGWriteLock__"
LOCK_ID = "upsert"
# The store version: one node, its ``value`` bumped in every write transaction that changes
# something (and by clear()), so caches can key on it. Not a paperkg node: no NODE_LABEL.
META_LABEL = "__KGMeta__"
VERSION_ID = "version"
# Provisional concepts carried by one paper so far (kg.core.provisional): one node per (concept,
# paper) holding both property maps as JSON, found by concept id. Not a paperkg node either.
KEYPHRASE_LABEL = "__KGKeyphrase__"
# Secondary labels on Concept nodes per ``kind`` (Browser colours them); CONCEPT gets none.
# Reads pick the paperkg label (Concept) from a node's labels, so these never reach a caller.
KIND_LABELS: dict[str, str] = {
    "METHOD": "Method",
    "TASK": "Task",
    "DATASET": "Dataset",
    "MODEL": "Model",
    "METRIC": "Metric",
}
FULLTEXT_INDEX = "paperkg_fulltext"
FULLTEXT_ANALYZER = "standard-folding"  # accents folded, like kg.core.ids.fold in the embedded index
ALIAS_TEXT = "_aliasText"
# Sort, search and count keys of the read path (kg.stores.neo4j.read_index maintains them).
READ_INDEX_PROPERTIES: frozenset[str] = frozenset({"_sortKey", "_sortName", "_search", "_papers", "_keys"})
INTERNAL_NODE_PROPERTIES: frozenset[str] = frozenset({"id", ALIAS_TEXT}) | READ_INDEX_PROPERTIES
# A derived pair's key (:func:`pair_key`), indexed so a pair is found without walking the
# relationship chains of its two ends (popular concepts and prolific authors have thousands).
PAIR_KEY = "_pair"
INTERNAL_REL_PROPERTIES: frozenset[str] = frozenset({PAIR_KEY})
# Meta node present once every derived pair in the database carries PAIR_KEY (stores written
# before pair keys are migrated when opened: kg.stores.neo4j.pair_keys).
PAIR_KEYS_ID = "pair-keys"
# Fulltext fields and their query-time boosts: the embedded index's FIELD_BOOST, field for field.
FULLTEXT_FIELDS: dict[str, float] = {
    "title": FIELD_BOOST["title"],
    "abstract": FIELD_BOOST["abstract"],
    "name": FIELD_BOOST["name"],
    ALIAS_TEXT: FIELD_BOOST["aliases"],
}
# Lookup indexes for the API's by-name queries.
NAME_INDEXES: tuple[tuple[str, str], ...] = (
    ("Concept", "name"),
    ("Author", "name"),
    ("Venue", "name"),
    ("Topic", "name"),
)


@dataclass(frozen=True)
class Statement:
    """One Cypher statement and its parameters (role: query payload).

    >>> s = Statement("RETURN $x AS x", {"x": 1})
    >>> s.params["x"]
    1
    """

    text: str
    params: dict[str, Any] = field(default_factory=dict)


def first_ids(head: str, order: str, limit: int, **params: Any) -> Statement:
    """``ids``: the first ``limit`` values ``head`` binds to ``id``, in ``order``, as one list (one
    record, however many ids; ``LIMIT`` lets the planner stop early).

    >>> first_ids("MATCH (n) WITH n.id AS id", "id", 3).text
    'MATCH (n) WITH n.id AS id ORDER BY id LIMIT $limit RETURN collect(id) AS ids'
    """
    return Statement(
        f"{head} ORDER BY {order} LIMIT $limit RETURN collect(id) AS ids", {**params, "limit": limit}
    )


def rows_per_id(ids: Sequence[str], match: str, row: str) -> Statement:
    """``UNWIND $ids AS id <match> RETURN collect([<row>]) AS rows``: one statement and one
    record for a whole batch of ids, however many rows each has (the caller groups them by id),
    instead of a round trip per id.

    >>> rows_per_id(["a"], "MATCH (n {id: id})", "id, n.x").text
    'UNWIND $ids AS id MATCH (n {id: id}) RETURN collect([id, n.x]) AS rows'
    """
    return Statement(f"UNWIND $ids AS id {match} RETURN collect([{row}]) AS rows", {"ids": list(ids)})


def label(name: str) -> str:
    """``name`` if it is one of :data:`kg.core.models.LABELS`; the only way a label reaches Cypher.

    >>> label("Paper")
    'Paper'
    """
    return _one_of(name, LABELS, "node label")


def rel_type(name: str) -> str:
    """``name`` if it is one of :data:`kg.core.models.REL_TYPES`; the only way a type reaches Cypher.

    >>> rel_type("AUTHORED")
    'AUTHORED'
    """
    return _one_of(name, REL_TYPES, "relationship type")


def _one_of(name: str, allowed: Sequence[str], what: str) -> str:
    """``name`` if ``allowed`` has it, else a GraphStoreError naming ``what`` and the choices."""
    if name not in allowed:
        raise GraphStoreError(f"unknown {what} {name!r} (expected one of {', '.join(allowed)})")
    return name


def kind_label(kind: object) -> str | None:
    """The secondary label of a Concept of ``kind`` (``None`` for CONCEPT or an unknown kind).

    >>> kind_label("METHOD"), kind_label("CONCEPT")
    ('Method', None)
    """
    return KIND_LABELS.get(kind) if isinstance(kind, str) else None


def _set_kind(var: str, kind: str | None) -> str:
    """``SET var:Kind`` for a kind with a secondary label, else nothing."""
    extra = kind_label(kind)
    return f" SET {var}:{extra}" if extra else ""


# -- store version ---------------------------------------------------------------------------
def bump_version() -> Statement:
    """Add one to the store version, in the transaction whose changes it stands for."""
    return Statement(
        f"MERGE (m:{META_LABEL} {{id: $id}}) SET m.value = coalesce(m.value, 0) + 1",
        {"id": VERSION_ID},
    )


def read_version() -> Statement:
    """``value``: the store version (no row before the first change)."""
    return read_meta(VERSION_ID)


# -- schema ------------------------------------------------------------------------------------
def schema_statements() -> list[Statement]:
    """Constraints and indexes, idempotent (``IF NOT EXISTS``); run each in its own transaction."""
    out = [
        Statement(
            f"CREATE CONSTRAINT paperkg_node_id IF NOT EXISTS FOR (n:{NODE_LABEL}) REQUIRE n.id IS UNIQUE"
        ),
        Statement(
            f"CREATE CONSTRAINT paperkg_lock_id IF NOT EXISTS FOR (n:{LOCK_LABEL}) REQUIRE n.id IS UNIQUE"
        ),
        Statement(
            f"CREATE CONSTRAINT paperkg_meta_id IF NOT EXISTS FOR (n:{META_LABEL}) REQUIRE n.id IS UNIQUE"
        ),
        Statement(
            f"CREATE CONSTRAINT paperkg_keyphrase_id IF NOT EXISTS FOR (k:{KEYPHRASE_LABEL}) "
            "REQUIRE k.id IS UNIQUE"
        ),
        Statement(
            f"CREATE INDEX paperkg_keyphrase_concept IF NOT EXISTS FOR (k:{KEYPHRASE_LABEL}) ON (k.concept)"
        ),
        Statement(
            f"CREATE INDEX paperkg_keyphrase_paper IF NOT EXISTS FOR (k:{KEYPHRASE_LABEL}) ON (k.paper)"
        ),
        Statement(f"CREATE INDEX paperkg_keyphrase_key IF NOT EXISTS FOR (k:{KEYPHRASE_LABEL}) ON (k.key)"),
    ]
    for name in LABELS:
        out.append(
            Statement(
                f"CREATE CONSTRAINT paperkg_{name.lower()}_id IF NOT EXISTS "
                f"FOR (n:{label(name)}) REQUIRE n.id IS UNIQUE"
            )
        )
    for indexed, prop in NAME_INDEXES:
        out.append(
            Statement(
                f"CREATE INDEX paperkg_{indexed.lower()}_{prop} IF NOT EXISTS "
                f"FOR (n:{label(indexed)}) ON (n.{prop})"
            )
        )
    for t in DERIVED_REL_TYPES:
        out.append(
            Statement(
                f"CREATE INDEX paperkg_{t.lower()}_pair IF NOT EXISTS "
                f"FOR ()-[r:{rel_type(t)}]-() ON (r.{PAIR_KEY})"
            )
        )
    fields = ", ".join(f"n.{f}" for f in FULLTEXT_FIELDS)
    out.append(
        Statement(
            f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS "
            f"FOR (n:{label('Paper')}|{label('Concept')}) ON EACH [{fields}] "
            # Eventually consistent: Lucene is updated after the commit, in the background, so a
            # batch commit does not wait for it; search() waits for the refresh instead.
            "OPTIONS {indexConfig: {`fulltext.analyzer`: $analyzer, `fulltext.eventually_consistent`: true}}",
            {"analyzer": FULLTEXT_ANALYZER},
        )
    )
    return out


def await_indexes(timeout_s: int = 300) -> Statement:
    """Wait until every index is online (a fresh fulltext index populates in the background)."""
    return Statement("CALL db.awaitIndexes($timeout)", {"timeout": timeout_s})


# -- upsert: reads ---------------------------------------------------------------------------
def lock_writers() -> Statement:
    """Take the writer lock: upserts serialise, so their read-merge-write sees committed state."""
    return Statement(
        f"MERGE (l:{LOCK_LABEL} {{id: $id}}) SET l.batches = coalesce(l.batches, 0) + 1",
        {"id": LOCK_ID},
    )


def nodes_by_id(ids: Sequence[str]) -> Statement:
    """``rows`` of ``[id, labels, props, eid]``: the nodes that exist among ``ids`` (any label)."""
    return rows_per_id(
        ids, f"MATCH (n:{NODE_LABEL} {{id: id}})", "n.id, labels(n), properties(n), elementId(n)"
    )


def keyphrases_of(concept_ids: Sequence[str]) -> Statement:
    """``rows`` of ``[concept, paper, node json, rel json]``: the keyphrase rows of the concepts."""
    return rows_per_id(
        concept_ids, f"MATCH (k:{KEYPHRASE_LABEL} {{concept: id}})", "k.concept, k.paper, k.node, k.rel"
    )


def keyphrase_id(concept_id: str, paper_id: str) -> str:
    """The key of one keyphrase row (node ids never contain a tab)."""
    return f"{concept_id}\t{paper_id}"


class KeyphraseRow(NamedTuple):
    """A keyphrase row as Neo4j keeps it: both maps as JSON, the lookup key and ``about``."""

    concept: str
    paper: str
    node: str
    rel: str
    key: str
    about: bool


def put_keyphrases(rows: Sequence[KeyphraseRow]) -> Statement:
    """Write keyphrase rows (replacing older ones)."""
    return Statement(
        f"UNWIND $rows AS row MERGE (k:{KEYPHRASE_LABEL} {{id: row[0]}}) "
        "SET k.concept = row[1], k.paper = row[2], k.node = row[3], k.rel = row[4], "
        "k.key = row[5], k.about = row[6]",
        {"rows": [[keyphrase_id(r.concept, r.paper), *r] for r in rows]},
    )


def paper_keyphrases(paper_ids: Sequence[str]) -> Statement:
    """``rows`` of ``[paper, concept, node json, rel json]``: the keyphrase rows of the papers."""
    return rows_per_id(
        paper_ids, f"MATCH (k:{KEYPHRASE_LABEL} {{paper: id}})", "k.paper, k.concept, k.node, k.rel"
    )


def keyphrase_concepts(key: str, limit: int) -> Statement:
    """``ids``: the concepts of the keyphrase rows with this lookup key, sorted, at most ``limit``."""
    return first_ids(
        f"MATCH (k:{KEYPHRASE_LABEL} {{key: $key}}) WITH DISTINCT k.concept AS id", "id", limit, key=key
    )


def drop_keyphrases(concept_ids: Sequence[str]) -> Statement:
    """Delete the keyphrase rows of promoted concepts."""
    return Statement(
        f"UNWIND $ids AS cid MATCH (k:{KEYPHRASE_LABEL} {{concept: cid}}) DELETE k",
        {"ids": list(concept_ids)},
    )


def relationships_around(ids: Sequence[str]) -> Statement:
    """Every stored (non-derived) relationship touching the given nodes, either direction.

    ``rows`` of ``[start, type, end, props, start_eid, end_eid]``: the element ids of both ends
    come along, since derived pair bumps may involve them.
    """
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{NODE_LABEL} {{id: id}})-[r]-(o:{NODE_LABEL}) "
        "WHERE NOT type(r) IN $derived WITH r, startNode(r) AS s, endNode(r) AS e "
        "RETURN collect([s.id, type(r), e.id, properties(r), elementId(s), elementId(e)]) AS rows",
        {"ids": list(ids), "derived": list(DERIVED_REL_TYPES)},
    )


def mentions_of(ids: Sequence[str]) -> Statement:
    """The stored ``MENTIONS`` of the given papers, rows as in :func:`relationships_around`."""
    return rows_per_id(
        ids,
        f"MATCH (n:{NODE_LABEL} {{id: id}})-[r:MENTIONS]->(o:{NODE_LABEL})",
        "id, 'MENTIONS', o.id, properties(r), elementId(n), elementId(o)",
    )


def _match_pair(start: str, end: str) -> str:
    """Both ends by element id: a direct record lookup, cheaper than an index seek.

    Element ids are only stable within a transaction; the store reads or creates them in the
    same transaction that uses them.
    """
    return f"MATCH (a) WHERE elementId(a) = {start} MATCH (b) WHERE elementId(b) = {end} "


def _rel_between(type_: str) -> str:
    # A subquery with both ends bound plans as Expand(Into), which starts from the end with fewer
    # relationships; a plain pattern may expand every BROADER of a broad concept instead.
    return f"CALL (a, b) {{ MATCH (a)-[r:{type_}]->(b) RETURN r }} "


def relationships_by_key(type_: str, rows: Sequence[Sequence[str]]) -> Statement:
    """The stored relationships of one type among ``rows`` of ``[start, end]`` element ids.

    Returns ``rows`` of ``[start, type, end, props]``.
    """
    t = rel_type(type_)
    return Statement(
        f"UNWIND $rows AS row {_match_pair('row[0]', 'row[1]')}{_rel_between(t)}"
        "RETURN collect([a.id, type(r), b.id, properties(r)]) AS rows",
        {"rows": list(rows)},
    )


# -- upsert: writes --------------------------------------------------------------------------
def create_nodes(label_: str, rows: Sequence[dict[str, Any]], kind: str | None = None) -> Statement:
    """New nodes of one label (rows: full property maps, ``id`` included): ``rows`` of ``[id, eid]``.

    ``kind``: the concept kind all rows share, whose secondary label (:data:`KIND_LABELS`) the
    nodes also get; the store groups new Concept rows by kind.

    >>> create_nodes("Concept", [], kind="TASK").text.split(" RETURN")[0]
    'UNWIND $rows AS row CREATE (n:__KGNode__:Concept) SET n = row SET n:Task'
    """
    lb = label(label_)
    return Statement(
        f"UNWIND $rows AS row CREATE (n:{NODE_LABEL}:{lb}) SET n = row{_set_kind('n', kind)} "
        "RETURN collect([row.id, elementId(n)]) AS rows",
        {"rows": list(rows)},
    )


def update_node_properties(rows: Sequence[Sequence[Any]]) -> Statement:
    """Change stored nodes: rows ``[id, {key: value}]`` of the properties that changed (a ``None``
    value removes the property). The read index's keys are left alone.
    """
    return Statement(
        f"UNWIND $rows AS row MATCH (n:{NODE_LABEL} {{id: row[0]}}) SET n += row[1]",
        {"rows": [list(r) for r in rows]},
    )


def update_node_properties_by_eid(rows: Sequence[Sequence[Any]]) -> Statement:
    """:func:`update_node_properties` with rows ``[element id, {key: value}]``.

    The upsert read every node it changes in the same transaction, so it has their element ids:
    a record lookup instead of a seek in the id index (which also takes an index-entry lock), and
    no ``Eager`` barrier, which the planner puts between ``MATCH {id: ...}`` and ``SET n += map``
    (the map could rewrite ``id``) and which holds every row in memory before the first write.
    """
    return Statement(
        "UNWIND $rows AS row MATCH (n) WHERE elementId(n) = row[0] SET n += row[1]",
        {"rows": [list(r) for r in rows]},
    )


def relabel_concepts(kind: str | None, ids: Sequence[str]) -> Statement:
    """Concepts whose kind changed: drop every kind label, then add ``kind``'s (if it has one).

    >>> relabel_concepts("METRIC", ["c:x"]).text.split(" REMOVE ")[1]
    'n:Method:Task:Dataset:Model:Metric SET n:Metric'
    """
    every = ":".join(KIND_LABELS.values())
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{NODE_LABEL}:{label('Concept')} {{id: id}}) "
        f"REMOVE n:{every}{_set_kind('n', kind)}",
        {"ids": list(ids)},
    )


def relabel_concepts_by_eid(kind: str | None, eids: Sequence[str]) -> Statement:
    """:func:`relabel_concepts` for concepts given by their element ids (read in this transaction).

    >>> relabel_concepts_by_eid("METRIC", ["4:x:1"]).text.split(" REMOVE ")[0]
    'UNWIND $ids AS id MATCH (n) WHERE elementId(n) = id'
    """
    every = ":".join(KIND_LABELS.values())
    return Statement(
        f"UNWIND $ids AS id MATCH (n) WHERE elementId(n) = id REMOVE n:{every}{_set_kind('n', kind)}",
        {"ids": list(eids)},
    )


def create_relationships(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """New relationships of one type: rows ``[start, end, properties]`` (ends as element ids)."""
    t = rel_type(type_)
    return Statement(
        f"UNWIND $rows AS row {_match_pair('row[0]', 'row[1]')}CREATE (a)-[r:{t}]->(b) SET r = row[2]",
        {"rows": list(rows)},
    )


def replace_relationship_properties(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """Replace the property maps of existing relationships: rows ``[start, end, properties]``."""
    t = rel_type(type_)
    return Statement(
        f"UNWIND $rows AS row {_match_pair('row[0]', 'row[1]')}{_rel_between(t)}SET r = row[2]",
        {"rows": list(rows)},
    )


def _derived(type_: str) -> str:
    t = rel_type(type_)
    if t not in DERIVED_REL_TYPES:
        raise GraphStoreError(f"{t} is not a derived relationship type")
    return t


def add_pair_papers(rel_type: str, deltas: dict[tuple[str, str], int]) -> Statement | None:
    """Add each ``(a, b) -> n`` to the ``papers`` of the derived pair ``a -> b`` of ``rel_type``
    by the ends' ids, creating a missing pair and deleting one that reaches 0; ``None`` when
    every delta is 0. What a curation (merged authors, moved concepts) does to COAUTHOR and
    CO_OCCURS; batch ingest goes through :func:`find_pairs` and element ids instead."""
    rows = [[a, b, n, pair_key(a, b)] for (a, b), n in sorted(deltas.items()) if n]
    if not rows:
        return None
    return Statement(
        f"UNWIND $rows AS row MATCH (a:{NODE_LABEL} {{id: row[0]}}) MATCH (b:{NODE_LABEL} {{id: row[1]}}) "
        f"MERGE (a)-[r:{rel_type}]->(b) ON CREATE SET r.papers = 0, r._pair = row[3] "
        "SET r.papers = r.papers + row[2] WITH r WHERE r.papers <= 0 DELETE r",
        {"rows": rows},
    )


def pair_key(start_id: str, end_id: str) -> int:
    """The indexed key of the derived pair ``start_id -> end_id``: 64 bits of BLAKE2b.

    A number, not the joined ids, because there are millions of pairs at 100k papers and a
    long is stored inline. Lookups also match both ends, so a collision can never join two
    pairs; it would only make the index return one extra candidate.

    >>> k = pair_key("author:a", "author:b")
    >>> k == pair_key("author:a", "author:b") != pair_key("author:b", "author:a"), -(2**63) <= k < 2**63
    (True, True)
    """
    digest = hashlib.blake2b(f"{start_id}\t{end_id}".encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def create_pairs(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """New derived pair relationships: rows ``[a, b, n, key]`` (element ids; a's id < b's) get
    ``{papers: n}`` and their :func:`pair_key`."""
    t = _derived(type_)
    return Statement(
        f"UNWIND $rows AS row {_match_pair('row[0]', 'row[1]')}"
        f"CREATE (a)-[:{t} {{papers: row[2], {PAIR_KEY}: row[3]}}]->(b)",
        {"rows": list(rows)},
    )


def find_pairs(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """The stored pairs among ``rows`` of ``[key, a, b]`` (ends as element ids), found by key.

    Returns ``rows`` of ``[a, b, pair element id, papers]``. The index hint keeps the planner
    from expanding between the two ends, which walks the relationship chain of one of them:
    7-11 s per 1,000 papers at 90k papers, when most pairs join two dense nodes.
    """
    t = _derived(type_)
    return Statement(
        f"UNWIND $rows AS row MATCH (a)-[r:{t}]->(b) USING INDEX SEEK r:{t}({PAIR_KEY}) "
        f"WHERE r.{PAIR_KEY} = row[0] AND elementId(a) = row[1] AND elementId(b) = row[2] "
        "RETURN collect([row[1], row[2], elementId(r), r.papers]) AS rows",
        {"rows": list(rows)},
    )


def _on_pairs(type_: str, action: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """``action`` on stored pairs of one derived type, found by element id: rows ``[pair
    element id, value]`` (``row[1]`` in ``action``).

    The pattern names the type: without it the planner may scan every relationship instead of
    seeking the element id (it did on an empty database).
    """
    t = _derived(type_)
    return Statement(
        f"UNWIND $rows AS row MATCH ()-[r:{t}]->() WHERE elementId(r) = row[0] {action}",
        {"rows": [list(row) for row in rows]},
    )


def set_pair_papers(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """New paper counts of stored pairs: rows ``[pair element id, papers]``."""
    return _on_pairs(type_, "SET r.papers = row[1]", rows)


def delete_pairs(type_: str, eids: Sequence[str]) -> Statement:
    """Delete stored pairs by element id (their last shared paper left)."""
    return _on_pairs(type_, "DELETE r", [[eid] for eid in eids])


def pairs_without_key(type_: str) -> Statement:
    """Every pair of one derived type with no key yet: ``eid, start, end`` (streamed, not collected)."""
    t = _derived(type_)
    return Statement(
        f"MATCH (a)-[r:{t}]->(b) WHERE r.{PAIR_KEY} IS NULL "
        "RETURN elementId(r) AS eid, a.id AS start, b.id AS end"
    )


def set_pair_keys(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """Write keys of stored pairs: rows ``[pair element id, key]``."""
    return _on_pairs(type_, f"SET r.{PAIR_KEY} = row[1]", rows)


# Meta node present once every keyphrase row carries its lookup ``key`` and ``about``.
KEYPHRASE_KEYS_ID = "keyphrase-keys"
# meta node: the store version the institution graph was last derived at (institutions_synced_at)
INSTITUTIONS_SYNCED_ID = "institutions-synced"


def keyphrases_without_key() -> Statement:
    """Every keyphrase row written before rows had ``key``/``about``: ``id, node, rel`` (streamed)."""
    return Statement(
        f"MATCH (k:{KEYPHRASE_LABEL}) WHERE k.about IS NULL RETURN k.id AS id, k.node AS node, k.rel AS rel"
    )


def set_keyphrase_keys(rows: Sequence[Sequence[Any]]) -> Statement:
    """Set ``key`` and ``about`` of keyphrase rows: ``[id, key, about]``."""
    return Statement(
        f"UNWIND $rows AS row MATCH (k:{KEYPHRASE_LABEL} {{id: row[0]}}) "
        "SET k.key = row[1], k.about = row[2]",
        {"rows": [list(r) for r in rows]},
    )


def read_meta(meta_id: str) -> Statement:
    """``value`` of one meta node (no row when it does not exist)."""
    return Statement(f"MATCH (m:{META_LABEL} {{id: $id}}) RETURN m.value AS value", {"id": meta_id})


def set_meta(meta_id: str, value: int) -> Statement:
    """Create or overwrite one meta node's value."""
    return Statement(
        f"MERGE (m:{META_LABEL} {{id: $id}}) SET m.value = $value", {"id": meta_id, "value": value}
    )


# -- reads -----------------------------------------------------------------------------------
# The row shapes the whole-graph reads return, so a node or relationship reads alike everywhere.
_NODE_ROWS = "RETURN n.id AS id, labels(n) AS labels, properties(n) AS props"
_REL_ROWS = "RETURN a.id AS start, type(r) AS type, b.id AS end, properties(r) AS props"


def nodes_with_label(label_: str) -> Statement:
    """``id, labels, props`` of every node of one label."""
    lb = label(label_)
    return Statement(f"MATCH (n:{NODE_LABEL}:{lb}) {_NODE_ROWS}")


def _by_direction(direction: Direction, out: str, into: str) -> list[str]:
    """The parts of a statement for ``direction``: ``out`` for "out", ``into`` for "in", both
    for "both", so the neighbour and degree reads read a direction alike; a GraphStoreError for
    anything else."""
    parts = [part for way, part in (("out", out), ("in", into)) if direction in (way, "both")]
    if not parts:
        raise GraphStoreError(f"unknown direction {direction!r} (expected out, in or both)")
    return parts


def neighbors(ids: Sequence[str], type_: str, direction: Direction) -> Statement:
    """Per id and relationship: ``rows`` of ``[id, out, rel props, other id, other labels, other props]``.

    ``out``: is the id the relationship's start?
    """
    t = rel_type(type_)
    parts = _by_direction(
        direction,
        f"MATCH (n)-[r:{t}]->(o:{NODE_LABEL}) RETURN r, o, true AS out",
        f"MATCH (n)<-[r:{t}]-(o:{NODE_LABEL}) RETURN r, o, false AS out",
    )
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{NODE_LABEL} {{id: id}}) "
        f"CALL (n) {{ {' UNION ALL '.join(parts)} }} "
        "RETURN collect([id, out, properties(r), o.id, labels(o), properties(o)]) AS rows",
        {"ids": list(ids)},
    )


def degrees(ids: Sequence[str], type_: str, direction: Direction) -> Statement:
    """``rows`` of ``[id, degree]`` per existing id: its relationships of one type in ``direction``."""
    t = rel_type(type_)
    terms = _by_direction(direction, f"COUNT {{ (n)-[:{t}]->() }}", f"COUNT {{ (n)<-[:{t}]-() }}")
    return Statement(
        f"UNWIND $ids AS id MATCH (n:{NODE_LABEL} {{id: id}}) "
        f"WITH id, {' + '.join(terms)} AS degree RETURN collect([id, degree]) AS rows",
        {"ids": list(ids)},
    )


def relationships_of_type(type_: str) -> Statement:
    """Every relationship of one type: ``start, type, end, props``."""
    return Statement(f"MATCH (a:{NODE_LABEL})-[r:{rel_type(type_)}]->(b:{NODE_LABEL}) {_REL_ROWS}")


def all_nodes() -> Statement:
    """Every paperkg node: ``id, labels, props``."""
    return Statement(f"MATCH (n:{NODE_LABEL}) {_NODE_ROWS}")


def all_relationships() -> Statement:
    """Every relationship between paperkg nodes: ``start, type, end, props``."""
    return Statement(f"MATCH (a:{NODE_LABEL})-[r]->(b:{NODE_LABEL}) {_REL_ROWS}")


def counts() -> Statement:
    """``kind, name, n`` for every label and relationship type (answered from the count store)."""
    parts = [f"MATCH (n:{label(lb)}) RETURN 'node' AS kind, '{lb}' AS name, count(n) AS n" for lb in LABELS]
    parts += [
        f"MATCH ()-[r:{rel_type(t)}]->() RETURN 'rel' AS kind, '{t}' AS name, count(r) AS n"
        for t in REL_TYPES
    ]
    return Statement(" UNION ALL ".join(parts))


_LUCENE_SPECIAL = re.compile(r'([+\-!(){}\[\]^"~*?:\\/]|&&|\|\|)')


def lucene_escape(text: str) -> str:
    r"""``text`` with Lucene query syntax escaped, so user input is only ever terms.

    >>> lucene_escape('E(3)-equivariant: "x"')
    'E\\(3\\)\\-equivariant\\: \\"x\\"'
    """
    return _LUCENE_SPECIAL.sub(r"\\\1", text)


def fulltext_query(text: str, every_word: bool = False) -> str | None:
    """The Lucene query for user ``text``: its words in every field, with the embedded index's boosts.

    Words are the embedded index's (:func:`kg.core.text_index.search_words`: folded, alphanumeric,
    no stop words), escaped anyway; ``None`` when the text has no words. Lucene's bare
    ``AND``/``OR``/``NOT`` are operators only in upper case, and tokens are lower case.
    ``every_word``: each word required (in any field), as FTS5's
    ``AND`` on the embedded store.

    >>> for clause in fulltext_query("Nash equilibria").split(" OR "):
    ...     print(clause)
    title:(nash equilibria)^2
    abstract:(nash equilibria)^1
    name:(nash equilibria)^3
    _aliasText:(nash equilibria)^2
    >>> fulltext_query("?!") is None
    True
    >>> fulltext_query("Nash equilibria", every_word=True).count("+(")
    2
    """
    return lucene_terms(text, every_word, tuple(FULLTEXT_FIELDS))


def lucene_terms(text: str, every_word: bool, fields: tuple[str, ...]) -> str | None:
    """The Lucene query of ``text`` over ``fields`` (:func:`kg.core.text_index.search_terms`): each
    quoted phrase required as a phrase, and any of the other words (``every_word``: each).

    >>> lucene_terms('"diffusion policy" robot', False, ("title",))
    '+(title:("diffusion policy")^2) +(title:(robot)^2)'
    """
    phrases, words = search_terms(text)
    if not phrases and not words:
        return None

    def any_field(terms: str) -> str:
        return " OR ".join(f"{f}:({terms})^{FULLTEXT_FIELDS[f]:g}" for f in fields)

    if not phrases:  # as before phrases existed
        if every_word:
            return " ".join(f"+({any_field(lucene_escape(w))})" for w in words)
        return any_field(" ".join(lucene_escape(w) for w in words))
    clauses = [f"+({any_field(chr(34) + lucene_escape(p) + chr(34))})" for p in phrases]
    if every_word:
        clauses += [f"+({any_field(lucene_escape(w))})" for w in words]
    elif words:
        clauses.append(f"+({any_field(' '.join(lucene_escape(w) for w in words))})")
    return " ".join(clauses)


def rarer_first_query(rare: list[str], common: list[str]) -> str:
    """Lucene: the nodes with any of the ``rare`` words (required), scored by those and by the
    ``common`` words (optional clauses add to the score): the any-word search split by
    :func:`kg.core.text_index.rarer_first`, as the embedded store splits it.

    >>> query = rarer_first_query(["inchworm"], ["robots"])
    >>> query.startswith("+(title:(inchworm)^2 OR "), query.count("+("), " (title:(robots)^2 OR " in query
    (True, 1, True)
    """
    fields = tuple(FULLTEXT_FIELDS)

    def any_field(words: list[str]) -> str:
        terms = " ".join(lucene_escape(w) for w in words)
        return " OR ".join(f"{f}:({terms})^{FULLTEXT_FIELDS[f]:g}" for f in fields)

    return f"+({any_field(rare)}) ({any_field(common)})"


def fulltext_counts(queries: Sequence[str]) -> Statement:
    """``rows`` of ``[i, n]``: how many nodes each Lucene query (by position) matches, in one
    statement (the any-word split asks for each word of a text)."""
    return Statement(
        "UNWIND range(0, size($queries) - 1) AS i CALL (i) { "
        f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $queries[i]) YIELD node "
        "RETURN count(node) AS n } "
        "RETURN collect([i, n]) AS rows",
        {"queries": list(queries)},
    )


def _in_any_field(terms: str) -> str:
    """Lucene: ``terms`` (escaped) in any fulltext field, each field with its boost."""
    return " OR ".join(f"{f}:({terms})^{boost:g}" for f, boost in FULLTEXT_FIELDS.items())


def await_fulltext_refresh() -> Statement:
    """Wait until committed writes are visible in the (eventually consistent) fulltext index."""
    return Statement("CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()")


def fulltext_search(query: str, limit: int) -> Statement:
    """Ranked hits of a Lucene ``query`` (see :func:`fulltext_query`): one record, ``rows`` of
    ``[id, labels, props, score]`` (the driver's cost is per record)."""
    return Statement(
        f"CALL db.index.fulltext.queryNodes('{FULLTEXT_INDEX}', $query, {{limit: $limit}}) "
        "YIELD node, score RETURN collect([node.id, labels(node), properties(node), score]) AS rows",
        {"query": query, "limit": limit},
    )


# -- maintenance -----------------------------------------------------------------------------
def delete_all(rows_per_transaction: int = 10_000) -> list[Statement]:
    """Delete every relationship, then every node but the version node, in inner transactions.

    Auto-commit sessions only. Relationships go first, in batches of their own: a batch of
    ``DETACH DELETE`` on 10,000 nodes also deletes all their relationships, and at 100k papers
    the batch holding the popular concepts (tens of thousands of MENTIONS each) ran out of the
    transaction memory pool. The version survives, so it stays monotonic across a clear.
    """
    return [
        Statement(
            "MATCH ()-[r]->() CALL (r) { DELETE r } IN TRANSACTIONS OF $rows ROWS",
            {"rows": rows_per_transaction},
        ),
        Statement(
            f"MATCH (n) WHERE NOT n:{META_LABEL} "
            "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $rows ROWS",
            {"rows": rows_per_transaction},
        ),
    ]


def fix_label(i: int) -> str:
    """The temporary label of the ``i``-th set of empty-list keys in a bulk import."""
    return f"__KGFix{i}__"


def _property_key(key: str) -> str:
    if "`" in key or not key:
        raise GraphStoreError(f"property key {key!r} cannot be written as a Cypher identifier")
    return f"`{key}`"


def restore_empty_lists(fix: str, keys: Sequence[str], rows_per_transaction: int = 10_000) -> Statement:
    """Bulk import: give the nodes labelled ``fix`` their empty-list ``keys`` back, drop the label.

    Auto-commit sessions only (inner transactions).

    >>> restore_empty_lists("__KGFix0__", ["aliases"]).text.split(" { ")[1]
    'SET n.`aliases` = [] REMOVE n:__KGFix0__ } IN TRANSACTIONS OF $rows ROWS'
    """
    if not re.fullmatch(r"__KGFix\d+__", fix):
        raise GraphStoreError(f"{fix!r} is not a bulk-import fix-up label")
    sets = ", ".join(f"n.{_property_key(k)} = []" for k in keys)
    return Statement(
        f"MATCH (n:{fix}) CALL (n) {{ SET {sets} REMOVE n:{fix} }} IN TRANSACTIONS OF $rows ROWS",
        {"rows": rows_per_transaction},
    )


def restore_empty_rel_lists(type_: str, rows: Sequence[Sequence[Any]]) -> Statement:
    """Bulk import: empty-list properties of relationships, rows ``[start id, end id, {key: []}]``."""
    t = rel_type(type_)
    return Statement(
        f"UNWIND $rows AS row MATCH (a:{NODE_LABEL} {{id: row[0]}})-[r:{t}]->(b:{NODE_LABEL} {{id: row[1]}}) "
        "SET r += row[2]",
        {"rows": list(rows)},
    )


def ping() -> Statement:
    """The cheapest statement that proves the database answers."""
    return Statement("RETURN 1 AS ok")
