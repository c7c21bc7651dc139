"""The facade the API holds: every read it serves, each answered by store queries.

Why a facade: resolvers stay thin (one call each) and know nothing of the store, while the
modules below do one job each. The only state here is small, bounded caches keyed on the
store's version (:mod:`kg.read.cache`): name resolutions, the venue and topic tables, small
results. Paths are searched in the store and centrality and communities are read as ``kg
analyze`` stored them: no graph copy is held here. The version is re-read at most every
``refresh_interval_s`` (0 = on every call; the API reads it once per request anyway).

Example:
    >>> from kg.stores.sqlite import SQLiteStore
    >>> ReadService(SQLiteStore(None)).resolve_concept("Nash equilibria") is None
    True
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

import numpy as np

from extractors.embedding import from_blob
from kg.core.ids import fold
from kg.core.models import Node, StoreCounts
from kg.core.names import query_loose_key
from kg.core.text_index import search_terms
from kg.read import institutions, likeness, networks, resolve, trends
from kg.read.cache import VersionedCache
from kg.read.errors import InvalidArgument, ServiceError, UnknownName
from kg.read.key_concepts import COMMON_MIN_PAPERS, KeyConcept, common_ids, demote_field_words, key_concepts
from kg.read.networks import MAX_DEPTH, MAX_NODES, NetworkEdge, NetworkNode, NetworkView
from kg.read.resolve import TopicTree, display
from kg.stores.nearest import Matrix
from kg.stores.protocol import (
    CLOSURE_LIMIT,
    ListOrder,
    Measure,
    Page,
    PageReads,
    PairType,
    PaperOrder,
    PaperQuery,
    ReadStore,
    SearchHit,
    Weighted,
    YearCount,
)

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "InvalidArgument",
    "NetworkEdge",
    "NetworkNode",
    "NetworkView",
    "PaperFilter",
    "PaperPage",
    "ReadService",
    "ServiceError",
    "UnknownName",
]

T = TypeVar("T")
GraphName = Literal["COAUTHOR", "CONCEPT"]
# Co-authors served per author: a hyperauthored paper can give thousands.
MAX_COAUTHORS = 1000
MAX_AUTHOR_VENUES = 1000  # venue editions read per author (a prolific author has a few hundred)
# Longest co-authorship chain searched: longer than any shortest path between two authors of
# ../shared/data/paperlists/ (the longest seen in bench/paths.py's samples was far shorter).
MAX_PATH_HOPS = 30
# Concepts counted per year for rising concepts: the later year's are the candidates, and one
# with fewer papers than the last of these cannot pass trends.MIN_SUPPORT in any real venue.
RISING_CANDIDATES = 20_000


@dataclass(frozen=True)
class PaperFilter:
    """Conditions on papers by name, all of which must hold (role: query input).

    ``concept`` includes narrower concepts and ``topic`` includes subtopics; ``about_only``
    keeps only papers about the concept, not ones that mention it in passing. ``order``: how
    the papers are listed (``PaperQuery.order``; unset: by relevance with ``text``, else newest
    first, then by title).
    """

    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    concept: str | None = None
    author: str | None = None
    text: str | None = None
    about_only: bool = True
    status: str | None = None
    track: str | None = None
    like: str | None = None
    institution: str | None = None
    order: PaperOrder | None = None


@dataclass(frozen=True)
class PaperPage:
    """A page of papers (role: read result): the total, the papers in order and, when asked
    for, each paper's authors in byline order and its venue (``None`` when not asked for)."""

    total: int
    papers: list[Node]
    authors: list[list[Node]] | None = None
    venues: list[Node | None] | None = None


def _embed_text(text: str) -> bytes:
    """A query text's stored-form vector; the model is loaded on the first call only."""
    from extractors.embedding import default_embedder

    return default_embedder().embed_quantized([text])[0]


def _paper_words(node: Node) -> str:
    """A paper's title and whole abstract: the text :func:`likeness.wording_similarity` compares."""
    props = node.properties
    return f"{props.get('title') or ''}\n{props.get('abstract') or ''}"


def below(cid: str, closure: tuple[str, ...]) -> tuple[str, ...]:
    """The ids of a concept's closure other than its own: where a link marked ``climbs: false``
    does not count (``PaperQuery.narrower``)."""
    return tuple(c for c in closure if c != cid)


def _pair(graph: GraphName) -> PairType:
    return "COAUTHOR" if graph == "COAUTHOR" else "CO_OCCURS"


class ReadService:
    """Reads for the API over any :class:`kg.stores.protocol.ReadStore`.

    Args:
        store: the store; treated as read-only.
        refresh_interval_s: how often (at most) to re-read the store's version.
        cache_entries: bound of the per-version cache.
    """

    def __init__(
        self,
        store: ReadStore,
        *,
        refresh_interval_s: float = 0.0,
        cache_entries: int = 4096,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self._refresh = refresh_interval_s
        self._clock = clock
        self._cache = VersionedCache(cache_entries)
        self._version: int | None = None
        self._checked = -1e18
        self._lock = threading.Lock()

    # -- version and caching ---------------------------------------------------------------------
    def version(self) -> int:
        """The store's version (re-read when the refresh interval has passed)."""
        now = self._clock()
        if self._version is None or now - self._checked >= self._refresh:
            value = self.store.version()
            with self._lock:
                self._version, self._checked = value, now
            return value
        return self._version

    def _memo(self, key: Hashable, build: Callable[[], T]) -> T:
        return self._cache.get(self.version(), key, build)

    def warm(self) -> None:
        """Touch the store once so the first request meets an open, warm database, and build
        the version's held structures of a store that has some to build at once (Neo4j:
        ``hold_now``, seconds at 100k papers, on the server's warm-up thread rather than in a
        request's time)."""
        self.version()
        self.venues()
        self.topic_tree()
        hold_now = getattr(self.store, "hold_now", None)
        if hold_now is not None:
            hold_now()

    # -- concepts --------------------------------------------------------------------------------
    def resolve_concept(self, name: str) -> Node | None:
        return self._memo(("concept", name), lambda: resolve.resolve_concept(self.store, name))

    def require_concept(self, name: str) -> Node:
        node = self.resolve_concept(name)
        if node is None:
            raise UnknownName("concept", name, [display(n) for n in self.suggest_concepts(name, 5)])
        return node

    def suggest_concepts(self, name: str, limit: int = 5) -> list[Node]:
        return resolve.suggest_concepts(self.store, name, limit)

    def closure(self, cid: str) -> tuple[str, ...]:
        """``cid`` and every concept below it (cached per version)."""
        return self._memo(("closure", cid), lambda: tuple(self.store.narrower_closure(cid, CLOSURE_LIMIT)))

    def concept_query(
        self, cid: str, include_narrower: bool = True, about_only: bool = True, order: PaperOrder = "NEWEST"
    ) -> PaperQuery:
        ids = self.closure(cid) if include_narrower else (cid,)
        return PaperQuery(concepts=ids, about_only=about_only, order=order, narrower=below(cid, ids))

    def phrase_ids(self, name: str) -> tuple[str, ...]:
        """The concept ids of the keyphrase rows a name denotes (its loose key; cached)."""
        key = query_loose_key(name)
        return self._memo(("phrases", key), lambda: tuple(self.store.keyphrase_concepts(key, CLOSURE_LIMIT)))

    def list_concepts(
        self, search: str | None, kind: str | None, order: ListOrder, offset: int, limit: int
    ) -> tuple[list[Node], int]:
        page = self.store.list_concepts(search, kind, order, offset, limit)
        return self._nodes(page.ids), page.total

    def broader(self, cid: str) -> list[Node]:
        """Direct broader concepts, by name."""
        edges = self.store.neighbors_many([cid], "BROADER", "out")[0]
        return sorted((e.node for e in edges), key=lambda n: (fold(display(n)), n.id))

    def narrower(self, cid: str) -> list[Node]:
        """Direct narrower concepts, by name."""
        edges = self.store.neighbors_many([cid], "BROADER", "in")[0]
        return sorted((e.node for e in edges), key=lambda n: (fold(display(n)), n.id))

    def related(self, cid: str, first: int) -> list[tuple[Node, int]]:
        """Concepts co-occurring with one concept, most shared papers first, then by id."""
        rows = self.store.weighted_neighbors([cid], "CO_OCCURS", 1, first)[0]
        nodes = self.store.get_nodes([r.id for r in rows])
        return [(n, r.weight) for n, r in zip(nodes, rows, strict=True) if n is not None]

    # -- papers ----------------------------------------------------------------------------------
    def paper_query(self, where: PaperFilter) -> PaperQuery:
        """The store query for a filter by names; raises :class:`UnknownName` for unknown ones."""
        concepts = phrases = None
        narrower: tuple[str, ...] = ()
        if where.concept is not None:
            node = self.resolve_concept(where.concept)
            if node is not None:
                concepts = self.closure(node.id)
                narrower = below(node.id, concepts)
            else:  # a phrase no node stands for yet: the papers that hold it (kg.core.provisional)
                phrases = self.phrase_ids(where.concept)
                if not phrases:
                    self.require_concept(where.concept)  # raises, with suggestions
        author = self.require_author(where.author).id if where.author is not None else None
        venues = (
            tuple(resolve.resolve_venues(self.venues(), where.venue)) if where.venue is not None else None
        )
        topics = None
        if where.topic is not None:
            tree = self.topic_tree()
            topics = tuple(t for tid in tree.resolve(where.topic) for t in tree.subtree(tid))
        text = where.text if where.text is not None and where.text.strip() else None
        papers = (
            self.institution_papers(self.require_institution(where.institution).id)
            if where.institution is not None
            else None
        )
        return PaperQuery(
            papers=papers,
            concepts=concepts,
            narrower=narrower,
            phrases=phrases,
            about_only=where.about_only,
            author=author,
            venues=venues,
            topics=topics,
            year=where.year,
            text=text,
            status=where.status,
            track=where.track,
            order=where.order,
        )

    def papers(self, query: PaperQuery, offset: int, limit: int) -> Page:
        """One page of papers and the total (totals of popular queries cached per version)."""
        return self.store.papers(query, offset, limit)

    def paper_page(
        self, query: PaperQuery, offset: int, limit: int, authors: bool = False, venues: bool = False
    ) -> PaperPage:
        """One page of papers as nodes, with their authors and venues when asked for: what a
        page of papers shows, in one call (one worker-thread hop for the API instead of four)."""
        page = self.store.papers(query, offset, limit)
        if isinstance(self.store, PageReads) and page.ids:  # one trip (Neo4j), read alike
            found = self.store.page_nodes(page.ids, authors, venues)
            kept = [i for i, p in enumerate(found.papers) if p is not None]
            return PaperPage(
                total=page.total,
                papers=[p for p in found.papers if p is not None],
                authors=None if found.authors is None else [found.authors[i] for i in kept],
                venues=None if found.venues is None else [found.venues[i] for i in kept],
            )
        papers = self._nodes(page.ids)
        ids = [p.id for p in papers]
        return PaperPage(
            total=page.total,
            papers=papers,
            authors=self.paper_authors_many(ids) if authors else None,
            venues=self.paper_venue_many(ids) if venues else None,
        )

    def paper_count(self, query: PaperQuery) -> int:
        return self._memo(("count", query), lambda: self.store.paper_count(query))

    def paper_authors_many(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        """Each paper's authors in byline order (position, then id)."""
        return self.store.paper_authors(paper_ids)

    def key_concepts_many(self, paper_ids: Sequence[str]) -> list[list[KeyConcept]]:
        """Each paper's key concepts, best first: its ``MENTIONS`` and its paper-only phrases
        (:mod:`kg.read.key_concepts`), the store's field words last
        (:func:`~kg.read.key_concepts.demote_field_words`); three store reads for all the papers."""
        if not paper_ids:
            return []
        mentions = self.store.neighbors_many(paper_ids, "MENTIONS", "out")
        rows = self.store.paper_keyphrases(paper_ids)
        lists = [key_concepts(m, r) for m, r in zip(mentions, rows, strict=True)]
        store_papers = self.counts().nodes.get("Paper", 0)
        if store_papers < COMMON_MIN_PAPERS:
            return lists
        ids = list(dict.fromkeys(k.concept_id for ranked in lists for k in ranked if k.node is not None))
        common = common_ids(ids, self.store.paper_counts(ids), store_papers)
        return [demote_field_words(ranked, common) for ranked in lists]

    def paper_venue_many(self, paper_ids: Sequence[str]) -> list[Node | None]:
        """Each paper's venue (the smallest id if a listing gave several), or ``None``."""
        lists = self.store.neighbors_many(paper_ids, "PUBLISHED_IN", "out")
        return [edges[0].node if edges else None for edges in lists]

    def search(self, text: str, limit: int) -> list[SearchHit]:
        """Full-text hits over papers and concepts by BM25 score: the best of those with every
        word when they fill the page, else the best of those with any.

        Why not always any word: FTS5 scores every document that matches, and "learning to rank
        with" matches all 100k papers by its common words (430 ms), while the papers with all
        four words are few (16 ms) and fill the page. A node's score is the same in both
        queries, so when the page is not filled the answer is exactly the any-word ranking.
        """
        if not text.strip() or limit <= 0:
            return []

        def run() -> list[SearchHit]:
            hits = self.store.search(text, limit, every_word=True)
            _, words = search_terms(text)
            if len(hits) < limit and len(words) > 1:
                hits = self.store.search(text, limit)
            return self._blend(text, hits, limit)

        return self._memo(("search", text, limit), run)

    def _blend(self, text: str, hits: list[SearchHit], limit: int) -> list[SearchHit]:
        """The hits re-ranked with the meaning of the text where papers have embeddings, and the
        papers nearest in meaning added (:func:`likeness.semantic_hits`): a paper's score is its
        BM25 score times ``1 + max(0, cosine(text, paper))`` (:func:`likeness.blended_score`);
        concepts and papers without a vector keep theirs. A store without embeddings answers
        exactly as before (no model is loaded)."""
        if not self._has_vectors():
            return hits
        query = self._memo(("like", text), lambda: _embed_text(text))
        phrases, _ = search_terms(text)
        # approximate: a search's nearest papers from the store's first pass (at 100k, 3.8-4.7
        # against 12 ms; kg.stores.nearest.FirstPass); similar and like rank the whole matrix
        nearest = [] if phrases else self.store.nearest_papers(query, limit, approximate=True)
        words = {h.node.id for h in hits}
        added = [pid for pid, _ in nearest if pid not in words]
        papers = [h.node.id for h in hits if h.node.label == "Paper"] + added
        found = dict(zip(papers, self.store.paper_embeddings(papers), strict=True))
        cosines = likeness.cosines(query, {pid: v for pid, v in found.items() if v is not None})
        blended = [SearchHit(h.node, likeness.blended_score(h.score, cosines.get(h.node.id))) for h in hits]
        floor = likeness.semantic_floor([h.score for h in hits])
        semantic = likeness.semantic_hits([(pid, cosines[pid]) for pid in added if pid in cosines], floor)
        nodes = {n.id: n for n in self._nodes([pid for pid, _ in semantic])}
        blended += [SearchHit(nodes[pid], score) for pid, score in semantic if pid in nodes]
        return sorted(blended, key=lambda h: (-h.score, h.node.id))[:limit]

    def _has_vectors(self) -> bool:
        """Whether any paper has an embedding (asked once per store version)."""
        return self._memo("has-vectors", lambda: bool(self.store.nearest_papers(likeness.PROBE, 1)))

    # -- likeness (kg.read.likeness) -------------------------------------------------------------
    def similar(self, paper_id: str, limit: int) -> list[likeness.Similar]:
        """Papers like a paper: its :data:`~kg.read.likeness.RERANK_POOL` nearest by embedding,
        re-ranked by the words of their titles and abstracts and the concepts they share
        (:func:`~kg.read.likeness.rank_similar`); none when the paper has no embedding (ingested
        with ``--no-embed`` and not ``kg embed``-ed yet)."""
        if limit <= 0:
            return []

        def run() -> list[likeness.Similar]:
            vector = self.store.paper_embeddings([paper_id])[0]
            if vector is None:
                return []
            hits = self.store.nearest_papers(vector, max(limit, likeness.RERANK_POOL), exclude=[paper_id])
            found = self._nodes([paper_id, *(pid for pid, _ in hits)])
            if not found or found[0].id != paper_id:
                return []
            me, nodes = found[0], found[1:]
            keys = self.key_concepts_many([paper_id, *(n.id for n in nodes)])
            mine = [k.concept_id for k in keys[0][: likeness.SHARED_TOP] if k.node is not None]
            papers_of = dict(zip(mine, self.store.paper_counts(mine), strict=True))
            cosine = dict(hits)
            pool = [(n, cosine[n.id], k) for n, k in zip(nodes, keys[1:], strict=True)]
            wording = likeness.wording_similarity(_paper_words(me), [_paper_words(n) for n in nodes])
            store_papers = self.counts().nodes.get("Paper", 0)
            return likeness.rank_similar(keys[0], pool, papers_of, store_papers, wording)[:limit]

        return self._memo(("similar", paper_id, limit), run)

    def like(
        self, text: str, offset: int, limit: int, within: PaperQuery | None = None
    ) -> tuple[list[likeness.Similar], int]:
        """Papers nearest to a free-text description (embedded here, with the model the papers
        were embedded with), from ``offset``; and how many there are to page through (at most
        :data:`likeness.LIKE_MAX`). ``within``: only the papers matching it, ranked the same way
        (:meth:`_like_within`)."""
        if not text.strip():
            raise InvalidArgument("`like` needs some text to compare papers with")
        if len(text) > likeness.LIKE_MAX_CHARS:
            raise InvalidArgument(f"`like` takes at most {likeness.LIKE_MAX_CHARS:,} characters")
        if offset + limit > likeness.LIKE_MAX:
            raise InvalidArgument(f"`like` pages through the {likeness.LIKE_MAX:,} nearest papers at most")

        # the text's vector is cached (384 bytes), not its 1,000 hits
        vector = self._memo(("like", text), lambda: _embed_text(text))
        if within is None:
            hits = self.store.nearest_papers(vector, likeness.LIKE_MAX)
        else:
            hits = self._like_within(vector, within)
        page = hits[offset : offset + limit]
        nodes = self._nodes([pid for pid, _ in page])
        keys = self.key_concepts_many([n.id for n in nodes])
        scores = dict(page)
        found = [
            likeness.Similar(n, scores[n.id], likeness.concepts_in_text(text, k))
            for n, k in zip(nodes, keys, strict=True)
        ]
        return found, len(hits)

    def _like_within(self, vector: bytes, query: PaperQuery) -> list[tuple[str, float]]:
        """The papers matching ``query`` that have a vector, nearest to ``vector`` first (at most
        :data:`likeness.LIKE_MAX`), scored with the arithmetic the stores rank with
        (:class:`kg.stores.nearest.Matrix`), so both stores give the same ids in the same order.

        Why two ways: taking the nearest papers and then filtering them loses every match when
        the filter is selective (a venue-year is 1-3% of the papers: the 1,000 nearest may hold
        none of it). So a set of at most :data:`likeness.FILTER_FIRST_MAX` papers is read whole
        and ranked exactly (its vectors are 384 bytes each: 7.7 MB at the bound). A larger set is
        a large share of the store, so its members are dense among the nearest: the
        :data:`likeness.LIKE_POOL` nearest papers are read from the store's index and those
        matching ``query`` kept, in order (exact up to the pool: a match beyond it is not listed). At 86,859
        papers (bench/README.md, "like with conditions"): a 4,516-paper set 42 ms; a 75,066-paper
        set 0.75 s this way against 1.3 s read whole, with the same top 20.
        """
        count = self.paper_count(query)
        if count <= likeness.FILTER_FIRST_MAX:
            ids = self.store.papers(query, 0, count).ids
            found = self.store.paper_embeddings(ids)
            pairs = [(pid, v) for pid, v in zip(ids, found, strict=True) if v is not None]
            if not pairs:
                return []
            rows = np.stack([from_blob(v) for _, v in pairs])
            return Matrix([pid for pid, _ in pairs], rows).nearest(vector, likeness.LIKE_MAX, ())
        pool = self.store.nearest_papers(vector, likeness.LIKE_POOL)
        allowed = set(query.papers) if query.papers is not None else None
        keep: set[str] = set()
        for start in range(0, len(pool), likeness.FILTER_CHUNK):
            chunk = [pid for pid, _ in pool[start : start + likeness.FILTER_CHUNK]]
            members = tuple(chunk if allowed is None else [p for p in chunk if p in allowed])
            if members:
                keep.update(self.store.papers(replace(query, papers=members), 0, len(members)).ids)
        return [hit for hit in pool if hit[0] in keep][: likeness.LIKE_MAX]

    def counts(self) -> StoreCounts:
        return self._memo("counts", self.store.counts)

    # -- authors ---------------------------------------------------------------------------------
    def resolve_author(self, name: str) -> Node | None:
        return self._memo(("author", name), lambda: resolve.resolve_author(self.store, name))

    def require_author(self, name: str) -> Node:
        node = self.resolve_author(name)
        if node is None:
            return resolve.require_author(self.store, name)
        return node

    def resolve_institution(self, name: str) -> Node | None:
        """The Institution a name, domain or id means (:func:`kg.read.institutions.find`)."""
        return self._memo(("institution", name), lambda: institutions.find(self.store, name))

    def require_institution(self, name: str | None) -> Node:
        node = self.resolve_institution(name or "")
        if node is None:
            raise UnknownName("institution", name or "")
        return node

    def institution_members(self, institution_id: str) -> list[institutions.Affiliation]:
        """Its authors, most papers there first."""
        return self._memo(
            ("members", institution_id), lambda: institutions.members(self.store, institution_id)
        )

    def institution_papers(self, institution_id: str) -> tuple[str, ...]:
        """Ids of the papers where an author gave it."""
        return self._memo(
            ("institution-papers", institution_id), lambda: institutions.paper_ids(self.store, institution_id)
        )

    def author_institutions(self, author_id: str) -> list[institutions.Affiliation]:
        """An author's institutions, the latest first."""
        return self._memo(("affiliations", author_id), lambda: institutions.of_author(self.store, author_id))

    def author_namesakes(self, node: Node) -> list[Node]:
        """The other people with this author's name, most papers first."""
        return self._memo(("namesakes", node.id), lambda: self._nodes(resolve.namesakes(self.store, node)))

    def author_span(self, author_id: str) -> tuple[int | None, int | None]:
        """The years of an author's first and last papers (``None`` when no paper has a year)."""
        years = self._memo(
            ("years-of", author_id), lambda: self.store.paper_years(PaperQuery(author=author_id))
        )
        return (years[0].year, years[-1].year) if years else (None, None)

    def author_venues(self, author_id: str, limit: int) -> list[tuple[str, int]]:
        """Where an author's papers appeared: per venue series (a venue without one by its name),
        the number of papers, most first, then by name; at most ``limit``."""

        def build() -> list[tuple[str, int]]:
            editions = self.store.author_venues([author_id], MAX_AUTHOR_VENUES)[0]
            nodes = {n.id: n for n in self._nodes([w.id for w in editions])}
            totals: dict[str, int] = {}
            for w in editions:
                node = nodes.get(w.id)
                props = node.properties if node is not None else {}
                label = str(props.get("series") or props.get("name") or w.id)
                totals[label] = totals.get(label, 0) + w.weight
            return sorted(totals.items(), key=lambda t: (-t[1], t[0]))

        return self._memo(("venues-of", author_id), build)[: max(0, limit)]

    def list_authors(
        self, search: str | None, order: ListOrder, offset: int, limit: int
    ) -> tuple[list[Node], int]:
        page = self.store.list_authors(search, order, offset, limit)
        return self._nodes(page.ids), page.total

    def coauthors_many(
        self, author_ids: Sequence[str], first: int = MAX_COAUTHORS
    ) -> list[list[tuple[Node, int]]]:
        """Co-authors with shared papers, heaviest first, then by name and id: each author's
        first ``first``."""
        return self.coauthor_pages([(a, first) for a in author_ids])

    def coauthor_pages(self, keys: Sequence[tuple[str, int]]) -> list[list[tuple[Node, int]]]:
        """For each (author id, ``first``): the first ``first`` co-authors, heaviest first, then
        by name and id.

        Why by key: the order within a weight is by name, so only the co-authors as heavy as
        the page's last one need their nodes (the names) read. A page of 20 of a prolific
        author's ~200 co-authors reads a few dozen nodes instead of all of them, which was most
        of the default page's CPU at 100k papers. Every co-author (``first`` 1,000) reads all.
        """
        ids = list(dict.fromkeys(a for a, _ in keys))
        lists = dict(zip(ids, self.store.weighted_neighbors(ids, "COAUTHOR", 1, MAX_COAUTHORS), strict=True))

        def wanted(author: str, first: int) -> list[Weighted]:
            ties = lists[author]
            if first <= 0:
                return []
            if len(ties) <= first:
                return ties
            cut = ties[first - 1].weight  # heaviest first: ties lighter than the page's last are out
            return [w for w in ties if w.weight >= cut]

        pages = [wanted(a, first) for a, first in keys]
        nodes = {n.id: n for n in self._nodes(sorted({w.id for ws in pages for w in ws}))}
        out = []
        for (author, first), ws in zip(keys, pages, strict=True):
            ranked = [(nodes[w.id], w.weight) for w in ws if w.id in nodes]
            if len(ranked) < min(first, len(ws)) < len(lists[author]):  # a node gone: every one
                return self._coauthor_pages_whole(keys, lists)
            ranked.sort(key=lambda p: (-p[1], fold(display(p[0])), p[0].id))
            out.append(ranked[: max(0, first)])
        return out

    def _coauthor_pages_whole(
        self, keys: Sequence[tuple[str, int]], lists: dict[str, list[Weighted]]
    ) -> list[list[tuple[Node, int]]]:
        """:meth:`coauthor_pages` with every co-author's node read (when some are missing)."""
        nodes = {n.id: n for n in self._nodes(sorted({w.id for ws in lists.values() for w in ws}))}
        out = []
        for author, first in keys:
            ranked = [(nodes[w.id], w.weight) for w in lists[author] if w.id in nodes]
            ranked.sort(key=lambda p: (-p[1], fold(display(p[0])), p[0].id))
            out.append(ranked[: max(0, first)])
        return out

    # -- venues and topics -----------------------------------------------------------------------
    def venues(self) -> list[Node]:
        """Every venue, by series then year (the venue table is small)."""

        def build() -> list[Node]:
            return sorted(
                self.store.nodes_by_label("Venue"),
                key=lambda n: (
                    fold(str(n.properties.get("series") or display(n))),
                    str(n.properties.get("year") or ""),
                    n.id,
                ),
            )

        return self._memo("venues", build)

    def topic_tree(self) -> TopicTree:
        return self._memo("topics", lambda: TopicTree.load(self.store))

    def topics(self) -> list[Node]:
        return self.topic_tree().ordered()

    def topic_query(self, tid: str) -> PaperQuery:
        return PaperQuery(topics=tuple(self.topic_tree().subtree(tid)))

    def topic_parent(self, tid: str) -> Node | None:
        tree = self.topic_tree()
        parent = tree.parent.get(tid)
        return tree.nodes.get(parent) if parent else None

    def topic_children(self, tid: str) -> list[Node]:
        tree = self.topic_tree()
        return [tree.nodes[c] for c in tree.children.get(tid, [])]

    # -- time ------------------------------------------------------------------------------------
    def venue_ids(self, venue: str | None) -> tuple[str, ...] | None:
        """The venue ids a venue name or series names (``None`` for no venue: every paper)."""
        return None if venue is None else tuple(resolve.resolve_venues(self.venues(), venue))

    def paper_years(self, venues: tuple[str, ...] | None) -> list[YearCount]:
        """Papers per year, of these venues or of all (cached per version: every trend needs it)."""
        return self._memo(("years", venues), lambda: self.store.paper_years(PaperQuery(venues=venues)))

    def concept_trend(
        self, cid: str, venue: str | None = None, about_only: bool = True, include_narrower: bool = False
    ) -> list[trends.YearShare]:
        """Papers about one concept (with ``include_narrower``, or its narrower concepts: as
        ``paperCount`` counts them by default) per year, of one venue or series or of all, with
        their share of that year's papers; every year with papers."""
        venues = self.venue_ids(venue)
        ids = self.closure(cid) if include_narrower else (cid,)
        query = PaperQuery(concepts=ids, about_only=about_only, venues=venues, narrower=below(cid, ids))
        about = self.store.paper_years(query)
        return trends.trend(about, self.paper_years(venues))

    def rising_concepts(
        self,
        venue: str | None,
        from_year: int,
        to_year: int,
        kind: str | None,
        first: int,
        about_only: bool = True,
    ) -> list[tuple[Node, trends.Rise]]:
        """The concepts that grew most from one year to a later one (:mod:`kg.read.trends`)."""
        if from_year >= to_year:
            raise InvalidArgument(f"`from` must be before `to` (got {from_year} and {to_year})")
        venues = self.venue_ids(venue)
        totals = {y.year: y.papers for y in self.paper_years(venues)}
        for year in (from_year, to_year):
            if not totals.get(year):
                scope = f"in {venue}" if venue is not None else "in the graph"
                known = ", ".join(str(y) for y in sorted(totals)) or "none"
                raise InvalidArgument(f"no papers {scope} in {year} (years with papers: {known})")

        def build() -> list[trends.Rise]:
            counts = [
                self.store.concept_counts(
                    PaperQuery(venues=venues, year=y), kind, RISING_CANDIDATES, about_only
                )
                for y in (from_year, to_year)
            ]
            return trends.rising(counts[0], totals[from_year], counts[1], totals[to_year], MAX_NODES)

        rises = self._memo(("rising", venues, from_year, to_year, kind, about_only), build)[:first]
        nodes = self.store.get_nodes([r.concept for r in rises])
        return [(n, r) for n, r in zip(nodes, rises, strict=True) if n is not None]

    def top_concepts(
        self, venue_id: str, year: int | None, kind: str | None, first: int
    ) -> list[tuple[Node, int]]:
        """The concepts most of one venue's papers (of one year, or all) are about."""
        rows = self.store.concept_counts(PaperQuery(venues=(venue_id,), year=year), kind, first)
        nodes = self.store.get_nodes([r.id for r in rows])
        return [(n, r.weight) for n, r in zip(nodes, rows, strict=True) if n is not None]

    # -- networks and analytics ------------------------------------------------------------------
    def coauthor_network(
        self, author: str, depth: int = 1, max_nodes: int = 200, years: tuple[int, int] | None = None
    ) -> NetworkView:
        """Co-authorship ego network of one author (by name), ``depth`` hops, ``max_nodes`` at most;
        with ``years`` (inclusive) only the papers of those years make ties."""
        networks.check_graph_args(depth, max_nodes)
        networks.check_years(years)
        center = self.require_author(author)
        ids, truncated = networks.ego_ids(self.store, "COAUTHOR", center.id, depth, max_nodes, years=years)
        return networks.view(self.store, "COAUTHOR", ids, truncated, years=years)

    def concept_graph(
        self,
        concept: str | None,
        min_weight: int = 1,
        max_nodes: int = 200,
        depth: int = 1,
        years: tuple[int, int] | None = None,
    ) -> NetworkView:
        """Co-occurrence around one concept, or the strongest part of the whole concept graph;
        with ``years`` (inclusive, around a concept only) only the papers of those years make
        ties, counted in the store by the rule the stored ties follow (kg.core.derived)."""
        networks.check_graph_args(depth, max_nodes, min_weight)
        networks.check_years(years)
        if years is not None:
            if concept is None:
                raise InvalidArgument("years: give a `concept` too (a year range applies around one concept)")
            center = self.require_concept(concept)
            ids, truncated = networks.ego_ids(
                self.store, "CO_OCCURS", center.id, depth, max_nodes, min_weight, years
            )
            return networks.view(self.store, "CO_OCCURS", ids, truncated, min_weight, years)
        if concept is None:
            ids, truncated = self._memo(
                ("strongest", min_weight, max_nodes),
                lambda: self.store.strongest_nodes("CO_OCCURS", min_weight, max_nodes),
            )
        else:
            center = self.require_concept(concept)
            ids, truncated = networks.ego_ids(
                self.store, "CO_OCCURS", center.id, depth, max_nodes, min_weight
            )
        return networks.view(self.store, "CO_OCCURS", ids, truncated, min_weight)

    def collaboration_path(self, source: str, target: str) -> list[Node] | None:
        """Authors on a shortest co-authorship chain between two authors (over every tie, searched
        in the store: ``ReadStore.coauthor_path``), or ``None`` within :data:`MAX_PATH_HOPS`."""
        a, b = self.require_author(source), self.require_author(target)
        path = self._memo(("path", a.id, b.id), lambda: self.store.coauthor_path(a.id, b.id, MAX_PATH_HOPS))
        return None if path is None else self._nodes(path)

    def _analysed(self, graph: GraphName) -> PairType:
        """The pair type of ``graph`` when ``kg analyze`` stored its analytics at the current
        store version; otherwise a clear error saying to run it (the API never computes them)."""
        pair = _pair(graph)
        now = self.version()
        # not cached: storing analytics leaves the store version as it is (one indexed row)
        at = self.store.analysis_version(pair)
        what = "co-author" if graph == "COAUTHOR" else "concept"
        if at is None:
            raise ServiceError(f"the {what} graph has not been analysed: run `kg analyze`")
        if at != now:
            raise ServiceError(
                f"the {what} graph's analytics are from store version {at} and the store is at "
                f"{now}: run `kg analyze` again"
            )
        return pair

    def central(self, graph: GraphName, measure: Measure, first: int) -> list[tuple[Node, float]]:
        """The ``first`` most central authors or concepts by one measure, as ``kg analyze``
        stored them (whole graph, computed outside the API)."""
        pair = self._analysed(graph)
        ranking = self.store.central_nodes(pair, measure, first)
        nodes = self.store.get_nodes([n for n, _ in ranking])
        return [(n, s) for n, (_, s) in zip(nodes, ranking, strict=True) if n is not None]

    def community_sizes(self, graph: GraphName, first: int) -> list[int]:
        """Sizes of the ``first`` stored Louvain communities, largest first."""
        pair = self._analysed(graph)
        return self.store.community_sizes(pair, first)

    def community_members(self, graph: GraphName, index: int, first: int) -> list[NetworkNode]:
        """The first members of one stored community (most papers first), with their paper counts."""
        pair = self._analysed(graph)
        ids = self.store.community_members(pair, index, first) if index >= 0 else []
        return networks.view(self.store, pair, ids, False).nodes

    def nodes(self, ids: Sequence[str]) -> list[Node | None]:
        return self.store.get_nodes(ids) if ids else []

    def _nodes(self, ids: Sequence[str]) -> list[Node]:
        return [n for n in self.store.get_nodes(ids) if n is not None] if ids else []
