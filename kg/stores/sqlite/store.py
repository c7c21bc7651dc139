"""The embedded store: one SQLite file, ``KG_DATA_DIR/graph.sqlite``, in WAL mode.

Why SQLite: it is a real database in the standard library. Each upsert batch is one
``BEGIN IMMEDIATE`` transaction, so concurrent ``kg ingest`` processes serialise on SQLite's
write lock (waiting up to the busy timeout) and all of their papers land; readers in other
processes (``kg serve``) see every committed batch; an interrupted ingest leaves the last
committed batch. Nothing is ever unpickled: an old ``graph.pickle`` is reported, never opened.

Writes are planned in Python per batch (one read of the existing rows the batch touches, the
merge rules of :mod:`kg.core.merge`, the derived-pair rules of :mod:`kg.core.derived`) and applied with
``executemany``; the reads are in :mod:`kg.stores.sqlite.reads`.
"""

from __future__ import annotations

import itertools
import os
import random
import sqlite3
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

from kg.core import deadline
from kg.core.derived import coauthor_pairs_allowed, cooccurs_changes, new_pairs, top_concepts
from kg.core.errors import GraphStoreError
from kg.core.merge import merge_properties
from kg.core.models import Node, PaperRecord, Properties, Relationship, UpsertSummary
from kg.core.provisional import without_phrase
from kg.stores.protocol import AnalysisRow, AuthorMove, PairType, StoredSlot
from kg.stores.sqlite import authors, check, institutions, keyphrases, schema, vectors
from kg.stores.sqlite import concepts as concepts_ops
from kg.stores.sqlite.reads import SQLiteReads, chunked

DB_FILE = "graph.sqlite"
LEGACY_PICKLE = "graph.pickle"
BUSY_TIMEOUT_S = 120.0
# Papers per transaction when ``kg ingest`` writes here (kg.stores.write_size). Ids are content
# hashes, so a batch's rows land all over the B-trees: at 25k papers one transaction of 500
# papers dirtied 57k pages (40% of the file), and the commit writes each of them to the WAL and
# the checkpoint back. A larger transaction shares most of those pages among more papers:
# 2,000 papers per transaction cost 19% less writer CPU per paper than 500 (bench/README.md,
# "Writer, 2026-12-02"); the cost is memory (the transaction's records and plan, ~+250 MB RSS).
# It stays small enough that a killed ingest redoes little and a concurrent writer waits
# seconds, not minutes, for the lock (BUSY_TIMEOUT_S).
WRITE_BATCH = 2000

RelKey = tuple[str, str, str]
T = TypeVar("T")


def legacy_pickle_notice(data_dir: Path) -> str | None:
    """A one-line notice when ``data_dir`` still holds the pickled graph of paperkg <= 0.1.

    The pickle is never opened: unpickling a file someone else wrote can run their code.
    """
    path = data_dir / LEGACY_PICKLE
    if path.exists():
        return (
            f"note: {path} is a graph from an older paperkg and is ignored (pickles can run code "
            "when loaded); re-ingest your listings into the SQLite store, then delete that file"
        )
    return None


def _read_only(db: Path) -> bool:
    """Whether this process cannot write the store: the file exists and is not writable, or
    it does not and its folder exists and is not writable (a missing folder is created)."""
    if db.exists():
        return not os.access(db, os.W_OK) or not os.access(db.parent, os.W_OK)
    return db.parent.exists() and not os.access(db.parent, os.W_OK)


def _is_busy(error: sqlite3.Error) -> bool:
    text = str(error)
    return "locked" in text or "busy" in text


def retry_busy(work: Callable[[], T], timeout_s: float = BUSY_TIMEOUT_S) -> T:
    """``work()``, run again (after a short, growing, jittered pause) while it fails with
    SQLITE_BUSY, for up to ``timeout_s``.

    Why, on top of the connection's busy timeout: SQLite answers SQLITE_BUSY *without* calling
    the busy handler when waiting could deadlock (a connection holding a read lock asks for the
    write lock another holds, as two processes setting up a new file can), and its documented
    remedy is to roll back and run the transaction again. Two ``kg ingest`` started together
    on a new store lost one of them to that (CI, 2026-12-02). ``work`` must be a whole
    transaction, rolled back when it raises.
    """
    give_up = time.monotonic() + timeout_s
    pause = 0.005
    while True:
        try:
            return work()
        except sqlite3.OperationalError as e:
            if not _is_busy(e) or time.monotonic() >= give_up:
                raise
        time.sleep(pause * random.uniform(0.5, 1.5))  # noqa: S311 - jitter, not security
        pause = min(pause * 2, 0.5)


def _describe(error: sqlite3.Error, path: str) -> str:
    text = str(error)
    if "not a database" in text or "malformed" in text:
        return f"{path} is not a readable paperkg store ({text}); move it away and ingest again"
    if "disk is full" in text or "disk I/O" in text:
        return f"cannot write {path}: {text} (free some space and ingest again; committed batches are kept)"
    if _is_busy(error):
        return f"{path} stayed locked by another writer for {BUSY_TIMEOUT_S:.0f} s ({text})"
    if "readonly" in text or "unable to open" in text:
        return f"cannot open {path} for writing: {text}"
    return f"SQLite store {path}: {text}"


class SQLiteStore(SQLiteReads):
    """:class:`kg.stores.protocol.ReadStore` on SQLite.

    Args:
        data_dir: folder of ``graph.sqlite`` (created when missing); ``None`` keeps the graph in
            memory (tests, ``doctest``).

    Example:
        >>> store = SQLiteStore(None)
        >>> store.get_nodes(["paper:missing"]), store.version()
        ([None], 0)
    """

    backend_name = "sqlite"

    def __init__(self, data_dir: Path | None) -> None:
        self._lock = threading.RLock()
        self.path = ":memory:" if data_dir is None else str(data_dir / DB_FILE)
        # A data dir this process cannot write (a read-only mount, another user's files) is
        # served read-only: reads work, writes are refused with one clear line.
        self.read_only = data_dir is not None and _read_only(data_dir / DB_FILE)
        self._ro_uri = f"file:{self.path}?mode=ro"
        if data_dir is not None:
            found = check.problems(data_dir / DB_FILE)
            if found:
                raise check.StoreDamaged(check.damaged_message(data_dir / DB_FILE, found))
        try:
            if data_dir is not None and not self.read_only:
                data_dir.mkdir(parents=True, exist_ok=True)
            if self.read_only:
                conn = self._connect_read_only()
            else:
                conn = sqlite3.connect(
                    self.path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
                )
        except (OSError, sqlite3.Error) as e:
            raise GraphStoreError(f"cannot open the store at {self.path}: {e}") from e
        self._conn = conn
        self._known = _Known()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        try:
            retry_busy(self._setup)
        except sqlite3.Error as e:
            conn.close()
            raise GraphStoreError(_describe(e, self.path)) from e

    _known: _Known

    def _connect_read_only(self) -> sqlite3.Connection:
        """A read-only connection; in a folder where SQLite cannot create the WAL's shared-memory
        file, one that reads the file as immutable (nobody can write there either)."""
        try:
            conn = sqlite3.connect(
                self._ro_uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except sqlite3.OperationalError:
            self._ro_uri = f"file:{self.path}?immutable=1"
            return sqlite3.connect(
                self._ro_uri, uri=True, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
            )

    def _setup(self) -> None:
        c = self._conn
        if self.read_only:
            row = self._format(c)
            if row is None:
                raise GraphStoreError(f"{self.path} is read-only and holds no paperkg store")
            if int(row[0]) != schema.FORMAT:
                raise GraphStoreError(
                    f"{self.path} has store format {row[0]}, this paperkg reads format {schema.FORMAT}"
                )
            return
        c.execute("PRAGMA journal_mode = WAL")
        c.execute("PRAGMA synchronous = NORMAL")
        c.execute("PRAGMA cache_size = -65536")
        c.execute("PRAGMA temp_store = MEMORY")
        c.execute("PRAGMA mmap_size = 268435456")
        c.execute("PRAGMA recursive_triggers = ON")  # REPLACE fires the counts' delete trigger
        row = self._format(c)
        if row is None:
            c.execute("BEGIN IMMEDIATE")
            try:
                row = self._format(c)  # another process may have set the store up meanwhile
                if row is None:
                    for statement in schema.DDL.split(";"):
                        if statement.strip():
                            c.execute(statement)
                    c.execute("INSERT OR IGNORE INTO meta VALUES ('format', ?)", (schema.FORMAT,))
                    c.execute("INSERT OR IGNORE INTO meta VALUES ('version', 0)")
                    for statement in schema.COUNTS_DDL:
                        c.execute(statement)
                c.execute("COMMIT")
            except BaseException:
                c.execute("ROLLBACK")
                raise
        if row is not None and int(row[0]) != schema.FORMAT:
            raise GraphStoreError(
                f"{self.path} has store format {row[0]}, this paperkg reads format {schema.FORMAT}; "
                "move it away and ingest again"
            )
        schema.ensure_counts(c)
        schema.ensure_rank(c)  # before the indexes: one of them holds the column
        schema.ensure_indexes(c)
        schema.ensure_ties(c)
        schema.ensure_keyphrase_lookup(c)
        vectors.ensure_embeddings(c)

    @staticmethod
    def _format(c: sqlite3.Connection) -> tuple[int] | None:
        """The store's format row, ``None`` for a file never set up."""
        try:
            row: tuple[int] | None = c.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        except sqlite3.OperationalError as e:
            if "no such table" not in str(e):
                raise
            return None
        return row

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.OperationalError as e:
            if "interrupted" in str(e) and deadline.expired():
                raise deadline.QueryTimeout(
                    "the query ran past the request's time limit and was stopped"
                ) from e
            raise GraphStoreError(_describe(e, self.path)) from e
        except sqlite3.Error as e:
            raise GraphStoreError(_describe(e, self.path)) from e

    def _reader(self) -> sqlite3.Connection:
        """This thread's read-only connection (WAL readers never block each other or the writer);
        an in-memory store has only its one connection."""
        conn: sqlite3.Connection | None = getattr(self._local, "conn", None)
        if conn is None:
            if self.path == ":memory:":
                return _Locked(self._conn, self._lock)  # type: ignore[return-value]
            try:
                conn = sqlite3.connect(
                    self._ro_uri,
                    uri=True,
                    timeout=BUSY_TIMEOUT_S,
                    isolation_level=None,
                    check_same_thread=False,
                )
                conn.execute("PRAGMA query_only = ON")
                conn.execute("PRAGMA mmap_size = 268435456")
            except sqlite3.Error as e:
                raise GraphStoreError(_describe(e, self.path)) from e
            conn.set_progress_handler(_stop_when_expired, PROGRESS_STEPS)
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """``work`` in one write transaction, taken with the write lock up front (``BEGIN
        IMMEDIATE``) and run again while another writer holds it (:func:`retry_busy`)."""

        if self.read_only:
            raise GraphStoreError(
                f"{self.path} is read-only (the data dir or file is not writable): writes are refused; "
                "reads still work"
            )

        def transaction() -> T:
            c = self._conn
            c.execute("BEGIN IMMEDIATE")
            try:
                result = work(c)
                c.execute("COMMIT")
            except BaseException:
                if c.in_transaction:
                    c.execute("ROLLBACK")
                raise
            return result

        with self._lock, self._errors():
            return retry_busy(transaction)

    # -- writes --------------------------------------------------------------------------------
    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        if not records:
            return UpsertSummary()

        def apply(c: sqlite3.Connection) -> tuple[_Batch, int, UpsertSummary]:
            version = int(c.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])
            if version != self._known.version:
                self._known.clear(version)
            batch = _Batch(c, records, self._known)
            try:
                summary = batch.apply()
                # Vectors are not compared by the summary (a paper first embedded by a later
                # ingest is not "updated"), but a changed vector is a change: version bumped.
                if vectors.write(c, vectors.record_pairs(records)) and not batch.wrote:
                    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
                    batch.wrote = True
                return batch, version, summary
            except BaseException:
                self._known.clear(None)
                raise

        batch, version, summary = self._write(apply)
        self._known.remember(batch, version + 1 if batch.wrote else version)
        return summary

    def flush(self) -> None:
        return None

    def put_embeddings(self, pairs: Sequence[tuple[str, bytes]]) -> int:
        """Store vectors of stored papers (``kg embed``); how many changed (version bumped if any)."""
        if not pairs:
            return 0

        def put(c: sqlite3.Connection) -> int:
            changed = vectors.write(c, pairs)
            if changed:
                c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
            return changed

        return self._write(put)

    def save_analysis(self, pair: PairType, version: int, rows: Sequence[AnalysisRow]) -> None:
        """Replace one graph's stored analytics (table ``analysis``, made on first use) and
        record the version they were computed at; the store version stays."""

        def save(c: sqlite3.Connection) -> None:
            c.execute(ANALYSIS_DDL)
            c.execute(ANALYSIS_INDEX)
            c.execute("DELETE FROM analysis WHERE pair = ?", (pair,))
            c.executemany("INSERT INTO analysis VALUES (?, ?, ?, ?, ?, ?)", [(pair, *r) for r in rows])
            c.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (f"analysis:{pair}", version),
            )

        self._write(save)

    def clear(self) -> None:
        def empty(c: sqlite3.Connection) -> None:
            for table in ("nodes", "rels", "name_keys", "fts", "keyphrases", "embeddings"):
                c.execute(f"DELETE FROM {table}")  # noqa: S608 - fixed table names
            c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")

        self._write(empty)

    def author_slots(self, name_keys: Sequence[str]) -> list[StoredSlot]:
        with self._lock, self._errors():
            return authors.author_slots(self._conn, name_keys)

    def reassign_authors(self, moves: Sequence[AuthorMove], nodes: dict[str, Properties]) -> None:
        if not moves and not nodes:
            return
        self._write(lambda c: authors.reassign(c, moves, nodes))
        self._known.clear(None)  # cached Author maps may have changed

    def remove_concepts(self, concepts: Sequence[str], links: Sequence[tuple[str, str, str]]) -> None:
        if not concepts and not links:
            return
        self._write(lambda c: concepts_ops.remove(c, concepts, links))
        self._known.clear(None)  # cached concept nodes and BROADER links may be gone

    def relink_keyphrases(self, concept_ids: Sequence[str], relink: Callable[[list[str]], list[str]]) -> None:
        if concept_ids:
            self._write(lambda c: concepts_ops.relink(c, concept_ids, relink))

    def affiliation_rows(self) -> list[tuple[str, str, object, object]]:
        with self._lock, self._errors():
            return institutions.affiliation_rows(self._conn)

    def replace_institutions(self, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
        self._write(lambda c: institutions.replace(c, nodes, rels))
        self._known.clear(None)

    def ping(self) -> None:
        with self._errors():
            self._reader().execute("SELECT value FROM meta WHERE key = 'version'").fetchone()

    def close(self) -> None:
        with self._lock:
            for reader in self._readers:
                reader.close()
            self._conn.close()


# Stored graph analytics (kg.analyze): one row per node of each graph.
ANALYSIS_DDL = (
    "CREATE TABLE IF NOT EXISTS analysis (pair TEXT NOT NULL, node_id TEXT NOT NULL, degree REAL, "
    "betweenness REAL, pagerank REAL, community INTEGER, PRIMARY KEY (pair, node_id)) WITHOUT ROWID"
)
ANALYSIS_INDEX = "CREATE INDEX IF NOT EXISTS analysis_by_community ON analysis (pair, community)"

PROGRESS_STEPS = 20_000  # SQLite VM steps between deadline checks (~0.1-1 ms)


def _stop_when_expired() -> int:
    """SQLite progress handler: a non-zero answer aborts the running statement."""
    return 1 if deadline.expired() else 0


class _Locked:
    """The in-memory store's single connection, used under the store's lock."""

    def __init__(self, conn: sqlite3.Connection, lock: threading.RLock) -> None:
        self._conn = conn
        self._lock = lock

    def execute(self, sql: str, params: Sequence[object] = ()) -> _Rows:
        with self._lock:
            return _Rows(self._conn.execute(sql, params).fetchall())


class _Rows:
    def __init__(self, rows: list[object]) -> None:
        self._rows = rows

    def fetchall(self) -> list[object]:
        return self._rows

    def fetchone(self) -> object | None:
        return self._rows[0] if self._rows else None


class _Known:
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

    def remember(self, batch: _Batch, version: int) -> None:
        if len(self.nodes) > self.MAX or len(self.rels) > self.MAX:
            self.nodes.clear()
            self.rels.clear()
        for nid, props in batch.props.items():
            label = batch.labels[nid]
            if label != "Paper":
                self.nodes[nid] = (label, props)
        for key, props in batch.rels.items():
            if key[1] in self.REPEATED_RELS:
                self.rels[key] = props
        self.version = version


class _Batch:
    """The plan of one upsert transaction: read what the batch touches, merge, write."""

    def __init__(self, conn: sqlite3.Connection, records: Sequence[PaperRecord], known: _Known) -> None:
        self.c = conn
        self.known = known
        self.wrote = False
        self.records = records
        self.props: dict[str, Properties] = {}
        self.labels: dict[str, str] = {}
        self.new_nodes: set[str] = set()
        self.changed_nodes: dict[str, Properties] = {}  # id -> old properties ({} when new)
        self.rels: dict[RelKey, Properties] = {}
        self.new_rels: set[RelKey] = set()
        self.changed_rels: set[RelKey] = set()
        self.about_delta: dict[str, int] = defaultdict(int)  # concept -> change in papers about it
        self.authors: dict[str, set[str]] = {}
        self.mentions: dict[str, dict[str, float]] = {}
        self.pair_delta: dict[tuple[str, str, str], int] = defaultdict(int)
        self.last_input: dict[str, Properties] = {}  # see _merge_node

    def _load(self) -> None:
        node_ids = list(
            dict.fromkeys(n.id for r in self.records for n in itertools.chain([r.paper], r.nodes))
        )
        unknown: list[str] = []
        for nid in node_ids:
            hit = self.known.nodes.get(nid)
            if hit is None:
                unknown.append(nid)
            else:
                self.labels[nid], self.props[nid] = hit
        for chunk in chunked(unknown):
            marks = ",".join("?" * len(chunk))
            for nid, label, blob in self.c.execute(
                f"SELECT id, label, props FROM nodes WHERE id IN ({marks})", chunk
            ):
                self.props[nid] = schema.loads(blob)
                self.labels[nid] = label
        # The batch's relationship keys go into a temporary table joined on the primary key: a
        # row-value IN (VALUES ...) list is not matched against the index and scans every row.
        keys = []
        for key in dict.fromkeys(rel.key for r in self.records for rel in r.relationships):
            cached = self.known.rels.get(key)
            if cached is None:
                keys.append(key)
            else:
                self.rels[key] = cached
        self.c.execute('CREATE TEMP TABLE IF NOT EXISTS batch_keys (start TEXT, type TEXT, "end" TEXT)')
        self.c.execute("DELETE FROM batch_keys")
        self.c.executemany("INSERT INTO batch_keys VALUES (?,?,?)", keys)
        for start, typ, end, blob in self.c.execute(
            'SELECT r.start, r.type, r."end", r.props FROM batch_keys k JOIN rels r '
            'ON r.start = k.start AND r.type = k.type AND r."end" = k."end"'
        ):
            self.rels[(start, typ, end)] = schema.loads(blob)
        papers = [r.paper.id for r in self.records if r.paper.id in self.props]
        for pid in {r.paper.id for r in self.records}:
            self.authors[pid] = set()
            self.mentions[pid] = {}
        for chunk in chunked(papers):
            marks = ",".join("?" * len(chunk))
            for start, end in self.c.execute(
                f'SELECT start, "end" FROM rels WHERE "end" IN ({marks}) AND type = \'AUTHORED\'', chunk
            ):
                self.authors[end].add(start)
            for start, end, blob in self.c.execute(
                f"SELECT start, \"end\", props FROM rels WHERE start IN ({marks}) AND type = 'MENTIONS'",
                chunk,
            ):
                self.mentions[start][end] = _score(schema.loads(blob))
        self._check_ends()

    def _check_ends(self) -> None:
        """Refuse a batch whose relationships refer to nodes neither in it nor in the store."""
        batch_ids = {n.id for r in self.records for n in itertools.chain([r.paper], r.nodes)}
        unknown = {
            (end, r.paper.id, rel.type)
            for r in self.records
            for rel in r.relationships
            for end in (rel.start, rel.end)
            if end not in batch_ids and end not in self.props
        }
        if not unknown:
            return
        missing = sorted({u[0] for u in unknown})
        found: set[str] = set()
        for chunk in chunked(missing):
            marks = ",".join("?" * len(chunk))
            found.update(
                row[0] for row in self.c.execute(f"SELECT id FROM nodes WHERE id IN ({marks})", chunk)
            )
        for end, paper, rel_type in sorted(unknown):
            if end not in found:
                raise GraphStoreError(
                    f"relationship {rel_type} of paper {paper} refers to unknown node {end}; "
                    "nothing of this batch was written"
                )

    def apply(self) -> UpsertSummary:
        self.plan = keyphrases.plan_batch(self.c, self.records)
        self.records = self.plan.records
        self._load()
        summary = UpsertSummary()
        for record in self.records:
            pid = record.paper.id
            existed = pid in self.props
            before_authors = set(self.authors[pid])
            before_top = top_concepts(self.mentions[pid].items())
            changed = pid in self.plan.changed_papers
            for node in itertools.chain([record.paper], record.nodes):
                changed |= self._merge_node(node.id, node.label, node.properties)
            for rel in record.relationships:
                changed |= self._merge_rel(rel.key, rel.properties)
                if rel.type == "AUTHORED" and rel.end == pid:
                    self.authors[pid].add(rel.start)
                elif rel.type == "MENTIONS" and rel.start == pid:
                    self.mentions[pid][rel.end] = _score(self.rels[rel.key])
            if coauthor_pairs_allowed(self.props[pid]):  # hyperauthored papers make no pairs
                for a, b in new_pairs(before_authors, self.authors[pid]):
                    self.pair_delta[(a, "COAUTHOR", b)] += 1
            for (a, b), n in cooccurs_changes(before_top, top_concepts(self.mentions[pid].items())):
                self.pair_delta[(a, "CO_OCCURS", b)] += n
            if not existed:
                summary.added += 1
            elif changed:
                summary.updated += 1
            else:
                summary.unchanged += 1
        self._promote()
        if self.changed_nodes or self.changed_rels or self.pair_delta or self.plan.keep or self.plan.drop:
            self._write()
            keyphrases.write(self.c, self.plan)
            self.wrote = True
        return summary

    def _promote(self) -> None:
        """Link the earlier carriers of a concept promoted in this batch (see
        :mod:`kg.core.provisional`), with the derived pairs their new MENTIONS make."""
        if not self.plan.promote:
            return
        papers = sorted({p.paper for p in self.plan.promote} - set(self.mentions))
        for pid in papers:
            self.mentions[pid] = {}
        for chunk in chunked(papers):
            marks = ",".join("?" * len(chunk))
            for start, end, blob in self.c.execute(
                f"SELECT start, \"end\", props FROM rels WHERE start IN ({marks}) AND type = 'MENTIONS'",
                chunk,
            ):
                self.mentions[start][end] = _score(schema.loads(blob))
        missing = sorted({p.paper for p in self.plan.promote} - set(self.props))
        for chunk in chunked(missing):
            marks = ",".join("?" * len(chunk))
            for nid, label, blob in self.c.execute(
                f"SELECT id, label, props FROM nodes WHERE id IN ({marks})", chunk
            ):
                self.props[nid] = schema.loads(blob)
                self.labels[nid] = label
        for cid, pid, node, rel, phrases, links in self.plan.promote:
            # The phrase is a node now: it leaves the paper's keyphrases (as if it had been one
            # from the start, so the order the papers came in does not show).
            paper = self.props.get(pid)
            promoted = without_phrase(paper, phrases) if paper is not None else None
            if paper is not None and promoted is not None:
                self.changed_nodes.setdefault(pid, dict(paper))
                self.props[pid] = promoted
                self.last_input.pop(pid, None)
            before = top_concepts(self.mentions[pid].items())
            self._merge_node(cid, "Concept", node)
            for link in links:  # its BROADER links, which the row kept (kg.core.provisional)
                self._merge_rel(link.key, link.properties)
            key = (pid, "MENTIONS", cid)
            self._merge_rel(key, rel)
            self.mentions[pid][cid] = _score(self.rels[key])
            for (a, b), n in cooccurs_changes(before, top_concepts(self.mentions[pid].items())):
                self.pair_delta[(a, "CO_OCCURS", b)] += n

    def _merge_node(self, nid: str, label: str, props: Properties) -> bool:
        # Merging is idempotent, so the input last merged into a node cannot change it again:
        # a vocabulary concept or an author repeated across the batch's records costs one dict
        # comparison instead of a merge (most of a batch's node merges are such repeats).
        if self.last_input.get(nid) == props:
            return False
        self.last_input[nid] = props
        old = self.props.get(nid)
        merged = merge_properties(old or {}, props)
        if old is not None and merged == old:
            return False
        if old is None:
            self.labels[nid] = label
            self.new_nodes.add(nid)
        self.changed_nodes.setdefault(nid, old or {})
        self.props[nid] = merged
        return True

    def _merge_rel(self, key: RelKey, props: Properties) -> bool:
        old = self.rels.get(key)
        merged = merge_properties(old or {}, props)
        if old is not None and merged == old:
            return False
        if old is None:
            self.new_rels.add(key)
        self.changed_rels.add(key)
        self.rels[key] = merged
        if key[1] == "MENTIONS":  # a concept's paper_count counts the papers about it
            was = 0 if old is None else schema.rel_columns("MENTIONS", old)[0] or 0
            now = schema.rel_columns("MENTIONS", merged)[0] or 0
            if now != was:
                self.about_delta[key[2]] += now - was
        return True

    def _write(self) -> None:
        c = self.c
        degree = self._paper_degree()
        ties: dict[str, int] = defaultdict(int)  # change of each node's tie weight (schema)
        for (a, _, b), n in self.pair_delta.items():
            ties[a] += n
            ties[b] += n
        new_rows = []
        update_rows = []
        for nid in self.changed_nodes:
            label = self.labels[nid]
            props = self.props[nid]
            cols = schema.node_columns(nid, label, props)
            if nid in self.new_nodes:
                # A new node is written with its paper count: one B-tree write instead of an
                # insert and then an update that moves it in ``nodes_by_count``.
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
            "UPDATE nodes SET props=?, name=?, sort_key=?, year=?, kind=?, source=?, search_text=? "
            "WHERE id=?",
            update_rows,
        )
        self._write_keys_and_text()
        c.executemany(
            'INSERT OR REPLACE INTO rels (start, type, "end", props, weight, about, position, rank) '
            "VALUES (?,?,?,?,NULL,?,?,?)",
            [
                (s, t, e, schema.dumps(self.rels[(s, t, e)]), *schema.rel_columns(t, self.rels[(s, t, e)]))
                for s, t, e in sorted(self.changed_rels)
            ],
        )
        c.executemany(
            "UPDATE nodes SET paper_count = paper_count + ?, ties = ties + ? WHERE id = ?",
            [
                (degree.get(i, 0), ties.get(i, 0), i)
                for i in sorted(degree.keys() | ties.keys())
                if degree.get(i) or ties.get(i)
            ],
        )
        c.executemany(
            'INSERT INTO rels (start, type, "end", weight) VALUES (?,?,?,?) '
            'ON CONFLICT (start, type, "end") DO UPDATE SET weight = weight + excluded.weight',
            [(a, t, b, n) for (a, t, b), n in sorted(self.pair_delta.items()) if n],
        )
        c.executemany(  # a pair no paper's top set holds any more (kg.core.derived)
            'DELETE FROM rels WHERE start = ? AND type = ? AND "end" = ? AND weight <= 0',
            [(a, t, b) for (a, t, b), n in self.pair_delta.items() if n < 0],
        )
        c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")

    def _paper_degree(self) -> dict[str, int]:
        """The change of each node's ``paper_count`` this batch makes (see the schema)."""
        degree: dict[str, int] = defaultdict(int)
        degree.update(self.about_delta)
        for s, t, e in self.new_rels:
            if t == "MENTIONS":
                continue  # counted in about_delta
            side = schema.PAPER_DEGREE.get(t)
            if side is not None:
                degree[s if side == "start" else e] += 1
        return degree

    def _write_keys_and_text(self) -> None:
        c = self.c
        keyed = [n for n in self.changed_nodes if self.labels[n] in ("Concept", "Author")]
        key_rows = []
        for nid in keyed:
            old = self.changed_nodes[nid]
            new_rows = schema.name_key_rows(nid, self.labels[nid], self.props[nid])
            if nid not in self.new_nodes and new_rows == schema.name_key_rows(nid, self.labels[nid], old):
                continue
            if nid not in self.new_nodes:
                c.execute("DELETE FROM name_keys WHERE node_id = ?", (nid,))
            key_rows.extend(new_rows)
        # in key order, for B-tree locality (rows are whole keys, so the order changes nothing else)
        c.executemany("INSERT OR IGNORE INTO name_keys (key, rank, node_id) VALUES (?,?,?)", sorted(key_rows))
        texts: dict[str, tuple[str, str, str, str]] = {}
        for nid in self.changed_nodes:
            row = schema.fts_row(self.labels[nid], self.props[nid])
            if row is None:
                continue
            if nid not in self.new_nodes and row == schema.fts_row(self.labels[nid], self.changed_nodes[nid]):
                continue
            texts[nid] = row
        if not texts:
            return
        rowids: dict[str, int] = {}
        for chunk in chunked(list(texts)):
            marks = ",".join("?" * len(chunk))
            rowids.update(c.execute(f"SELECT id, rowid FROM nodes WHERE id IN ({marks})", chunk).fetchall())
        c.executemany(
            "DELETE FROM fts WHERE rowid = ?", [(rowids[n],) for n in texts if n not in self.new_nodes]
        )
        c.executemany(
            "INSERT INTO fts (rowid, title, abstract, name, aliases) VALUES (?,?,?,?,?)",
            [(rowids[n], *row) for n, row in texts.items()],
        )


def _score(props: Properties) -> float:
    value = props.get("score")
    return float(value) if isinstance(value, int | float) else 0.0
