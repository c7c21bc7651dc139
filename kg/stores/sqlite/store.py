"""The embedded store: one SQLite file, ``KG_DATA_DIR/graph.sqlite``, in WAL mode.

Why SQLite: it is a real database in the standard library. Each upsert batch is one
``BEGIN IMMEDIATE`` transaction, so concurrent ``kg ingest`` processes serialise on SQLite's
write lock (waiting up to the busy timeout) and all of their papers land; readers in other
processes (``kg serve``) see every committed batch; an interrupted ingest leaves the last
committed batch. Nothing is ever unpickled: an old ``graph.pickle`` is reported, never opened.

Writes are planned per batch by :func:`kg.stores.write_plan.plan_upsert` (the rules both stores
share) over the rows :mod:`kg.stores.sqlite.batch_writes` reads, and applied there with
``executemany``; the reads are in :mod:`kg.stores.sqlite.reads`.
"""

from __future__ import annotations

import contextlib
import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from kg.core import deadline
from kg.core.errors import GraphStoreError
from kg.core.models import Node, PaperRecord, Properties, Relationship, UpsertSummary
from kg.stores.protocol import AnalysisRow, AuthorMove, PairType, StoredSlot
from kg.stores.sqlite import authors, batch_writes, check, held_rows, institutions, schema, vectors, word_rows
from kg.stores.sqlite import concepts as concepts_ops
from kg.stores.sqlite.reads import SQLiteReads
from kg.stores.write_plan import WritePlan, plan_upsert

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

    def __init__(self, data_dir: Path | str | None) -> None:
        # a str is what a script or a notebook passes first; both name the same folder
        data_dir = Path(data_dir) if isinstance(data_dir, str) else data_dir
        self._lock = threading.RLock()
        self.path = ":memory:" if data_dir is None else str(data_dir / DB_FILE)
        # A data dir this process cannot write (a read-only mount, another user's files) is
        # served read-only: reads work, writes are refused with one clear line.
        self.read_only = data_dir is not None and _read_only(data_dir / DB_FILE)
        self._ro_uri = f"file:{self.path}?mode=ro"
        # Whether close() may stamp the file as verified (check.vouch): this process created it,
        # or it had passed the whole-file checks, as it was, when opened; and it wrote (a reader
        # that only read, such as a long-running `kg serve`, vouches for nothing).
        self._vouch = False
        self._wrote = False
        # The whole-file checks ran out of the open budget (a large store no check has stamped
        # yet): `kg` says so once per command, with what stamps it (kg check).
        self.checked_in_part = False
        if data_dir is not None:
            db = data_dir / DB_FILE
            fresh = not db.exists() or db.stat().st_size == 0
            found, ran_out = check.open_check(db)
            if found:
                raise check.StoreDamaged(check.damaged_message(db, found))
            self._vouch = not self.read_only and (fresh or check.verified(db))
            self.checked_in_part = not self.read_only and ran_out
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
        self._known = batch_writes.Known()
        self._local = threading.local()
        self._readers: list[sqlite3.Connection] = []
        # held structures built on threads of their own, each reading a snapshot (_built); the
        # in-memory store's one connection is the requests' too: its builds run where asked
        self.background_builds = self.path != ":memory:"
        try:
            retry_busy(self._setup)
        except sqlite3.Error as e:
            conn.close()
            raise GraphStoreError(_describe(e, self.path)) from e

    _known: batch_writes.Known

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
        # No memory map on the writer's connection (the readers keep theirs, ``_reader``): the
        # pages it maps count in the writing process's RSS, up to the map's 256 MB, and a writer
        # reads pages through its own page cache (above) and the OS's (bench/README.md, "peak RSS at 100k").
        c.execute("PRAGMA mmap_size = 0")
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
        word_rows.attach(c)  # the in-memory store reads on this connection

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
            conn = self._open_reader()
            self._local.conn = conn
            with self._lock:
                self._readers.append(conn)
        return conn

    def _open_reader(self) -> sqlite3.Connection:
        """A new read-only connection to the file, set up as every reader is."""
        try:
            conn = sqlite3.connect(
                self._ro_uri,
                uri=True,
                timeout=BUSY_TIMEOUT_S,
                isolation_level=None,
                check_same_thread=False,
            )
            word_rows.attach(conn)  # before query_only, which refuses it
            conn.execute("PRAGMA query_only = ON")
            conn.execute("PRAGMA mmap_size = 268435456")
        except sqlite3.Error as e:
            raise GraphStoreError(_describe(e, self.path)) from e
        conn.set_progress_handler(_stop_when_expired, PROGRESS_STEPS)
        return conn

    def _built(self, version: int, read: Callable[[sqlite3.Connection], T | None]) -> T | None:
        """``read``'s structure, read in one read transaction (a WAL snapshot: every statement
        of it sees the same committed writes) on a connection of its own, opened for it and
        closed after (never one of ``_readers``: a build's thread asks nothing else); ``None``
        when the snapshot is not at ``version`` (a write came in after the version was asked
        for: its successor is the one to warm). No request's deadline stops it (it is not the
        request's work); a server's shutdown does (:func:`kg.core.deadline.stop_all`).

        Why: read in autocommit mode, each statement of a build saw the writes committed
        before it, so one build could mix two versions, and a build on a thread of its own
        opened a thread-local reader that was never closed. The in-memory store reads on its
        one connection, under the store's lock, which its writes take too.
        """
        with deadline.deadline_scope(None), self._errors():
            if self.path == ":memory:":
                with self._lock:
                    c = self._reader()
                    return read(c) if held_rows.version(c) == version else None
            conn = self._open_reader()
            try:
                conn.execute("BEGIN")  # deferred: the snapshot is taken by the first read
                if held_rows.version(conn) != version:
                    return None
                built = read(conn)
                conn.execute("COMMIT")
                return built
            finally:
                conn.close()

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
            self._wrote = True
            return result

        with self._lock, self._errors():
            return retry_busy(transaction)

    # -- writes --------------------------------------------------------------------------------
    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        if not records:
            return UpsertSummary()

        def apply(c: sqlite3.Connection) -> tuple[WritePlan, int, bool]:
            version = int(c.execute("SELECT value FROM meta WHERE key = 'version'").fetchone()[0])
            if version != self._known.version:
                self._known.clear(version)
            try:
                plan = plan_upsert(batch_writes.StoredRows(c, self._known), records)
                wrote = plan.changes
                if wrote:
                    batch_writes.write(c, plan)
                # Vectors are not compared by the summary (a paper first embedded by a later
                # ingest is not "updated"), but a changed vector is a change: version bumped.
                if vectors.write(c, vectors.record_pairs(records)) and not wrote:
                    c.execute("UPDATE meta SET value = value + 1 WHERE key = 'version'")
                    wrote = True
                return plan, version, wrote
            except BaseException:
                self._known.clear(None)
                raise

        plan, version, wrote = self._write(apply)
        self._known.remember(plan, version + 1 if wrote else version)
        return plan.summary

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

    def institutions_digest(self) -> str:
        with self._lock, self._errors():
            return institutions.digest(self._conn)

    def institutions_synced_at(self) -> int | None:
        rows = self._all("SELECT value FROM meta WHERE key = ?", (INSTITUTIONS_SYNCED,))
        return int(rows[0][0]) if rows else None

    def note_institutions_synced(self, version: int) -> None:
        def note(c: sqlite3.Connection) -> None:
            c.execute(
                "INSERT INTO meta VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                (INSTITUTIONS_SYNCED, version),
            )

        self._write(note)

    def ping(self) -> None:
        with self._errors():
            self._reader().execute("SELECT value FROM meta WHERE key = 'version'").fetchone()

    def close(self) -> None:
        with self._lock:
            for reader in self._readers:
                reader.close()
            vouch = self._vouch and self._wrote
            if vouch:
                # Everything into the main file now, so that a reader closing later (the last
                # connection checkpoints) has nothing left to write and the stamp stays true.
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            if vouch:
                check.vouch(Path(self.path))


# meta key: the store version the institution graph was last derived at (institutions_synced_at)
INSTITUTIONS_SYNCED = "institutions-synced"

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
    """The rows of one statement, read under the lock; iterable like the cursor it stands for
    (the vector reads iterate over ``execute``)."""

    def __init__(self, rows: list[object]) -> None:
        self._rows = rows

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def fetchall(self) -> list[object]:
        return self._rows

    def fetchone(self) -> object | None:
        return self._rows[0] if self._rows else None
