"""The embedded store's side of an upsert: the reads a write plan makes, and applying the plan.

The rules (merging, derived pairs, provisional concepts) are in :mod:`kg.stores.write_plan`;
this module only answers its :class:`~kg.stores.write_plan.StoredGraph` reads from the batch's
connection (and the :class:`Known` cache) and writes the plan's rows with ``executemany``.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from collections.abc import Iterator, Sequence

from kg.core.models import Properties
from kg.stores.sqlite import schema
from kg.stores.sqlite.reads import chunked
from kg.stores.write_plan import KeyphraseRow, RelKey, WritePlan


class Known:
    """What this process last wrote or read of the nodes and relationships that batches repeat
    (vocabulary concepts, their BROADER links, authors, venues, topics), valid while the store
    version is the one our last commit left: then no other writer changed anything, and a
    repeated node needs neither a read nor a merge against the database. Bounded."""

    MAX = 200_000
    REPEATED_RELS = frozenset({"BROADER", "SUBTOPIC_OF"})

    def __init__(self) -> None:
        self.version: int | None = None
        self.nodes: dict[str, tuple[str, Properties]] = {}
        self.rels: dict[RelKey, Properties] = {}

    def clear(self, version: int | None) -> None:
        self.version = version
        self.nodes.clear()
        self.rels.clear()

    def remember(self, plan: WritePlan, version: int) -> None:
        if len(self.nodes) > self.MAX or len(self.rels) > self.MAX:
            self.nodes.clear()
            self.rels.clear()
        for nid, props in plan.nodes.items():
            label = plan.labels[nid]
            if label != "Paper":
                self.nodes[nid] = (label, props)
        for key, props in plan.rels.items():
            if key[1] in self.REPEATED_RELS:
                self.rels[key] = props
        self.version = version


class StoredRows:
    """:class:`kg.stores.write_plan.StoredGraph` on the batch's connection (inside its
    transaction), answering repeated nodes and links from :class:`Known`."""

    def __init__(self, conn: sqlite3.Connection, known: Known) -> None:
        self.c = conn
        self.known = known

    def read_nodes(self, ids: Sequence[str]) -> Iterator[tuple[str, str, Properties]]:
        unknown: list[str] = []
        for nid in ids:
            hit = self.known.nodes.get(nid)
            if hit is None:
                unknown.append(nid)
            else:
                yield nid, hit[0], hit[1]
        for chunk in chunked(unknown):
            marks = ",".join("?" * len(chunk))
            for nid, label, blob in self.c.execute(
                f"SELECT id, label, props FROM nodes WHERE id IN ({marks})", chunk
            ).fetchall():
                yield nid, label, schema.loads(blob)

    def read_keyphrase_rows(self, concepts: Sequence[str]) -> Iterator[KeyphraseRow]:
        for chunk in chunked(list(concepts)):
            marks = ",".join("?" * len(chunk))
            for cid, pid, node, rel in self.c.execute(
                f"SELECT concept_id, paper_id, node, rel FROM keyphrases WHERE concept_id IN ({marks})", chunk
            ).fetchall():
                yield cid, pid, schema.loads(node), schema.loads(rel)

    def read_relationships(
        self, keys: Sequence[RelKey], papers: Sequence[str], carriers: Sequence[str]
    ) -> Iterator[tuple[RelKey, Properties]]:
        c = self.c
        # The keys go into a temporary table joined on the primary key: a row-value
        # IN (VALUES ...) list is not matched against the index and scans every row.
        unknown = []
        for key in keys:
            cached = self.known.rels.get(key)
            if cached is None:
                unknown.append(key)
            else:
                yield key, cached
        c.execute('CREATE TEMP TABLE IF NOT EXISTS batch_keys (start TEXT, type TEXT, "end" TEXT)')
        c.execute("DELETE FROM batch_keys")
        c.executemany("INSERT INTO batch_keys VALUES (?,?,?)", unknown)
        for start, typ, end, blob in c.execute(
            'SELECT r.start, r.type, r."end", r.props FROM batch_keys k JOIN rels r '
            'ON r.start = k.start AND r.type = k.type AND r."end" = k."end"'
        ).fetchall():
            yield (start, typ, end), schema.loads(blob)
        # The papers' AUTHORED links (by their end), the papers' and carriers' MENTIONS (by start).
        for ids, side, typ in (
            (list(papers), '"end"', "AUTHORED"),
            ([*papers, *carriers], "start", "MENTIONS"),
        ):
            for chunk in chunked(ids):
                marks = ",".join("?" * len(chunk))
                for start, end, blob in c.execute(
                    f"SELECT start, \"end\", props FROM rels WHERE {side} IN ({marks}) AND type = '{typ}'",
                    chunk,
                ).fetchall():
                    yield (start, typ, end), schema.loads(blob)


def write(c: sqlite3.Connection, plan: WritePlan) -> None:
    """Apply ``plan`` (inside the batch's transaction) and bump the store version.

    One function per table group, so a profile of the writer (``bench/writer_speed.py
    --profile``) shows what each costs.
    """
    degree = _paper_degree(plan)
    pairs = plan.pair_changes()
    ties: dict[str, int] = defaultdict(int)  # change of each node's tie weight (schema)
    for (a, _, b), n in pairs:
        ties[a] += n
        ties[b] += n
    _write_nodes(c, plan, degree, ties)
    _write_keys_and_text(c, plan)
    _write_rels(c, plan)
    c.executemany(
        "UPDATE nodes SET paper_count = paper_count + ?, ties = ties + ? WHERE id = ?",
        [
            (degree.get(i, 0), ties.get(i, 0), i)
            for i in sorted(degree.keys() | ties.keys())
            if degree.get(i) or ties.get(i)
        ],
    )
    write_pairs(c, pairs)
    _write_keyphrases(c, plan)
    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")


def _write_nodes(
    c: sqlite3.Connection, plan: WritePlan, degree: dict[str, int], ties: dict[str, int]
) -> None:
    """Created and changed nodes; a created node takes its paper count and ties out of
    ``degree``/``ties`` (one B-tree write instead of an insert and then an update that moves it
    in ``nodes_by_count``)."""
    new_rows = []
    update_rows = []
    for nid in plan.written_nodes():
        label = plan.labels[nid]
        props = plan.nodes[nid]
        cols = schema.node_columns(nid, label, props)
        if nid in plan.new_nodes:
            counts = (degree.pop(nid, 0), ties.pop(nid, 0))
            new_rows.append((nid, label, schema.dumps(props), *cols, *counts))
        else:
            update_rows.append((schema.dumps(props), *cols, nid))
    c.executemany(
        "INSERT INTO nodes (id, label, props, name, sort_key, year, kind, source, search_text, "
        "paper_count, ties) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
        new_rows,
    )
    c.executemany(
        "UPDATE nodes SET props=?, name=?, sort_key=?, year=?, kind=?, source=?, search_text=? WHERE id=?",
        update_rows,
    )


def _write_rels(c: sqlite3.Connection, plan: WritePlan) -> None:
    """Created and changed relationships, whole rows, in key order."""
    c.executemany(
        'INSERT OR REPLACE INTO rels (start, type, "end", props, weight, about, position, rank) '
        "VALUES (?,?,?,?,NULL,?,?,?)",
        [
            (s, t, e, schema.dumps(plan.rels[(s, t, e)]), *schema.rel_columns(t, plan.rels[(s, t, e)]))
            for s, t, e in sorted(plan.new_rels.keys() | plan.changed_rels.keys())
        ],
    )


def write_pairs(c: sqlite3.Connection, pairs: list[tuple[RelKey, int]]) -> None:
    """Net pair-weight changes, one row per touched pair in key order; a pair no paper's top
    set holds any more goes (:mod:`kg.core.derived`). A batch's pairs, and a curation's
    (:mod:`kg.stores.sqlite.authors`, :mod:`kg.stores.sqlite.concepts`).

    Set-wise: the changes go into a TEMP table (plain inserts into an unindexed in-memory
    table) and one ``INSERT ... SELECT ... ON CONFLICT DO UPDATE`` applies them all, in the
    order they came (key order). An upsert per row, the ``executemany`` before, is one
    statement per pair, each with its own statement setup; the one statement cost 0.75x its
    CPU for the 68,318 pair changes of 2,000 papers into a 25k store (``bench/pair_writes.py``,
    bench/README.md "Writer, 2026-12-04").
    """
    if not pairs:
        return
    c.execute(_PAIR_DELTAS)
    c.execute("DELETE FROM temp.pair_deltas")
    c.executemany(
        'INSERT INTO temp.pair_deltas (start, type, "end", n) VALUES (?,?,?,?)',
        [(a, t, b, n) for (a, t, b), n in pairs],
    )
    # ``WHERE true``: SQLite's grammar needs it between a SELECT and ON CONFLICT
    c.execute(
        'INSERT INTO rels (start, type, "end", weight) '
        'SELECT start, type, "end", n FROM temp.pair_deltas WHERE true ORDER BY rowid '
        'ON CONFLICT (start, type, "end") DO UPDATE SET weight = weight + excluded.weight'
    )
    c.executemany(
        'DELETE FROM rels WHERE start = ? AND type = ? AND "end" = ? AND weight <= 0',
        [key for key, n in pairs if n < 0],
    )


# The batch's pair changes (write_pairs), emptied before each use; TEMP: this connection's only,
# in memory (the store sets temp_store = MEMORY), never in the file.
_PAIR_DELTAS = 'CREATE TEMP TABLE IF NOT EXISTS pair_deltas (start TEXT, type TEXT, "end" TEXT, n INTEGER)'


def _paper_degree(plan: WritePlan) -> dict[str, int]:
    """The change of each node's ``paper_count`` the plan makes (see the schema)."""
    degree: dict[str, int] = defaultdict(int)
    degree.update(plan.about_delta)
    for s, t, e in plan.new_rels:
        if t == "MENTIONS":
            continue  # counted in about_delta
        side = schema.PAPER_DEGREE.get(t)
        if side is not None:
            degree[s if side == "start" else e] += 1
    return degree


def _write_keys_and_text(c: sqlite3.Connection, plan: WritePlan) -> None:
    written = plan.written_nodes()
    key_rows = []
    for nid in written:
        label = plan.labels[nid]
        if label not in ("Concept", "Author"):
            continue
        new_rows = schema.name_key_rows(nid, label, plan.nodes[nid])
        if nid not in plan.new_nodes:
            if new_rows == schema.name_key_rows(nid, label, plan.changed_nodes[nid]):
                continue
            c.execute("DELETE FROM name_keys WHERE node_id = ?", (nid,))
        key_rows.extend(new_rows)
    # in key order, for B-tree locality (rows are whole keys, so the order changes nothing else)
    c.executemany("INSERT OR IGNORE INTO name_keys (key, rank, node_id) VALUES (?,?,?)", sorted(key_rows))
    texts: dict[str, tuple[str, str, str, str]] = {}
    for nid in written:
        row = schema.fts_row(plan.labels[nid], plan.nodes[nid])
        if row is None:
            continue
        if nid not in plan.new_nodes and row == schema.fts_row(plan.labels[nid], plan.changed_nodes[nid]):
            continue
        texts[nid] = row
    if not texts:
        return
    rowids: dict[str, int] = {}
    for chunk in chunked(list(texts)):
        marks = ",".join("?" * len(chunk))
        rowids.update(c.execute(f"SELECT id, rowid FROM nodes WHERE id IN ({marks})", chunk).fetchall())
    c.executemany("DELETE FROM fts WHERE rowid = ?", [(rowids[n],) for n in texts if n not in plan.new_nodes])
    c.executemany(
        "INSERT INTO fts (rowid, title, abstract, name, aliases) VALUES (?,?,?,?,?)",
        [(rowids[n], *row) for n, row in texts.items()],
    )


def _write_keyphrases(c: sqlite3.Connection, plan: WritePlan) -> None:
    """The ``keyphrases`` table side of the plan (:mod:`kg.core.provisional`).

    Rows go in key order: concept ids are content hashes, so in plan order each row lands on a
    random leaf of the table's B-tree; sorted, neighbours share leaves and the commit writes
    fewer pages.
    """
    c.executemany(
        "INSERT OR REPLACE INTO keyphrases (concept_id, paper_id, node, rel, key, about) "
        "VALUES (?,?,?,?,?,?)",
        [
            (cid, pid, schema.dumps(node), schema.dumps(rel), *schema.keyphrase_columns(node, rel))
            for cid, by_paper in sorted(plan.keep.items())
            for pid, (node, rel) in sorted(by_paper.items(), key=lambda item: item[0])
        ],
    )
    c.executemany("DELETE FROM keyphrases WHERE concept_id = ?", [(cid,) for cid in sorted(plan.drop)])
