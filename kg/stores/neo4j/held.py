"""The Neo4j store's rows for the structures a warm version holds (:mod:`kg.stores.held`), and
the mixin that keeps them per store version (role: read-side build-once cache on Neo4j).

Why: the concept graph, the co-author reads and the concept pages were near their statements'
floor on Neo4j (at 100k papers 32-38 ms of the JVM's CPU per request, plus the API's), where
the SQLite store answers them from structures it builds once a version is warm. The same
structures (:mod:`kg.stores.held`) are built here from Neo4j reads: each is one statement in
one read transaction, its records (grouped server-side: the driver's cost is per record)
streamed into the build. The transaction also reads the version before and after: a write that
came in first or meanwhile (another process's ``kg ingest``) means nothing is kept for the
version asked for, whose successor is then the one to warm. Nodes
are keyed by their ``id`` property (element ids are only valid in one transaction); the
structures turn them into dense codes.

- the ties of each pair type (:class:`kg.stores.held.ties.HeldTies`): ``CO_OCCURS`` heavier
  than 1 (the concept graph asks ``minWeight: 2``), every ``COAUTHOR`` tie (co-author pages and
  networks ask weight 1), both from the ``papers`` range index;
- the concept pages' lists (:class:`kg.stores.held.closure_pages.ClosurePages`) with the
  concept hierarchy they need (:class:`kg.stores.held.hierarchy.Hierarchy`), which also answers
  ``narrower_closure`` for the concepts it holds.

Exactly the statements' rules (:mod:`kg.stores.neo4j.read_queries`): a link counts as
``_concept_cond`` says with ``about_only`` (``INTRODUCES``, or a ``MENTIONS`` whose ``about``
is not false; one marked ``climbs: false`` only for the concept itself), its relevance is
``PROJECTED_RELEVANCE`` computed by the server (the same expression, so the same doubles), the
newest order and the relevance tie-break are ``_sortKey`` (a store with a paper without one
holds no lists).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import AbstractContextManager
from itertools import repeat
from typing import TYPE_CHECKING, Any, TypeVar

import neo4j

from kg.stores import warm
from kg.stores.held import closure_pages as held_pages
from kg.stores.held.closure_pages import CLIMBS, HELD_CLOSURE, OWN, ClosurePages
from kg.stores.held.heavy_ties import HEAVY_TIE
from kg.stores.held.hierarchy import Hierarchy
from kg.stores.held.ties import HeldTies
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_queries as rq
from kg.stores.protocol import SCORE_WEIGHT, PairType

V = TypeVar("V")
_N = q.NODE_LABEL
# The lightest tie held per pair type: a concept has thousands of ties of one paper (1.7M of the
# 1.9M CO_OCCURS at 100k papers) and the concept graph asks minWeight 2; an author has a few
# dozen ties, and the co-author reads ask weight 1.
TIE_FLOOR: dict[str, int] = {"CO_OCCURS": HEAVY_TIE + 1, "COAUTHOR": 1}
FETCH = 20_000  # records per PULL while streaming a build's rows (bounds the driver's buffer)
_CHUNK = 65_536  # link rows turned into arrays at a time (kg.stores.held.closure_pages)


def ties_statement(pair: PairType, floor: int) -> q.Statement:
    """Every tie of ``pair`` of at least ``floor`` papers, once each, grouped by the end it
    starts at: ``[a, [b, ...], [papers, ...]]`` (ids). One record per start, not per tie: the
    driver's cost is per record (609k co-author ties: 8.3 s of the API process's CPU one record
    a tie, 1.5 s grouped, at 100k papers)."""
    t = rq.pair_type(pair)
    return q.Statement(
        f"MATCH (a)-[r:{t}]->(b) WHERE r.papers >= $floor "
        "WITH a, collect(b.id) AS ends, collect(r.papers) AS weights RETURN a.id, ends, weights",
        {"floor": floor},
    )


def broader_statement() -> q.Statement:
    """Every ``BROADER`` link: ``[broader id, narrower id, the narrower end is a Concept, the
    broader end is a Concept of the id index]`` (``narrower_closure`` walks through any node,
    lists only concepts, and answers for a concept of the index)."""
    return q.Statement(f"MATCH (n)-[:BROADER]->(c) RETURN c.id, n.id, n:Concept, c:{_N}:Concept")


def unsorted_statement() -> q.Statement:
    """``n``: how many papers have no ``_sortKey`` (the statements' order leaves them unsorted)."""
    return q.Statement("MATCH (p:Paper) WHERE p._sortKey IS NULL RETURN count(p) AS n")


def papers_statement() -> q.Statement:
    """Every paper's id in the newest order (``_sortKey``, from its index)."""
    return q.Statement("MATCH (p:Paper) WHERE p._sortKey IS NOT NULL RETURN p.id ORDER BY p._sortKey")


def links_statement() -> q.Statement:
    """Every link that counts for a concept's papers with ``about_only``, one record per concept
    with links: ``[concept, [paper id ('': its start is no paper), ...], [kind, ...],
    [relevance, ...]]`` (one record a link cost the API process 10 s of CPU at 100k papers)."""
    return q.Statement(
        f"MATCH (c:{_N}:Concept) CALL (c) {{ MATCH (c)<-[r:MENTIONS|INTRODUCES]-(p) "
        "WHERE type(r) = 'INTRODUCES' OR r.about IS NULL OR r.about <> false "
        "WITH p, type(r) = 'INTRODUCES' AS intro, r.about AS about, r.salience AS salience, "
        "coalesce(r.score, 0.0) AS score, r.climbs AS climbs "
        "RETURN collect(CASE WHEN p:Paper THEN p.id ELSE '' END) AS papers, "
        f"collect(CASE WHEN intro OR climbs IS NULL OR climbs <> false THEN {CLIMBS} ELSE {OWN} END) "
        "AS kinds, "
        f"collect({rq.PROJECTED_RELEVANCE}) AS ranks }} "
        "WITH c, papers, kinds, ranks WHERE size(papers) > 0 RETURN c.id, papers, kinds, ranks",
        {"w": SCORE_WEIGHT},
    )


def _chunks(records: Iterable[Any]) -> Iterator[list[tuple[str, str, int, float | None]]]:
    """Link rows of :func:`links_statement`'s records, about :data:`_CHUNK` at a time."""
    chunk: list[tuple[str, str, int, float | None]] = []
    for concept, papers, kinds, ranks in records:
        chunk.extend(zip(repeat(concept, len(papers)), papers, kinds, ranks, strict=True))
        if len(chunk) >= _CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


class HeldPages:
    """A version's concept pages' lists and the hierarchy they were built from."""

    def __init__(self, pages: ClosurePages, hierarchy: Hierarchy, broad_concepts: set[str]) -> None:
        self.pages = pages
        self.hierarchy = hierarchy
        self.broad_concepts = broad_concepts  # the concepts with narrower ones


def read_ties(tx: neo4j.ManagedTransaction, pair: PairType) -> HeldTies:
    """Every tie of ``pair`` from its :data:`TIE_FLOOR` up, in the transaction ``tx``."""
    floor = TIE_FLOOR[pair]
    stmt = ties_statement(pair, floor)
    return HeldTies.from_rows(
        (
            (a, b, w)
            for a, ends, weights in tx.run(stmt.text, stmt.params)
            for b, w in zip(ends, weights, strict=True)
        ),
        floor,
    )


def read_pages(tx: neo4j.ManagedTransaction) -> HeldPages | None:
    """The concept pages' lists and hierarchy in the transaction ``tx``; ``None`` when a paper
    has no ``_sortKey``."""
    stmt = unsorted_statement()
    if tx.run(stmt.text, stmt.params).single(strict=True)["n"]:
        return None
    stmt = broader_statement()
    links = [(str(b), str(n), int(bool(e)), bool(c)) for b, n, e, c in tx.run(stmt.text, stmt.params)]
    hierarchy = Hierarchy([link[:3] for link in links])
    broad = {b for b, _n, _e, c in links if c}
    stmt = papers_statement()
    ids: list[str] = [pid for (pid,) in tx.run(stmt.text, stmt.params)]
    closures = hierarchy.closures(HELD_CLOSURE - 1)
    stmt = links_statement()
    pages = ClosurePages.from_rows(ids, _chunks(tx.run(stmt.text, stmt.params)), closures, held_pages.OWN_MIN)
    return HeldPages(pages, hierarchy, broad)


class Neo4jHeld:
    """The structures of the store version last asked for, built once it is warm (mixin of
    :class:`kg.stores.neo4j.store.Neo4jStore`; :class:`kg.stores.warm.WarmSlot`)."""

    _held_slot: warm.WarmSlot[Any]  # made at first use (kg.stores.warm.attached)

    if TYPE_CHECKING:  # provided by Neo4jStore

        def _errors(self) -> AbstractContextManager[None]: ...

        def _session(self, fetch_size: int = -1) -> neo4j.Session: ...

        def version(self) -> int: ...

    def _warm_slot(self) -> warm.WarmSlot[Any]:
        # built on a thread of its own: the seconds of a build delay no request
        slot: warm.WarmSlot[Any] = warm.attached(self, "_held_slot", lambda: warm.WarmSlot(background=True))
        return slot

    def _held(
        self, key: str, read: Callable[[neo4j.ManagedTransaction], V | None], now: bool = False
    ) -> V | None:
        """The structure ``key`` at the current version, read by ``read`` once the version is
        warm (in one transaction that also checks the version is still the one asked for), or
        at once with ``now``."""
        version = self.version()

        def build() -> V | None:
            def current(tx: neo4j.ManagedTransaction) -> int:
                stmt = q.read_version()
                rows = list(tx.run(stmt.text, stmt.params))
                return int(rows[0]["value"]) if rows else 0

            def work(tx: neo4j.ManagedTransaction) -> V | None:
                if current(tx) != version:  # a write came in meanwhile
                    return None
                built = read(tx)
                # a read transaction sees each write once committed (no snapshot): a write
                # during the reads may be half in them, and is then the next version's
                return built if current(tx) == version else None

            with self._errors(), self._session(fetch_size=FETCH) as session:
                return session.execute_read(work)

        slot = self._warm_slot()
        found: V | None = slot.build_now(version, build, key) if now else slot.get(version, build, key)
        return found

    def _held_ties(self, pair: PairType, min_weight: int) -> HeldTies | None:
        """The version's ties of ``pair`` when they hold every tie of ``min_weight``; ``None``
        while the version is not warm, or for a lighter weight (the statements answer)."""
        if min_weight < TIE_FLOOR[pair]:
            return None
        return self._held(f"ties:{pair}", lambda tx: read_ties(tx, pair))

    def _held_pages(self) -> HeldPages | None:
        """The version's concept pages' lists, ``None`` while the version is not warm."""
        return self._held("pages", read_pages)

    def hold_now(self) -> None:
        """Build every structure of the current version now, on this thread (a benchmark, or a
        server that wants them before its first request); later versions warm as usual."""
        self._held("pages", read_pages, now=True)
        self._held("ties:CO_OCCURS", lambda tx: read_ties(tx, "CO_OCCURS"), now=True)
        self._held("ties:COAUTHOR", lambda tx: read_ties(tx, "COAUTHOR"), now=True)
