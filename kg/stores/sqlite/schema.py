"""The SQLite schema of the embedded store, and the typed columns derived from node properties.

Why these tables: every read the API serves (``kg.stores.protocol.ReadStore``) must be one
indexed query, so the properties those reads filter or sort on live in typed columns next to the
JSON property map, and name lookups go through a key table instead of scanning names.

- ``nodes``: one row per node; ``props`` is the JSON property map as the record gave it (merged);
  ``name``/``sort_key``/``year``/``kind``/``source``/``search_text`` are derived from it on write;
  ``paper_count`` is the node's paper degree (MENTIONS in, AUTHORED out, PUBLISHED_IN in,
  HAS_TOPIC in), kept in the same transaction as the relationships; for a concept only the
  MENTIONS that are ``about`` it count, so it equals the API's ``paperCount``. ``ties`` is the
  sum of the weights of its COAUTHOR (an author) or CO_OCCURS (a concept) ties, kept with them,
  so the strongest part of a whole network is an index range (see :func:`ensure_ties`).
- ``rels``: one row per (start, type, end); ``weight`` holds the derived COAUTHOR/CO_OCCURS
  ``papers`` (stored with ``start < end``), ``about`` a MENTIONS' aboutness, ``position`` an
  AUTHORED byline position, ``rank`` a MENTIONS' or INTRODUCES' relevance to its paper
  (:func:`kg.stores.protocol.link_relevance`; ``concept.papers`` by relevance).
- ``name_keys``: :mod:`kg.core.names` keys of every concept name/alias and author name, with a rank.
- ``fts``: FTS5 (BM25) over paper titles/abstracts and concept names/aliases; ``rowid`` is the
  node's rowid.
- ``keyphrases``: provisional concepts not yet carried by two papers (written by
  :mod:`kg.stores.sqlite.batch_writes`), with the row's lookup ``key``
  (:func:`kg.core.provisional.phrase_key`) and ``about`` flag, indexed by paper (a paper's key
  concepts) and by key (papers by a phrase's name).
- ``meta``: the schema format and the store version (bumped by every write that changed something).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager

import orjson

from kg.core.ids import fold
from kg.core.models import Properties
from kg.core.names import author_keys, concept_keys, loose_key
from kg.core.provisional import KEYPHRASES, phrase_key, row_about
from kg.stores.protocol import RELEVANCE_RULE, link_relevance

FORMAT = 1
# Node and relationship counts per label and type, kept by triggers in every write transaction,
# so `kg stats` reads a dozen rows instead of counting millions (2.7 s at 100k papers). Added to
# a format-1 store without it when the store is opened (see :func:`ensure_counts`). The writer
# connection runs with recursive_triggers on, so INSERT OR REPLACE counts as delete + insert.
COUNTS_DDL: tuple[str, ...] = (
    "CREATE TABLE counts (kind TEXT NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL, "
    "PRIMARY KEY (kind, name)) WITHOUT ROWID",
    "CREATE TRIGGER count_node_in AFTER INSERT ON nodes BEGIN INSERT INTO counts "
    "VALUES ('node', NEW.label, 1) ON CONFLICT (kind, name) DO UPDATE SET n = n + 1; END",
    "CREATE TRIGGER count_node_out AFTER DELETE ON nodes BEGIN "
    "UPDATE counts SET n = n - 1 WHERE kind = 'node' AND name = OLD.label; END",
    "CREATE TRIGGER count_rel_in AFTER INSERT ON rels BEGIN INSERT INTO counts "
    "VALUES ('rel', NEW.type, 1) ON CONFLICT (kind, name) DO UPDATE SET n = n + 1; END",
    "CREATE TRIGGER count_rel_out AFTER DELETE ON rels BEGIN "
    "UPDATE counts SET n = n - 1 WHERE kind = 'rel' AND name = OLD.type; END",
    "INSERT INTO counts SELECT 'node', label, COUNT(*) FROM nodes GROUP BY label",
    "INSERT INTO counts SELECT 'rel', type, COUNT(*) FROM rels GROUP BY type",
)


@contextmanager
def immediate(c: sqlite3.Connection) -> Iterator[None]:
    """One ``BEGIN IMMEDIATE`` transaction around a store upgrade: committed when the block
    ends, rolled back on any error (so a half-upgraded store never stays)."""
    c.execute("BEGIN IMMEDIATE")
    try:
        yield
        c.execute("COMMIT")
    except BaseException:
        c.execute("ROLLBACK")
        raise


def _has(c: sqlite3.Connection, kind: str, name: str) -> bool:
    """Whether the store has the table or index ``name`` (``kind`` "table" or "index")."""
    return (
        c.execute("SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?", (kind, name)).fetchone()
        is not None
    )


def columns(c: sqlite3.Connection, table: str) -> set[str]:
    """The column names of ``table`` (which upgrades a store written before them still needs)."""
    return {row[1] for row in c.execute(f"PRAGMA table_info({table})")}


def ensure_counts(c: sqlite3.Connection) -> None:
    """Create the counts table, its triggers and its rows, unless the store has them."""
    if _has(c, "table", "counts"):
        return
    with immediate(c):
        if not _has(c, "table", "counts"):
            for statement in COUNTS_DDL:
                c.execute(statement)


# Indexes added after format 1 shipped, with the indexes they replace: created by
# :func:`ensure_indexes` when any store is opened (at once for a new one, once for an older one).
# Figures at 100k papers:
# - ``rels_by_end_about_rank`` covers "papers about this concept" (``about`` in the index rather
#   than a table lookup per MENTIONS: 134 -> 8 ms for a 17k-paper concept) and all ``rels_by_end``
#   did; ``rank`` at its end (after ``start``, so every older use of the index is unchanged) makes
#   "papers by relevance" an index-only read too: reading each link's map for its salience cost
#   4x the newest order's page for the broadest concepts of a 10k store (49 against 12 ms).
# - ``heavy_pairs_out`` / ``heavy_pairs_in`` list one node's ties heaviest first, so an ego
#   network costs its size: sorting a concept's 48k ties for its top 100 took 350 ms.
# - The weight indexes hold only the *heavy* ties (``weight > 1``, :data:`HEAVY_TIE`): 87% of
#   the pairs at 100k papers are seen in one paper, and every write of a pair moved its entry in
#   three weight-ordered indexes. 60,000 pair upserts on a copy of the 100k store took 21.7 s
#   and wrote 649 MB of WAL with them, 7.3 s and 215 MB without (`bench/README.md`, "Pair
#   indexes"). A tie of weight 1 is
#   found by the primary key (its start) or ``rels_by_end_about_rank`` (its end), both ordered by
#   the other end, which is the order weight-1 ties are listed in anyway.
#   Only a query saying ``weight > 1`` can use them (SQLite matches a partial index's WHERE by
#   its terms); ``INDEXED BY`` in the reads keeps the plan fixed.
LATER_INDEXES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "rels_by_end_about_rank",
        'CREATE INDEX rels_by_end_about_rank ON rels ("end", type, about, start, rank)',
        ("rels_by_end", "rels_by_end_about"),
    ),
    (
        "heavy_pairs_by_weight",
        'CREATE INDEX heavy_pairs_by_weight ON rels (type, weight DESC, start, "end") WHERE weight > 1',
        ("rels_by_weight", "pairs_by_weight"),
    ),
    (
        "heavy_pairs_out",
        'CREATE INDEX heavy_pairs_out ON rels (start, type, weight DESC, "end") WHERE weight > 1',
        ("pairs_out",),
    ),
    (
        "heavy_pairs_in",
        'CREATE INDEX heavy_pairs_in ON rels ("end", type, weight DESC, start) WHERE weight > 1',
        ("pairs_in",),
    ),
    # The heavy ties by their key, weight included (index only): the ties among a network's
    # nodes at a minimum weight above 1 are n²/2 look-ups, which in the primary key land on
    # leaves spread over the whole table (every relationship, with its properties) and cost
    # more the larger the store; here they search an index of the heavy ties alone, a few
    # percent of the table's size.
    (
        "heavy_pairs_key",
        'CREATE INDEX heavy_pairs_key ON rels (start, type, "end", weight) WHERE weight > 1',
        (),
    ),
    # The concept hierarchy alone (42,982 of 6.8M relationships at 100k papers), read in one
    # pass per store version for closures (kg.stores.held.hierarchy): found by type, every
    # relationship was read (0.9 s). Only BROADER writes touch it.
    (
        "broader_links",
        "CREATE INDEX broader_links ON rels (\"end\", start) WHERE type = 'BROADER'",
        (),
    ),
)
# Ties heavier than this are in the weight-ordered indexes (see LATER_INDEXES).
HEAVY_TIE = 1


def ensure_indexes(c: sqlite3.Connection) -> None:
    """Create the :data:`LATER_INDEXES` a store lacks (once; 21 s at 100k papers for the heavy-tie
    indexes of an older store)."""

    def missing() -> list[tuple[str, str, tuple[str, ...]]]:
        have = {r[0] for r in c.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        return [ix for ix in LATER_INDEXES if ix[0] not in have]

    if not missing():
        return
    with immediate(c):
        for _, create, replaces in missing():
            c.execute(create)
            for old in replaces:
                c.execute(f"DROP INDEX IF EXISTS {old}")


# ``nodes.ties`` (see the module docstring) and its index, added to a store without them when it
# is opened. Why a column: the whole concept graph's strongest nodes (the explorer's view when no
# concept is chosen) summed every pair in the graph per request: 9 s at 100k papers.
TIES_INDEX = "CREATE INDEX nodes_by_ties ON nodes (label, ties DESC, id) WHERE ties > 0"
_TIE_SUMS = (
    "SELECT id, SUM(w) FROM (SELECT start AS id, weight AS w FROM rels WHERE type IN {types} "
    'UNION ALL SELECT "end", weight FROM rels WHERE type IN {types}) GROUP BY id'
)


def ensure_ties(c: sqlite3.Connection) -> None:
    """Give a store written before ``nodes.ties`` the column, its values and its index (once;
    about 30 s at 100k papers, a pass over every pair)."""
    if _has(c, "index", "nodes_by_ties"):
        return
    with immediate(c):
        if "ties" not in columns(c, "nodes"):
            c.execute("ALTER TABLE nodes ADD COLUMN ties INTEGER NOT NULL DEFAULT 0")
            types = "(" + ", ".join(f"'{t}'" for t in PAIR_TYPES) + ")"
            sums = c.execute(_TIE_SUMS.format(types=types)).fetchall()
            c.executemany("UPDATE nodes SET ties = ? WHERE id = ?", [(s, i) for i, s in sums])
        if not _has(c, "index", "nodes_by_ties"):  # another process may have added it meanwhile
            c.execute(TIES_INDEX)


# The keyphrase table's lookup columns and indexes (see the module docstring), added to a store
# written before them when it is opened, with the columns filled from the rows' maps.
KEYPHRASE_INDEXES: tuple[str, ...] = (
    "CREATE INDEX IF NOT EXISTS keyphrases_by_paper ON keyphrases (paper_id, concept_id)",
    "CREATE INDEX IF NOT EXISTS keyphrases_by_key ON keyphrases (key, about, paper_id)",
)


def keyphrase_columns(node: Properties, rel: Properties) -> tuple[str, int]:
    """``(key, about)`` of a keyphrase row."""
    return phrase_key(node), int(row_about(rel))


def ensure_keyphrase_lookup(c: sqlite3.Connection) -> None:
    """Give a store written before the keyphrase lookup its columns, values and indexes (once)."""
    if _has(c, "index", "keyphrases_by_key"):
        return
    with immediate(c):
        if "key" not in columns(c, "keyphrases"):
            c.execute("ALTER TABLE keyphrases ADD COLUMN key TEXT")
            c.execute("ALTER TABLE keyphrases ADD COLUMN about INTEGER")
            rows = c.execute("SELECT concept_id, paper_id, node, rel FROM keyphrases").fetchall()
            c.executemany(
                "UPDATE keyphrases SET key = ?, about = ? WHERE concept_id = ? AND paper_id = ?",
                [(*keyphrase_columns(loads(n), loads(r)), cid, pid) for cid, pid, n, r in rows],
            )
        for statement in KEYPHRASE_INDEXES:
            c.execute(statement)


AUTHOR_PREFIX = "a:"

DDL = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    label TEXT NOT NULL,
    props BLOB NOT NULL,
    name TEXT,
    sort_key TEXT NOT NULL DEFAULT '',
    year INTEGER,
    kind TEXT,
    source TEXT,
    search_text TEXT,
    paper_count INTEGER NOT NULL DEFAULT 0,
    ties INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS nodes_by_order ON nodes (label, year DESC, sort_key, id);
CREATE INDEX IF NOT EXISTS nodes_by_count ON nodes (label, paper_count DESC, sort_key, id);
CREATE INDEX IF NOT EXISTS nodes_by_name ON nodes (label, sort_key, id);
CREATE TABLE IF NOT EXISTS rels (
    start TEXT NOT NULL,
    type TEXT NOT NULL,
    "end" TEXT NOT NULL,
    props BLOB,
    weight INTEGER,
    about INTEGER,
    position INTEGER,
    rank REAL,
    PRIMARY KEY (start, type, "end")
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS name_keys (
    key TEXT NOT NULL,
    rank INTEGER NOT NULL,
    node_id TEXT NOT NULL,
    PRIMARY KEY (key, rank, node_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS name_keys_by_node ON name_keys (node_id);
CREATE TABLE IF NOT EXISTS keyphrases (
    concept_id TEXT NOT NULL,
    paper_id TEXT NOT NULL,
    node BLOB NOT NULL,
    rel BLOB NOT NULL,
    key TEXT,
    about INTEGER,
    PRIMARY KEY (concept_id, paper_id)
) WITHOUT ROWID;
CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    title, abstract, name, aliases, tokenize = 'unicode61 remove_diacritics 2'
);
"""

# Relationship types whose row carries a derived weight instead of a property map.
PAIR_TYPES = ("COAUTHOR", "CO_OCCURS")
# The relationship that makes a node's paper_count, and on which side the node is.
PAPER_DEGREE: dict[str, str] = {
    "MENTIONS": "end",
    "AUTHORED": "start",
    "PUBLISHED_IN": "end",
    "HAS_TOPIC": "end",
}


def dumps(props: Properties) -> bytes:
    """The stored form of a property map (compact JSON)."""
    return orjson.dumps(props)


def loads(blob: bytes | str | None) -> Properties:
    """A stored property map back as a dict."""
    if blob is None:
        return {}
    value = orjson.loads(blob)
    return value if isinstance(value, dict) else {}


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


def display_name(label: str, props: Properties) -> str:
    """What a node is called: a paper's title, anyone else's name."""
    value = props.get("title") if label == "Paper" else props.get("name")
    return "" if value is None else str(value)


def node_columns(node_id: str, label: str, props: Properties) -> tuple[object, ...]:
    """``(name, sort_key, year, kind, source, search_text)`` of a node, derived from its properties."""
    name = display_name(label, props)
    year = props.get("year")
    year_col = int(year) if isinstance(year, int | float) and not isinstance(year, bool) else None
    search_text: str | None = None
    if label == "Concept":
        surfaces = [name, *_strings(props.get("aliases"))]
        parts = [fold(s) for s in surfaces] + [loose_key(s) for s in surfaces]
        search_text = " | ".join(dict.fromkeys(p for p in parts if p))
    elif label == "Author":
        nickname = props.get("nickname")
        search_text = " | ".join(p for p in (fold(name), fold(str(nickname or ""))) if p)
    kind = props.get("kind") if label == "Concept" else None
    source = props.get("source") if label == "Concept" else None
    return (
        name,
        fold(name),
        year_col,
        None if kind is None else str(kind),
        None if source is None else str(source),
        search_text,
    )


def name_key_rows(node_id: str, label: str, props: Properties) -> list[tuple[str, int, str]]:
    """``(key, rank, node_id)`` rows: how names find this node. Lower rank wins a shared key:
    curated concepts (0, 1) before discovered ones (2, 3), a name before an alias."""
    rows: list[tuple[str, int, str]] = []
    if label == "Concept":
        base = 0 if props.get("source") == "vocabulary" else 2
        name = display_name(label, props)
        for key in concept_keys(name):
            rows.append((key, base, node_id))
        for alias in _strings(props.get("aliases")):
            for key in concept_keys(alias):
                rows.append((key, base + 1, node_id))
    elif label == "Author":
        nickname = props.get("nickname")
        for key in author_keys(display_name(label, props), str(nickname) if nickname else None):
            rows.append((AUTHOR_PREFIX + key, 0, node_id))
    return list(dict.fromkeys(rows))


def fts_row(label: str, props: Properties) -> tuple[str, str, str, str] | None:
    """``(title, abstract, name, aliases)`` indexed for search, or ``None`` for unsearched labels."""
    if label == "Paper":
        # its paper-only phrases (kg.core.provisional) as its aliases: search finds a paper by them
        phrases = " ".join(_strings(props.get(KEYPHRASES)))
        return (str(props.get("title") or ""), str(props.get("abstract") or ""), "", phrases)
    if label == "Concept":
        return ("", "", str(props.get("name") or ""), " ".join(_strings(props.get("aliases"))))
    return None


def rel_columns(rel_type: str, props: Properties) -> tuple[int | None, int | None, float | None]:
    """``(about, position, rank)`` columns of a relationship. A MENTIONS without ``about`` counts
    as about (records from before salience existed). ``about`` is 0 (a passing mention), 1
    (about the concept and, through the BROADER closure, the concepts above it) or 2 (about its
    own concept only: ``climbs: false``, see ``PaperQuery.narrower``)."""
    about = None
    position = None
    rank = link_relevance(rel_type, props) if rel_type in RANKED_TYPES else None
    if rel_type == "MENTIONS":
        about = 0 if props.get("about") is False else 2 if props.get("climbs") is False else 1
    elif rel_type == "AUTHORED":
        pos = props.get("position")
        position = int(pos) if isinstance(pos, int | float) and not isinstance(pos, bool) else None
    return about, position, rank


RANKED_TYPES = ("MENTIONS", "INTRODUCES")


def ensure_rank(c: sqlite3.Connection) -> None:
    """Give ``rels.rank`` to a store written before it, or its values by the current rule to a
    store ranked by another (:data:`kg.stores.protocol.RELEVANCE_RULE`, kept in ``meta`` as
    ``rank_rule``): a pass over every MENTIONS and INTRODUCES map, once. A store that has the
    column but no ``rank_rule`` was ranked by rule 1, the rule the column shipped with.
    :func:`ensure_indexes` then indexes the column."""

    def current() -> bool:
        if "rank" not in columns(c, "rels"):
            return False
        row = c.execute("SELECT value FROM meta WHERE key = 'rank_rule'").fetchone()
        return (1 if row is None else int(row[0])) == RELEVANCE_RULE

    if current():
        return
    with immediate(c):
        if not current():
            if "rank" not in columns(c, "rels"):
                c.execute("ALTER TABLE rels ADD COLUMN rank REAL")
            rows = c.execute(
                "SELECT start, type, \"end\", props FROM rels WHERE type IN ('MENTIONS', 'INTRODUCES')"
            ).fetchall()
            c.executemany(
                'UPDATE rels SET rank = ? WHERE start = ? AND type = ? AND "end" = ?',
                [(link_relevance(t, loads(p)), s, t, e) for s, t, e, p in rows],
            )
            c.execute(
                "INSERT INTO meta VALUES ('rank_rule', ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (RELEVANCE_RULE,),
            )
            c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")  # answers changed
