"""Every read of the embedded store as SQL: the :class:`kg.stores.protocol.ReadStore` half.

Each method is one or two indexed queries whose cost is bounded by its arguments (a page, a
node's neighbours, a key), except the whole-graph aggregates ``strongest_nodes`` and
``heaviest_pairs``, which ``kg.read`` caches per store version. Ordering follows the protocol's
rules exactly, so the Neo4j store's Cypher gives the same answers.
"""

from __future__ import annotations

import itertools
import re
import sqlite3
import threading
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import replace
from typing import Any, Literal, TypeVar

import orjson

from kg.core import text_index
from kg.core.derived import CO_OCCURS_TOP_K
from kg.core.errors import GraphStoreError
from kg.core.ids import fold
from kg.core.models import (
    Graph,
    Label,
    Node,
    Properties,
    Relationship,
    RelType,
    StoreCounts,
    trusted_node,
    trusted_relationship,
)
from kg.core.names import query_loose_key
from kg.core.provisional import row_concept
from kg.core.text_index import FIELD_BOOST, rarer_first, search_terms
from kg.stores.held import closure_pages, coauthor_ties, heavy_ties, hierarchy
from kg.stores.nearest import Matrix
from kg.stores.protocol import (
    Direction,
    Edge,
    KeyphraseRow,
    ListOrder,
    Measure,
    NodeRow,
    Page,
    PairEdge,
    PairType,
    PaperOrder,
    PaperQuery,
    SearchHit,
    Weighted,
    YearCount,
)
from kg.stores.sqlite import (
    held_rows,
    paths,
    schema,
    totals,
    vectors,
    word_rows,
    word_scores,
)
from kg.stores.warm import WarmSlot, attached

T = TypeVar("T")
V = TypeVar("V")
CHUNK = 900  # SQLite's default limit is 32766 host parameters; stay well below for IN lists
TEXT_LIMIT = 1000  # full-text hits considered by a text filter
# Rows a search reads per page row to see past score ties at the cut (SQLiteReads._ranked).
TIE_ROOM = 4
# Cost of testing one walked paper against a query's conditions (SQLiteReads._paper_tests), in
# members of a built set: at 100k papers (load ~2.3) a tested paper cost about 25 us (5,840
# papers walked in 160 ms) and a set member about 2 us (a 47,708-paper set built in 97 ms).
TEST_STEPS = 12
Route = Literal["fetch", "walk", "test"]
_LIKE_ESCAPE = re.compile(r"([\\%_])")


def _about_test(q: PaperQuery, var: str, introduces: bool = False) -> tuple[str, list[Any]]:
    """The ``about_only`` condition on a relationship ``{var}`` to one of ``q.concepts``, and its
    parameters: ``about`` 1 counts anywhere, 2 (``climbs: false``) only for the ids not in
    ``q.narrower`` (see :func:`kg.stores.sqlite.schema.rel_columns`); with ``introduces`` an
    ``INTRODUCES`` (no ``about``) counts too."""
    if not q.about_only:
        return "", []
    narrower = set(q.narrower)
    own = [c for c in q.concepts or () if c not in narrower]
    if not narrower:
        test, params = f"{var}about >= 1", []
    elif own:
        test, params = f'({var}about = 1 OR ({var}about = 2 AND {var}"end" IN ({_marks(len(own))})))', own
    else:
        test, params = f"{var}about = 1", []
    if introduces:
        test = f"({var}type = 'INTRODUCES' OR {test})"
    return f" AND {test}", params


def _concept_papers(q: PaperQuery) -> tuple[str, list[Any]]:
    """The ids of the papers linked to ``q.concepts`` (with ``about_only``, as :func:`_about_test`
    says) as a union of ranges of ``rels_by_end_about_rank``, and its parameters.

    Why a union and not :func:`_about_test`'s ``OR``: with the climbs rule (``q.narrower``) the
    ``OR`` of ``about = 1`` and ``about = 2 AND "end" IN (own)`` made SQLite plan a multi-index
    OR (a row-id set over both terms) where each term is a range of its own: at 100k papers the
    set of "robotics" (a 5,000-concept closure, 24,570 papers) took 244 ms to count, 39-40 ms
    as these three ranges (2026-12-04, bench/README.md "Concept pages at 100k")."""
    concepts = list(q.concepts or ())
    marks = _marks(len(concepts))
    mentions = f"SELECT start FROM rels WHERE \"end\" IN ({marks}) AND type = 'MENTIONS'"
    introduces = f"SELECT start FROM rels WHERE \"end\" IN ({marks}) AND type = 'INTRODUCES'"
    if not q.about_only:
        return f"{mentions} UNION {introduces}", [*concepts, *concepts]
    narrower = set(q.narrower)
    if not narrower:
        return f"{mentions} AND about >= 1 UNION {introduces}", [*concepts, *concepts]
    own = [c for c in concepts if c not in narrower]
    if not own:
        return f"{mentions} AND about = 1 UNION {introduces}", [*concepts, *concepts]
    own_only = (
        f"SELECT start FROM rels WHERE \"end\" IN ({_marks(len(own))}) AND type = 'MENTIONS' AND about = 2"
    )
    return (
        f"{mentions} AND about = 1 UNION {own_only} UNION {introduces}",
        [*concepts, *own, *concepts],
    )


def chunked(items: Sequence[T], size: int = CHUNK) -> Iterator[list[T]]:
    """``items`` in lists of at most ``size``."""
    for i in range(0, len(items), size):
        yield list(items[i : i + size])


# The term that lets a read use the partial weight indexes (schema.LATER_INDEXES).
_HEAVY = f"weight > {schema.HEAVY_TIE}"
# The label at both ends of a derived tie.
_PAIR_LABEL: dict[str, str] = {"COAUTHOR": "Author", "CO_OCCURS": "Concept"}


# A paper's listing property as SQL (``status``/``track`` only: keys are never user input).
_PROP = "json_extract(CAST(props AS TEXT), '$.{}')"


def _listed(q: PaperQuery) -> list[tuple[str, str]]:
    """The listing properties ``q`` asks for, as ``(property, value)``."""
    return [(k, v) for k, v in (("status", q.status), ("track", q.track)) if v is not None]


# Stored analytics column of each measure (kg.analyze), never user input.
_MEASURE_COLUMN: dict[str, str] = {"DEGREE": "degree", "BETWEENNESS": "betweenness", "PAGERANK": "pagerank"}

# From an AUTHORED ``a``: its paper ``p`` when of the years (two parameters) and giving co-author
# pairs (kg.core.derived: not ``coauthorPairs: false``), and the paper's other AUTHORED ``b``.
_YEAR_PAPERS = (
    'JOIN nodes p ON p.id = a."end" AND p.year BETWEEN ? AND ? '
    "AND json_extract(CAST(p.props AS TEXT), '$.coauthorPairs') IS NOT 0 "
    'JOIN rels b ON b."end" = a."end" AND b.type = \'AUTHORED\''
)

# (paper, concept) for the best CO_OCCURS_TOP_K mentions, best first, (by score, then concept id: the rule of
# kg.core.derived.top_concepts, a missing or non-numeric score counting as 0) of every paper of a year
# range that mentions one of a JSON list of concepts. Parameters: the list, from, to, top k.
_MENTION_SCORE = (
    "CASE WHEN json_type(CAST(r.props AS TEXT), '$.score') IN ('integer', 'real') "
    "THEN json_extract(CAST(r.props AS TEXT), '$.score') ELSE 0.0 END"
)
_YEAR_TOPS = (
    'SELECT p, c FROM (SELECT r.start AS p, r."end" AS c, ROW_NUMBER() OVER '
    f'(PARTITION BY r.start ORDER BY {_MENTION_SCORE} DESC, r."end") AS k '
    "FROM rels r WHERE r.type = 'MENTIONS' AND r.start IN (SELECT m.start FROM rels m "
    "INDEXED BY rels_by_end_about_rank JOIN nodes y ON y.id = m.start "
    "WHERE m.\"end\" IN (SELECT value FROM json_each(?)) AND m.type = 'MENTIONS' "
    "AND y.year BETWEEN ? AND ?)) WHERE k <= ? ORDER BY p, k"
)


def json_list(ids: Sequence[str]) -> str:
    """Ids as one JSON array parameter (``json_each``): no host-parameter limit to chunk for."""
    return orjson.dumps(list(ids)).decode()


def _marks(n: int) -> str:
    return ",".join("?" * n)


def _like(text: str) -> str:
    return "%" + _LIKE_ESCAPE.sub(r"\\\1", text) + "%"


# What ranks a route's papers, as its ``score`` column: the full-text score or each paper's
# best link to the query's concepts (``rels.rank``).
Score = Literal["text", "links"]
# Newest first: the order of the ``nodes_by_order`` index, so a page of it is an index walk.
NEWEST_ORDER = "p.year DESC, p.sort_key, p.id"


def paper_order_by(order: PaperOrder, score: Score | None = None) -> str:
    """The ``ORDER BY`` terms of a paper list in ``order`` (:data:`kg.stores.protocol.PaperOrder`),
    over a papers row ``p`` and, on a ranked route, its ``score``: the one place an order becomes
    SQL (``kg.stores.neo4j.read_queries.paper_order`` is its Cypher twin).

    >>> paper_order_by("RELEVANCE", "links")
    'score DESC, p.year DESC, p.sort_key, p.id'
    >>> paper_order_by("RELEVANCE") == paper_order_by("NEWEST", "text") == NEWEST_ORDER
    True
    """
    if order == "RELEVANCE" and score == "text":
        return "score DESC, p.id"
    if order == "RELEVANCE" and score == "links":
        return f"score DESC, {NEWEST_ORDER}"
    if order == "OLDEST":  # no index walks it: a page sorts all the matches
        return "p.year IS NULL, p.year, p.sort_key, p.id"
    return NEWEST_ORDER


def page_route(total: int, window: int) -> Route:
    """How :meth:`SQLiteReads.papers` reads a page of a ``total``-paper set: ``fetch``, ``walk``
    or ``test`` (see there); ``window`` is ``(offset + limit) * papers in the store``, so
    ``window / total`` is about the papers a walk passes.

    >>> papers = 100_000  # first page of 120 and 17k papers, then 17k papers from offset 2,000
    >>> page_route(120, 20 * papers), page_route(17_000, 20 * papers), page_route(17_000, 2020 * papers)
    ('fetch', 'test', 'walk')
    """
    if total * total * 10 <= window:
        return "fetch"
    return "test" if total * total > TEST_STEPS * window else "walk"


def fts_query(text: str, every_word: bool = False) -> str | None:
    """An FTS5 query for free text: every search word (:func:`kg.core.text_index.search_words`)
    quoted (no operator injection), any word matches (``every_word``: all of them, each in any
    column).

    >>> fts_query('nash "equilibria" OR x'), fts_query("!!"), fts_query("the game", every_word=True)
    ('"nash" OR "equilibria" OR "x"', None, '"game"')
    >>> fts_query('"Diffusion Policy" robot arm')
    '"diffusion policy" AND ("robot" OR "arm")'
    """
    phrases, words = search_terms(text)
    if not phrases:
        return (" AND " if every_word else " OR ").join(f'"{w}"' for w in words) if words else None
    # quoted phrases are required (FTS5's "a b" is the phrase); the words beside them as above
    parts = [f'"{p}"' for p in phrases]
    if words:
        either = (" AND " if every_word else " OR ").join(f'"{w}"' for w in words)
        parts.append(f"({either})")
    return " AND ".join(parts)


def _any(words: list[str]) -> str:
    """FTS5: any of ``words`` (quoted search words, :func:`kg.core.text_index.search_words`).

    >>> _any(["robot", "arms"])
    '"robot" OR "arms"'
    """
    return " OR ".join(f'"{w}"' for w in words)


def _read_closure_pages(c: sqlite3.Connection) -> closure_pages.ClosurePages | None:
    """The concept pages' lists with the hierarchy they need, both from ``c`` (one snapshot);
    ``None`` for a store without the hierarchy's index (the statements answer then)."""
    held = held_rows.hierarchy(c)
    if held is None:
        return None
    return held_rows.closure_pages(c, held.closures(closure_pages.HELD_CLOSURE - 1))


# FTS5 column weights, in the index's column order (title, abstract, name, aliases).
_BOOSTS = (FIELD_BOOST["title"], FIELD_BOOST["abstract"], FIELD_BOOST["name"], FIELD_BOOST["aliases"])


# A query with no condition (what a concept's page adds nothing to: see SQLiteReads._held_page).
class SQLiteReads:
    """Read methods over ``self._conn``; :class:`kg.stores.sqlite.store.SQLiteStore` adds writes."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    # per-store caches and slots, made at first use (kg.stores.warm.attached)
    _vector_cache: vectors.VectorCache
    _hierarchy_cache: hierarchy.HierarchyCache
    _closure_pages_cache: closure_pages.ClosurePagesCache
    _heavy_ties_cache: heavy_ties.HeavyTiesCache
    _coauthor_ties_slot: WarmSlot[coauthor_ties.CoauthorTies]
    _word_scores_slot: WarmSlot[word_scores.WordScores]
    # Whether the held structures are built on a thread of their own (the store's choice: a
    # file's, each with a read connection of its own; the in-memory store has one connection).
    background_builds = False

    def _errors(self) -> AbstractContextManager[None]:  # implemented by the store
        raise NotImplementedError

    def _built(self, version: int, read: Callable[[sqlite3.Connection], V | None]) -> V | None:
        """``read``'s structure from one snapshot of the store at ``version`` (``None`` if the
        store is at another one); implemented by the store."""
        raise NotImplementedError

    def _reader(self) -> sqlite3.Connection:  # implemented by the store
        raise NotImplementedError

    def _all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        """Rows of one read, on this thread's read connection (readers run side by side)."""
        with self._errors():
            return self._reader().execute(sql, params).fetchall()

    # -- basics --------------------------------------------------------------------------------
    def version(self) -> int:
        rows = self._all("SELECT value FROM meta WHERE key = 'version'")
        return int(rows[0][0]) if rows else 0

    # Rows become models without validation (``trusted_*``): the database holds only what
    # validated models wrote, and ``model_construct`` was a tenth of a page of papers' CPU.
    @staticmethod
    def _node(nid: str, label: str, blob: bytes) -> Node:
        return trusted_node(nid, label, schema.loads(blob))  # type: ignore[arg-type]

    @staticmethod
    def _rel(start: str, rel_type: str, end: str, blob: bytes | None, weight: int | None) -> Relationship:
        props: Properties = {"papers": int(weight)} if weight is not None else schema.loads(blob)
        return trusted_relationship(rel_type, start, end, props)  # type: ignore[arg-type]

    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        found: dict[str, Node] = {}
        for chunk in chunked(list(dict.fromkeys(ids))):
            for nid, label, blob in self._all(
                f"SELECT id, label, props FROM nodes WHERE id IN ({_marks(len(chunk))})", chunk
            ):
                found[nid] = self._node(nid, label, blob)
        return [found.get(i) for i in ids]

    def nodes_by_label(self, label: Label) -> list[Node]:
        rows = self._all("SELECT id, label, props FROM nodes WHERE label = ? ORDER BY id", (label,))
        return [self._node(*r) for r in rows]

    def neighbors_many(
        self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out"
    ) -> list[list[Edge]]:
        out: dict[str, list[Edge]] = {i: [] for i in ids}
        unique = list(out)
        sides = []
        if direction in ("out", "both"):
            sides.append(("start", '"end"'))
        if direction in ("in", "both"):
            sides.append(('"end"', "start"))
        for chunk in chunked(unique):
            for here, there in sides:
                rows = self._all(
                    f'SELECT r.start, r."end", r.props, r.weight, {here}, n.id, n.label, n.props '
                    f"FROM rels r JOIN nodes n ON n.id = r.{there} "
                    f"WHERE r.{here} IN ({_marks(len(chunk))}) AND r.type = ?",
                    [*chunk, rel_type],
                )
                for start, end, blob, weight, me, nid, label, nblob in rows:
                    out[me].append(
                        Edge(self._rel(start, rel_type, end, blob, weight), self._node(nid, label, nblob))
                    )
        for edges in out.values():
            edges.sort(key=lambda e: e.node.id)
        return [out[i] for i in ids]

    def paper_authors(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        out: dict[str, list[Node]] = {i: [] for i in paper_ids}
        for chunk in chunked(list(out)):
            for pid, nid, label, blob in self._all(
                'SELECT r."end", n.id, n.label, n.props FROM rels r JOIN nodes n ON n.id = r.start '
                f"WHERE r.\"end\" IN ({_marks(len(chunk))}) AND r.type = 'AUTHORED' "
                'ORDER BY r."end", r.position IS NULL, r.position, n.id',
                chunk,
            ):
                out[pid].append(self._node(nid, label, blob))
        return [out[i] for i in paper_ids]

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        counts: dict[str, int] = dict.fromkeys(ids, 0)
        unique = list(counts)
        sides = []
        if direction in ("out", "both"):
            sides.append("start")
        if direction in ("in", "both"):
            sides.append('"end"')
        for chunk in chunked(unique):
            for here in sides:
                for nid, n in self._all(
                    f"SELECT {here}, COUNT(*) FROM rels WHERE {here} IN ({_marks(len(chunk))}) AND type = ? "
                    f"GROUP BY {here}",
                    [*chunk, rel_type],
                ):
                    counts[nid] += int(n)
        return [counts[i] for i in ids]

    def paper_counts(self, ids: Sequence[str]) -> list[int]:
        found = {row.id: row.papers for row in self.network_nodes(ids)}
        return [found.get(i, 0) for i in ids]

    def network_nodes(self, ids: Sequence[str]) -> list[NodeRow]:
        found: dict[str, NodeRow] = {}
        for chunk in chunked(list(dict.fromkeys(ids))):
            for nid, label, name, n in self._all(
                f"SELECT id, label, name, paper_count FROM nodes WHERE id IN ({_marks(len(chunk))})", chunk
            ):
                found[nid] = NodeRow(nid, label, name or "", int(n))
        return [found[i] for i in ids if i in found]

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        rows = self._all(
            'SELECT start, type, "end", props, weight FROM rels WHERE type = ? ORDER BY start, "end"',
            (rel_type,),
        )
        return [self._rel(s, t, e, b, w) for s, t, e, b, w in rows]

    def search(self, text: str, limit: int = 20, every_word: bool = False) -> list[SearchHit]:
        q = fts_query(text, every_word)
        if q is None or limit <= 0:
            return []
        phrases, words = search_terms(text)
        if not phrases:
            held = self._held_search(words, limit, every_word)
            if held is not None:
                return held
        if every_word or phrases or len(words) < 2:
            return self._ranked([q], limit)
        # Any word: the rows holding a rarer word, ranked by all the words, and the commoner
        # words only asked of those rows (kg.core.text_index.rarer_first); a further split only
        # while the rows found do not fill the page, the last one being the plain any-word query.
        with self._errors():
            rows = self._word_rows().get(self._reader(), self.version(), words)
        hits: list[SearchHit] = []
        for rare, common in rarer_first(words, rows, text_index.RARE_ROWS):
            if not common:
                return self._ranked([q], limit)
            either, others = _any(rare), _any(common)
            hits = self._ranked([f"({either}) AND ({others})", f"({either}) NOT ({others})"], limit)
            if len(hits) >= limit:
                break
        return hits

    def _held_search(self, words: list[str], limit: int, every_word: bool) -> list[SearchHit] | None:
        """:meth:`search`'s page from the version's held word scores
        (:mod:`kg.stores.sqlite.word_scores`): the same rows, order and scores as the statements
        give, without FTS5 scoring every matching row. ``None`` while the version is not warm
        or a write came in (the statements answer)."""
        held = self._word_scores()
        if held is None:
            return None
        with self._errors():
            conn = self._reader()
            if every_word or len(words) < 2:
                found = held.every_word(conn, words)
                return None if found is None else self._hits(word_scores.best(*found, limit), limit)
            lists = held.postings(conn, words)
            if lists is None:
                return None
        # the statements' any-word rule (search above), on the held rows
        rows = {w: len(lists[w][0]) for w in words}
        hits: list[SearchHit] = []
        for rare, common in rarer_first(words, rows, text_index.RARE_ROWS):
            hits = self._hits(word_scores.best(*held.any_word(lists, rare + common, rare), limit), limit)
            if len(hits) >= limit or not common:
                break
        return hits

    def _word_scores(self) -> word_scores.WordScores | None:
        """The version's held word scores, ``None`` until it has been searched
        :data:`~kg.stores.sqlite.word_scores.WARM_SEARCHES` times or while they are read (in the
        background, from one snapshot: :meth:`_built`)."""
        version = self.version()
        return self._words_slot().get(version, lambda: self._built(version, self._read_word_scores(version)))

    def _words_slot(self) -> WarmSlot[word_scores.WordScores]:
        background = self.background_builds
        return attached(
            self, "_word_scores_slot", lambda: WarmSlot(word_scores.WARM_SEARCHES, background=background)
        )

    def _word_rows(self) -> word_rows.WordRows:
        held: word_rows.WordRows | None = getattr(self, "_held_word_rows", None)
        if held is None:
            held = self._held_word_rows = word_rows.WordRows()
        return held

    def _ranked(self, queries: list[str], limit: int) -> list[SearchHit]:
        """The best ``limit`` rows matching any of ``queries`` (FTS5 queries matching disjoint
        rows) by BM25 score, then id, as nodes.

        Ranked on the index alone (rowid and score), nodes read for the page only: joined
        before the sort, every match's row (a paper's props hold its abstract) went through
        the sorter, 36k rows for "learning" at 100k papers. Where scores tie at the cut the ids
        decide which of the tied rows make the page, so each query's rows are read past the
        cut (:data:`TIE_ROOM` times the page) until its last row scores below it; the tied rows'
        ids come with the page's nodes. (The joined query did that before: 15-20 ms for a text
        whose tied rows are many, such as "recombined" copies or concepts named alike.)
        """
        boosts = _BOOSTS
        fetch = TIE_ROOM * limit + 1
        pending = list(queries)
        top: dict[str, list[tuple[int, float]]] = {}
        while pending:
            for q in pending:
                top[q] = self._all(
                    "SELECT rowid, -bm25(fts, ?, ?, ?, ?) AS s FROM fts WHERE fts MATCH ? "
                    "ORDER BY s DESC LIMIT ?",
                    (*boosts, q, fetch),
                )
            ranked = sorted((r for rows in top.values() for r in rows), key=lambda r: -r[1])
            if len(ranked) <= limit:
                break
            cut = ranked[limit - 1][1]
            # a query cut at ``fetch`` rows whose last one ties the page's last may hold more
            pending = [q for q, rows in top.items() if len(rows) == fetch and rows[-1][1] == cut]
            fetch *= TIE_ROOM
        return self._hits(ranked, limit)

    def _hits(self, ranked: list[tuple[int, float]], limit: int) -> list[SearchHit]:
        """The page of ``ranked`` (``(rowid, score)`` rows, every row tying the page's last one
        among them), ties at the cut decided by the rows' ids, as nodes."""
        if len(ranked) > limit:
            cut = ranked[limit - 1][1]
            ranked = [r for r in ranked if r[1] >= cut]
        if len(ranked) > limit:  # scores tie at the cut: the ids decide
            ids: dict[int, str] = {}
            for chunk in chunked([r for r, _ in ranked]):
                marks = _marks(len(chunk))
                ids.update(self._all(f"SELECT rowid, id FROM nodes WHERE rowid IN ({marks})", chunk))
            ranked = sorted((r for r in ranked if r[0] in ids), key=lambda r: (-r[1], ids[r[0]]))[:limit]
        score = dict(ranked)
        found = self._all(
            f"SELECT id, label, props, rowid FROM nodes WHERE rowid IN ({_marks(len(score))})",
            list(score),
        )
        rows = sorted(((i, lb, blob, score[r]) for i, lb, blob, r in found), key=lambda x: (-x[3], x[0]))
        return [SearchHit(self._node(i, label, blob), float(s)) for i, label, blob, s in rows]

    # -- embeddings (kg.stores.sqlite.vectors) ------------------------------------------------
    def paper_embeddings(self, ids: Sequence[str]) -> list[bytes | None]:
        with self._errors():
            return vectors.vectors_of(self._reader(), ids)

    def nearest_papers(
        self, vector: bytes, limit: int, exclude: Sequence[str] = (), approximate: bool = False
    ) -> list[tuple[str, float]]:
        """Papers by cosine to ``vector``, best first: a scan of the version's cached matrix
        (``approximate``: of its first pass's candidates, :class:`kg.stores.nearest.FirstPass`)."""
        return self._matrix().nearest(vector, limit, exclude, approximate)

    def _matrix(self) -> Matrix:
        """The version's matrix of paper vectors (:class:`kg.stores.sqlite.vectors.VectorCache`)."""
        cache = attached(self, "_vector_cache", vectors.VectorCache)

        def read() -> Matrix:
            with self._errors():
                return vectors.read_matrix(self._reader(), self.background_builds)

        return cache.get(self.version(), read)

    def papers_without_embedding(self, limit: int, after: str = "") -> list[tuple[str, str, str]]:
        with self._errors():
            return vectors.missing(self._reader(), limit, after)

    def counts(self) -> StoreCounts:
        # kept by triggers in every write (kg.stores.sqlite.schema.COUNTS_DDL): no table scan
        return StoreCounts.tally(self._all("SELECT kind, name, n FROM counts"))

    def export(self) -> Graph:
        nodes = [self._node(*r) for r in self._all("SELECT id, label, props FROM nodes ORDER BY id")]
        rels = [
            self._rel(s, t, e, b, w)
            for s, t, e, b, w in self._all(
                'SELECT start, type, "end", props, weight FROM rels ORDER BY type, start, "end"'
            )
        ]
        return Graph(nodes=nodes, relationships=rels)

    def iter_nodes(self) -> Iterator[Node]:
        # a cursor steps through the rows as they are read: no list of the whole table
        with self._errors():
            for row in self._reader().execute("SELECT id, label, props FROM nodes ORDER BY id"):
                yield self._node(*row)

    def iter_relationships(self) -> Iterator[Relationship]:
        sql = 'SELECT start, type, "end", props, weight FROM rels ORDER BY start, type, "end"'
        with self._errors():
            for s, t, e, b, w in self._reader().execute(sql):
                yield self._rel(s, t, e, b, w)

    # -- names ---------------------------------------------------------------------------------
    def _by_keys(self, keys: Sequence[str], label: str) -> list[str | None]:
        found: dict[str, str] = {}
        for chunk in chunked(list(dict.fromkeys(keys))):
            rows = self._all(
                "SELECT k.key, k.node_id FROM name_keys k JOIN nodes n ON n.id = k.node_id "
                f"WHERE k.key IN ({_marks(len(chunk))}) AND n.label = ? ORDER BY k.key, k.rank, k.node_id",
                [*chunk, label],
            )
            for key, nid in rows:
                found.setdefault(key, nid)
        return [found.get(k) for k in keys]

    def concepts_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        return self._by_keys(keys, "Concept")

    def authors_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        return self._by_keys([schema.AUTHOR_PREFIX + k for k in keys], "Author")

    def authors_named(self, key: str, limit: int) -> list[str]:
        # CROSS JOIN keeps name_keys outside: with a plain JOIN and no statistics SQLite walked
        # every author by paper count (nodes_by_count, for the ORDER BY) and probed each one's
        # keys, 70 ms per name at 100k papers; from the key's few rows it is 0.02 ms.
        rows = self._all(
            "SELECT n.id FROM name_keys k CROSS JOIN nodes n ON n.id = k.node_id WHERE k.key = ? "
            "AND n.label = 'Author' ORDER BY n.paper_count DESC, n.id LIMIT ?",
            (schema.AUTHOR_PREFIX + key, limit),
        )
        return [r[0] for r in rows]

    def keyphrase_concepts(self, key: str, limit: int) -> list[str]:
        if not key or limit <= 0:
            return []
        rows = self._all(
            "SELECT DISTINCT concept_id FROM keyphrases WHERE key = ? ORDER BY concept_id LIMIT ?",
            (key, limit),
        )
        return [r[0] for r in rows]

    def paper_keyphrases(self, paper_ids: Sequence[str]) -> list[list[KeyphraseRow]]:
        out: dict[str, list[KeyphraseRow]] = {i: [] for i in paper_ids}
        for chunk in chunked(list(out)):
            for pid, cid, node, rel in self._all(
                "SELECT paper_id, concept_id, node, rel FROM keyphrases INDEXED BY keyphrases_by_paper "
                f"WHERE paper_id IN ({_marks(len(chunk))}) ORDER BY paper_id, concept_id",
                chunk,
            ):
                out[pid].append(KeyphraseRow(cid, row_concept(schema.loads(node)), schema.loads(rel)))
        return [out[i] for i in paper_ids]

    def concepts_with_key_suffix(self, loose_key: str, limit: int) -> list[str]:
        if not loose_key:
            return []
        rows = self._all(
            "SELECT DISTINCT node_id FROM name_keys WHERE key LIKE ? ESCAPE '\\' ORDER BY node_id LIMIT ?",
            ("l:%" + _LIKE_ESCAPE.sub(r"\\\1", " " + loose_key), limit),
        )
        return [r[0] for r in rows]

    def concepts_with_key_prefix(self, loose_key: str, limit: int) -> list[str]:
        words = " ".join(loose_key.split())
        if not words or limit < 1:
            return []
        # A range of the primary key: the keys from "l:3d " up to (not including) "l:3d!".
        rows = self._all(
            "SELECT DISTINCT k.node_id FROM name_keys k JOIN nodes n ON n.id = k.node_id "
            "WHERE k.key >= ? AND k.key < ? AND n.label = 'Concept' ORDER BY k.node_id LIMIT ?",
            (f"l:{words} ", f"l:{words}!", limit),
        )
        return [r[0] for r in rows]

    def narrower_closure(self, concept_id: str, limit: int) -> list[str]:
        exists = self._all("SELECT 1 FROM nodes WHERE id = ?", (concept_id,))
        head = [concept_id] if exists else []
        held = self._hierarchy()
        if held is not None:
            return head + held.closure(concept_id, limit - 1)
        rows = self._all(
            "WITH RECURSIVE below(id) AS (SELECT ? UNION "
            "SELECT r.start FROM rels r JOIN below b ON r.\"end\" = b.id WHERE r.type = 'BROADER') "
            "SELECT b.id FROM below b JOIN nodes n ON n.id = b.id WHERE b.id <> ? ORDER BY b.id LIMIT ?",
            (concept_id, concept_id, max(0, limit - 1)),
        )
        return head + [r[0] for r in rows]

    def _hierarchy(self) -> hierarchy.Hierarchy | None:
        """The version's concept hierarchy (:mod:`kg.stores.held.hierarchy`), ``None`` for a
        store without its index (the recursive statement answers then)."""
        cache = attached(self, "_hierarchy_cache", hierarchy.HierarchyCache)
        version = self.version()

        def read() -> hierarchy.Hierarchy | None:
            with self._errors():
                return held_rows.hierarchy(self._reader())

        return cache.get(version, read)

    # -- listings ------------------------------------------------------------------------------
    def _paper_sets(self, q: PaperQuery) -> list[tuple[str, list[Any]]]:
        """Each condition of ``q`` as a query for the ids of the papers meeting it.

        Every one is an index range: the papers of a concept come from ``rels_by_end_about_rank``
        alone (``about`` is in the index), an author's from the primary key. A relationship's
        paper end is a Paper by the graph model, so no label check is needed.
        """
        sets: list[tuple[str, list[Any]]] = []
        if q.concepts is not None:
            sets.append(_concept_papers(q))
        if q.phrases is not None:
            about = " AND about = 1" if q.about_only else ""
            distinct = "DISTINCT " if len(q.phrases) > 1 else ""
            sets.append(
                (
                    f"SELECT {distinct}paper_id FROM keyphrases "
                    f"WHERE concept_id IN ({_marks(len(q.phrases))}){about}",
                    list(q.phrases),
                )
            )
        if q.author is not None:
            sets.append(("SELECT \"end\" FROM rels WHERE start = ? AND type = 'AUTHORED'", [q.author]))
        for ids, rel in ((q.venues, "PUBLISHED_IN"), (q.topics, "HAS_TOPIC")):
            if ids is not None:
                distinct = "DISTINCT " if len(ids) > 1 else ""  # every set lists a paper once
                sets.append(
                    (
                        f'SELECT {distinct}start FROM rels WHERE "end" IN ({_marks(len(ids))}) '
                        f"AND type = '{rel}'",
                        list(ids),
                    )
                )
        if q.papers is not None:
            sets.append(
                (
                    f"SELECT id FROM nodes WHERE id IN ({_marks(len(q.papers))}) AND label = 'Paper'",
                    list(q.papers),
                )
            )
        if q.year is not None:
            sets.append(("SELECT id FROM nodes WHERE label = 'Paper' AND year = ?", [q.year]))
        for key, value in _listed(q):
            # No column of its own: a scan of the papers' property maps (~0.1 s at 100k papers),
            # which only a query by status or track alone pays; with other conditions the
            # intersection is driven by theirs.
            sets.append((f"SELECT id FROM nodes WHERE label = 'Paper' AND {_PROP.format(key)} = ?", [value]))
        return sets

    def _paper_tests(self, q: PaperQuery) -> tuple[str, list[Any]]:
        """The conditions of ``q`` as tests of one paper ``p`` (what :meth:`_paper_sets` lists),
        each a look-up in that paper's own relationships (the primary key's range) or in the
        author's byline."""
        tests: list[str] = []
        params: list[Any] = []
        # (ids, the test with the id list as {marks}, what about_only adds): concepts through the
        # paper's MENTIONS/INTRODUCES, phrases through its keyphrase rows.
        for ids, test, about in (
            # ``+``: filter the paper's few MENTIONS by the list rather than probe it per id
            (
                q.concepts,
                "EXISTS (SELECT 1 FROM rels m WHERE m.start = p.id AND m.type IN ('MENTIONS', 'INTRODUCES') "
                'AND +m."end" IN ({marks}){about})',
                _about_test(q, "m.", introduces=True),
            ),
            (
                q.phrases,
                "EXISTS (SELECT 1 FROM keyphrases k INDEXED BY keyphrases_by_paper WHERE k.paper_id = p.id "
                "AND k.concept_id IN ({marks}){about})",
                (" AND k.about = 1", []),
            ),
        ):
            if ids is not None:
                test_sql, test_params = about if q.about_only else ("", [])
                tests.append(test.format(marks=_marks(len(ids)), about=test_sql))
                params.extend([*ids, *test_params])
        if q.author is not None:
            tests.append(
                "EXISTS (SELECT 1 FROM rels a WHERE a.start = ? AND a.type = 'AUTHORED' AND a.\"end\" = p.id)"
            )
            params.append(q.author)
        for ids, rel in ((q.venues, "PUBLISHED_IN"), (q.topics, "HAS_TOPIC")):
            if ids is not None:
                tests.append(
                    f"EXISTS (SELECT 1 FROM rels v WHERE v.start = p.id AND v.type = '{rel}' "
                    f'AND +v."end" IN ({_marks(len(ids))}))'
                )
                params.extend(ids)
        if q.papers is not None:
            tests.append(f"p.id IN ({_marks(len(q.papers))})")
            params.extend(q.papers)
        if q.year is not None:
            tests.append("p.year = ?")
            params.append(q.year)
        for key, value in _listed(q):
            tests.append(f"{_PROP.format(key).replace('props', 'p.props')} = ?")
            params.append(value)
        return "".join(f" AND {t}" for t in tests), params

    def papers(self, query: PaperQuery, offset: int, limit: int) -> Page:
        """One page in ``query.sort`` (:func:`paper_order_by`), and the total, each by the cheaper
        route. A text query and a concept query by relevance have routes of their own
        (:meth:`_text_papers`, :meth:`_relevant_papers`); the rest, described here for the
        newest order, the one the order index walks (any other order takes the fetch route):

        The total counts the intersection of the conditions' id sets (index ranges only, no row
        of ``nodes`` read). The page then takes one of three routes, by the expected cost:

        - *fetch*: read the set's rows and sort them; about ``total`` row look-ups of ten steps;
          wins when the set is small.
        - *walk*: walk the papers in order and keep those in the set, built once (about
          ``total`` steps, more for a wide closure whose concepts share papers); stops after
          about ``(offset+limit) * papers / total`` papers.
        - *test*: walk the papers in order and test each one's own relationships
          (:meth:`_paper_tests`, about :data:`TEST_STEPS` steps each) without building the set;
          wins when the set is dense and the window near the start.

        At 100k papers a 17k-paper concept takes 16 ms walking and 75 ms fetching, a 120-paper one
        7.5 ms and 0.4 ms. The broadest concept (a closure of 5,000 concepts, 34,584 papers)
        built its set for the walk again after counting it: its first page took 112 ms with the
        walk and takes 58 ms with the test route, the count being most of it (2026-12-02).
        """
        held = self._held_page(query, offset, limit)
        if held is not None:
            return held
        sets = self._paper_sets(query)
        if query.text is not None:
            return self._text_papers(query.text, sets, paper_order_by(query.sort, "text"), offset, limit)
        if query.sort == "RELEVANCE" and query.concepts is not None and limit > 0:
            others = sets[1:]  # the concepts' set is the first (_paper_sets)
            return self._relevant_papers(query, others, offset, limit)
        order_by = paper_order_by(query.sort)
        row = self._all("SELECT n FROM counts WHERE kind = 'node' AND name = 'Paper'")
        papers = int(row[0][0]) if row else 0
        if not sets:
            total = papers
            members, params = "", []
        else:
            compound = " INTERSECT ".join(sql for sql, _ in sets)
            params = [p for _, ps in sets for p in ps]
            counted, version = self._totals()
            key = replace(query, order=None)  # the count is the same in every order
            known = counted.get(version, key)
            if known is None:
                known = int(self._all(f"SELECT COUNT(*) FROM ({compound})", params)[0][0])
                counted.put(version, key, known)
            total = known
            members = f" AND p.id IN ({compound})"
        if limit <= 0 or offset >= total:
            return Page(ids=[], total=total)
        route: Route = page_route(total, (offset + limit) * papers) if sets else "walk"
        if sets and order_by != NEWEST_ORDER:
            route = "fetch"  # walking and testing stop early only in the order index's order
        if route == "test":
            members, params = self._paper_tests(query)
        # + : the fetch route must not take the order index
        label = "+p.label = 'Paper'" if route == "fetch" else "p.label = 'Paper'"
        rows = self._all(
            f"SELECT p.id FROM nodes p WHERE {label}{members} ORDER BY {order_by} LIMIT ? OFFSET ?",
            [*params, limit, offset],
        )
        return Page(ids=[r[0] for r in rows], total=total)

    def _held_page(self, query: PaperQuery, offset: int, limit: int) -> Page | None:
        """The page from the version's concept lists (:mod:`kg.stores.held.closure_pages`)
        when ``query`` is a concept's papers with nothing else asked, by relevance or newest
        first, and the version is warm; else ``None`` (the statements answer)."""
        concepts = closure_pages.held_concepts(query)
        if concepts is None or offset < 0:
            return None
        cache = self._closure_pages()
        version = self.version()
        pages = cache.get(version, lambda: self._built(version, _read_closure_pages))
        if pages is None:
            return None
        return pages.page(concepts, query.narrower, query.sort, offset, limit)

    def _relevant_papers(
        self, query: PaperQuery, others: list[tuple[str, list[Any]]], offset: int, limit: int
    ) -> Page:
        """A page of the papers of ``query.concepts`` by relevance (see ``PaperQuery.order``):
        each paper's best link (``rels.rank``, :func:`kg.stores.protocol.link_relevance`), then
        newest first; ``others``: the query's other conditions as id sets.

        One statement, so that only the papers that can make the page are read from ``nodes``
        and no rank is handed to Python: each paper's best rank from ``rels_by_end_about_rank``
        alone (index only, ``total`` entries, materialized once), the rank of the page's last
        paper (a top-k sort of the ranks), then the papers ranked at least that high (ties at the
        cut included) joined with ``nodes`` and sorted by :func:`paper_order_by`. The broadest
        concepts of a 10k store: 49 ms when the rank was computed from each link's map and every
        paper joined, 12 ms for the newest order's page (load ~13, 2026-12-03; see
        bench/README.md). Sorting the ranks in Python cost as much again as reading them at 100k
        papers (24,570 papers of "robotics": 46 ms to read, 11 ms more to fetch and sort them).
        """
        concepts = list(query.concepts or ())
        about, about_params = _about_test(query, "", introduces=True)
        members = "".join(f" AND start IN ({sql})" for sql, _ in others)
        ranked = (
            "SELECT start, COALESCE(MAX(rank), 0.0) AS score FROM rels INDEXED BY rels_by_end_about_rank "
            f"WHERE \"end\" IN ({_marks(len(concepts))}) AND type IN ('MENTIONS', 'INTRODUCES'){about}"
            f"{members} GROUP BY start"
        )
        params = [*concepts, *about_params, *(p for _, ps in others for p in ps)]
        counted, version = self._totals()
        # CROSS JOIN: from the ranked papers to their rows, never a walk of ``nodes``.
        rows = self._all(
            f"WITH g AS MATERIALIZED ({ranked}), "
            "cut AS (SELECT score FROM g ORDER BY score DESC LIMIT 1 OFFSET ?) "
            "SELECT p.id, (SELECT COUNT(*) FROM g) FROM (SELECT n.id AS id, n.year AS year, "
            "n.sort_key AS sort_key, g.score AS score FROM g CROSS JOIN nodes n ON n.id = g.start "
            "WHERE g.score >= COALESCE((SELECT score FROM cut), (SELECT MIN(score) FROM g))) p "
            f"ORDER BY {paper_order_by('RELEVANCE', 'links')} LIMIT ? OFFSET ?",
            [*params, offset + limit - 1, limit, offset],
        )
        if rows:
            total = int(rows[0][1])
        else:  # past the last paper: the papers of the set, counted
            total = int(self._all(f"SELECT COUNT(*) FROM ({ranked})", params)[0][0])
        counted.put(version, replace(query, order=None), total)  # for the other orders' pages
        return Page(ids=[r[0] for r in rows], total=total)

    def _totals(self) -> tuple[totals.Totals, int]:
        """The counts of paper queries known at this store version (:mod:`kg.stores.sqlite.totals`),
        and the version, read before anything is counted."""
        held: totals.Totals | None = getattr(self, "_paper_totals", None)
        if held is None:
            held = self._paper_totals = totals.Totals()
        return held, self.version()

    def _text_papers(
        self, text: str, sets: list[tuple[str, list[Any]]], order_by: str, offset: int, limit: int
    ) -> Page:
        """Full-text matches among the papers meeting the other conditions (the best
        :data:`TEXT_LIMIT`), sorted by ``order_by`` (:func:`paper_order_by`)."""
        q = fts_query(text)
        if q is None:
            return Page(ids=[], total=0)
        b = FIELD_BOOST
        members = "".join(f" AND n.id IN ({sql})" for sql, _ in sets)
        rows = self._all(
            "SELECT p.id FROM (SELECT n.id AS id, n.year AS year, n.sort_key AS sort_key, "
            "-bm25(fts, ?, ?, ?, ?) AS score FROM fts JOIN nodes n ON n.rowid = fts.rowid "
            f"WHERE fts MATCH ? AND n.label = 'Paper'{members} ORDER BY score DESC, n.id LIMIT ?) p "
            f"ORDER BY {order_by}",
            [
                b["title"],
                b["abstract"],
                b["name"],
                b["aliases"],
                q,
                *(p for _, ps in sets for p in ps),
                TEXT_LIMIT,
            ],
        )
        ids = [r[0] for r in rows]
        return Page(ids=ids[offset : offset + max(0, limit)], total=len(ids))

    def paper_count(self, query: PaperQuery) -> int:
        return self.papers(query, 0, 0).total

    def _listing(
        self, label: str, search: str | None, kind: str | None, order: ListOrder, offset: int, limit: int
    ) -> Page:
        where = ["label = ?"]
        params: list[Any] = [label]
        if kind is not None:
            where.append("kind = ?")
            params.append(kind)
        if search is not None and search.strip():
            terms = [fold(search)]
            lk = query_loose_key(search) if label == "Concept" else ""
            if lk and lk != terms[0]:
                terms.append(lk)
            where.append("(" + " OR ".join("search_text LIKE ? ESCAPE '\\'" for _ in terms) + ")")
            params += [_like(t) for t in terms]
        cond = " AND ".join(where)
        total = int(self._all(f"SELECT COUNT(*) FROM nodes WHERE {cond}", params)[0][0])
        if limit <= 0 or offset >= total:
            return Page(ids=[], total=total)
        by = "paper_count DESC, sort_key, id" if order == "PAPER_COUNT" else "sort_key, id"
        rows = self._all(
            f"SELECT id FROM nodes WHERE {cond} ORDER BY {by} LIMIT ? OFFSET ?", [*params, limit, offset]
        )
        return Page(ids=[r[0] for r in rows], total=total)

    def list_concepts(
        self, search: str | None, kind: str | None, order: ListOrder, offset: int, limit: int
    ) -> Page:
        return self._listing("Concept", search, kind, order, offset, limit)

    def list_authors(self, search: str | None, order: ListOrder, offset: int, limit: int) -> Page:
        return self._listing("Author", search, None, order, offset, limit)

    # -- networks ------------------------------------------------------------------------------
    def weighted_neighbors(
        self, ids: Sequence[str], pair: PairType, min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        # Per id, its heavy ties first: a merge of two weight-ordered index ranges (ties are
        # stored start < end) that stops after ``limit`` rows, however many ties the node has.
        # Ties of weight 1 are not in those indexes (schema.LATER_INDEXES): when the heavy ones
        # do not fill ``limit``, the rest come from the primary key (ties out, by end) and
        # rels_by_end_about_rank (ties in, by start), both already in the order they are listed in.
        found: dict[str, list[Weighted]] = {}
        for nid in dict.fromkeys(ids):
            rows = self._all(
                'SELECT other, weight FROM (SELECT "end" AS other, weight FROM rels '
                f"INDEXED BY heavy_pairs_out WHERE start = ? AND type = ? AND {_HEAVY} AND weight >= ? "
                "UNION ALL SELECT start, weight FROM rels INDEXED BY heavy_pairs_in "
                f'WHERE "end" = ? AND type = ? AND {_HEAVY} AND weight >= ?) '
                "ORDER BY weight DESC, other LIMIT ?",
                (nid, pair, min_weight, nid, pair, min_weight, max(0, limit)),
            )
            ties = [Weighted(o, int(w)) for o, w in rows]
            rest = limit - len(ties)
            if rest > 0 and min_weight <= schema.HEAVY_TIE:
                ties += self._light_ties(nid, pair, {t.id for t in ties}, rest)
            found[nid] = ties
        return [found[i] for i in ids]

    def _light_ties(self, nid: str, pair: PairType, heavy: set[str], limit: int) -> list[Weighted]:
        """The first ``limit`` weight-1 ties of ``nid`` by id, when ``heavy`` holds all its
        heavier ones. Ties in are read from ``rels_by_end_about_rank`` alone (index only: the weight is
        not in it, so the heavy ones, at most ``len(heavy)``, are skipped here rather than by a
        table lookup per tie); ties out come from the primary key, whose rows hold the weight."""
        rows = self._all(
            'SELECT other FROM (SELECT * FROM (SELECT "end" AS other FROM rels '
            'WHERE start = ? AND type = ? AND weight = 1 ORDER BY "end" LIMIT ?) '
            "UNION ALL SELECT * FROM (SELECT start FROM rels INDEXED BY rels_by_end_about_rank "
            'WHERE "end" = ? AND type = ? AND about IS NULL ORDER BY start LIMIT ?)) '
            "ORDER BY other",
            (nid, pair, limit, nid, pair, limit + len(heavy)),
        )
        return [Weighted(o, 1) for (o,) in rows if o not in heavy][:limit]

    def pair_edges_among(self, ids: Sequence[str], pair: PairType, min_weight: int) -> list[PairEdge]:
        # Co-authors have a few dozen ties each: walk each chosen author's ties out (the primary
        # key's range; ``+"end"`` keeps the end list out of the key) and keep those to chosen
        # ones (at 100k papers 2.5 ms against 17 ms of look-ups for ~200 authors, 2026-12-02).
        # Concepts have thousands (the 100 neighbours of a popular concept hold 320-360k): look
        # up each chosen pair instead, and only the n(n-1)/2 that can exist (stored start <
        # end), the pairs made by one statement from the ids as a JSON array. Above weight 1
        # the pairs are looked up in the version's heavy ties held in memory
        # (:mod:`kg.stores.held.heavy_ties`: 100 concepts at 100k papers, 6.5 -> 1.7 ms; they
        # searched the heavy ties' own key index before, one search a pair). The hints fix the
        # plan (the planner has no statistics).
        # Co-authors at a warm version: every tie held (:mod:`kg.stores.held.coauthor_ties`:
        # a depth-2 network of 200 authors at 100k papers, 3.2-3.4 -> 0.9-1.1 ms).
        unique = sorted(set(ids))
        if len(unique) < 2:
            return []
        if pair == "COAUTHOR":
            every = self._coauthor_ties()
            if every is not None:
                return every.among(unique, self._rowids(unique), min_weight)
            return self._pair_edges_walked(unique, pair, min_weight)
        heavy = min_weight > schema.HEAVY_TIE
        if heavy:
            held = self._heavy_ties(pair)
            if held is not None:
                return held.among(unique, self._rowids(unique), min_weight)
        # weight 1, or a store version not yet asked often enough to hold its heavy ties: one
        # look-up a pair (of the heavy ties' own key index above weight 1)
        rows = self._all(
            'SELECT r.start, r."end", r.weight FROM json_each(?1) AS a CROSS JOIN json_each(?1) AS b '
            f"CROSS JOIN rels AS r {'INDEXED BY heavy_pairs_key' if heavy else 'NOT INDEXED'} "
            'WHERE b.value > a.value AND r.start = a.value AND r.type = ?2 AND r."end" = b.value '
            f"AND {'r.' + _HEAVY + ' AND ' if heavy else ''}r.weight >= ?3",
            (json_list(unique), pair, min_weight),
        )
        edges = list(map(PairEdge._make, rows))  # weight is an INTEGER column
        edges.sort()
        return edges

    def _heavy_ties(self, pair: PairType) -> heavy_ties.HeavyTies | None:
        """The version's ties of ``pair`` heavier than 1 (:mod:`kg.stores.held.heavy_ties`),
        ``None`` until the version is warm (:class:`~kg.stores.held.heavy_ties.HeavyTiesCache`)."""
        version = self.version()
        return self._heavy_cache().get(
            version, pair, lambda: self._built(version, lambda c: held_rows.heavy_ties(c, pair))
        )

    def _coauthor_ties(self) -> coauthor_ties.CoauthorTies | None:
        """The version's co-author ties, every weight (:mod:`kg.stores.held.coauthor_ties`),
        ``None`` until the version is warm or while they are read (:class:`kg.stores.warm.WarmSlot`)."""
        version = self.version()
        return self._coauthor_slot().get(version, lambda: self._built(version, held_rows.coauthor_ties))

    # The held structures' caches, made at first use (kg.stores.warm.attached), built in the
    # background when the store says so (background_builds).
    def _closure_pages(self) -> closure_pages.ClosurePagesCache:
        background = self.background_builds
        return attached(
            self, "_closure_pages_cache", lambda: closure_pages.ClosurePagesCache(background=background)
        )

    def _heavy_cache(self) -> heavy_ties.HeavyTiesCache:
        return attached(
            self, "_heavy_ties_cache", lambda: heavy_ties.HeavyTiesCache(background=self.background_builds)
        )

    def _coauthor_slot(self) -> WarmSlot[coauthor_ties.CoauthorTies]:
        return attached(self, "_coauthor_ties_slot", lambda: WarmSlot(background=self.background_builds))

    def hold_search_words(self) -> None:
        """Read the current version's word scores now, on this thread (a benchmark; not part of
        :meth:`hold_now`: 10-12 s of CPU and ~80 MiB at 100k papers, paid back only after
        thousands of searches of one version, :data:`~kg.stores.sqlite.word_scores.WARM_SEARCHES`)."""
        version = self.version()
        self._words_slot().build_now(version, lambda: self._built(version, self._read_word_scores(version)))

    @staticmethod
    def _read_word_scores(version: int) -> Callable[[sqlite3.Connection], word_scores.WordScores | None]:
        return lambda c: word_scores.WordScores.read(c, version, _BOOSTS)

    def wait_builds(self, timeout: float | None = None) -> bool:
        """Block until no held structure is being built (a test or a benchmark that wants a
        background build's result without sleeping); whether none is."""
        matrix = getattr(self, "_vector_cache", None)
        waits = [
            self._closure_pages().wait,
            self._heavy_cache().wait,
            self._coauthor_slot().wait,
            self._words_slot().wait,
        ]
        if matrix is not None and matrix.held is not None:
            waits.append(matrix.held.wait)
        idle = [wait(timeout) for wait in waits]  # every one waited for, not the first busy one
        return all(idle)

    def hold_now(self) -> None:
        """Build the current version's held structures now, on this thread (a server at start,
        :meth:`kg.read.service.ReadService.warm`; a benchmark): the concept pages' lists, the
        heavy concept ties, every co-author tie, and the paper vectors' matrix with its first
        pass (3.4 s + 1.3 s of CPU at 100k papers). Later versions warm as usual, in the
        background; search's word scores are not built here (:meth:`hold_search_words`)."""
        version = self.version()
        self._closure_pages().build_now(version, lambda: self._built(version, _read_closure_pages))
        self._heavy_cache().build_now(
            version, "CO_OCCURS", lambda: self._built(version, lambda c: held_rows.heavy_ties(c, "CO_OCCURS"))
        )
        self._coauthor_slot().build_now(version, lambda: self._built(version, held_rows.coauthor_ties))
        self._matrix().hold_first_pass()

    def _rowids(self, ids: Sequence[str]) -> dict[str, int]:
        """The rowids of the nodes of ``ids`` that exist."""
        found: dict[str, int] = {}
        for chunk in chunked(list(ids)):
            found.update(self._all(f"SELECT id, rowid FROM nodes WHERE id IN ({_marks(len(chunk))})", chunk))
        return found

    def _pair_edges_walked(self, unique: list[str], pair: PairType, min_weight: int) -> list[PairEdge]:
        """The ties among ``unique`` (sorted) by walking each one's ties out in the primary key."""
        edges: list[PairEdge] = []
        step = CHUNK // 2
        for i, starts in enumerate(chunked(unique, step)):
            for ends in chunked(unique[i * step :], step):  # stored with start < end
                rows = self._all(
                    'SELECT start, "end", weight FROM rels NOT INDEXED '
                    f"WHERE start IN ({_marks(len(starts))}) AND type = ? AND weight >= ? "
                    f'AND +"end" IN ({_marks(len(ends))})',
                    [*starts, pair, min_weight, *ends],
                )
                edges.extend(map(PairEdge._make, rows))  # weight is an INTEGER column
        edges.sort()
        return edges

    def _pair_starts(self, pair: PairType) -> tuple[str, str] | None:
        """The range of ids a ``pair`` tie can start from: its label's smallest and largest id
        (``None`` when there are none), so whole-graph reads of weight-1 ties walk the primary
        key over those starts only (there is no type-first index of every pair: see schema)."""
        row = self._all("SELECT min(id), max(id) FROM nodes WHERE label = ?", (_PAIR_LABEL[pair],))[0]
        return None if row[0] is None else (str(row[0]), str(row[1]))

    def strongest_nodes(self, pair: PairType, min_weight: int, limit: int) -> tuple[list[str], bool]:
        if min_weight <= schema.HEAVY_TIE:  # every tie counts: the sum each node keeps (schema)
            rows = self._all(
                "SELECT id FROM nodes INDEXED BY nodes_by_ties WHERE label = ? AND ties > 0 "
                "ORDER BY ties DESC, id LIMIT ?",
                (_PAIR_LABEL[pair], limit + 1),
            )
        else:  # the heavy ties only, summed
            where = f"rels INDEXED BY heavy_pairs_by_weight WHERE type = ? AND {_HEAVY} AND weight >= ?"
            rows = self._all(
                f"SELECT id, SUM(w) AS s FROM (SELECT start AS id, weight AS w FROM {where} "
                f'UNION ALL SELECT "end", weight FROM {where}) '
                "GROUP BY id ORDER BY s DESC, id LIMIT ?",
                (pair, min_weight, pair, min_weight, limit + 1),
            )
        ids = [r[0] for r in rows]
        return ids[:limit], len(ids) > limit

    def heaviest_pairs(self, pair: PairType, limit: int) -> list[PairEdge]:
        rows = self._all(
            'SELECT start, "end", weight FROM rels INDEXED BY heavy_pairs_by_weight '
            f'WHERE type = ? AND {_HEAVY} ORDER BY weight DESC, start, "end" LIMIT ?',
            (pair, max(0, limit)),
        )
        rest = limit - len(rows)
        span = self._pair_starts(pair) if rest > 0 else None
        if span is not None:  # the heavy ties do not fill it: weight-1 ties, by (start, end)
            rows += self._all(
                'SELECT start, "end", weight FROM rels WHERE start >= ? AND start <= ? AND type = ? '
                'AND weight = 1 ORDER BY start, "end" LIMIT ?',
                (*span, pair, rest),
            )
        return [PairEdge(s, e, int(w)) for s, e, w in rows]

    # -- stored analytics ----------------------------------------------------------------------
    def _analysed(self) -> bool:
        return bool(self._all("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'analysis'"))

    def analysis_version(self, pair: PairType) -> int | None:
        rows = self._all("SELECT value FROM meta WHERE key = ?", (f"analysis:{pair}",))
        return int(rows[0][0]) if rows else None

    def central_nodes(self, pair: PairType, measure: Measure, limit: int) -> list[tuple[str, float]]:
        column = _MEASURE_COLUMN[measure]
        if not self._analysed():
            return []
        rows = self._all(
            f"SELECT node_id, {column} FROM analysis WHERE pair = ? ORDER BY {column} DESC, node_id LIMIT ?",
            (pair, max(0, limit)),
        )
        return [(str(i), float(s)) for i, s in rows]

    def community_sizes(self, pair: PairType, limit: int) -> list[int]:
        if not self._analysed():
            return []
        rows = self._all(
            "SELECT community, COUNT(*) FROM analysis WHERE pair = ? AND community < ? "
            "GROUP BY community ORDER BY community",
            (pair, max(0, limit)),
        )
        return [int(n) for _, n in rows]

    def community_members(self, pair: PairType, community: int, limit: int) -> list[str]:
        if not self._analysed():
            return []
        rows = self._all(
            "SELECT a.node_id FROM analysis a JOIN nodes n ON n.id = a.node_id "
            "WHERE a.pair = ? AND a.community = ? ORDER BY n.paper_count DESC, a.node_id LIMIT ?",
            (pair, community, max(0, limit)),
        )
        return [str(r[0]) for r in rows]

    # -- paths ---------------------------------------------------------------------------------
    def _tie_ends(self, ids: Sequence[str]) -> list[tuple[str, str]]:
        """``(id, neighbour)`` for every COAUTHOR tie of ``ids``: ties out from the primary key,
        ties in from ``rels_by_end_about_rank`` (index only)."""
        rows: list[tuple[str, str]] = []
        for chunk in chunked(list(ids)):
            marks = _marks(len(chunk))
            rows += self._all(
                f"SELECT start, \"end\" FROM rels WHERE start IN ({marks}) AND type = 'COAUTHOR' "
                f'UNION ALL SELECT "end", start FROM rels INDEXED BY rels_by_end_about_rank '
                f"WHERE \"end\" IN ({marks}) AND type = 'COAUTHOR'",
                [*chunk, *chunk],
            )
        return rows

    def coauthor_path(self, source: str, target: str, max_hops: int) -> list[str] | None:
        found = self._all(
            "SELECT COUNT(*) FROM nodes WHERE id IN (?, ?) AND label = 'Author'", (source, target)
        )
        if int(found[0][0]) < (1 if source == target else 2):
            return None
        return paths.shortest_path(self._tie_ends, source, target, max_hops)

    # -- time ----------------------------------------------------------------------------------
    def coauthors_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        found: dict[str, list[Weighted]] = {}
        for nid in dict.fromkeys(ids):
            rows = self._all(
                f"SELECT b.start AS other, COUNT(*) AS w FROM rels a {_YEAR_PAPERS} "
                "WHERE a.start = ? AND a.type = 'AUTHORED' AND b.start <> a.start "
                "GROUP BY b.start HAVING COUNT(*) >= ? ORDER BY w DESC, other LIMIT ?",
                (*years, nid, min_weight, max(0, limit)),
            )
            found[nid] = [Weighted(o, int(w)) for o, w in rows]
        return [found[i] for i in ids]

    def author_venues(self, ids: Sequence[str], limit: int) -> list[list[Weighted]]:
        found: dict[str, list[Weighted]] = {}
        for nid in dict.fromkeys(ids):
            rows = self._all(
                'SELECT v."end" AS venue, COUNT(*) AS w FROM rels a '
                "JOIN rels v ON v.start = a.\"end\" AND v.type = 'PUBLISHED_IN' "
                "WHERE a.start = ? AND a.type = 'AUTHORED' GROUP BY v.\"end\" ORDER BY w DESC, venue LIMIT ?",
                (nid, max(0, limit)),
            )
            found[nid] = [Weighted(str(v), int(w)) for v, w in rows]
        return [found[i] for i in ids]

    def coauthor_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        unique = sorted(set(ids))
        edges: list[PairEdge] = []
        step = CHUNK // 2
        for starts in chunked(unique, step):
            for ends in chunked(unique, step):
                rows = self._all(
                    f"SELECT a.start, b.start, COUNT(*) FROM rels a {_YEAR_PAPERS} "
                    f"WHERE a.start IN ({_marks(len(starts))}) AND a.type = 'AUTHORED' AND b.start > a.start "
                    f"AND b.start IN ({_marks(len(ends))}) GROUP BY a.start, b.start HAVING COUNT(*) >= ?",
                    [*years, *starts, *ends, min_weight],
                )
                edges.extend(PairEdge(s, e, int(w)) for s, e, w in rows)
        edges.sort()
        return edges

    def _year_tops(self, ids: Sequence[str], years: tuple[int, int]) -> list[list[str]]:
        """The top mentions (:data:`_YEAR_TOPS`) of each paper of ``years`` that mentions one of
        ``ids``, best first; pairs are counted from them here, in one pass: a self-join of the
        rows in SQL was quadratic (151 s for the ties among 120 concepts on 10k papers)."""
        rows = self._all(_YEAR_TOPS, (json_list(list(dict.fromkeys(ids))), *years, CO_OCCURS_TOP_K))
        tops: dict[str, list[str]] = {}
        for paper, concept in rows:
            tops.setdefault(str(paper), []).append(str(concept))
        return list(tops.values())

    def concepts_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        wanted = set(ids)
        counts: dict[str, Counter[str]] = {i: Counter() for i in wanted}
        for top in self._year_tops(ids, years) if ids else []:
            for c in wanted.intersection(top):
                counts[c].update(o for o in top if o != c)
        found = {
            i: sorted(
                (Weighted(o, w) for o, w in n.items() if w >= min_weight), key=lambda x: (-x.weight, x.id)
            )[: max(0, limit)]
            for i, n in counts.items()
        }
        return [found[i] for i in ids]

    def concept_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        wanted = set(ids)
        if len(wanted) < 2:
            return []
        pairs: Counter[tuple[str, str]] = Counter()
        for top in self._year_tops(sorted(wanted), years):
            pairs.update(itertools.combinations(sorted(wanted.intersection(top)), 2))
        return sorted(PairEdge(a, b, w) for (a, b), w in pairs.items() if w >= min_weight)

    def _members(self, query: PaperQuery) -> tuple[str, list[Any]]:
        """`` AND <paper id column> IN (...)`` for ``query``'s conditions (``""`` for none)."""
        if query.text is not None:
            raise GraphStoreError("a count by year or concept takes no text condition")
        sets = self._paper_sets(query)
        if not sets:
            return "", []
        return " IN (" + " INTERSECT ".join(sql for sql, _ in sets) + ")", [p for _, ps in sets for p in ps]

    def paper_years(self, query: PaperQuery) -> list[YearCount]:
        members, params = self._members(query)
        where = f" AND id{members}" if members else ""
        rows = self._all(
            "SELECT year, COUNT(*) FROM nodes INDEXED BY nodes_by_order "
            f"WHERE label = 'Paper' AND year IS NOT NULL{where} GROUP BY year ORDER BY year",
            params,
        )
        return [YearCount(int(y), int(n)) for y, n in rows]

    def concept_counts(
        self, query: PaperQuery, kind: str | None, limit: int, about_only: bool = True
    ) -> list[Weighted]:
        members, params = self._members(query)
        where = f" AND m.start{members}" if members else ""
        kind_test = " AND c.kind = ?" if kind is not None else ""
        about = " AND (m.type = 'INTRODUCES' OR m.about >= 1)" if about_only else ""
        # DISTINCT: a paper that mentions and introduces a concept counts once.
        rows = self._all(
            'SELECT c.id, COUNT(*) AS n FROM (SELECT DISTINCT m.start, m."end" AS cid FROM rels m '
            f"WHERE m.type IN ('MENTIONS', 'INTRODUCES'){about}{where}) "
            f"JOIN nodes c ON c.id = cid WHERE c.label = 'Concept'{kind_test} "
            "GROUP BY c.id ORDER BY n DESC, c.id LIMIT ?",
            [*params, *([kind] if kind is not None else []), max(0, limit)],
        )
        return [Weighted(str(c), int(n)) for c, n in rows]
