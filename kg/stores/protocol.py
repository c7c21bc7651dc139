"""The store protocols: :class:`GraphStore` (writes and whole-graph operations) and
:class:`ReadStore` (every read the API serves, answered by the database itself).

Why two layers: the API must scale with the database, not with a copy of it. Every query the
GraphQL API serves is one method here, implemented once as SQL (``kg.stores.sqlite``) and once
as Cypher (``kg.stores.neo4j``); the read modules in ``kg.read`` compose them and hold no
whole-graph state. ``tests/contract`` asserts the same answers from both stores.

Ordering rules every backend follows (the contract suite checks them):

- batch reads return results in key order, one per key (``None`` or ``[]`` when missing), because
  the API's DataLoaders depend on it;
- paper lists are sorted as ``PaperQuery.order`` says (:data:`PaperOrder`; newest first by
  default); each backend turns an order into its query language in one function
  (``kg.stores.sqlite.reads.paper_order_by``, ``kg.stores.neo4j.read_queries.paper_order``), and
  ``tests/contract/test_paper_order.py`` runs every order on both;
- weighted neighbour lists are sorted heaviest first, then by id;
- listings "by paper count" are sorted by count descending, then folded name, then id.

Hidden state never shows: internal properties (lookup keys, sort keys) are stripped on read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, NamedTuple, Protocol, runtime_checkable

from kg.core.models import (
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

Direction = Literal["out", "in", "both"]
PairType = Literal["COAUTHOR", "CO_OCCURS"]
ListOrder = Literal["PAPER_COUNT", "NAME"]
# The longest narrower closure a concept query lists: the concept and 4,999 below it (the read
# service, the name resolver and the embedded store's held closure lists all use this one).
CLOSURE_LIMIT = 5000

# The orders of a paper list. Every one ends in a total order (the id last), so pages are
# windows of one sequence and both stores list ties alike:
# - NEWEST: year descending (no year last), then folded title, then id;
# - OLDEST: year ascending (no year last), then folded title, then id;
# - RELEVANCE: with ``text``, the full-text score, best first, then id; otherwise, with
#   ``concepts``, each paper's best link to them (:func:`link_relevance`), then NEWEST; with
#   neither, NEWEST.
PaperOrder = Literal["NEWEST", "OLDEST", "RELEVANCE"]
# How central one ``MENTIONS``/``INTRODUCES`` link is to its paper, in both stores' query
# languages (the same arithmetic, in the same order, so both give the same doubles): a paper
# about the concept (``about`` not false; an introduced concept always) ranks above one that
# mentions it in passing, then by ``salience`` (0-1), then by ``score`` (clamped to 0-99 and
# scaled below the smallest salience step, 0.05). :func:`link_relevance` is the same in Python.
SCORE_WEIGHT = 0.0001
# The version of :func:`link_relevance`: bump it with any change to the rule. The embedded store
# keeps each link's relevance as a column (``rels.rank``) and computes it again for every link
# when it is opened by a paperkg with another rule (``kg.stores.sqlite.schema.ensure_rank``), so
# an older store file answers by the new rule, as Neo4j (which computes it per read) does.
RELEVANCE_RULE = 1


def link_relevance(rel_type: str, props: Properties) -> float:
    """The relevance of one link (see :data:`SCORE_WEIGHT`); a paper's is its best link's.

    >>> link_relevance("MENTIONS", {"about": True, "salience": 0.55, "score": 4.0})
    2.5504
    >>> link_relevance("MENTIONS", {"about": False, "salience": 0.3}), link_relevance("INTRODUCES", {})
    (0.3, 3.0)
    """

    def number(key: str) -> float:
        value = props.get(key)
        return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

    score = SCORE_WEIGHT * min(max(number("score"), 0.0), 99.0)
    if rel_type == "INTRODUCES":
        return 3.0 + score
    about = 0 if props.get("about") is False else 1
    return 2.0 * about + number("salience") + score


class Edge(NamedTuple):
    """A relationship seen from one node: the relationship and the node at its other end."""

    rel: Relationship
    node: Node


class SearchHit(NamedTuple):
    """A ranked full-text hit."""

    node: Node
    score: float


class KeyphraseRow(NamedTuple):
    """A paper's phrase kept off the graph (:mod:`kg.core.provisional`): the concept id it would have,
    the concept's properties and the paper's ``MENTIONS`` properties, as the record gave them."""

    concept: str
    node: Properties
    rel: Properties


class Weighted(NamedTuple):
    """A neighbour over a weighted pair relationship (``COAUTHOR``/``CO_OCCURS``)."""

    id: str
    weight: int


class YearCount(NamedTuple):
    """Papers of one year."""

    year: int
    papers: int


class AnalysisRow(NamedTuple):
    """One node's stored graph analytics (``kg analyze``): centrality scores and its community
    (0 = the largest)."""

    id: str
    degree: float
    betweenness: float
    pagerank: float
    community: int


Measure = Literal["DEGREE", "BETWEENNESS", "PAGERANK"]


class NodeRow(NamedTuple):
    """A node as a network lists it: its display name (``""`` when it has none) and stored paper
    count, without its property map."""

    id: str
    label: str
    name: str
    papers: int


class PairEdge(NamedTuple):
    """An undirected weighted tie, ``source < target``."""

    source: str
    target: str
    weight: int


class StoredSlot(NamedTuple):
    """One stored author slot (an ``AUTHORED`` edge) with what author resolution compares.

    ``props``: the edge's properties (``position`` and the slot as printed: ``name``,
    ``nickname``, ``externalIds``, ``affiliations``); ``coauthors``: ``(position, name)`` of the
    paper's other authors.
    """

    author: str
    paper: str
    props: Properties
    year: int | None
    venue: str | None
    coauthors: tuple[tuple[int, str], ...]


class AuthorMove(NamedTuple):
    """Re-point one ``AUTHORED`` edge of ``paper`` from Author ``old`` to Author ``new``."""

    paper: str
    old: str
    new: str


@dataclass(frozen=True)
class PaperQuery:
    """Conditions on papers, all of which must hold (ids already resolved by ``kg.read``).

    ``concepts``: papers that mention or introduce any of these concept ids (the caller expands
    the narrower closure); with ``about_only`` a ``MENTIONS`` counts only when ``about`` is true
    (``INTRODUCES`` always counts). ``phrases``: papers holding a keyphrase row of any of these
    concept ids (a phrase that is no node yet; ``about_only`` applies to the row's mention).
    ``venues`` / ``topics``: any of these ids. ``text``: full-text match over title and abstract
    (the best 1,000 hits). ``status`` / ``track``: the paper's listing ``status``
    ("Oral", "Poster", "Reject") or ``track`` ("main"), exactly as listed.

    ``order``: how the matches are sorted (:data:`PaperOrder`). ``RELEVANCE`` ranks by the text
    score with ``text``, else by how central ``concepts`` are to each paper (its best link to
    any of them, :func:`link_relevance`: about first, then salience, then score), else it is
    ``NEWEST``. Unset (``None``): ``RELEVANCE`` with ``text``, else ``NEWEST``
    (:attr:`sort`, what the backends read).
    """

    concepts: tuple[str, ...] | None = None
    phrases: tuple[str, ...] | None = None
    about_only: bool = False
    author: str | None = None
    venues: tuple[str, ...] | None = None
    topics: tuple[str, ...] | None = None
    year: int | None = None
    text: str | None = None
    order: PaperOrder | None = None
    status: str | None = None
    track: str | None = None
    # Any of these paper ids (an institution's papers, :mod:`kg.read.institutions`).
    papers: tuple[str, ...] | None = None
    # The ids of ``concepts`` reached only through the narrower closure. With ``about_only`` a
    # ``MENTIONS`` marked ``climbs: false`` (a link whose sense the paper's text does not
    # support above its own concept: :mod:`extractors.concepts.analysis.senses`) counts for its
    # own concept but not here.
    narrower: tuple[str, ...] = ()

    @property
    def sort(self) -> PaperOrder:
        """The order the matches are listed in: ``order``, or when unset the text ranking for a
        text query and newest first for any other.

        >>> PaperQuery(text="nash").sort, PaperQuery(concepts=("concept:x",)).sort
        ('RELEVANCE', 'NEWEST')
        >>> PaperQuery(text="nash", order="NEWEST").sort
        'NEWEST'
        """
        if self.order is not None:
            return self.order
        return "RELEVANCE" if self.text is not None else "NEWEST"


@dataclass(frozen=True)
class Page:
    """One window of an ordered result: the ids in it and the size of the whole result."""

    ids: list[str]
    total: int


@runtime_checkable
class GraphStore(Protocol):
    """Where the graph lives. Writes are idempotent upserts; reads never mutate.

    Example:
        >>> from kg.stores.sqlite import SQLiteStore
        >>> store = SQLiteStore(None)  # in memory, not persisted
        >>> store.counts().nodes["Paper"]
        0
    """

    backend_name: str

    def upsert(self, records: Sequence[PaperRecord]) -> UpsertSummary:
        """Merge papers with their nodes and relationships; derived COAUTHOR/CO_OCCURS follow.

        Existing properties are kept unless the record gives a non-null value (``kg.core.merge``).
        The batch is one transaction: on error nothing of it is visible; the store version is
        bumped in the same transaction when anything changed.
        """
        ...

    def version(self) -> int:
        """A monotonic counter bumped by every write transaction that changed something."""
        ...

    def get_nodes(self, ids: Sequence[str]) -> list[Node | None]:
        """Nodes by id, in key order, ``None`` for a missing id."""
        ...

    def nodes_by_label(self, label: Label) -> list[Node]:
        """Every node with this label, sorted by id. Only for small labels (Venue, Topic) and
        whole-graph commands (export); the API never asks for Paper, Author or Concept."""
        ...

    def neighbors_many(
        self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out"
    ) -> list[list[Edge]]:
        """For each id (in key order) its relationships of one type, with the nodes at the other end.

        Each inner list is sorted by (other node id); empty when the node is missing.
        """
        ...

    def paper_authors(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        """Each paper's authors in byline order: ``AUTHORED.position`` (authors without one
        last), then author id; empty for a missing paper. What a page of papers shows, read
        without the relationships' property maps."""
        ...

    def degree_many(self, ids: Sequence[str], rel_type: RelType, direction: Direction = "out") -> list[int]:
        """For each id, the number of relationships of one type (0 when missing)."""
        ...

    def paper_counts(self, ids: Sequence[str]) -> list[int]:
        """For each id, its stored paper count (0 when missing): papers about a concept, papers
        of an author, venue or topic. The count ``paperCount`` and the listings sort by, kept
        by every write, so reading it costs one row per node, not a count of its papers."""
        ...

    def network_nodes(self, ids: Sequence[str]) -> list[NodeRow]:
        """The rows of the ids that exist, in the order given: what a network shows of each
        node (one read, no property maps: a network has up to a thousand nodes)."""
        ...

    def relationships(self, rel_type: RelType) -> list[Relationship]:
        """All relationships of one type, sorted by (start, end): export and bulk tools only."""
        ...

    def search(self, text: str, limit: int = 20, every_word: bool = False) -> list[SearchHit]:
        """Full-text search over paper titles/abstracts and concept names/aliases, best first;
        ``every_word``: only nodes with every word of ``text`` (in any of those fields)."""
        ...

    def counts(self) -> StoreCounts:
        """Node counts per label and relationship counts per type (all labels/types present)."""
        ...

    def export(self) -> Graph:
        """The whole graph, nodes sorted by id and relationships by (type, start, end)."""
        ...

    def iter_nodes(self) -> Iterator[Node]:
        """Every node in :meth:`export`'s order, read as it is consumed: ``kg export`` writes a
        graph of any size in memory that does not grow with it."""
        ...

    def iter_relationships(self) -> Iterator[Relationship]:
        """Every relationship sorted by (start, type, end), read as it is consumed: the order
        the embedded store keeps them in, so it streams them without sorting 750k rows first."""
        ...

    def flush(self) -> None:
        """Make every upsert so far durable (a no-op where each batch commits)."""
        ...

    def ping(self) -> None:
        """Raise :class:`kg.core.errors.StoreUnavailable` when the store cannot answer."""
        ...

    def clear(self) -> None:
        """Delete everything (tests and ``kg reset``)."""
        ...

    def author_slots(self, name_keys: Sequence[str]) -> list[StoredSlot]:
        """Every ``AUTHORED`` slot of the Authors any of these folded names (:func:`kg.core.ids.fold`)
        finds, sorted by (author, paper): what :mod:`kg.authors.ingest` re-resolves."""
        ...

    def reassign_authors(self, moves: Sequence[AuthorMove], nodes: dict[str, Properties]) -> None:
        """One transaction: set each Author of ``nodes`` to exactly these properties (created
        when missing), move each ``AUTHORED`` edge of ``moves`` (properties kept; merged into an
        edge the new Author has already), delete the Authors left without papers, and adjust
        the derived ``COAUTHOR`` pairs of the moved papers. A no-op changes nothing."""
        ...

    def remove_concepts(self, concepts: Sequence[str], links: Sequence[tuple[str, str, str]]) -> None:
        """One transaction: delete these Concept nodes with every relationship, and these
        ``(start, type, end)`` links (``MENTIONS``, ``INTRODUCES``, ``BROADER``; others are
        ignored), leaving every derived value (paper counts, ``CO_OCCURS`` pairs from each
        touched paper's top concepts, name keys, full-text rows) as an ingest of the remaining
        graph would. What ``kg curate`` concept verbs change at once (:mod:`kg.curation.concept_apply`);
        a missing id or link is skipped, and a no-op changes nothing."""
        ...

    def relink_keyphrases(self, concept_ids: Sequence[str], relink: Callable[[list[str]], list[str]]) -> None:
        """One transaction: each keyphrase row (:mod:`kg.core.provisional`) whose kept links name any
        of these concepts gets its links replaced by ``relink(links)`` (link texts, sorted), so a
        later promotion writes the links a fresh ingest would have kept (:mod:`kg.curation.concept_apply`)."""
        ...

    def affiliation_rows(self) -> list[tuple[str, str, object, object]]:
        """``(author, paper, paper year, institutions)`` of every ``AUTHORED`` edge that holds
        ``institutions`` entries (:mod:`kg.authors.institutions`), sorted by (author, paper)."""
        ...

    def replace_institutions(self, nodes: Sequence[Node], rels: Sequence[Relationship]) -> None:
        """One transaction: the Institution nodes and ``AFFILIATED_WITH`` relationships become
        exactly these (:func:`kg.authors.institutions.sync`); bumps the version."""
        ...

    def institutions_digest(self) -> str:
        """:func:`kg.authors.institutions.graph_digest` of the stored Institution nodes and
        ``AFFILIATED_WITH`` relationships, computed from a cursor (never the whole graph in
        memory) on every call, so it always describes what is stored now."""
        ...

    def institutions_synced_at(self) -> int | None:
        """The store version at which the institution graph was last found to be the one the
        ``AUTHORED`` edges give (:func:`kg.authors.institutions.sync`); ``None`` if never."""
        ...

    def note_institutions_synced(self, version: int) -> None:
        """Record :meth:`institutions_synced_at`; the store version stays."""
        ...

    def close(self) -> None:
        """Release resources; the store is unusable afterwards."""
        ...


@runtime_checkable
class ReadStore(GraphStore, Protocol):
    """The API's reads, each one query in the database. Every result is bounded by its arguments."""

    # -- names ---------------------------------------------------------------------------------
    def concepts_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        """For each :mod:`kg.core.names` key (in key order), the concept it names, or ``None``.

        When several concepts share a key, curated (``source: vocabulary``) beats discovered, a
        name beats an alias, then the smallest id wins.
        """
        ...

    def concepts_with_key_suffix(self, loose_key: str, limit: int) -> list[str]:
        """Concepts whose name or alias loose key ends with the words of ``loose_key`` (and is
        longer), sorted by id: the candidates of the head-noun rule ("bandits")."""
        ...

    def concepts_with_key_prefix(self, loose_key: str, limit: int) -> list[str]:
        """Concepts whose name or alias loose key starts with the words of ``loose_key`` (and is
        longer), sorted by id: the candidates of the modifier rule ("3D": "3D vision", "3D
        reconstruction", ...; :func:`kg.read.resolve.resolve_concept`)."""
        ...

    def narrower_closure(self, concept_id: str, limit: int) -> list[str]:
        """``concept_id`` and every concept below it over ``BROADER``, at most ``limit``, sorted by
        id after the first (which is ``concept_id`` itself, when it exists)."""
        ...

    def authors_named(self, key: str, limit: int) -> list[str]:
        """Every Author one :func:`kg.core.names.author_query_key` key finds (namesakes: several
        people of one name), most papers first, then by id; at most ``limit``."""
        ...

    def authors_by_keys(self, keys: Sequence[str]) -> list[str | None]:
        """For each folded author name key, the author it names (smallest id on ties), or ``None``."""
        ...

    def keyphrase_concepts(self, key: str, limit: int) -> list[str]:
        """The concept ids of the keyphrase rows whose :func:`kg.core.provisional.phrase_key` is
        ``key``, sorted, at most ``limit``: a phrase asked for by name that is no node."""
        ...

    # -- a paper's phrases ---------------------------------------------------------------------
    def paper_keyphrases(self, paper_ids: Sequence[str]) -> list[list[KeyphraseRow]]:
        """For each paper id (in key order) its keyphrase rows, sorted by concept id (internal
        keys of the row's concept map left out); empty for a missing paper."""
        ...

    # -- listings ------------------------------------------------------------------------------
    def papers(self, query: PaperQuery, offset: int, limit: int) -> Page:
        """Papers matching ``query`` in result order, ``limit`` of them from ``offset``, and the total."""
        ...

    def paper_count(self, query: PaperQuery) -> int:
        """How many papers match ``query`` (equal to ``papers(query, 0, 0).total``)."""
        ...

    def list_concepts(
        self, search: str | None, kind: str | None, order: ListOrder, offset: int, limit: int
    ) -> Page:
        """Concepts whose folded name or alias contains ``search`` (or whose loose key does),
        of one kind, by paper count (``MENTIONS`` in-degree) or by name."""
        ...

    def list_authors(self, search: str | None, order: ListOrder, offset: int, limit: int) -> Page:
        """Authors whose folded name or nickname contains ``search``, by paper count or name."""
        ...

    # -- networks ------------------------------------------------------------------------------
    def weighted_neighbors(
        self, ids: Sequence[str], pair: PairType, min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        """For each id, at most ``limit`` neighbours over ``pair`` with weight >= ``min_weight``,
        heaviest first, then by id."""
        ...

    def pair_edges_among(self, ids: Sequence[str], pair: PairType, min_weight: int) -> list[PairEdge]:
        """Every ``pair`` tie among ``ids`` with weight >= ``min_weight``, sorted."""
        ...

    def strongest_nodes(self, pair: PairType, min_weight: int, limit: int) -> tuple[list[str], bool]:
        """The ``limit`` nodes with the highest weighted degree over ties of ``min_weight`` or more
        (then by id), and whether more such nodes exist."""
        ...

    def heaviest_pairs(self, pair: PairType, limit: int) -> list[PairEdge]:
        """At most ``limit`` ties, heaviest first then (source, target): the bounded projection
        graph algorithms run on."""
        ...

    # -- time ----------------------------------------------------------------------------------
    def paper_years(self, query: PaperQuery) -> list[YearCount]:
        """How many papers matching ``query`` (no ``text``) each year has, by year; papers
        without a year are left out, years without papers are not listed."""
        ...

    def concept_counts(
        self, query: PaperQuery, kind: str | None, limit: int, about_only: bool = True
    ) -> list[Weighted]:
        """Concepts (of one ``kind``, or any) by how many papers matching ``query`` (no
        ``text``) are about them, most first, then by id; at most ``limit``. "About" is what
        ``papers(PaperQuery(concepts=(id,), about_only=True))`` counts: a ``MENTIONS`` not
        marked ``about: false``, or an ``INTRODUCES``; without ``about_only`` any ``MENTIONS``."""
        ...

    def coauthors_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        """``weighted_neighbors`` over ``COAUTHOR`` counting only the papers of ``years``
        (inclusive) that give co-author pairs (not marked ``coauthorPairs: false``)."""
        ...

    # -- stored analytics (kg analyze) ----------------------------------------------------------
    def save_analysis(self, pair: PairType, version: int, rows: Sequence[AnalysisRow]) -> None:
        """Replace the stored analytics of one graph by ``rows``, computed at store ``version``.
        Does not change the store version (it is not a change to the graph)."""
        ...

    def analysis_version(self, pair: PairType) -> int | None:
        """The store version the stored analytics of ``pair`` were computed at (``None``: none)."""
        ...

    def central_nodes(self, pair: PairType, measure: Measure, limit: int) -> list[tuple[str, float]]:
        """The ``limit`` nodes with the highest stored score, then by id."""
        ...

    def community_sizes(self, pair: PairType, limit: int) -> list[int]:
        """Sizes of the stored communities 0, 1, ... (largest first), at most ``limit``."""
        ...

    def community_members(self, pair: PairType, community: int, limit: int) -> list[str]:
        """Members of one stored community, most papers first (stored paper count), then by id."""
        ...

    def coauthor_path(self, source: str, target: str, max_hops: int) -> list[str] | None:
        """Author ids of a shortest chain of ``COAUTHOR`` ties (any weight, the whole graph) from
        ``source`` to ``target`` of at most ``max_hops`` ties, or ``None`` (also when either is
        missing). The length is the contract; which of several equally short chains is returned
        is the backend's (each gives the same one for the same graph)."""
        ...

    def author_venues(self, ids: Sequence[str], limit: int) -> list[list[Weighted]]:
        """For each author id (in key order), the venue editions of its papers with how many of
        them, most first, then by venue id, at most ``limit``; empty for a missing id. What tells
        namesakes apart in a list of authors."""
        ...

    def coauthor_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        """``pair_edges_among`` over ``COAUTHOR`` counting only the papers of ``years``."""
        ...

    def concepts_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        """``weighted_neighbors`` over ``CO_OCCURS`` counting only the papers of ``years``
        (inclusive): the pairs among each such paper's best ``CO_OCCURS_TOP_K`` mentions by
        score then id (:func:`kg.core.derived.top_concepts`, the rule the stored ties follow)."""
        ...

    def concept_edges_in_years(
        self, ids: Sequence[str], years: tuple[int, int], min_weight: int
    ) -> list[PairEdge]:
        """``pair_edges_among`` over ``CO_OCCURS`` counting only the papers of ``years``."""
        ...

    # -- paper embeddings (extractors.embedding: 384 int8 bytes each) ---------------------------
    def put_embeddings(self, pairs: Sequence[tuple[str, bytes]]) -> int:
        """Store the vectors of stored papers (``kg embed``); how many changed (a change bumps
        the version). Vectors of ids that are no paper are ignored."""
        ...

    def paper_embeddings(self, ids: Sequence[str]) -> list[bytes | None]:
        """Each paper's stored vector, ``None`` when it has none."""
        ...

    def nearest_papers(
        self, vector: bytes, limit: int, exclude: Sequence[str] = (), approximate: bool = False
    ) -> list[tuple[str, float]]:
        """Up to ``limit`` papers by cosine similarity of their vector to ``vector`` (rounded to
        4 decimals), best first, then by id; ``exclude``: ids left out (the query paper).
        ``approximate``: the caller accepts that a paper a cheaper first pass misses is missing
        (the scores of those found are the same): a search's few nearest papers. Neo4j's
        vector index is always such a first pass."""
        ...

    def papers_without_embedding(self, limit: int, after: str = "") -> list[tuple[str, str, str]]:
        """Up to ``limit`` papers with no vector of today's model, ids after ``after``:
        ``(id, title, abstract)``, by id. ``after`` lets a pass over the store resume where its
        last batch ended instead of walking the papers it already embedded again."""
        ...


class PageNodes(NamedTuple):
    """A page's papers read in one trip (role: read result): per asked id its node (``None`` when
    missing), and, when asked for, each one's authors in byline order (as
    :meth:`ReadStore.paper_authors`) and its venue (the smallest ``PUBLISHED_IN`` id, as
    :meth:`ReadStore.neighbors_many` lists them first); ``None`` when not asked for."""

    papers: list[Node | None]
    authors: list[list[Node]] | None
    venues: list[Node | None] | None


@runtime_checkable
class PageReads(Protocol):
    """A store that reads a page's papers with their authors and venues in one trip (optional).

    Why: on Neo4j the three reads (:meth:`ReadStore.get_nodes`, :meth:`ReadStore.paper_authors`,
    the venues' :meth:`ReadStore.neighbors_many`) were three transactions, each a round trip, a
    begin and commit on the server and the driver's decoding; one statement does them. A store
    without it (SQLite: three indexed queries in-process) is read the three ways, alike.
    """

    def page_nodes(self, paper_ids: Sequence[str], authors: bool, venues: bool) -> PageNodes:
        """The nodes of ``paper_ids`` (in key order) with their authors and venues when asked."""
        ...
