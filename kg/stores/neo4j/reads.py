"""The Neo4j half of :class:`kg.stores.protocol.ReadStore`: every API read as one Cypher query.

:class:`Neo4jReads` is a mixin of :class:`kg.stores.neo4j.store.Neo4jStore`; it uses the
store's read plumbing (``_read``: one managed read transaction, driver errors translated) and
the internal keys :mod:`kg.stores.neo4j.read_index` keeps in every write transaction. The
Cypher is in :mod:`kg.stores.neo4j.read_queries`; this module only shapes parameters and puts
results back in key order. The only graph state held between calls is a warm version's
structures (:mod:`kg.stores.neo4j.held`): the ties of the concept graph and the co-author reads,
the concept pages' lists; until a version is warm the statements answer, alike. Within one API
request, the nodes a name look-up brought along (and an author's paper count) are kept for the
request's later calls (:func:`kg.stores.request_scope.shelf`), sparing a server trip each.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any, TypeVar

import neo4j

from kg.core.errors import GraphStoreError
from kg.core.ids import fold
from kg.core.models import Node
from kg.core.names import query_loose_key
from kg.core.provisional import row_concept
from kg.stores import request_scope
from kg.stores.held import closure_pages
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import read_index
from kg.stores.neo4j import read_queries as rq
from kg.stores.neo4j.held import Neo4jHeld
from kg.stores.neo4j.whole_graph import stored_node
from kg.stores.protocol import (
    AnalysisRow,
    KeyphraseRow,
    ListOrder,
    Measure,
    Page,
    PairEdge,
    PairType,
    PaperQuery,
    Weighted,
    YearCount,
)

T = TypeVar("T")
# The ties among a set of nodes are looked up by pair key (n * (n - 1) / 2 look-ups, about 9 us
# each) when the nodes have more ties out than this many per candidate pair (walking one costs
# about 1.4 us; measured at 10k and 100k papers, see rq.pair_edges_by_key), and there are at most
# KEYED_PAIRS_MAX_NODES of them (the keys are a parameter); otherwise their ties are walked.
KEYED_TIES_PER_PAIR = 8
KEYED_PAIRS_MAX_NODES = 300
ANALYSIS_BATCH = 5000  # analysis nodes written or deleted per transaction


def _one(records: list[neo4j.Record]) -> neo4j.Record:
    if len(records) != 1:
        raise GraphStoreError(f"a Neo4j read returned {len(records)} records where one was expected")
    return records[0]


def _check_window(offset: int, limit: int) -> None:
    if offset < 0 or limit < 0:
        raise GraphStoreError(f"offset and limit must be non-negative (got {offset}, {limit})")


def _by_position(n: int, rows: list[list[Any]]) -> list[Any]:
    out: list[Any] = [None] * n
    for i, value in rows:
        out[int(i)] = value
    return out


def choose_driver(query: PaperQuery, sizes: Callable[[], dict[str, int]]) -> str | None:
    """The condition whose relationships find the candidate papers; the others filter them.

    An author has few papers and always drives; among concepts, venues and topics the one with
    the fewest relationships (``sizes``, only asked when there is a choice); a year alone is
    answered from the sort index (``None``); a status or track without any of those finds its
    papers by label (``"listed"``), filtered by the property (and the year).
    """
    if query.author is not None:
        return "author"
    if query.papers is not None:
        return "papers"  # a list of ids: found by the id index
    if query.phrases is not None:
        return "phrases"  # a phrase's rows belong to one paper or two (kg.core.provisional)
    present = [c for c in ("concepts", "topics", "venues") if getattr(query, c) is not None]
    if not present:
        return "listed" if query.status is not None or query.track is not None else None
    if len(present) == 1:
        return present[0]
    found = sizes()
    return min(present, key=lambda c: (found.get(c, 0), present.index(c)))


class Neo4jReads(Neo4jHeld):
    """The ``ReadStore`` methods on Neo4j (mixin; see the module docstring)."""

    if TYPE_CHECKING:  # provided by Neo4jStore

        def _errors(self) -> AbstractContextManager[None]: ...

        def _session(self, fetch_size: int = -1) -> neo4j.Session: ...

        def _read(self, stmt: q.Statement) -> list[neo4j.Record]: ...

    # -- plumbing -------------------------------------------------------------------------------
    def _read_one(self, stmt: q.Statement) -> neo4j.Record:
        return _one(self._read(stmt))

    def _read_work(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        with self._errors(), self._session() as session:
            return session.execute_read(work)

    def _write_work(self, work: Callable[[neo4j.ManagedTransaction], T]) -> T:
        with self._errors(), self._session() as session:
            return session.execute_write(work)

    # -- read-ahead within a request ------------------------------------------------------------
    # Why: a name is looked up to read its node next, and an author's page asks for its paper
    # count; each was a server trip of its own. The look-up statements bring the nodes (and an
    # author's AUTHORED degree) along, and inside an API request (kg.stores.request_scope) the
    # store keeps them for that request: get_nodes and degree_many take them from there. Like
    # the request's one version read, a write committed meanwhile may be missed by the rest of
    # the request (neither store gives a request one snapshot). Outside a request, nothing kept.
    def _seen_nodes(self) -> dict[str, Node] | None:
        return request_scope.shelf(f"neo4j-nodes:{id(self)}")

    def _seen_degrees(self) -> dict[tuple[str, str, str], int] | None:
        return request_scope.shelf(f"neo4j-degrees:{id(self)}")

    def _remember(self, rows: Sequence[Sequence[Any]]) -> None:
        """Keep the nodes of ``[id, labels, props]`` rows for the request (if in one)."""
        seen = self._seen_nodes()
        if seen is not None:
            seen.update((str(row[0]), stored_node(str(row[0]), row[1], row[2])) for row in rows)

    def version(self) -> int:
        """A fallback store version: the writer lock's counter, bumped (in the same transaction)
        by every upsert, including ones that changed nothing (a spurious cache miss, never a stale
        hit). ``Neo4jStore`` may define a finer one, which takes precedence over this mixin's."""
        return int(self._read_one(rq.write_count())["n"])

    # -- names ----------------------------------------------------------------------------------
    def concepts_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        if not keys:
            return []
        rows = self._read_one(rq.nodes_by_keys(list(keys), "Concept"))["rows"]
        self._remember([row[1:] for row in rows])
        return _by_position(len(keys), [row[:2] for row in rows])

    def concepts_with_key_suffix(self, loose_key: str, limit: int) -> list[str]:
        words = " ".join(loose_key.split())
        if not words or limit < 1:
            return []
        prefix = read_index.reversed_text(" " + words)
        ids: list[str] = self._read_one(rq.concepts_with_key_suffix(prefix, limit))["ids"]
        return ids

    def concepts_with_key_prefix(self, loose_key: str, limit: int) -> list[str]:
        words = " ".join(loose_key.split())
        if not words or limit < 1:
            return []
        ids: list[str] = self._read_one(rq.concepts_with_key_prefix("l:" + words + " ", limit))["ids"]
        return ids

    def narrower_closure(self, concept_id: str, limit: int) -> list[str]:
        if limit < 1:
            return []
        held = self._held_pages()
        if held is not None and concept_id in held.broad_concepts:  # a concept with narrower ones
            return [concept_id, *held.hierarchy.closure(concept_id, limit - 1)]
        record = self._read_one(rq.narrower_closure(concept_id, limit - 1))
        if not record["found"]:
            return []
        return [concept_id, *record["ids"]]

    def authors_named(self, key: str, limit: int) -> list[str]:
        rows = self._read_one(rq.authors_named(read_index.AUTHOR_PREFIX + key, limit))["rows"]
        self._remember([row[:3] for row in rows])
        degrees = self._seen_degrees()
        if degrees is not None:
            degrees.update(((str(row[0]), "AUTHORED", "out"), int(row[3])) for row in rows)
        return [str(row[0]) for row in rows]

    def keyphrase_concepts(self, key: str, limit: int) -> list[str]:
        if not key or limit < 1:
            return []
        ids: list[str] = self._read_one(q.keyphrase_concepts(key, limit))["ids"]
        return ids

    def paper_keyphrases(self, paper_ids: Sequence[str]) -> list[list[KeyphraseRow]]:
        out: dict[str, list[KeyphraseRow]] = {i: [] for i in paper_ids}
        unique = list(out)
        if unique:
            for pid, cid, node, rel in self._read_one(q.paper_keyphrases(unique))["rows"]:
                out[pid].append(KeyphraseRow(cid, row_concept(json.loads(node)), json.loads(rel)))
        for rows in out.values():
            rows.sort(key=lambda r: r.concept)
        return [list(out[i]) for i in paper_ids]

    def authors_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        if not keys:
            return []
        prefixed = [read_index.AUTHOR_PREFIX + k for k in keys]
        rows = self._read_one(rq.nodes_by_keys(prefixed, "Author"))["rows"]
        self._remember([row[1:] for row in rows])
        return _by_position(len(keys), [row[:2] for row in rows])

    # -- papers ---------------------------------------------------------------------------------
    def _drive_by(self, query: PaperQuery) -> str | None:
        def sizes() -> dict[str, int]:
            record = self._read_one(rq.condition_sizes(query))
            return {k: int(record[k] or 0) for k in ("concepts", "venues", "topics")}

        return choose_driver(query, sizes)

    @staticmethod
    def _text(query: PaperQuery) -> PaperQuery | None:
        """``None`` when the query has a text without a searchable word (it matches nothing)."""
        if query.text is not None and rq.paper_fulltext_query(query.text) is None:
            return None
        return query

    def papers(self, query: PaperQuery, offset: int, limit: int) -> Page:
        _check_window(offset, limit)
        page = self._held_page(query, offset, limit)
        if page is not None:
            return page
        effective = self._text(query)
        if effective is None:
            return Page(ids=[], total=0)
        if effective.text is not None:
            stmt = rq.papers_page(effective, "text", offset, limit)

            def work(tx: neo4j.ManagedTransaction) -> neo4j.Record:
                q_ = q.await_fulltext_refresh()
                tx.run(q_.text, q_.params).consume()  # the fulltext index is eventually consistent
                return tx.run(stmt.text, stmt.params).single(strict=True)

            record = self._read_work(work)
        else:
            record = self._read_one(rq.papers_page(effective, self._drive_by(effective), offset, limit))
        return Page(ids=list(record["ids"]), total=int(record["total"]))

    def _held_page(self, query: PaperQuery, offset: int, limit: int) -> Page | None:
        """The page from the version's concept lists (:mod:`kg.stores.held.closure_pages`)
        when ``query`` is a concept's papers with nothing else asked, by relevance or newest
        first, and the version is warm; else ``None`` (the statements answer)."""
        concepts = closure_pages.held_concepts(query)
        if concepts is None:
            return None
        held = self._held_pages()
        if held is None:
            return None
        return held.pages.page(concepts, query.narrower, query.sort, offset, limit)

    def paper_count(self, query: PaperQuery) -> int:
        effective = self._text(query)
        if effective is None:
            return 0
        if effective.text is not None:
            return self.papers(effective, 0, 0).total
        return int(self._read_one(rq.papers_count(effective, self._drive_by(effective)))["total"])

    # -- listings -------------------------------------------------------------------------------
    def list_concepts(
        self, search: str | None, kind: str | None, order: ListOrder, offset: int, limit: int
    ) -> Page:
        _check_window(offset, limit)
        folded = fold(search) if search and search.strip() else None
        loose = query_loose_key(search) if folded is not None and search is not None else None
        record = self._read_one(rq.listing("Concept", folded, loose or None, kind, order, offset, limit))
        return Page(ids=list(record["ids"]), total=int(record["total"]))

    def list_authors(self, search: str | None, order: ListOrder, offset: int, limit: int) -> Page:
        _check_window(offset, limit)
        folded = fold(search) if search and search.strip() else None
        record = self._read_one(rq.listing("Author", folded, None, None, order, offset, limit))
        return Page(ids=list(record["ids"]), total=int(record["total"]))

    # -- networks -------------------------------------------------------------------------------
    def _neighbour_lists(
        self, ids: Sequence[str], limit: int, statement: Callable[[list[str]], q.Statement]
    ) -> list[list[Weighted]]:
        """One weighted list per id of ``ids``, read by one ``statement`` over the distinct ids
        (a repeated id is read once); no read when there is nothing to find. The neighbour reads
        (pairs, co-authors or concepts in years, venues) differ only in the statement."""
        unique = list(dict.fromkeys(ids))
        if not unique or limit < 1:
            return [[] for _ in ids]
        return _weighted_lists(ids, unique, self._read_one(statement(unique))["rows"])

    def _edges_among(
        self, ids: Sequence[str], statement: Callable[[list[str]], q.Statement]
    ) -> list[PairEdge]:
        """The ties among the distinct ``ids``, sorted, read by one ``statement``; none without
        two ids."""
        unique = list(dict.fromkeys(ids))
        if len(unique) < 2:
            return []
        rows = self._read_one(statement(unique))["rows"]
        return sorted(PairEdge(a, b, int(w)) for a, b, w in rows)

    def weighted_neighbors(
        self, ids: Sequence[str], pair: PairType, min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        rq.pair_type(pair)
        held = self._held_ties(pair, min_weight) if ids and limit >= 1 else None
        if held is not None:
            return held.neighbours(ids, min_weight, limit)
        return self._neighbour_lists(
            ids, limit, lambda unique: rq.weighted_neighbors(unique, pair, min_weight, limit)
        )

    def pair_edges_among(self, ids: Sequence[str], pair: PairType, min_weight: int) -> list[PairEdge]:
        rq.pair_type(pair)
        unique = list(dict.fromkeys(ids))
        if len(unique) < 2:
            return []
        held = self._held_ties(pair, min_weight)
        if held is not None:
            return held.among(unique, min_weight)

        def work(tx: neo4j.ManagedTransaction) -> list[list[Any]]:
            found = rq.pair_ends(unique, pair)  # element ids are only valid in one transaction
            record = tx.run(found.text, found.params).single(strict=True)
            ends = [(str(i), str(e)) for i, e in record["ends"]]
            n = len(ends)
            if n < 2:
                return []
            pairs = n * (n - 1) // 2
            if record["ties"] > KEYED_TIES_PER_PAIR * pairs and n <= KEYED_PAIRS_MAX_NODES:
                keyed = rq.pair_edges_by_key(ends, pair, min_weight)
                hits = tx.run(keyed.text, keyed.params).single(strict=True)["rows"]
                ordered = rq.keyed_order(ends)
                return [[ordered[i][0], ordered[j][0], w] for i, j, w in hits]
            among = rq.pair_edges_among([e for _i, e in ends], pair, min_weight)
            rows: list[list[Any]] = tx.run(among.text, among.params).single(strict=True)["rows"]
            node_id = {e: i for i, e in ends}
            return [[node_id[a], node_id[b], w] for a, b, w in rows]

        rows = self._read_work(work)
        edges = {(min(a, b), max(a, b)): int(w) for a, b, w in rows}
        return [PairEdge(a, b, w) for (a, b), w in sorted(edges.items())]

    def strongest_nodes(self, pair: PairType, min_weight: int, limit: int) -> tuple[list[str], bool]:
        rq.pair_type(pair)
        if limit < 0:
            raise GraphStoreError(f"limit must be non-negative (got {limit})")
        rows = self._read_one(rq.strongest_nodes(pair, min_weight, limit + 1))["rows"]
        ids = [node_id for node_id, _s in rows]
        return ids[:limit], len(ids) > limit

    def heaviest_pairs(self, pair: PairType, limit: int) -> list[PairEdge]:
        rq.pair_type(pair)
        if limit < 1:
            return []
        rows = self._read_one(rq.heaviest_pairs(pair, limit))["rows"]
        return [PairEdge(min(a, b), max(a, b), int(w)) for a, b, w in rows]

    # -- stored analytics -----------------------------------------------------------------------
    def save_analysis(self, pair: PairType, version: int, rows: Sequence[AnalysisRow]) -> None:
        """Invalidate the version, replace the rows in batches, then record the version: a
        reader meanwhile is told the analytics are out of date rather than shown half of them."""

        def run(stmt: q.Statement) -> int:
            def work(tx: neo4j.ManagedTransaction) -> int:
                record = tx.run(stmt.text, stmt.params).single()
                return int(record["n"]) if record is not None and "n" in record.keys() else 0

            return self._write_work(work)

        run(rq.set_analysis_version(pair, -1))
        while run(rq.delete_analysis(pair, ANALYSIS_BATCH)) > 0:
            pass
        for i in range(0, len(rows), ANALYSIS_BATCH):
            run(rq.create_analysis(pair, rows[i : i + ANALYSIS_BATCH]))
        run(rq.set_analysis_version(pair, version))

    def analysis_version(self, pair: PairType) -> int | None:
        value = self._read_one(rq.analysis_version(pair))["version"]
        return None if value is None or int(value) < 0 else int(value)

    def central_nodes(self, pair: PairType, measure: Measure, limit: int) -> list[tuple[str, float]]:
        if limit < 1:
            return []
        rows = self._read_one(rq.central_nodes(pair, measure, limit))["rows"]
        return [(str(i), float(s)) for i, s in rows]

    def community_sizes(self, pair: PairType, limit: int) -> list[int]:
        if limit < 1:
            return []
        return [int(n) for n in self._read_one(rq.community_sizes(pair, limit))["sizes"]]

    def community_members(self, pair: PairType, community: int, limit: int) -> list[str]:
        if limit < 1:
            return []
        return [str(i) for i in self._read_one(rq.community_members(pair, community, limit))["ids"]]

    # -- paths ----------------------------------------------------------------------------------
    def coauthor_path(self, source: str, target: str, max_hops: int) -> list[str] | None:
        if source == target:
            found = self.get_nodes([source])[0]  # type: ignore[attr-defined]
            return [source] if found is not None and found.label == "Author" else None
        if max_hops < 1:
            return None
        rows = self._read(rq.coauthor_path(source, target, max_hops))
        return [str(i) for i in rows[0]["ids"]] if rows else None

    # -- time -----------------------------------------------------------------------------------
    def coauthors_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        return self._neighbour_lists(
            ids, limit, lambda unique: rq.coauthors_in_years(unique, years, min_weight, limit)
        )

    def author_venues(self, ids: Sequence[str], limit: int) -> list[list[Weighted]]:
        return self._neighbour_lists(ids, limit, lambda unique: rq.author_venues(unique, limit))

    def coauthor_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        return self._edges_among(ids, lambda unique: rq.coauthor_edges_in_years(unique, years, min_weight))

    def concepts_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        return self._neighbour_lists(
            ids, limit, lambda unique: rq.concepts_in_years(unique, years, min_weight, limit)
        )

    def concept_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        return self._edges_among(ids, lambda unique: rq.concept_edges_in_years(unique, years, min_weight))

    def paper_years(self, query: PaperQuery) -> list[YearCount]:
        rows = self._read_one(rq.paper_years(query, self._drive_by(query)))["rows"]
        return [YearCount(int(y), int(n)) for y, n in rows]

    def concept_counts(
        self, query: PaperQuery, kind: str | None, limit: int, about_only: bool = True
    ) -> list[Weighted]:
        if limit < 1:
            return []
        stmt = rq.concept_counts(query, self._drive_by(query), kind, limit, about_only)
        rows = self._read_one(stmt)["rows"]
        return [Weighted(str(c), int(n)) for c, n in rows]

    # -- maintenance ----------------------------------------------------------------------------
    def rebuild_read_index(self, chunk: int = 2000) -> int:
        """Recompute the read index of every node (a database written before it existed, or by a
        bulk import); returns how many nodes changed. Each chunk is its own write transaction."""
        changed, after = 0, ""
        while True:
            ids: list[str] = self._read_one(rq.indexed_ids(after, chunk))["ids"]
            if not ids:
                return changed

            def work(tx: neo4j.ManagedTransaction, chunk_ids: list[str] = ids) -> int:
                return read_index.index_nodes(tx, chunk_ids)

            changed += self._write_work(work)
            after = ids[-1]


def _weighted_lists(ids: Sequence[str], unique: list[str], rows: list[Any]) -> list[list[Weighted]]:
    """Per id of ``ids``, its ``(index into unique, other, weight)`` rows as weighted
    neighbours, heaviest first (ties by id), so both neighbour reads order alike."""
    found: dict[str, list[Weighted]] = {i: [] for i in unique}
    for i, other, weight in rows:
        if other is not None:
            found[unique[int(i)]].append(Weighted(other, int(weight)))
    for lst in found.values():
        lst.sort(key=lambda w: (-w.weight, w.id))
    return [list(found[i]) for i in ids]
