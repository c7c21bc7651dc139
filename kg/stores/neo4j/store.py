"""The Neo4j backend: :class:`kg.stores.protocol.GraphStore` over the official driver (Bolt).

Writes. One upsert is one write transaction (retried on transient errors, see
:meth:`Neo4jStore._write_transaction`), so a failed batch leaves nothing behind. Inside it:

1. take the writer lock (one ``MERGE`` on a lock node), so concurrent upserts serialise;
2. read, in a few ``UNWIND`` statements, the stored state the batch touches: its nodes by id,
   every relationship around its papers, and its other relationships by key;
3. merge in Python with :func:`kg.merge.merge_properties`, record by record, exactly like the
   embedded store, which gives ``added``/``updated``/``unchanged`` per paper and the derived
   ``COAUTHOR``/``CO_OCCURS`` pair bumps (:mod:`kg.derived`) from each paper's before/after sets;
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

import json
import logging
import random
import re
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import (
    AuthError,
    DriverError,
    Neo4jError,
    ServiceUnavailable,
    SessionExpired,
)

from kg.collector import collector_paused
from kg.config import Settings
from kg.derived import coauthor_pairs_allowed, cooccurs_changes, new_pairs, top_concepts
from kg.errors import ConfigError, GraphStoreError, StoreUnavailable
from kg.merge import merge_properties
from kg.models import (
    DERIVED_REL_TYPES,
    LABELS,
    REL_TYPES,
    Graph,
    Label,
    Node,
    PaperRecord,
    Properties,
    Relationship,
    RelType,
    StoreCounts,
    UpsertSummary,
)
from kg.provisional import (
    KEYPHRASES,
    Plan,
    concept_ids,
    phrase_key,
    provisional_ids,
    row_about,
    without_phrase,
)
from kg.provisional import plan as plan_provisional
from kg.stores.neo4j import authors, institutions, vectors
from kg.stores.neo4j import concepts as concepts_ops
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.notifications import DRIVER_CONFIG as NOTIFICATIONS
from kg.stores.neo4j.notifications import quiet_notifications
from kg.stores.neo4j.pair_keys import ensure_keyphrase_keys, ensure_pair_keys
from kg.stores.neo4j.read_index import same_value, update_read_index
from kg.stores.neo4j.reads import Neo4jReads
from kg.stores.protocol import AuthorMove, Direction, Edge, NodeRow, SearchHit, StoredSlot

log = logging.getLogger(__name__)
T = TypeVar("T")
Tx = neo4j.ManagedTransaction | neo4j.Transaction
RETRY_TIME_S = 30.0  # the driver's default max_transaction_retry_time
# What Neo4j 5.26 answers when a transaction exceeds db.memory.transaction.max or the
# dbms.memory.transaction.total.max pool (both seen in tests and benchmarks).
MEMORY_LIMIT_CODES = frozenset({"Neo.TransientError.General.MemoryPoolOutOfMemoryError"})
RelKey = tuple[str, str, str]  # (start, type, end)
# Nodes read by id in one transaction: id -> (properties, label, element id, stored map with the
# internal properties), None when not stored.
_Seen = dict[str, tuple[Properties, str, str, dict[str, Any]] | None]
# Fewest rows per UNWIND statement of an upsert: a batch of 500 papers writes ~25,000
# relationships and reads ~10,000 nodes, and every statement is a round trip in which the client
# and the server take turns on the CPU; 500 rows a statement made ~150 statements a batch.
STATEMENT_ROWS = 5000
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


class _BatchTooLarge(Exception):
    """A transaction ran out of the server's transaction memory (split the batch, do not retry it)."""


def _strip_internal(props: dict[str, Any]) -> Properties:
    return {k: v for k, v in props.items() if k not in q.INTERNAL_NODE_PROPERTIES}


def _rel_properties(props: dict[str, Any]) -> dict[str, Any]:
    """A relationship's properties without the Neo4j-only ones (a derived pair's key)."""
    return {k: v for k, v in props.items() if k not in q.INTERNAL_REL_PROPERTIES}


def _label_of(labels: Sequence[str]) -> Label:
    for lb in labels:
        if lb in LABELS:
            return lb
    raise GraphStoreError(f"a paperkg node has none of the labels {', '.join(LABELS)}: {sorted(labels)}")


def _db_node_properties(node_id: str, label: str, props: Properties) -> dict[str, Any]:
    """What Neo4j stores for a node: its properties, ``id`` and the internal fulltext fields."""
    row: dict[str, Any] = dict(props)
    row["id"] = node_id
    if label == "Concept":
        aliases = props.get("aliases")
        if isinstance(aliases, list) and aliases:
            row[q.ALIAS_TEXT] = " ".join(str(a) for a in aliases)
    elif label == "Paper":
        # its paper-only phrases (kg.provisional) as its aliases: search finds a paper by them
        phrases = props.get(KEYPHRASES)
        if isinstance(phrases, list) and phrases:
            row[q.ALIAS_TEXT] = " ".join(str(a) for a in phrases)
    return row


def _record_ids(records: Iterable[PaperRecord]) -> list[str]:
    """Every node id the records name: papers, nodes and relationship ends."""
    ids: dict[str, None] = {}
    for r in records:
        ids[r.paper.id] = None
        ids.update((n.id, None) for n in r.nodes)
        for rel in r.relationships:
            ids[rel.start] = None
            ids[rel.end] = None
    return list(ids)


def _chunks(rows: list[T], size: int) -> Iterator[list[T]]:
    for i in range(0, len(rows), size):
        yield rows[i : i + size]


@dataclass
class _Batch:
    """The read-merge-write state of one upsert transaction (role: write planner).

    Holds the stored state the batch touches, applies records one by one with the embedded
    store's rules, and remembers what to write.
    """

    nodes: dict[str, Properties] = field(default_factory=dict)
    labels: dict[str, str] = field(default_factory=dict)
    eids: dict[str, str] = field(default_factory=dict)  # element ids, valid in this transaction
    stored: dict[str, dict[str, Any]] = field(default_factory=dict)  # as read, internal keys too
    rels: dict[RelKey, Properties] = field(default_factory=dict)
    new_nodes: dict[str, None] = field(default_factory=dict)  # ordered sets
    changed_nodes: dict[str, None] = field(default_factory=dict)
    new_rels: dict[RelKey, None] = field(default_factory=dict)
    changed_rels: dict[RelKey, None] = field(default_factory=dict)
    relabel: dict[str, None] = field(default_factory=dict)  # stored concepts whose kind changed
    authors: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))
    mentions: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(dict))
    tracked: set[str] = field(default_factory=set)
    bumps: Counter[RelKey] = field(default_factory=Counter)
    paper_delta: Counter[str] = field(default_factory=Counter)  # read index _papers changes
    # The input last merged into each node/relationship: merging is idempotent, so the same
    # input again (a shared author or concept in the next record) cannot change anything.
    last_input: dict[str | RelKey, Properties] = field(default_factory=dict)
    # provisional concepts (kg.provisional): keyphrase rows to write and concepts whose rows go
    keep: dict[str, dict[str, tuple[Properties, Properties]]] = field(default_factory=dict)  # by concept
    drop: set[str] = field(default_factory=set)

    def know_rel(self, key: RelKey, props: Properties) -> None:
        self.rels[key] = props
        self._follow(key, props)

    def _follow(self, key: RelKey, props: Properties) -> None:
        start, rtype, end = key
        if rtype == "AUTHORED" and end in self.tracked:
            self.authors[end].add(start)
        elif rtype == "MENTIONS" and start in self.tracked:
            self.mentions[start][end] = float(props.get("score") or 0.0)  # type: ignore[arg-type]

    def _state(self, paper_id: str) -> tuple[set[str], set[str]]:
        return set(self.authors[paper_id]), top_concepts(self.mentions[paper_id].items())

    def apply(self, record: PaperRecord, summary: UpsertSummary, changed: bool = False) -> None:
        """Merge one record; ``changed``: its keyphrase rows changed (an update even if nothing
        else did)."""
        pid = record.paper.id
        existed = pid in self.nodes
        before = self._state(pid)
        for node in (record.paper, *record.nodes):
            changed |= self._merge_node(node)
        for rel in record.relationships:
            changed |= self._merge_rel(rel, pid)
        after = self._state(pid)
        if coauthor_pairs_allowed(self.nodes[pid]):  # hyperauthored papers make no pairs
            for x, y in new_pairs(before[0], after[0]):
                self.bumps[(x, "COAUTHOR", y)] += 1
        for (x, y), n in cooccurs_changes(before[1], after[1]):
            self.bumps[(x, "CO_OCCURS", y)] += n
        if not existed:
            summary.added += 1
        elif changed:
            summary.updated += 1
        else:
            summary.unchanged += 1

    def apply_plan(self, plan: Plan, summary: UpsertSummary) -> None:
        """Merge a batch rewritten by :func:`kg.provisional.plan`: its records, then the earlier
        carriers of the concepts it promotes (their papers must be loaded and tracked)."""
        for record in plan.records:
            self.apply(record, summary, changed=record.paper.id in plan.changed_papers)
        for cid, pid, node, rel, phrases, links in plan.promote:
            # The phrase is a node now: it leaves the paper's keyphrases, as if it had been one
            # from the start, so the order the papers came in does not show.
            promoted = without_phrase(self.nodes[pid], phrases)
            if promoted is not None:
                self.nodes[pid] = promoted
                self.last_input.pop(pid, None)
                if pid not in self.new_nodes:
                    self.changed_nodes[pid] = None
            before = top_concepts(self.mentions[pid].items())
            self._merge_node(Node(id=cid, label="Concept", properties=node))
            for link in links:  # its BROADER links, which the row kept (kg.provisional)
                self._merge_rel(link, pid)
            self._merge_rel(Relationship(type="MENTIONS", start=pid, end=cid, properties=rel), pid)
            for (x, y), n in cooccurs_changes(before, top_concepts(self.mentions[pid].items())):
                self.bumps[(x, "CO_OCCURS", y)] += n
        for (cid, pid), rows in plan.keep.items():
            self.keep.setdefault(cid, {})[pid] = rows
        for cid in plan.drop:
            self.drop.add(cid)
            self.keep.pop(cid, None)

    def _merge_node(self, node: Node) -> bool:
        if self.last_input.get(node.id) == node.properties:
            return False
        self.last_input[node.id] = node.properties
        old = self.nodes.get(node.id)
        if old is None:
            self.nodes[node.id] = merge_properties({}, node.properties)  # drops None values
            self.labels[node.id] = node.label
            self.new_nodes[node.id] = None
            return True
        merged = merge_properties(old, node.properties)
        if merged == old:
            return False
        self.nodes[node.id] = merged
        if node.id not in self.new_nodes:
            self.changed_nodes[node.id] = None
            if self.labels[node.id] == "Concept" and q.kind_label(old.get("kind")) != q.kind_label(
                merged.get("kind")
            ):
                self.relabel[node.id] = None
        return True

    def _merge_rel(self, rel: Relationship, paper_id: str) -> bool:
        if rel.type in DERIVED_REL_TYPES:
            raise GraphStoreError(f"{rel.type} relationships are derived by the store, not upserted")
        for node_id in (rel.start, rel.end):
            if node_id not in self.nodes:
                raise GraphStoreError(
                    f"relationship {rel.type} of paper {paper_id} refers to unknown node {node_id}; "
                    "nothing of this batch was written"
                )
        key = (rel.start, rel.type, rel.end)
        if self.last_input.get(key) == rel.properties:
            return False
        self.last_input[key] = rel.properties
        old = self.rels.get(key)
        if old is None:
            merged = merge_properties({}, rel.properties)
            self.new_rels[key] = None
        else:
            merged = merge_properties(old, rel.properties)
            if merged == old:
                return False
            if key not in self.new_rels:
                self.changed_rels[key] = None
        self.know_rel(key, merged)
        # The read index's paper counts change by what this merge changed (kept by delta: a
        # recount would read every relationship of a popular concept in every batch).
        if rel.type == "MENTIONS":
            was = 0 if old is None or old.get("about") is False else 1
            now = 0 if merged.get("about") is False else 1
            if now != was:
                self.paper_delta[rel.end] += now - was
        elif rel.type == "AUTHORED" and old is None:
            self.paper_delta[rel.start] += 1
        return True

    # -- what to write ---------------------------------------------------------------------------
    @property
    def changes(self) -> bool:
        """Does this batch write anything (and so bump the store version)?"""
        return bool(
            self.new_nodes
            or self.changed_nodes
            or self.new_rels
            or self.changed_rels
            or any(self.bumps.values())
            or self.keep
            or self.drop
        )

    def keyphrase_rows(self) -> list[q.KeyphraseRow]:
        """The kept keyphrase rows with their lookup key and ``about`` (:mod:`kg.provisional`)."""
        return [
            q.KeyphraseRow(
                cid,
                pid,
                json.dumps(node, sort_keys=True),
                json.dumps(rel, sort_keys=True),
                phrase_key(node),
                row_about(rel),
            )
            for cid, by_paper in sorted(self.keep.items())
            for pid, (node, rel) in sorted(by_paper.items())
        ]

    def new_node_rows(self) -> dict[tuple[str, str | None], list[dict[str, Any]]]:
        """Rows of the created nodes per ``(label, concept kind)``: a kind gets its own label."""
        groups: dict[tuple[str, str | None], list[dict[str, Any]]] = defaultdict(list)
        for node_id in self.new_nodes:
            lb, props = self.labels[node_id], self.nodes[node_id]
            kind = props.get("kind") if lb == "Concept" else None
            key = (lb, kind if isinstance(kind, str) and q.kind_label(kind) else None)
            groups[key].append(_db_node_properties(node_id, lb, props))
        return groups

    def relabel_ids(self) -> dict[str | None, list[str]]:
        """Stored concepts whose kind label changed, per new kind."""
        groups: dict[str | None, list[str]] = defaultdict(list)
        for node_id in self.relabel:
            kind = self.nodes[node_id].get("kind")
            groups[kind if isinstance(kind, str) else None].append(node_id)
        return groups

    def node_changes(self, ids: Iterable[str]) -> list[list[Any]]:
        """Rows ``[id, {key: new value or None}]``: only the properties that differ from the
        stored node (the read index's own keys aside, :func:`update_read_index` keeps them).

        Why not the whole map: a paper whose keyphrase was promoted changes one list, and
        rewriting its title, abstract and sort key made the server update their records and
        indexes at commit, for ~630 such papers per batch.
        """
        rows: list[list[Any]] = []
        for node_id in ids:
            new = _db_node_properties(node_id, self.labels[node_id], self.nodes[node_id])
            old = {k: v for k, v in self.stored[node_id].items() if k not in q.READ_INDEX_PROPERTIES}
            changes: dict[str, Any] = {k: v for k, v in new.items() if not same_value(old.get(k), v)}
            changes.update((k, None) for k in old if k not in new)  # SET n += {k: null} removes k
            if changes:
                rows.append([node_id, changes])
        return rows

    def rel_rows(self, keys: Iterable[RelKey]) -> dict[str, list[list[Any]]]:
        by_type: dict[str, list[list[Any]]] = defaultdict(list)
        eids = self.eids
        for key in keys:
            by_type[key[1]].append([eids[key[0]], eids[key[2]], self.rels[key]])
        return by_type

    def bump_rows(self) -> tuple[dict[str, list[list[Any]]], dict[str, list[list[Any]]]]:
        """Pair bumps as ``(new, existing)`` rows per type.

        A pair with a node created in this batch cannot have a relationship yet: it is created
        outright. The others may exist: :meth:`Neo4jStore._bump_pairs` looks them up by their key.
        """
        new: dict[str, list[list[Any]]] = defaultdict(list)
        maybe: dict[str, list[list[Any]]] = defaultdict(list)
        fresh, eids = self.new_nodes, self.eids
        for (a, rtype, b), n in self.bumps.items():
            if n:  # a pair gained and lost in one batch nets to nothing
                row = [eids[a], eids[b], n, q.pair_key(a, b)]
                (new if a in fresh or b in fresh else maybe)[rtype].append(row)
        return new, maybe


class Neo4jStore(Neo4jReads):
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
        self._ensure_schema()

    # -- plumbing ----------------------------------------------------------------------------------
    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except (Neo4jError, DriverError) as e:
            raise translate_error(e, self._uri) from e

    def _session(self) -> neo4j.Session:
        if self._closed:
            raise GraphStoreError("the Neo4j store is closed")
        return self._driver.session(
            database=self._database,
            bookmark_manager=self._bookmarks,
            fetch_size=-1,  # results are materialised anyway: one PULL, not one per 1000 rows
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
        with self._errors(), self._session() as session:
            return session.execute_read(self._fetch, stmt)

    def _read_many(self, build: Callable[[list[str]], q.Statement], ids: list[str]) -> list[list[Any]]:
        """The collected ``rows`` of ``build(chunk)`` over ``ids`` in chunks, one read transaction."""

        def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
            out: list[list[Any]] = []
            for chunk in _chunks(ids, self._batch_size):
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
        with self._errors():
            # streamed (the default fetch size), not materialised: millions of pairs at 100k papers
            ensure_pair_keys(
                lambda: self._driver.session(database=self._database, bookmark_manager=self._bookmarks)
            )
            ensure_keyphrase_keys(
                lambda: self._driver.session(database=self._database, bookmark_manager=self._bookmarks)
            )

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
        seen: _Seen = {}
        plan = self._plan_provisional(tx, records, seen)
        batch = self._load_state(
            tx,
            plan.records,
            [p.paper for p in plan.promote],
            [end for p in plan.promote for link in p.links for end in (link.start, link.end)],
            seen,
        )
        summary = UpsertSummary()
        batch.apply_plan(plan, summary)
        self._write(tx, batch)
        written = {i: (batch.labels[i], batch.nodes[i]) for i in (*batch.new_nodes, *batch.changed_nodes)}
        update_read_index(tx, written, batch.new_nodes, batch.paper_delta, batch.stored, eids=batch.eids)
        # Vectors are not compared by the summary (see kg.models.PaperRecord.embedding), but a
        # changed one is a change: the version is bumped if nothing else bumped it.
        if self._put_vectors(tx, [(r.paper.id, r.embedding) for r in records if r.embedding is not None]):
            if not batch.changes:
                self._exec(tx, q.bump_version())
        return summary

    def _put_vectors(self, tx: Tx, pairs: Sequence[tuple[str, bytes]]) -> int:
        changed = 0
        for chunk in _chunks(list(pairs), self._statement_rows):
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
        for chunk in _chunks(list(ids), self._batch_size):
            found.update(
                (row["id"], vectors.to_blob(row["vector"])) for row in self._read(vectors.vectors_of(chunk))
            )
        return [found.get(i) for i in ids]

    def nearest_papers(
        self, vector: bytes, limit: int, exclude: Sequence[str] = ()
    ) -> list[tuple[str, float]]:
        if limit <= 0:
            return []
        k = max(vectors.MIN_CANDIDATES, vectors.CANDIDATES_PER_HIT * limit) + len(set(exclude))
        rows = self._read(vectors.nearest(vector, k))
        return vectors.ranked(vector, [(row["id"], row["vector"]) for row in rows], limit, exclude)

    def papers_without_embedding(self, limit: int) -> list[tuple[str, str, str]]:
        rows = self._read(vectors.missing(limit))
        return [(str(r["id"]), str(r["title"] or ""), str(r["abstract"] or "")) for r in rows]

    def _look_up(self, tx: Tx, ids: Iterable[str], seen: _Seen) -> None:
        """Read the nodes among ``ids`` not looked up yet in this transaction into ``seen``.

        The provisional plan and the batch state need mostly the same nodes; reading each once
        halves the look-ups by id, the largest read of an incremental batch.
        """
        todo = [i for i in dict.fromkeys(ids) if i not in seen]
        for chunk in _chunks(todo, self._statement_rows):
            for node_id, labels, props, eid in self._rows(tx, q.nodes_by_id(chunk)):
                seen[node_id] = (_strip_internal(props), _label_of(labels), eid, props)
        for node_id in todo:
            seen.setdefault(node_id, None)

    def _plan_provisional(self, tx: Tx, records: list[PaperRecord], seen: _Seen) -> Plan:
        """:func:`kg.provisional.plan` over the nodes and keyphrase rows stored for the batch.

        Only concepts that are not nodes can have keyphrase rows: a concept's rows are dropped in
        the transaction that makes it a node, and none are written for a node. So the rows are
        looked up for those alone (most concepts of a batch into a grown store are nodes).
        """
        self._look_up(tx, _record_ids(records), seen)
        existing = {i for i in provisional_ids(records) if seen.get(i) is not None}
        stored: dict[str, dict[str, tuple[Properties, Properties]]] = {}
        absent = [c for c in concept_ids(records) if seen.get(c) is None]
        for chunk in _chunks(absent, self._statement_rows):
            for cid, pid, node, rel in self._rows(tx, q.keyphrases_of(chunk)):
                stored.setdefault(cid, {})[pid] = (json.loads(node), json.loads(rel))
        return plan_provisional(records, existing, stored)

    def _load_state(
        self,
        tx: Tx,
        records: list[PaperRecord],
        carriers: Sequence[str] = (),
        linked: Sequence[str] = (),
        seen: _Seen | None = None,
    ) -> _Batch:
        """The stored state the records touch; ``carriers``: stored papers of promoted concepts,
        loaded like the batch's own papers; ``linked``: the ends of the links their keyphrase
        rows restore (:class:`kg.provisional.Promotion`), which need an element id; ``seen``:
        nodes already read in this transaction."""
        seen = {} if seen is None else seen
        ids: dict[str, None] = dict.fromkeys([*carriers, *linked])
        ids.update(dict.fromkeys(_record_ids(records)))
        self._look_up(tx, ids, seen)
        batch = _Batch(tracked={r.paper.id for r in records} | set(carriers))
        for node_id in ids:
            hit = seen[node_id]
            if hit is not None:
                batch.nodes[node_id], batch.labels[node_id], batch.eids[node_id], batch.stored[node_id] = hit
        papers = {r.paper.id for r in records}
        own = [p for p in dict.fromkeys(r.paper.id for r in records) if p in batch.nodes]
        # A carrier outside the batch only gains a MENTIONS (and the concept's links, whose
        # concept is new): its other relationships cannot change, so only its MENTIONS are read.
        others = {p: None for p in carriers if p in batch.nodes and p not in papers}
        reads = [(q.relationships_around, own), (q.mentions_of, list(others))]
        for build, read in reads:
            for chunk in _chunks(read, self._statement_rows):
                for start, rtype, end, props, start_eid, end_eid in self._rows(tx, build(chunk)):
                    batch.know_rel((start, rtype, end), props)
                    batch.eids[start] = start_eid
                    batch.eids[end] = end_eid
        # Relationships away from the batch's papers (BROADER, SUBTOPIC_OF, ...): by key.
        by_type: dict[str, dict[tuple[str, str], None]] = defaultdict(dict)
        for r in records:
            for rel in r.relationships:
                if (
                    rel.start not in papers
                    and rel.end not in papers
                    and not (rel.type == "MENTIONS" and rel.start in others)
                    and rel.start in batch.nodes
                    and rel.end in batch.nodes
                    and rel.type not in DERIVED_REL_TYPES
                ):
                    by_type[rel.type][(rel.start, rel.end)] = None
        eids = batch.eids
        for rtype, pairs in by_type.items():
            keys = [[eids[s], eids[e]] for s, e in pairs]
            for key_chunk in _chunks(keys, self._statement_rows):
                for start, found_type, end, props in self._rows(tx, q.relationships_by_key(rtype, key_chunk)):
                    batch.know_rel((start, found_type, end), props)
        return batch

    def _write(self, tx: Tx, batch: _Batch) -> None:
        """Nodes first (relationships need their element ids), then relationships and pair bumps."""
        if not batch.changes:
            return  # nothing new: no write, and the store version stays
        size = self._statement_rows
        for (lb, kind), node_rows in batch.new_node_rows().items():
            for node_chunk in _chunks(node_rows, size):
                rows = self._rows(tx, q.create_nodes(lb, node_chunk, kind))
                batch.eids.update((i, eid) for i, eid in rows)
        for change_chunk in _chunks(batch.node_changes(batch.changed_nodes), size):
            self._exec(tx, q.update_node_properties_by_eid([[batch.eids[i], c] for i, c in change_chunk]))
        for kind, ids in batch.relabel_ids().items():
            for id_chunk in _chunks(ids, size):
                self._exec(tx, q.relabel_concepts_by_eid(kind, [batch.eids[i] for i in id_chunk]))
        for stmt in self._relationship_statements(batch):
            self._exec(tx, stmt)
        self._bump_pairs(tx, batch)
        for drop_chunk in _chunks(sorted(batch.drop), size):
            self._exec(tx, q.drop_keyphrases(drop_chunk))
        for row_chunk in _chunks(batch.keyphrase_rows(), size):
            self._exec(tx, q.put_keyphrases(row_chunk))
        self._exec(tx, q.bump_version())

    def _relationship_statements(self, batch: _Batch) -> Iterator[q.Statement]:
        size = self._statement_rows
        for rtype, rel_rows in batch.rel_rows(batch.new_rels).items():
            for chunk in _chunks(rel_rows, size):
                yield q.create_relationships(rtype, chunk)
        for rtype, rel_rows in batch.rel_rows(batch.changed_rels).items():
            for chunk in _chunks(rel_rows, size):
                yield q.replace_relationship_properties(rtype, chunk)

    def _bump_pairs(self, tx: Tx, batch: _Batch) -> None:
        """Derived pair counts: pairs with a node new in this batch are created outright; the
        others are looked up by their indexed key, then updated, deleted at 0 papers, or created."""
        size = self._statement_rows
        created, maybe = batch.bump_rows()
        for rtype, rows in maybe.items():
            found: dict[tuple[str, str], tuple[str, int]] = {}
            for chunk in _chunks(rows, size):
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
            for update_chunk in _chunks(updates, size):
                self._exec(tx, q.set_pair_papers(rtype, update_chunk))
            for gone_chunk in _chunks(gone, size):
                self._exec(tx, q.delete_pairs(rtype, gone_chunk))
        for rtype, rows in created.items():
            for chunk in _chunks(rows, size):
                self._exec(tx, q.create_pairs(rtype, chunk))

    # -- reads -------------------------------------------------------------------------------------
    @staticmethod
    def _node(row: neo4j.Record) -> Node:
        return Node(id=row["id"], label=_label_of(row["labels"]), properties=_strip_internal(row["props"]))

    @staticmethod
    def _rel(row: neo4j.Record) -> Relationship:
        return Relationship.model_validate(
            {
                "type": row["type"],
                "start": row["start"],
                "end": row["end"],
                "properties": _rel_properties(row["props"]),
            }
        )

    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        found = {
            node_id: Node(id=node_id, label=_label_of(labels), properties=_strip_internal(props))
            for node_id, labels, props, _eid in self._read_many(q.nodes_by_id, list(dict.fromkeys(ids)))
        }
        return [found.get(i) for i in ids]

    def nodes_by_label(self, label: Label) -> list[Node]:
        nodes = [self._node(row) for row in self._read(q.nodes_with_label(label))]
        return sorted(nodes, key=lambda n: n.id)

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
                    "properties": _rel_properties(rprops),
                }
            )
            node = Node(id=other, label=_label_of(labels), properties=_strip_internal(props))
            edges[node_id].append(((other, 0 if out else 1), Edge(rel, node)))
        return [[e for _, e in sorted(edges.get(i, []), key=lambda t: t[0])] for i in ids]

    def paper_authors(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        found: dict[str, list[tuple[tuple[int, int, str], Node]]] = defaultdict(list)
        for pid, pos, aid, labels, props in self._read_many(rq.paper_authors, list(dict.fromkeys(paper_ids))):
            # the SQLite store's ``position`` column: a number, else last
            numeric = isinstance(pos, int | float) and not isinstance(pos, bool)
            key = (0, int(pos), aid) if numeric else (1, 0, aid)
            found[pid].append((key, Node(id=aid, label=_label_of(labels), properties=_strip_internal(props))))
        return [[n for _, n in sorted(found.get(i, []), key=lambda t: t[0])] for i in paper_ids]

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        q.rel_type(rel_type)

        def build(chunk: list[str]) -> q.Statement:
            return q.degrees(chunk, rel_type, direction)

        found = {node_id: int(degree) for node_id, degree in self._read_many(build, list(dict.fromkeys(ids)))}
        return [found.get(i, 0) for i in ids]

    def paper_counts(self, ids: Sequence[str]) -> list[int]:
        found = {row.id: row.papers for row in self.network_nodes(ids)}
        return [found.get(i, 0) for i in ids]

    def network_nodes(self, ids: Sequence[str]) -> list[NodeRow]:
        found = {
            nid: NodeRow(nid, _label_of(labels), "" if name is None else str(name), int(n))
            for nid, labels, name, n in self._read_many(rq.network_nodes, list(dict.fromkeys(ids)))
        }
        return [found[i] for i in ids if i in found]

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        rels = [self._rel(row) for row in self._read(q.relationships_of_type(rel_type))]
        return sorted(rels, key=lambda r: (r.start, r.end))

    def search(self, text: str, limit: int = 20, every_word: bool = False) -> list[SearchHit]:
        query = q.fulltext_query(text, every_word)
        if query is None or limit < 1:
            return []

        def work(tx: neo4j.ManagedTransaction) -> list[neo4j.Record]:
            self._exec(tx, q.await_fulltext_refresh())  # the index is eventually consistent
            return self._fetch(tx, q.fulltext_search(query, limit))

        with self._errors(), self._session() as session:
            rows = session.execute_read(work)
        hits = [SearchHit(self._node(row), float(row["score"])) for row in rows]
        return sorted(hits, key=lambda h: (-h.score, h.node.id))

    def version(self) -> int:
        """The store version: bumped by every committed write that changed something.

        One indexed node read, cheap enough to key caches on per request. 0 for a store never
        written to.
        """
        rows = self._read(q.read_version())
        return int(rows[0]["value"]) if rows else 0

    def counts(self) -> StoreCounts:
        nodes: dict[str, int] = dict.fromkeys(LABELS, 0)
        rels: dict[str, int] = dict.fromkeys(REL_TYPES, 0)
        for row in self._read(q.counts()):
            (nodes if row["kind"] == "node" else rels)[row["name"]] = int(row["n"])
        return StoreCounts(nodes=nodes, relationships=rels)

    def export(self) -> Graph:
        nodes = sorted((self._node(row) for row in self._read(q.all_nodes())), key=lambda n: n.id)
        rels = sorted(
            (self._rel(row) for row in self._read(q.all_relationships())),
            key=lambda r: (r.type, r.start, r.end),
        )
        return Graph(nodes=nodes, relationships=rels)

    def iter_nodes(self) -> Iterator[Node]:
        stmt = q.all_nodes()
        for row in self._stream(stmt.text + " ORDER BY id", stmt.params):
            yield self._node(row)

    def iter_relationships(self) -> Iterator[Relationship]:
        stmt = q.all_relationships()
        for row in self._stream(stmt.text + " ORDER BY start, type, end", stmt.params):
            yield self._rel(row)

    def _stream(self, text: str, params: dict[str, Any]) -> Iterator[neo4j.Record]:
        """Records as the driver fetches them (a page at a time), not materialised: export only."""
        with (
            self._errors(),
            self._driver.session(database=self._database, bookmark_manager=self._bookmarks) as session,
        ):
            yield from session.run(text, params)

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
        if not moves and not nodes:
            return

        def work(tx: neo4j.ManagedTransaction) -> bool:
            self._exec(tx, q.lock_writers())
            return authors.reassign(tx, moves, nodes)

        with self._errors(), self._session() as session:
            session.execute_write(work)

    def affiliation_rows(self) -> list[tuple[str, str, object, object]]:
        with self._errors(), self._session() as session:
            return session.execute_read(institutions.affiliation_rows)

    def replace_institutions(self, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
        def work(tx: neo4j.ManagedTransaction) -> None:
            self._exec(tx, q.lock_writers())
            institutions.replace(tx, nodes, rels)

        with self._errors(), self._session() as session:
            session.execute_write(work)

    def remove_concepts(self, concepts: Sequence[str], links: Sequence[tuple[str, str, str]]) -> None:
        if not concepts and not links:
            return

        def work(tx: neo4j.ManagedTransaction) -> bool:
            self._exec(tx, q.lock_writers())
            return concepts_ops.remove(tx, concepts, links)

        with self._errors(), self._session() as session:
            session.execute_write(work)

    def relink_keyphrases(self, concept_ids: Sequence[str], relink: Callable[[list[str]], list[str]]) -> None:
        if not concept_ids:
            return

        def work(tx: neo4j.ManagedTransaction) -> bool:
            self._exec(tx, q.lock_writers())
            return concepts_ops.relink(tx, concept_ids, relink)

        with self._errors(), self._session() as session:
            session.execute_write(work)

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
