"""The SQLite store's rows for the structures a warm version holds (:mod:`kg.stores.held`).

Why a module of its own: the structures are the same on both stores (:mod:`kg.stores.held`);
only where their rows come from differs. Here each is one statement over an index (no sort),
the nodes named by their rowids.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from itertools import islice

from kg.stores.held import closure_pages as held_pages
from kg.stores.held.closure_pages import ClosurePages
from kg.stores.held.coauthor_ties import CoauthorTies
from kg.stores.held.heavy_ties import HEAVY_TIE, HeavyTies
from kg.stores.held.hierarchy import Hierarchy
from kg.stores.protocol import PairType

# Every heavy tie of a type with its two nodes' rowids (index only: heavy_pairs_by_weight, and
# the nodes' id index, which holds the rowid).
_HEAVY_TIES = (
    "SELECT a.rowid, b.rowid, r.weight FROM rels r INDEXED BY heavy_pairs_by_weight "
    'CROSS JOIN nodes a ON a.id = r.start CROSS JOIN nodes b ON b.id = r."end" '
    f"WHERE r.type = ? AND r.weight > {HEAVY_TIE}"
)
# Every co-author tie with its two nodes' rowids: the primary key's range of the authors' ids
# (there is no type-first index of every tie), each end's rowid from the nodes' id index.
_COAUTHOR_TIES = (
    "SELECT a.rowid, b.rowid, r.weight FROM rels r CROSS JOIN nodes a ON a.id = r.start "
    'CROSS JOIN nodes b ON b.id = r."end" '
    "WHERE r.start >= ? AND r.start <= ? AND r.type = 'COAUTHOR'"
)
# Every link that counts for a concept's papers with ``about_only`` (kg.stores.sqlite.reads
# ._about_test), grouped by concept (the index's order: no sort): concept, paper, its kind
# (CLIMBS, OWN, ALONE of kg.stores.held.closure_pages), rank. Index only.
_LINKS = (
    "SELECT \"end\", start, CASE WHEN type = 'INTRODUCES' OR about = 1 THEN 1 WHEN about = 2 THEN 2 "
    "ELSE 3 END, rank FROM rels INDEXED BY rels_by_end_about_rank "
    "WHERE type = 'INTRODUCES' OR (type = 'MENTIONS' AND about >= 1) ORDER BY \"end\""
)
# The papers in the newest order (kg.stores.sqlite.reads.NEWEST_ORDER), from its index.
_PAPERS = (
    "SELECT id FROM nodes INDEXED BY nodes_by_order WHERE label = 'Paper' ORDER BY year DESC, sort_key, id"
)
# Every BROADER link, narrower end first, with whether its narrower end is a node (a closure
# lists only nodes, as the recursive statement did by joining ``nodes``).
_BROADER = (
    'SELECT r."end", r.start, n.id IS NOT NULL FROM rels r INDEXED BY broader_links '
    "LEFT JOIN nodes n ON n.id = r.start WHERE r.type = 'BROADER'"
)
_CHUNK = 65_536  # link rows turned into arrays at a time (few Python objects alive at once)


def heavy_ties(c: sqlite3.Connection, pair: PairType) -> HeavyTies:
    """Every tie of ``pair`` heavier than 1 in the store ``c`` reads, keyed by rowid."""
    return HeavyTies.from_rows(c.execute(_HEAVY_TIES, (pair,)))


def coauthor_ties(c: sqlite3.Connection) -> CoauthorTies:
    """Every co-author tie in the store ``c`` reads, keyed by rowid (the ties start from the
    authors' ids: their smallest and largest bound the walk of the primary key)."""
    starts = c.execute("SELECT min(id), max(id) FROM nodes WHERE label = 'Author'").fetchone()
    found = c.execute(_COAUTHOR_TIES, starts) if starts is not None and starts[0] is not None else []
    return CoauthorTies.from_rows(found)


def version(c: sqlite3.Connection) -> int:
    """The store version ``c`` reads (in a build's read transaction: the snapshot's)."""
    row = c.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()
    return int(row[0]) if row else 0


def closure_pages(c: sqlite3.Connection, closures: Mapping[str, tuple[str, ...]]) -> ClosurePages:
    """The concept pages' lists of the store ``c`` reads; ``closures``: the closure below each
    concept that has narrower ones, as ``narrower_closure`` lists it after the concept."""
    ids = [r[0] for r in c.execute(_PAPERS)]
    rows = iter(c.execute(_LINKS))
    return ClosurePages.from_rows(
        ids, iter(lambda: list(islice(rows, _CHUNK)), []), closures, held_pages.OWN_MIN
    )


def hierarchy(c: sqlite3.Connection) -> Hierarchy | None:
    """The hierarchy of the store ``c`` reads, or ``None`` when the store has no
    ``broader_links`` index (a read-only store written before it: without the index the
    pass would read every relationship)."""
    if (
        c.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'broader_links'").fetchone()
        is None
    ):
        return None
    return Hierarchy([(str(b), str(n), int(e)) for b, n, e in c.execute(_BROADER)])
