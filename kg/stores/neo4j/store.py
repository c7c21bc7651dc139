"""The Neo4j backend: :class:`kg.stores.protocol.GraphStore` over the official driver (Bolt).

Writes. One upsert is one write transaction (retried on transient errors, see
:meth:`Neo4jStore._write_transaction`), so a failed batch leaves nothing behind. Inside it:

1. take the writer lock (one ``MERGE`` on a lock node), so concurrent upserts serialise;
2. read, in a few ``UNWIND`` statements, the stored state the batch touches: its nodes by id,
   every relationship around its papers, and its other relationships by key;
3. merge in Python with :func:`kg.core.merge.merge_properties`, record by record, exactly like the
   embedded store, which gives ``added``/``updated``/``unchanged`` per paper and the derived
   ``COAUTHOR``/``CO_OCCURS`` pair bumps (:mod:`kg.core.derived`) from each paper's before/after sets;
4. write only what changed: created nodes per label, replaced property maps, created and
   replaced relationships per type, and pair bumps, each a batched ``UNWIND`` statement whose
   rows are plain lists. Relationship writes find their ends by element id (read or returned
   earlier in the same transaction, the only scope where element ids are stable), which is
   cheaper than a second index seek per end. A derived pair with a node created in the batch
   cannot exist yet and is ``CREATE`` d; only the others need ``MERGE``.

Re-ingesting the same records writes nothing but the lock. The lock also makes the
read-merge-write safe against a second ingest running at the same time; reads outside
upserts take no lock. A batch larger than one transaction may hold on the server
(``db.memory.transaction.max``, or ``dbms.memory.transaction.total.max``: 70% of the heap by
default) is split in halves, each its own transaction, rather than failing the ingest.

All Cypher lives in :mod:`kg.stores.neo4j.queries`.
"""

from __future__ import annotations

import logging
import random
import re
import time
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import (
    AuthError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from kg.core import text_index
from kg.core.collector import collector_paused
from kg.core.config import Settings
from kg.core.errors import ConfigError, GraphStoreError, StoreUnavailable
from kg.core.models import Node, PaperRecord, Properties, Relationship, RelType, UpsertSummary
from kg.core.text_index import rarer_first, search_terms
from kg.stores import request_scope
from kg.stores.neo4j import authors, institutions, vectors
from kg.stores.neo4j import batch_writes as bw
from kg.stores.neo4j import concepts as concepts_ops
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.batch_writes import chunks, label_of
from kg.stores.neo4j.notifications import DRIVER_CONFIG as NOTIFICATIONS
from kg.stores.neo4j.notifications import quiet_notifications
from kg.stores.neo4j.pair_keys import ensure_keyphrase_keys, ensure_pair_keys
from kg.stores.neo4j.read_index import update_read_index
from kg.stores.neo4j.reads import Neo4jReads
from kg.stores.neo4j.whole_graph import Neo4jWholeGraph, rel_properties, stored_node
from kg.stores.protocol import AuthorMove, Direction, Edge, NodeRow, PageNodes, SearchHit, StoredSlot
from kg.stores.write_plan import WritePlan, plan_upsert

log = logging.getLogger(__name__)
T = TypeVar("T")
Tx = neo4j.ManagedTransaction | neo4j.Transaction
RETRY_TIME_S = 30.0  # the driver's default max_transaction_retry_time
# What Neo4j 5.26 answers when a transaction exceeds db.memory.transaction.max or the
# dbms.memory.transaction.total.max pool (both seen in tests and benchmarks).
MEMORY_LIMIT_CODES = frozenset({"Neo.TransientError.General.MemoryPoolOutOfMemoryError"})
# Fewest rows per UNWIND statement of an upsert: a batch of 500 papers writes ~25,000
# relationships and reads ~10,000 nodes, and every statement is a round trip in which the client
# and the server take turns on the CPU; 500 rows a statement made ~150 statements a batch.
STATEMENT_ROWS = 5000
# Word row counts kept per store version for the any-word search (Neo4jStore._word_rows).
WORD_ROWS_KEPT = 8192
START_HINT = "Is the server running? (scripts/neo4j/start, or docker compose up -d neo4j)"


def _one_line(error: BaseException) -> str:
    if isinstance(error, Neo4jError) and error.message:
        return " ".join(f"{error.message} [{error.code}]".split())
    text = str(error)
    reason = re.search(r"\(reason ([^)]*)\)", text)
    if reason:
        return reason.group(1).strip()
    return " ".join(text.split()) or type(error).__name__


def _driver_uri(driver: neo4j.Driver) -> str:
    address = getattr(driver, "address", None)
    if address is None:
        return "the configured address"
    host, port = address[0], address[1]
    scheme = "neo4j" if isinstance(driver, neo4j.Neo4jDriver) else "bolt"
    return f"{scheme}://{host}:{port}"


def translate_error(error: Exception, uri: str, user: str | None = None) -> GraphStoreError:
    """The paperkg error for a driver error: one clear line, no driver jargon first.

    >>> translate_error(ServiceUnavailable("boom (reason refused)"), "bolt://h:1").args[0][:32]
    'cannot reach Neo4j at bolt://h:1'
    """
    if isinstance(error, ServiceUnavailable | SessionExpired):
        return StoreUnavailable(f"cannot reach Neo4j at {uri}: {_one_line(error)}. {START_HINT}")
    if isinstance(error, AuthError):
        who = f"the credentials of user {user!r}" if user is not None else "the credentials"
        return StoreUnavailable(f"Neo4j at {uri} rejected {who} (set KG_NEO4J_USER / KG_NEO4J_PASSWORD)")
    return GraphStoreError(f"Neo4j at {uri} failed: {_one_line(error)}")


def _byline(entries: list[list[Any]]) -> list[Node]:
    """Authors from ``[position, id, labels, props]`` byline entries, in byline order: by
    position (the SQLite store's ``position`` column: a number, else last), then id."""

    def key(entry: list[Any]) -> tuple[int, int, str]:
        pos, aid = entry[0], str(entry[1])
        numeric = isinstance(pos, int | float) and not isinstance(pos, bool)
        return (0, int(pos), aid) if numeric else (1, 0, aid)

    return [stored_node(aid, labels, props) for _pos, aid, labels, props in sorted(entries, key=key)]


def _first_node(rows: list[list[Any]]) -> Node | None:
    """The node of the first ``[id, labels, props]`` row, ``None`` without one."""
    return stored_node(*rows[0]) if rows else None


class _BatchTooLarge(Exception):
    """A transaction ran out of the server's transaction memory (split the batch, do not retry it)."""


class Neo4jStore(Neo4jReads, Neo4jWholeGraph):
    """:class:`kg.stores.protocol.GraphStore` on Neo4j 5; the caller owns the driver.

    Args:
        driver: an open ``neo4j.Driver``; never created here (see :func:`open_neo4j_store`).
        database: the database name; ``None`` is the server's default database.
        batch_size: most rows per ``UNWIND`` statement of a read (an upsert's statements take at
            least :data:`STATEMENT_ROWS`); an upsert stays one transaction however
            many statements it takes.
        owns_driver: close the driver in :meth:`close` (``open_neo4j_store`` sets it).

    Raises:
        StoreUnavailable: the server cannot be reached or refuses the credentials.

    Example:
        >>> import neo4j  # doctest: +SKIP
        >>> with neo4j.GraphDatabase.driver("bolt://127.0.0.1:7687") as driver:  # doctest: +SKIP
        ...     store = Neo4jStore(driver)
        ...     store.counts().nodes["Paper"]
        0
    """

    backend_name = "neo4j"

    def __init__(
        self,
        driver: neo4j.Driver,
        database: str | None = None,
        batch_size: int = 500,
        owns_driver: bool = False,
    ) -> None:
        if batch_size < 1:
            raise ConfigError("batch_size must be at least 1")
        self._driver = driver
        self._database = database
        self._batch_size = batch_size
        self._statement_rows = max(batch_size, STATEMENT_ROWS)
        self._owns_driver = owns_driver
        self._uri = _driver_uri(driver)
        self._bookmarks = neo4j.GraphDatabase.bookmark_manager()
        self._closed = False
        self._papers_per_transaction: int | None = None  # set when the server's memory limit is hit
        # The store version at which the fulltext index was last waited for: every write up to
        # it is in the index, so a search at the same version need not wait again (a version
        # is bumped by every write that changes something, in the write's own transaction).
        self._fulltext_current: int | None = None
        self._ensure_schema()

    # -- plumbing ----------------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (Neo4jError, DriverError) as e:
            raise translate_error(e, self._uri) from e

    def _session(self, fetch_size: int = -1, read: bool = False) -> neo4j.Session:
        if self._closed:
            raise GraphStoreError("the Neo4j store is closed")
        return self._driver.session(
            database=self._database,
            bookmark_manager=self._bookmarks,
            # an auto-commit statement goes where the session's mode says (a cluster's reader)
            default_access_mode=neo4j.READ_ACCESS if read else neo4j.WRITE_ACCESS,
            fetch_size=fetch_size,  # results are mostly materialised anyway: one PULL, not one per 1000 rows
            # "label/type/property does not exist yet" is normal before the first upsert (and
            # INTRODUCES may never exist); the driver would log each as a warning on stderr.
            notifications_disabled_classifications=[neo4j.NotificationDisabledClassification.UNRECOGNIZED],
        )

    @staticmethod
    def _fetch(tx: Tx, stmt: q.Statement) -> list[neo4j.Record]:
        return list(tx.run(stmt.text, stmt.params))

    @staticmethod
    def _rows(tx: Tx, stmt: q.Statement) -> list[list[Any]]:
        """The ``rows`` list of a statement that collects its results into one record."""
        record = tx.run(stmt.text, stmt.params).single(strict=True)
        rows: list[list[Any]] = record["rows"]
        return rows

    @staticmethod
    def _exec(tx: Tx, stmt: q.Statement) -> None:
        tx.run(stmt.text, stmt.params).consume()

    def _read(self, stmt: q.Statement) -> list[neo4j.Record]:
        """The records of one read statement, run as an auto-commit transaction.

        Why not ``execute_read``: a managed transaction is a BEGIN, the statement and a COMMIT,
        two round trips where an auto-commit statement is one; on a one-statement read that was
        about twice the CPU of both the API process and the server (bench/README.md, "Neo4j at
        100k: fewer server trips a request"), and a request sends several. What a managed
        transaction adds is its retries: an error the driver calls retryable runs the statement
        again that way.
        """
        with self._errors():
            try:
                with self._session(read=True) as session:
                    return list(session.run(stmt.text, stmt.params))
            except (Neo4jError, DriverError) as e:
                if not e.is_retryable():
                    raise
            with self._session(read=True) as session:
                return session.execute_read(self._fetch, stmt)

    def _read_one_rows(self, stmt: q.Statement) -> list[list[Any]]:
        """The ``rows`` list of a read statement that collects its results into one record."""
        records = self._read(stmt)
        if len(records) != 1:
            raise GraphStoreError(f"a Neo4j read returned {len(records)} records where one was expected")
        rows: list[list[Any]] = records[0]["rows"]
        return rows

    def _read_many(self, build: Callable[[list[str]], q.Statement], ids: list[str]) -> list[list[Any]]:
        """The collected ``rows`` of ``build(chunk)`` over ``ids`` in chunks, one read transaction
        (one auto-commit statement when they fit in one chunk: see :meth:`_read`)."""
        if len(ids) <= self._batch_size:
            return self._read_one_rows(build(ids))

        def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
            out: list[list[Any]] = []
            for chunk in chunks(ids, self._batch_size):
                out.extend(self._rows(tx, build(chunk)))
            return out

        with self._errors(), self._session() as session:
            return session.execute_read(work)

    def _ensure_schema(self) -> None:
        with self._errors(), self._session() as session:
            for stmt in [
                *q.schema_statements(),
                *rq.schema_statements(),
                *vectors.schema_statements(),
                q.await_indexes(),
            ]:
                session.run(stmt.text, stmt.params).consume()

        def sessions() -> neo4j.Session:
            # streamed (the default fetch size), not materialised: millions of pairs at 100k papers
            return self._driver.session(database=self._database, bookmark_manager=self._bookmarks)

        with self._errors():
            ensure_pair_keys(sessions)
            ensure_keyphrase_keys(sessions)
            vectors.ensure_models(sessions)

    # -- writes ------------------------------------------------------------------------------------
    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        if not records:
            return UpsertSummary()
        limit = self._papers_per_transaction
        if limit is not None and len(records) > limit:
            summary = UpsertSummary()
            for i in range(0, len(records), limit):
                summary += self.upsert(records[i : i + limit])
            return summary
        try:
            with self._errors(), collector_paused():
                return self._write_transaction(list(records))
        except _BatchTooLarge as e:
            if len(records) == 1:
                raise GraphStoreError(
                    f"paper {records[0].paper.id} alone needs more transaction memory than Neo4j at "
                    f"{self._uri} allows ({_one_line(e.__cause__ or e)}); raise the server heap or "
                    "db.memory.transaction.max"
                ) from e
            half = len(records) // 2
            self._papers_per_transaction = half  # later batches start at the size that may fit
            log.warning(
                "a batch of %d papers exceeded Neo4j's transaction memory; writing at most %d papers "
                "per transaction from now on (a smaller KG_BATCH_SIZE or a larger server heap avoids this)",
                len(records),
                half,
            )
            summary = self.upsert(records[:half])
            summary += self.upsert(records[half:])
            return summary

    def _write_transaction(self, records: list[PaperRecord]) -> UpsertSummary:
        """One upsert in one explicit transaction, retried like the driver's managed ones.

        ``session.execute_write`` would retry every transient error for 30 s, including the
        server running out of transaction memory (often at commit), which the same batch hits
        again every time. So the retry loop is ours: transient errors and lost connections are
        retried with exponential backoff for up to :data:`RETRY_TIME_S`; a memory limit raises
        :class:`_BatchTooLarge` at once for :meth:`upsert` to split the batch.
        """
        delay, deadline = 1.0, time.monotonic() + RETRY_TIME_S
        while True:
            try:
                with self._session() as session, session.begin_transaction() as tx:
                    summary = self._upsert_tx(tx, records)
                    tx.commit()
                    return summary
            except (Neo4jError, DriverError) as e:
                if isinstance(e, Neo4jError) and e.code in MEMORY_LIMIT_CODES:
                    raise _BatchTooLarge(str(e)) from e
                if not e.is_retryable() or time.monotonic() + delay > deadline:
                    raise
                log.warning("Neo4j write failed (%s); retrying in %.1f s", _one_line(e), delay)
            time.sleep(delay * random.uniform(0.8, 1.2))
            delay *= 2

    def _upsert_tx(self, tx: Tx, records: list[PaperRecord]) -> UpsertSummary:
        self._exec(tx, q.lock_writers())
        graph = bw.StoredNodes(lambda stmt: self._rows(tx, stmt), self._statement_rows)
        plan = plan_upsert(graph, records)
        self._write(tx, plan, graph)
        written = {i: (plan.labels[i], plan.nodes[i]) for i in plan.written_nodes()}
        update_read_index(tx, written, plan.new_nodes, bw.paper_delta(plan), graph.stored, eids=graph.eids)
        # Vectors are not compared by the summary (see kg.core.models.PaperRecord.embedding), but a
        # changed one is a change: the version is bumped if nothing else bumped it.
        if self._put_vectors(tx, [(r.paper.id, r.embedding) for r in records if r.embedding is not None]):
            if not plan.changes:
                self._exec(tx, q.bump_version())
        return plan.summary

    def _put_vectors(self, tx: Tx, pairs: Sequence[tuple[str, bytes]]) -> int:
        changed = 0
        for chunk in chunks(list(pairs), self._statement_rows):
            changed += int(self._fetch(tx, vectors.put(chunk))[0]["changed"])
        return changed

    # -- paper embeddings (kg.stores.neo4j.vectors) ------------------------------------------------
    def put_embeddings(self, pairs: Sequence[tuple[str, bytes]]) -> int:
        if not pairs:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> int:
            self._exec(tx, q.lock_writers())
            changed = self._put_vectors(tx, pairs)
            if changed:
                self._exec(tx, q.bump_version())
            return changed

        with self._errors(), self._session() as session:
            return session.execute_write(work)

    def paper_embeddings(self, ids: Sequence[str]) -> list[bytes | None]:
        found: dict[str, bytes] = {}
        for chunk in chunks(list(ids), self._batch_size):
            found.update(
                (row["id"], vectors.to_blob(row["vector"])) for row in self._read(vectors.vectors_of(chunk))
            )
        return [found.get(i) for i in ids]

    def nearest_papers(
        self, vector: bytes, limit: int, exclude: Sequence[str] = (), approximate: bool = False
    ) -> list[tuple[str, float]]:
        # approximate or not: the vector index is a first pass, its candidates ranked exactly
        if limit <= 0:
            return []
        k = max(vectors.MIN_CANDIDATES, vectors.CANDIDATES_PER_HIT * limit) + len(set(exclude))
        rows = self._read(vectors.nearest(vector, k))
        return vectors.ranked(vector, [(row["id"], row["vector"]) for row in rows], limit, exclude)

    def papers_without_embedding(self, limit: int, after: str = "") -> list[tuple[str, str, str]]:
        rows = self._read(vectors.missing(limit, after))
        return [(str(r["id"]), str(r["title"] or ""), str(r["abstract"] or "")) for r in rows]

    def _write(self, tx: Tx, plan: WritePlan, graph: bw.StoredNodes) -> None:
        """Nodes first (relationships need their element ids), then relationships and pair deltas."""
        if not plan.changes:
            return  # nothing new: no write, and the store version stays
        size, eids = self._statement_rows, graph.eids
        for (lb, kind), node_rows in bw.new_node_rows(plan).items():
            for node_chunk in chunks(node_rows, size):
                rows = self._rows(tx, q.create_nodes(lb, node_chunk, kind))
                eids.update((i, eid) for i, eid in rows)
        for change_chunk in chunks(bw.node_changes(plan, graph.stored), size):
            self._exec(tx, q.update_node_properties_by_eid([[eids[i], c] for i, c in change_chunk]))
        for kind, ids in bw.relabel_ids(plan).items():
            for id_chunk in chunks(ids, size):
                self._exec(tx, q.relabel_concepts_by_eid(kind, [eids[i] for i in id_chunk]))
        for keys, build in (
            (plan.new_rels, q.create_relationships),
            (plan.changed_rels, q.replace_relationship_properties),
        ):
            for rtype, rel_rows in bw.rel_rows(plan, keys, eids).items():
                for chunk in chunks(rel_rows, size):
                    self._exec(tx, build(rtype, chunk))
        self._apply_pairs(tx, plan, eids)
        for drop_chunk in chunks(sorted(plan.drop), size):
            self._exec(tx, q.drop_keyphrases(drop_chunk))
        for row_chunk in chunks(bw.keyphrase_rows(plan), size):
            self._exec(tx, q.put_keyphrases(row_chunk))
        self._exec(tx, q.bump_version())

    def _apply_pairs(self, tx: Tx, plan: WritePlan, eids: dict[str, str]) -> None:
        """Derived pair counts: pairs with a node new in this batch are created outright; the
        others are looked up by their indexed key, then updated, deleted at 0 papers, or created."""
        size = self._statement_rows
        created, maybe = bw.pair_rows(plan, eids)
        for rtype, rows in maybe.items():
            found: dict[tuple[str, str], tuple[str, int]] = {}
            for chunk in chunks(rows, size):
                stmt = q.find_pairs(rtype, [[key, a, b] for a, b, _n, key in chunk])
                found.update(((a, b), (eid, papers)) for a, b, eid, papers in self._rows(tx, stmt))
            updates: list[list[Any]] = []
            gone: list[str] = []
            for a, b, n, key in rows:
                hit = found.get((a, b))
                if hit is None:
                    if n > 0:
                        created[rtype].append([a, b, n, key])
                elif hit[1] + n > 0:
                    updates.append([hit[0], hit[1] + n])
                else:
                    gone.append(hit[0])
            for update_chunk in chunks(updates, size):
                self._exec(tx, q.set_pair_papers(rtype, update_chunk))
            for gone_chunk in chunks(gone, size):
                self._exec(tx, q.delete_pairs(rtype, gone_chunk))
        for rtype, rows in created.items():
            for chunk in chunks(rows, size):
                self._exec(tx, q.create_pairs(rtype, chunk))

    # -- reads -------------------------------------------------------------------------------------
    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        seen = self._seen_nodes()  # read ahead in this request (Neo4jReads._remember)
        found = {i: seen[i] for i in ids if i in seen} if seen else {}
        missing = [i for i in dict.fromkeys(ids) if i not in found]
        if missing:
            found.update(
                (node_id, stored_node(node_id, labels, props))
                for node_id, labels, props, _eid in self._read_many(q.nodes_by_id, missing)
            )
        return [found.get(i) for i in ids]

    def neighbors_many(
        self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out"
    ) -> list[list[Edge]]:
        q.rel_type(rel_type)

        def build(chunk: list[str]) -> q.Statement:
            return q.neighbors(chunk, rel_type, direction)

        edges: dict[str, list[tuple[tuple[str, int], Edge]]] = defaultdict(list)
        for node_id, out, rprops, other, labels, props in self._read_many(build, list(dict.fromkeys(ids))):
            rel = Relationship.model_validate(
                {
                    "type": rel_type,
                    "start": node_id if out else other,
                    "end": other if out else node_id,
                    "properties": rel_properties(rprops),
                }
            )
            node = stored_node(other, labels, props)
            edges[node_id].append(((other, 0 if out else 1), Edge(rel, node)))
        return [[e for _, e in sorted(edges.get(i, []), key=lambda t: t[0])] for i in ids]

    def paper_authors(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        found: dict[str, list[list[Any]]] = defaultdict(list)
        for pid, *entry in self._read_many(rq.paper_authors, list(dict.fromkeys(paper_ids))):
            found[pid].append(entry)
        return [_byline(found.get(i, [])) for i in paper_ids]

    def page_nodes(self, paper_ids: Sequence[str], authors: bool, venues: bool) -> PageNodes:
        """:class:`kg.stores.protocol.PageReads`: one statement (:func:`rq.page_nodes`)."""
        unique = list(dict.fromkeys(paper_ids))
        rows = self._read_one_rows(rq.page_nodes(unique, authors, venues)) if unique else []
        found = {row[0]: (stored_node(*row[:3]), row[3], row[4]) for row in rows}
        papers = [found[i][0] if i in found else None for i in paper_ids]
        return PageNodes(
            papers,
            [_byline(found[i][1]) if i in found else [] for i in paper_ids] if authors else None,
            [_first_node(found[i][2]) if i in found else None for i in paper_ids] if venues else None,
        )

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        q.rel_type(rel_type)
        seen = self._seen_degrees()  # an author's AUTHORED degree, read ahead in this request
        if seen and all((i, rel_type, direction) in seen for i in ids):
            return [seen[(i, rel_type, direction)] for i in ids]
        if rel_type == "COAUTHOR" and direction == "both" and ids:
            # an author's coauthorCount from the version's ties when held (one tie per pair,
            # each of at least one paper: the writer deletes a tie at 0), no server trip
            held = self._held_ties("COAUTHOR", 1)
            if held is not None:
                return held.degrees(ids)

        def build(chunk: list[str]) -> q.Statement:
            return q.degrees(chunk, rel_type, direction)

        found = {node_id: int(degree) for node_id, degree in self._read_many(build, list(dict.fromkeys(ids)))}
        return [found.get(i, 0) for i in ids]

    def paper_counts(self, ids: Sequence[str]) -> list[int]:
        found = {row.id: row.papers for row in self.network_nodes(ids)}
        return [found.get(i, 0) for i in ids]

    def network_nodes(self, ids: Sequence[str]) -> list[NodeRow]:
        found = {
            nid: NodeRow(nid, label_of(labels), "" if name is None else str(name), int(n))
            for nid, labels, name, n in self._read_many(rq.network_nodes, list(dict.fromkeys(ids)))
        }
        return [found[i] for i in ids if i in found]

    def search(self, text: str, limit: int = 20, every_word: bool = False) -> list[SearchHit]:
        query = q.fulltext_query(text, every_word)
        if query is None or limit < 1:
            return []
        phrases, words = search_terms(text)
        if every_word or phrases or len(words) < 2:
            return self._search(query, limit)
        # Any word: split as the embedded store splits it (kg.core.text_index.rarer_first), so
        # both stores leave out the same rows holding only the commonest words.
        rows = self._word_rows(words)
        hits: list[SearchHit] = []
        for rare, common in rarer_first(words, rows, text_index.RARE_ROWS):
            if not common:
                return self._search(query, limit)
            hits = self._search(q.rarer_first_query(rare, common), limit)
            if len(hits) >= limit:
                break
        return hits

    def _search(self, query: str, limit: int) -> list[SearchHit]:
        version = self.version()  # read before the wait below, so the wait covers its writes
        rows = self._fulltext_rows(q.fulltext_search(query, limit), version)
        hits = [SearchHit(stored_node(i, labels, props), float(score)) for i, labels, props, score in rows]
        return sorted(hits, key=lambda h: (-h.score, h.node.id))

    def _fulltext_rows(self, stmt: q.Statement, version: int) -> list[list[Any]]:
        """The ``rows`` of a fulltext read at the store's ``version`` (read before it is called).

        The index is eventually consistent, so a read waits for it to take in the committed
        writes; once it has at a version, no write has come since, and reads of that version
        run as one auto-commit statement (:meth:`_read`) without waiting again.
        """
        if self._fulltext_current == version:
            return self._read_one_rows(stmt)

        def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
            self._exec(tx, q.await_fulltext_refresh())
            return self._rows(tx, stmt)

        with self._errors(), self._session() as session:
            rows = session.execute_read(work)
        self._fulltext_current = version
        return rows

    def _word_rows(self, words: list[str]) -> dict[str, int]:
        """How many nodes of the fulltext index hold each word, kept per store version."""
        version = self.version()
        held: tuple[int, dict[str, int]] | None = getattr(self, "_held_word_rows", None)
        if held is None or held[0] != version or len(held[1]) > WORD_ROWS_KEPT:
            held = (version, {})
            self._held_word_rows = held
        known = held[1]
        missing = [w for w in dict.fromkeys(words) if w not in known]
        queries = {w: query for w in missing if (query := q.fulltext_query(w))}
        known.update((w, 0) for w in missing if w not in queries)  # no searchable word: no rows
        if queries:
            rows = self._fulltext_rows(q.fulltext_counts(list(queries.values())), version)
            words_asked = list(queries)
            known.update((words_asked[int(i)], int(n)) for i, n in rows)
        return {w: known[w] for w in words}

    def version(self) -> int:
        """The store version: bumped by every committed write that changed something.

        One indexed node read, cheap enough to key caches on per request, and read once per
        request inside the API's request scope (:mod:`kg.stores.request_scope`). 0 for a store
        never written to.
        """
        return request_scope.once(self._version_key, self._read_version)

    @property
    def _version_key(self) -> str:
        return f"neo4j-version:{id(self)}"  # two stores (servers) in one request keep apart

    def _read_version(self) -> int:
        rows = self._read(q.read_version())
        return int(rows[0]["value"]) if rows else 0

    # -- lifecycle -----------------------------------------------------------------------------------
    def flush(self) -> None:
        """Nothing to do: every upsert committed its own transaction."""
        return None

    def author_slots(self, name_keys: Sequence[str]) -> list[StoredSlot]:
        if not name_keys:
            return []
        with self._errors(), self._session() as session:
            return session.execute_read(lambda tx: authors.author_slots(tx, name_keys))

    def reassign_authors(self, moves: Sequence[AuthorMove], nodes: dict[str, Properties]) -> None:
        if moves or nodes:
            self._locked_write(lambda tx: authors.reassign(tx, moves, nodes))

    def affiliation_rows(self) -> list[tuple[str, str, object, object]]:
        with self._errors(), self._session() as session:
            return session.execute_read(institutions.affiliation_rows)

    def replace_institutions(self, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
        self._locked_write(lambda tx: institutions.replace(tx, nodes, rels))

    def institutions_digest(self) -> str:
        with self._errors(), self._session(fetch_size=institutions.BATCH) as session:
            return institutions.digest(session)

    def institutions_synced_at(self) -> int | None:
        rows = self._read(q.read_meta(q.INSTITUTIONS_SYNCED_ID))
        return int(rows[0]["value"]) if rows else None

    def note_institutions_synced(self, version: int) -> None:
        with self._errors(), self._session() as session:
            session.execute_write(self._exec, q.set_meta(q.INSTITUTIONS_SYNCED_ID, version))

    def remove_concepts(self, concepts: Sequence[str], links: Sequence[tuple[str, str, str]]) -> None:
        if concepts or links:
            self._locked_write(lambda tx: concepts_ops.remove(tx, concepts, links))

    def relink_keyphrases(self, concept_ids: Sequence[str], relink: Callable[[list[str]], list[str]]) -> None:
        if concept_ids:
            self._locked_write(lambda tx: concepts_ops.relink(tx, concept_ids, relink))

    def _locked_write(self, work: Callable[[neo4j.ManagedTransaction], object]) -> None:
        """Runs ``work`` in one write transaction that first takes the writers' lock, so an
        author, institution or concept rewrite never interleaves with an ingest batch."""

        def locked(tx: neo4j.ManagedTransaction) -> None:
            self._exec(tx, q.lock_writers())
            work(tx)

        with self._errors(), self._session() as session:
            session.execute_write(locked)

    def ping(self) -> None:
        try:
            self._read(q.ping())
        except GraphStoreError as e:
            if isinstance(e, StoreUnavailable):
                raise
            raise StoreUnavailable(str(e)) from e

    def clear(self) -> None:
        """Delete every node and relationship in inner transactions; constraints and indexes stay.

        The store version survives and is bumped, so caches keyed on it see the change.
        """
        with self._errors(), self._session() as session:
            for stmt in q.delete_all():
                session.run(stmt.text, stmt.params).consume()
            session.execute_write(self._exec, q.bump_version())

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._owns_driver:
            self._driver.close()


def open_neo4j_store(settings: Settings) -> Neo4jStore:
    """A store on its own driver, checked to answer; every failure is one clear line.

    Raises:
        StoreUnavailable: unreachable server or rejected credentials.
        ConfigError: a malformed URI.
        GraphStoreError: any other failure while preparing the schema.
    """
    uri = settings.neo4j_uri
    password = settings.neo4j_password.get_secret_value()
    auth = (settings.neo4j_user, password) if password else None
    try:
        quiet_notifications()
        driver = neo4j.GraphDatabase.driver(
            uri, auth=auth, max_transaction_retry_time=settings.neo4j_retry_s, **NOTIFICATIONS
        )
    except (ValueError, neo4j.exceptions.ConfigurationError) as e:
        raise ConfigError(f"invalid Neo4j URI {uri!r} (KG_NEO4J_URI): {_one_line(e)}") from e
    try:
        driver.verify_connectivity()
        return Neo4jStore(driver, settings.neo4j_database, settings.batch_size, owns_driver=True)
    except (Neo4jError, DriverError) as e:
        driver.close()
        raise translate_error(e, uri, settings.neo4j_user) from e
    except GraphStoreError as e:
        driver.close()
        if isinstance(e.__cause__, AuthError):
            raise translate_error(e.__cause__, uri, settings.neo4j_user) from e.__cause__
        raise
    except BaseException:
        driver.close()
        raise
