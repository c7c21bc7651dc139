"""Every read the GraphQL API needs, composed from :class:`kg.stores.protocol.GraphStore` protocol calls.

Resolvers stay thin: they ask :class:`GraphService` for ids (filtered, resolved, sorted) and
load nodes through per-request DataLoaders. The service holds the indexes that would be
expensive to rebuild per request (concept names and aliases, the topic tree, paper sort keys,
per-concept paper sets, analytics projections). The store is read-only while serving, so the
caches live until the store's *version* changes: a token from ``store.counts()``, re-read at
most every ``refresh_interval_s`` seconds so that an ingest into a shared Neo4j shows up without
a restart, and never per request.

Nothing here knows which backend it runs on; the contract suite's ordering rules (batch reads
in key order, sorted neighbour lists) are all it relies on.

Example:
    >>> from kg.networkx_store import NetworkXStore
    >>> service = GraphService(NetworkXStore())
    >>> service.resolve_concept("Nash equilibria") is None  # an empty graph knows no concepts
    True
"""

from __future__ import annotations

import difflib
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import repeat
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, TypeVar, cast

from extractors.concepts.normalize import is_acronym, norm_token
from extractors.concepts.vocabulary import phrase_key
from kg import analytics
from kg.errors import KGError
from kg.ids import author_id, fold, split_nickname
from kg.models import Node, RelType, StoreCounts
from kg.readers.fields import topic_path
from kg.stores.protocol import Edge, GraphStore, SearchHit

if TYPE_CHECKING:
    import networkx as nx
    from spacy.tokenizer import Tokenizer

__all__ = [
    "MAX_DEPTH",
    "MAX_NODES",
    "ConceptOrder",
    "GraphService",
    "InvalidArgument",
    "NetworkEdge",
    "NetworkNode",
    "NetworkView",
    "PaperFilter",
    "ServiceError",
    "UnknownName",
    "by_position",
    "by_score",
    "weighted_neighbors",
]

T = TypeVar("T")

# Caps on graph-shaped requests: they bound work by size, never by a timeout.
MAX_DEPTH = 3
MAX_NODES = 1000
# How many full-text hits a ``text`` paper filter considers before intersecting.
TEXT_FILTER_LIMIT = 1000
# Entries kept in the per-version caches of filter results and per-node paper sets.
RESULT_CACHE_SIZE = 4096
DEFAULT_REFRESH_INTERVAL_S = 10.0

_MISSING = object()
_WORDS = re.compile(r"[^\W_]+")

ConceptOrder = Literal["PAPER_COUNT", "NAME"]
AuthorOrder = Literal["PAPER_COUNT", "NAME"]
GraphName = Literal["COAUTHOR", "CONCEPT"]


class ServiceError(KGError):
    """A request the service cannot answer as asked (bad argument or unknown name)."""


class InvalidArgument(ServiceError):
    """An argument is out of range (depth, node budget, weight)."""


class UnknownName(ServiceError):
    """A name (concept, author, venue, topic) matches nothing in the graph; carries suggestions."""

    def __init__(self, kind: str, name: str, suggestions: Sequence[str] = ()) -> None:
        self.kind = kind
        self.name = name
        self.suggestions = list(suggestions)
        hint = f"; did you mean: {', '.join(self.suggestions)}?" if self.suggestions else ""
        super().__init__(f"unknown {kind} {name!r}{hint}")


@dataclass(frozen=True)
class PaperFilter:
    """Conditions on papers, all of which must hold (role: query input).

    ``concept`` includes narrower concepts and ``topic`` includes subtopics. ``text`` ranks by
    relevance; without it papers are sorted newest first, then by title.
    """

    venue: str | None = None
    year: int | None = None
    topic: str | None = None
    concept: str | None = None
    author: str | None = None
    text: str | None = None


class NetworkNode(NamedTuple):
    """A node of a network as served: id, label, display name, weight (its paper count)."""

    id: str
    label: str
    name: str
    weight: float | None


class NetworkEdge(NamedTuple):
    """An undirected tie as served, ``source < target``; ``weight`` is the shared papers."""

    source: str
    target: str
    weight: int


@dataclass(frozen=True)
class NetworkView:
    """A subgraph ready for display: rows the API serves as they are (attribute reads only)."""

    nodes: list[NetworkNode]
    edges: list[NetworkEdge]
    truncated: bool


def weighted_neighbors(edges: Iterable[Edge], weight_property: str = "papers") -> list[tuple[Node, int]]:
    """Neighbours over a weighted pair relationship, heaviest first, then by name and id.

    >>> from kg.models import Relationship
    >>> def e(i, name, w):
    ...     rel = Relationship(type="COAUTHOR", start="a", end=i, properties={"papers": w})
    ...     return Edge(rel, Node(id=i, label="Author", properties={"name": name}))
    >>> [(n.id, w) for n, w in weighted_neighbors([e("b", "Bo", 1), e("c", "Cy", 2), e("d", "Al", 1)])]
    [('c', 2), ('d', 1), ('b', 1)]
    """
    merged: dict[str, tuple[Node, int]] = {}
    for edge in edges:
        raw = edge.rel.properties.get(weight_property)
        w = int(raw) if isinstance(raw, int | float) else 1
        old = merged.get(edge.node.id)
        merged[edge.node.id] = (edge.node, w + (old[1] if old else 0))
    return sorted(merged.values(), key=lambda p: (-p[1], fold(_name(p[0])), p[0].id))


def by_position(edges: Iterable[Edge]) -> list[Node]:
    """A paper's authors from its ``AUTHORED`` edges, in byline order.

    >>> from kg.models import Relationship
    >>> def e(i, pos):
    ...     rel = Relationship(type="AUTHORED", start=i, end="p", properties={"position": pos})
    ...     return Edge(rel, Node(id=i, label="Author"))
    >>> [n.id for n in by_position([e("b", 2), e("a", 3), e("c", 1)])]
    ['c', 'b', 'a']
    """

    def key(edge: Edge) -> tuple[int, str]:
        pos = edge.rel.properties.get("position")
        return (int(pos) if isinstance(pos, int | float) else 1 << 30, edge.node.id)

    return [e.node for e in sorted(edges, key=key)]


def by_score(edges: Iterable[Edge]) -> list[Edge]:
    """``MENTIONS`` edges best score first, then by concept name (stable across backends)."""

    def key(edge: Edge) -> tuple[float, str, str]:
        score = edge.rel.properties.get("score")
        return (
            -(float(score) if isinstance(score, int | float) else 0.0),
            fold(_name(edge.node)),
            edge.node.id,
        )

    return sorted(edges, key=key)


def _network_node(node: Node, counts: dict[str, int]) -> NetworkNode:
    name = node.properties.get("name")
    return NetworkNode(
        id=node.id,
        label=node.label,
        name=(str(name) if name is not None else "") or node.id,
        weight=float(counts.get(node.id, 0)),
    )


def _name(node: Node) -> str:
    value = node.properties.get("name") or node.properties.get("title") or node.id
    return str(value)


def _strings(value: object) -> list[str]:
    return [str(v) for v in value] if isinstance(value, list) else []


@lru_cache(maxsize=1)
def _default_tokenizer() -> Tokenizer:
    """spaCy's English tokenizer, the one the extractors' vocabulary keys are made with."""
    import spacy

    return spacy.blank("en").tokenizer


# -- cached indexes ------------------------------------------------------------------------------


@dataclass
class ConceptIndex:
    """Concepts by id, name/alias keys, the ``BROADER`` hierarchy (role: read-side index)."""

    nodes: dict[str, Node]
    strict: dict[tuple[str, ...], str]  # phrase_key (acronyms case-sensitive) -> id
    loose: dict[tuple[str, ...], str]  # every token normalised -> id
    surfaces: dict[str, list[str]]  # folded name/alias -> ids, for suggestions
    search_text: dict[str, str]  # id -> folded "name | alias | ..." for substring search
    broader: dict[str, list[str]]
    narrower: dict[str, list[str]]

    def closure(self, cid: str) -> list[str]:
        """``cid`` and every concept below it, breadth first."""
        seen = [cid]
        known = {cid}
        i = 0
        while i < len(seen):
            for child in self.narrower.get(seen[i], []):
                if child not in known:
                    known.add(child)
                    seen.append(child)
            i += 1
        return seen


@dataclass
class TopicTree:
    """Topics by id with parent/children links (role: read-side index)."""

    nodes: dict[str, Node]
    parent: dict[str, str]
    children: dict[str, list[str]]

    def subtree(self, tid: str) -> list[str]:
        out = [tid]
        i = 0
        while i < len(out):
            out.extend(self.children.get(out[i], []))
            i += 1
        return out


@dataclass
class PaperTable:
    """Sort rank (newest first, then title) and year of every paper (role: read-side index)."""

    order: list[str]
    rank: dict[str, int]
    by_year: dict[int, frozenset[str]]


@dataclass
class _Snapshot:
    """Caches valid for one store version."""

    token: Hashable
    checked_at: float
    values: dict[Hashable, object] = field(default_factory=dict)
    lru: OrderedDict[Hashable, object] = field(default_factory=OrderedDict)
    locks: dict[Hashable, threading.Lock] = field(default_factory=dict)
    guard: threading.Lock = field(default_factory=threading.Lock)

    def peek(self, key: Hashable) -> object | None:
        """A bounded-cache entry, or ``None``."""
        return self.lru.get(key)

    def put(self, key: Hashable, value: object) -> None:
        """Store a bounded-cache entry, evicting the oldest beyond :data:`RESULT_CACHE_SIZE`."""
        with self.guard:
            self.lru[key] = value
            if len(self.lru) > RESULT_CACHE_SIZE:
                self.lru.popitem(last=False)

    def memo(self, key: Hashable, build: Callable[[], T], bounded: bool = False) -> T:
        """The value for ``key``, built once even when threads ask at the same time."""
        table: dict[Hashable, object] = self.lru if bounded else self.values
        value = table.get(key, _MISSING)  # one lookup: another thread may evict meanwhile
        if value is not _MISSING:
            return cast(T, value)
        with self.guard:
            lock = self.locks.setdefault(key, threading.Lock())
        with lock:
            value = table.get(key, _MISSING)
            if value is not _MISSING:
                return cast(T, value)
            built = build()
            with self.guard:
                table[key] = built
                if bounded and len(self.lru) > RESULT_CACHE_SIZE:
                    self.lru.popitem(last=False)
                self.locks.pop(key, None)
            return built


class GraphService:
    """Store-agnostic reads for the API, with caches invalidated when the store changes.

    Args:
        store: any :class:`kg.stores.protocol.GraphStore`; treated as read-only.
        refresh_interval_s: how often (at most) to re-read the store's version; ``0`` checks on
            every call (tests that write between queries).
        tokenizer: the spaCy tokenizer for concept-name keys (default: blank English, the same
            rules as the extraction model's tokenizer).

    Example:
        >>> from kg.networkx_store import NetworkXStore
        >>> GraphService(NetworkXStore()).filter_papers(PaperFilter())
        []
    """

    def __init__(
        self,
        store: GraphStore,
        *,
        refresh_interval_s: float = DEFAULT_REFRESH_INTERVAL_S,
        tokenizer: Tokenizer | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.store = store
        self._refresh = refresh_interval_s
        self._tokenizer = tokenizer
        self._clock = clock
        self._snap: _Snapshot | None = None
        self._version_lock = threading.Lock()

    # -- versioning ------------------------------------------------------------------------------
    @staticmethod
    def _token(counts: StoreCounts) -> Hashable:
        return (tuple(sorted(counts.nodes.items())), tuple(sorted(counts.relationships.items())))

    def _snapshot(self) -> _Snapshot:
        now = self._clock()
        snap = self._snap
        if snap is not None and now - snap.checked_at < self._refresh:
            return snap
        with self._version_lock:
            snap = self._snap
            if snap is not None and now - snap.checked_at < self._refresh:
                return snap
            token = self._token(self.store.counts())
            if snap is None or token != snap.token:
                snap = _Snapshot(token=token, checked_at=now)
                self._snap = snap
            else:
                snap.checked_at = now
            return snap

    def version(self) -> Hashable:
        """The current store version token (re-read when the refresh interval has passed)."""
        return self._snapshot().token

    def version_cache(self, name: Hashable) -> dict[Any, Any]:
        """A dict kept as long as the store version is unchanged, for layers above the service
        (the API keeps the objects it makes from cached nodes there); a new version starts empty."""
        return self._snapshot().memo(("version_cache", name), dict)

    def invalidate(self) -> None:
        """Drop every cache; the next call re-reads the store's version."""
        with self._version_lock:
            self._snap = None

    def warm(self) -> None:
        """Build the indexes and projections most queries need, so first requests are not slow."""
        self.concept_index()
        self.concept_paper_counts()
        self.paper_table()
        self.topic_tree()
        self.author_nodes()
        self._author_names()
        self.author_paper_counts()
        self.concept_papers()
        self._concept_suffixes()
        self._paper_links()
        self._author_sort_names()
        self.network_nodes("COAUTHOR")
        self.network_nodes("CONCEPT")
        self._projection("COAUTHOR")
        self._projection("CONCEPT")
        self.store.search("graph", 1)  # the embedded store builds its full-text index on first use

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = _default_tokenizer()
        return self._tokenizer

    # -- concepts --------------------------------------------------------------------------------
    @staticmethod
    def _loose_key(text: str) -> tuple[str, ...]:
        """Case-, accent-, plural- and punctuation-insensitive key (no tokenizer: it is per surface
        of every concept, and both the index and the queries use this same function).

        >>> GraphService._loose_key("Multi-armed Bandits"), GraphService._loose_key("LLMs")
        (('multi', 'armed', 'bandit'), ('llm',))
        """
        return tuple(norm_token(w) for w in _WORDS.findall(text))

    @staticmethod
    def _needs_strict_key(surface: str) -> bool:
        """Only surfaces with an acronym token differ between the strict and the loose key."""
        return any(is_acronym(w) for w in _WORDS.findall(surface))

    def concept_index(self) -> ConceptIndex:
        """Names, aliases and hierarchy of every concept (cached per store version)."""
        return self._snapshot().memo("concept_index", self._build_concept_index)

    def _build_concept_index(self) -> ConceptIndex:
        nodes = {n.id: n for n in self.store.nodes_by_label("Concept")}
        keyed: dict[str, list[tuple[str, tuple[str, ...], tuple[str, ...]]]] = {}
        search_text: dict[str, str] = {}
        for n in nodes.values():
            rows = []
            for surface in [_name(n), *_strings(n.properties.get("aliases"))]:
                # spaCy tokenisation is the costly part: only acronym-bearing surfaces need it.
                strict_key = phrase_key(self.tokenizer, surface) if self._needs_strict_key(surface) else ()
                rows.append((fold(surface), strict_key, self._loose_key(surface)))
            keyed[n.id] = rows
            search_text[n.id] = " | ".join(
                dict.fromkeys([r[0] for r in rows] + [" ".join(r[2]) for r in rows])
            )
        # Curated concepts claim a surface form before discovered ones (even a discovered name
        # does not take a curated alias); within each group a name beats an alias.
        curated = sorted(i for i, n in nodes.items() if n.properties.get("source") == "vocabulary")
        discovered = sorted(i for i, n in nodes.items() if n.properties.get("source") != "vocabulary")
        strict: dict[tuple[str, ...], str] = {}
        loose: dict[tuple[str, ...], str] = {}
        surfaces: dict[str, list[str]] = {}
        for group, alias_pass in ((curated, False), (curated, True), (discovered, False), (discovered, True)):
            for cid in group:
                n = nodes[cid]
                rows = keyed[n.id][1:] if alias_pass else keyed[n.id][:1]
                for folded, strict_key, loose_key in rows:
                    if strict_key:
                        strict.setdefault(strict_key, n.id)
                    if loose_key:
                        loose.setdefault(loose_key, n.id)
                    ids = surfaces.setdefault(folded, [])
                    if n.id not in ids:
                        ids.append(n.id)
        broader: dict[str, list[str]] = {}
        narrower: dict[str, list[str]] = {}
        for r in self.store.relationships("BROADER"):
            if r.start in nodes and r.end in nodes:
                broader.setdefault(r.start, []).append(r.end)
                narrower.setdefault(r.end, []).append(r.start)
        return ConceptIndex(nodes, strict, loose, surfaces, search_text, broader, narrower)

    def resolve_concept(self, name: str) -> Node | None:
        """The concept a name denotes: exact name or alias, any case, plural or acronym form.

        Tried in order: the strict key (acronyms case-sensitive, so ``LP`` is not ``lp``), the
        loose key (all case folded, plurals stripped), then the head-noun rule: ``bandits`` is
        the one concept ending in "bandit(s)" that all other such concepts are narrower than.
        """
        if not name.strip():
            return None
        index = self.concept_index()
        cid = index.strict.get(phrase_key(self.tokenizer, name))
        if cid is None:
            cid = index.loose.get(self._loose_key(name))
        if cid is None:
            cid = self._head_noun_concept(index, self._loose_key(name))
        if cid is None and name in index.nodes:
            cid = name  # an id works too
        return index.nodes.get(cid) if cid else None

    def _head_noun_concept(self, index: ConceptIndex, key: tuple[str, ...]) -> str | None:
        if not key:
            return None
        candidates = self._concept_suffixes().get(key, set())
        if len(candidates) < 2:
            return None
        covered = {c: set(index.closure(c)) & candidates for c in candidates}
        best = max(candidates, key=lambda c: (len(covered[c]), c))
        ties = [c for c in candidates if len(covered[c]) == len(covered[best])]
        # Only a concept that really is the parent of its namesakes qualifies.
        if len(ties) == 1 and len(covered[best]) >= max(2, len(candidates) // 2 + 1):
            return best
        return None

    def _concept_suffixes(self) -> dict[tuple[str, ...], set[str]]:
        """Proper suffixes of every loose key -> the concepts whose key ends so (cached), so the
        head-noun rule does not scan every concept for each unknown name."""

        def build() -> dict[tuple[str, ...], set[str]]:
            out: dict[tuple[str, ...], set[str]] = {}
            for lkey, cid in self.concept_index().loose.items():
                for i in range(1, len(lkey)):
                    out.setdefault(lkey[i:], set()).add(cid)
            return out

        return self._snapshot().memo("concept_suffixes", build)

    def require_concept(self, name: str) -> Node:
        """Like :meth:`resolve_concept` but raises :class:`UnknownName` with suggestions."""
        node = self.resolve_concept(name)
        if node is None:
            raise UnknownName("concept", name, [_name(n) for n in self.suggest_concepts(name, 5)])
        return node

    def suggest_concepts(self, name: str, limit: int = 5) -> list[Node]:
        """Concepts whose name or alias resembles ``name``: substring hits first, then close matches."""
        index = self.concept_index()
        counts = self.concept_paper_counts()
        query = fold(name)
        if not query or limit <= 0:
            return []
        loose = " ".join(self._loose_key(name))
        contains = [
            cid for cid, text in index.search_text.items() if query in text or (loose and loose in text)
        ]
        contains.sort(key=lambda c: (-counts.get(c, 0), fold(_name(index.nodes[c])), c))
        out: list[str] = list(dict.fromkeys(contains))[:limit]
        if len(out) < limit:
            close = difflib.get_close_matches(query, list(index.surfaces), n=limit * 3, cutoff=0.6)
            for surface in close:
                for cid in index.surfaces[surface]:
                    if cid not in out:
                        out.append(cid)
        return [index.nodes[c] for c in out[:limit]]

    def concept_paper_counts(self) -> dict[str, int]:
        """Papers mentioning each concept directly (cached)."""

        def build() -> dict[str, int]:
            ids = sorted(self.concept_index().nodes)
            return dict(zip(ids, self.store.degree_many(ids, "MENTIONS", "in"), strict=True))

        return self._snapshot().memo("concept_paper_counts", build)

    def list_concepts(
        self, search: str | None = None, kind: str | None = None, order: ConceptOrder = "PAPER_COUNT"
    ) -> list[Node]:
        """Concepts filtered by substring of name/alias and by kind, in the requested order."""

        def build() -> list[Node]:
            index = self.concept_index()
            nodes = list(index.nodes.values())
            if kind:
                nodes = [n for n in nodes if n.properties.get("kind") == kind]
            if search and search.strip():
                q = fold(search)
                loose = " ".join(self._loose_key(search))
                nodes = [
                    n
                    for n in nodes
                    if q in index.search_text[n.id] or (loose and loose in index.search_text[n.id])
                ]
            if order == "NAME":
                nodes.sort(key=lambda n: (fold(_name(n)), n.id))
            else:
                counts = self.concept_paper_counts()
                nodes.sort(key=lambda n: (-counts.get(n.id, 0), fold(_name(n)), n.id))
            return nodes

        return self._snapshot().memo(("concepts", search, kind, order), build, bounded=True)

    def broader(self, cid: str) -> list[Node]:
        """Direct broader concepts, by name."""
        index = self.concept_index()
        return sorted((index.nodes[b] for b in index.broader.get(cid, [])), key=lambda n: fold(_name(n)))

    def narrower(self, cid: str) -> list[Node]:
        """Direct narrower concepts, by name."""
        index = self.concept_index()
        return sorted((index.nodes[c] for c in index.narrower.get(cid, [])), key=lambda n: fold(_name(n)))

    def concept_papers(self) -> dict[str, frozenset[int]]:
        """Per concept, the sort ranks (see :meth:`paper_table`) of the papers that mention or
        introduce it (cached per version; two bulk reads, so that no request has to fetch a
        popular concept's thousands of papers one relationship at a time)."""

        def build() -> dict[str, frozenset[int]]:
            rank = self.paper_table().rank
            found: dict[str, set[int]] = {}
            for rel_type in ("MENTIONS", "INTRODUCES"):
                for r in self.store.relationships(rel_type):
                    position = rank.get(r.start)
                    if position is not None:
                        found.setdefault(r.end, set()).add(position)
            return {cid: frozenset(ranks) for cid, ranks in found.items()}

        return self._snapshot().memo("concept_papers", build)

    def concept_paper_ids(self, cid: str, include_narrower: bool = True) -> list[str]:
        """Papers that mention or introduce the concept (and its narrower ones), sorted."""

        def build() -> list[str]:
            ids = self.concept_index().closure(cid) if include_narrower else [cid]
            index = self.concept_papers()
            ranks = frozenset().union(*(index.get(c, frozenset()) for c in ids))
            order = self.paper_table().order
            return [order[r] for r in sorted(ranks)]

        return self._snapshot().memo(("concept_papers", cid, include_narrower), build, bounded=True)

    def _papers_of(
        self, ids: Sequence[str], kind: str, rels: Sequence[tuple[RelType, Literal["in", "out"]]]
    ) -> list[frozenset[str]]:
        """Per node (in key order), the paper ids at the other end of ``rels``.

        Each node's set is cached; the uncached ones are fetched with one batched
        ``neighbors_many`` call per relationship type.
        """
        snap = self._snapshot()
        cached = {i: snap.peek((kind, i)) for i in ids}
        missing = [i for i, v in cached.items() if v is None]
        if missing:
            found: dict[str, set[str]] = {i: set() for i in missing}
            for rel_type, direction in rels:
                batches = self.store.neighbors_many(missing, rel_type, direction)
                for node_id, edges in zip(missing, batches, strict=True):
                    found[node_id].update(e.node.id for e in edges if e.node.label == "Paper")
            for node_id, papers in found.items():
                frozen = frozenset(papers)
                snap.put((kind, node_id), frozen)
                cached[node_id] = frozen
        return [cast(frozenset[str], cached[i]) for i in ids]

    # -- papers ----------------------------------------------------------------------------------
    def paper_table(self) -> PaperTable:
        """Every paper's sort rank and year (cached per store version)."""

        def build() -> PaperTable:
            papers = self.store.nodes_by_label("Paper")
            keyed = []
            by_year: dict[int, set[str]] = {}
            for p in papers:
                year = p.properties.get("year")
                y = int(year) if isinstance(year, int | float) else None
                if y is not None:
                    by_year.setdefault(y, set()).add(p.id)
                keyed.append((-(y or 0), fold(str(p.properties.get("title") or "")), p.id))
            keyed.sort()
            order = [k[2] for k in keyed]
            return PaperTable(
                order=order,
                rank={pid: i for i, pid in enumerate(order)},
                by_year={y: frozenset(s) for y, s in by_year.items()},
            )

        return self._snapshot().memo("paper_table", build)

    def sort_paper_ids(self, ids: Iterable[str]) -> list[str]:
        """Paper ids newest first, then by title (unknown ids last, by id)."""
        rank = self.paper_table().rank
        big = len(rank)
        return sorted(set(ids), key=lambda i: (rank.get(i, big), i))

    def filter_papers(self, where: PaperFilter) -> list[str]:
        """Ids of the papers matching every condition of ``where``, in result order.

        Raises:
            UnknownName: a venue, topic, concept or author that matches nothing.
        """
        return self._snapshot().memo(("papers", where), lambda: self._filter(where), bounded=True)

    def _filter(self, where: PaperFilter) -> list[str]:
        sets: list[frozenset[str]] = []
        if where.author is not None:
            author = self.require_author(where.author)
            sets.append(self._papers_of([author.id], "author", (("AUTHORED", "out"),))[0])
        if where.venue is not None:
            sets.append(
                frozenset().union(
                    *self._papers_of(self.resolve_venues(where.venue), "venue", (("PUBLISHED_IN", "in"),))
                )
            )
        if where.topic is not None:
            topics = [t for tid in self.resolve_topics(where.topic) for t in self.topic_tree().subtree(tid)]
            sets.append(frozenset().union(*self._papers_of(topics, "topic", (("HAS_TOPIC", "in"),))))
        if where.concept is not None:
            concept = self.require_concept(where.concept)
            sets.append(frozenset(self.concept_paper_ids(concept.id, include_narrower=True)))
        if where.year is not None:
            sets.append(self.paper_table().by_year.get(where.year, frozenset()))
        if where.text is not None and where.text.strip():
            hits = [
                h.node.id for h in self.store.search(where.text, TEXT_FILTER_LIMIT) if h.node.label == "Paper"
            ]
            keep = frozenset.intersection(*sets) if sets else None
            return [h for h in dict.fromkeys(hits) if keep is None or h in keep]
        if not sets:
            return list(self.paper_table().order)
        smallest = min(sets, key=len)
        return self.sort_paper_ids(i for i in smallest if all(i in s for s in sets))

    def search(self, text: str, limit: int) -> list[SearchHit]:
        """Full-text hits over papers and concepts, best first (the store's ranking; cached)."""
        if not text.strip() or limit <= 0:
            return []
        return self._snapshot().memo(
            ("search", text, limit), lambda: self.store.search(text, limit), bounded=True
        )

    def counts(self) -> StoreCounts:
        """Node and relationship counts."""
        return self.store.counts()

    # -- authors ---------------------------------------------------------------------------------
    def author_nodes(self) -> dict[str, Node]:
        """Every author by id (cached)."""
        return self._snapshot().memo(
            "authors", lambda: {n.id: n for n in self.store.nodes_by_label("Author")}
        )

    def _author_names(self) -> dict[str, str]:
        def build() -> dict[str, str]:
            out: dict[str, str] = {}
            for n in sorted(self.author_nodes().values(), key=lambda n: n.id):
                out.setdefault(fold(_name(n)), n.id)
                nick = n.properties.get("nickname")
                if nick:
                    first, _, rest = _name(n).partition(" ")
                    out.setdefault(fold(f"{nick} {rest}" if rest else str(nick)), n.id)
            return out

        return self._snapshot().memo("author_names", build)

    def resolve_author(self, name: str) -> Node | None:
        """An author by name (any case or accents, with or without a quoted nickname) or id."""
        if not name.strip():
            return None
        nodes = self.author_nodes()
        for candidate in (author_id(name), name, self._author_names().get(fold(split_nickname(name)[0]))):
            if candidate and candidate in nodes:
                return nodes[candidate]
        return None

    def require_author(self, name: str) -> Node:
        """Like :meth:`resolve_author` but raises :class:`UnknownName` with suggestions."""
        node = self.resolve_author(name)
        if node is None:
            names = self._author_names()
            close = difflib.get_close_matches(fold(name), list(names), n=5, cutoff=0.7)
            nodes = self.author_nodes()
            raise UnknownName("author", name, [_name(nodes[names[c]]) for c in close])
        return node

    def coauthors(self, author_id: str) -> list[tuple[Node, int]]:
        """Co-authors of one author with their shared papers, heaviest first, then by name and id
        (what :func:`weighted_neighbors` makes of its ``COAUTHOR`` edges), from the cached
        projection: no store read per request."""
        g = self._projection("COAUTHOR")
        nbrs = g._adj.get(author_id)
        if not nbrs:
            return []
        nodes, folded = self.author_nodes(), self._author_sort_names()
        ranked = sorted(
            ((int(d["weight"]), str(b)) for b, d in nbrs.items() if b in nodes),
            key=lambda p: (-p[0], folded.get(p[1], ""), p[1]),
        )
        return [(nodes[b], w) for w, b in ranked]

    def coauthors_many(self, author_ids: Sequence[str]) -> list[list[tuple[Node, int]]]:
        return [self.coauthors(a) for a in author_ids]

    def _author_sort_names(self) -> dict[str, str]:
        return self._snapshot().memo(
            "author_sort_names", lambda: {i: fold(_name(n)) for i, n in self.author_nodes().items()}
        )

    def _paper_links(self) -> tuple[dict[str, list[Node]], dict[str, Node]]:
        """Per paper: its author nodes in byline order (position, then id, as
        :func:`by_position`), and its venue node (the smallest id, as the first of sorted
        neighbours). Two bulk reads, cached per version."""

        def build() -> tuple[dict[str, list[Node]], dict[str, Node]]:
            nodes = self.author_nodes()
            rows: dict[str, list[tuple[int, str]]] = {}
            for r in self.store.relationships("AUTHORED"):
                pos = r.properties.get("position")
                rows.setdefault(r.end, []).append(
                    (int(pos) if isinstance(pos, int | float) else 1 << 30, r.start)
                )
            authors = {p: [nodes[a] for _, a in sorted(v) if a in nodes] for p, v in rows.items()}
            venues = {v.id: v for v in self.venues()}
            venue_ids: dict[str, str] = {}
            for r in self.store.relationships("PUBLISHED_IN"):
                if r.end in venues and (r.start not in venue_ids or r.end < venue_ids[r.start]):
                    venue_ids[r.start] = r.end
            return authors, {p: venues[v] for p, v in venue_ids.items()}

        return self._snapshot().memo("paper_links", build)

    def paper_authors(self, paper_id: str) -> list[Node]:
        """A paper's authors in byline order (cached per version; do not modify the list)."""
        return self._paper_links()[0].get(paper_id, [])

    def paper_authors_many(self, paper_ids: Sequence[str]) -> list[list[Node]]:
        authors = self._paper_links()[0]
        return [authors.get(p, []) for p in paper_ids]

    def paper_venue(self, paper_id: str) -> Node | None:
        """The venue a paper was published in, if the listing said (cached per version)."""
        return self._paper_links()[1].get(paper_id)

    def paper_venue_many(self, paper_ids: Sequence[str]) -> list[Node | None]:
        venues = self._paper_links()[1]
        return [venues.get(p) for p in paper_ids]

    def author_paper_counts(self) -> dict[str, int]:
        """Papers per author (cached)."""

        def build() -> dict[str, int]:
            ids = sorted(self.author_nodes())
            return dict(zip(ids, self.store.degree_many(ids, "AUTHORED", "out"), strict=True))

        return self._snapshot().memo("author_paper_counts", build)

    def list_authors(self, search: str | None = None, order: AuthorOrder = "NAME") -> list[Node]:
        """Authors whose name (or nickname) contains ``search``, by name or by paper count."""

        def build() -> list[Node]:
            nodes = list(self.author_nodes().values())
            if search and search.strip():
                q = fold(search)
                nodes = [
                    n
                    for n in nodes
                    if q in fold(_name(n)) or q in fold(str(n.properties.get("nickname") or ""))
                ]
            if order == "PAPER_COUNT":
                counts = self.author_paper_counts()
                nodes.sort(key=lambda n: (-counts.get(n.id, 0), fold(_name(n)), n.id))
            else:
                nodes.sort(key=lambda n: (fold(_name(n)), n.id))
            return nodes

        return self._snapshot().memo(("authors", search, order), build, bounded=True)

    # -- venues and topics -----------------------------------------------------------------------
    def venues(self) -> list[Node]:
        """Every venue, by series then year."""

        def build() -> list[Node]:
            nodes = self.store.nodes_by_label("Venue")
            return sorted(
                nodes,
                key=lambda n: (
                    fold(str(n.properties.get("series") or _name(n))),
                    str(n.properties.get("year") or ""),
                    n.id,
                ),
            )

        return self._snapshot().memo("venues", build)

    def resolve_venues(self, name: str) -> list[str]:
        """Venue ids for a name (``ICLR 2026``) or a series (``ICLR``: every year); raises if none."""
        q = fold(name)
        venues = self.venues()
        exact = [v.id for v in venues if fold(_name(v)) == q or v.id == name]
        if exact:
            return exact
        series = [v.id for v in venues if fold(str(v.properties.get("series") or "")) == q]
        if series:
            return series
        close = difflib.get_close_matches(q, [fold(_name(v)) for v in venues], n=5, cutoff=0.5)
        names = {fold(_name(v)): _name(v) for v in venues}
        raise UnknownName("venue", name, [names[c] for c in close])

    def topic_tree(self) -> TopicTree:
        """Topics with their hierarchy (cached)."""

        def build() -> TopicTree:
            nodes = {n.id: n for n in self.store.nodes_by_label("Topic")}
            parent: dict[str, str] = {}
            children: dict[str, list[str]] = {}
            for r in self.store.relationships("SUBTOPIC_OF"):
                if r.start in nodes and r.end in nodes:
                    parent[r.start] = r.end
                    children.setdefault(r.end, []).append(r.start)
            for kids in children.values():
                kids.sort(key=lambda t: (fold(_name(nodes[t])), t))
            return TopicTree(nodes, parent, children)

        return self._snapshot().memo("topic_tree", build)

    def topics(self) -> list[Node]:
        """Every topic, in path order (parents before their subtopics)."""
        tree = self.topic_tree()
        return sorted(
            tree.nodes.values(), key=lambda n: ([fold(p) for p in _strings(n.properties.get("path"))], n.id)
        )

    def resolve_topics(self, name: str) -> list[str]:
        """Topic ids for a full path (``Deep Learning · LLMs``) or a leaf name; raises if none."""
        tree = self.topic_tree()
        path = [fold(p) for p in topic_path(name)]
        by_path = [
            t for t, n in tree.nodes.items() if [fold(p) for p in _strings(n.properties.get("path"))] == path
        ]
        if by_path:
            return sorted(by_path)
        by_name = sorted(t for t, n in tree.nodes.items() if fold(_name(n)) == fold(name))
        if by_name:
            return by_name
        if name in tree.nodes:
            return [name]
        names = {fold(_name(n)): _name(n) for n in tree.nodes.values()}
        close = difflib.get_close_matches(fold(name), list(names), n=5, cutoff=0.5)
        raise UnknownName("topic", name, [names[c] for c in close])

    def topic_parent(self, tid: str) -> Node | None:
        tree = self.topic_tree()
        parent = tree.parent.get(tid)
        return tree.nodes.get(parent) if parent else None

    def topic_children(self, tid: str) -> list[Node]:
        tree = self.topic_tree()
        return [tree.nodes[c] for c in tree.children.get(tid, [])]

    def topic_paper_ids(self, tid: str) -> list[str]:
        """Papers of a topic and all its subtopics, sorted."""

        def build() -> list[str]:
            per_topic = self._papers_of(self.topic_tree().subtree(tid), "topic", (("HAS_TOPIC", "in"),))
            return self.sort_paper_ids(frozenset().union(*per_topic))

        return self._snapshot().memo(("topic_papers", tid), build, bounded=True)

    def venue_paper_ids(self, vid: str) -> list[str]:
        """Papers published in one venue, sorted."""
        return self._snapshot().memo(
            ("venue_papers", vid),
            lambda: self.sort_paper_ids(self._papers_of([vid], "venue", (("PUBLISHED_IN", "in"),))[0]),
            bounded=True,
        )

    # -- analytics -------------------------------------------------------------------------------
    @staticmethod
    def _check_graph_args(depth: int, max_nodes: int, min_weight: int = 1) -> None:
        if not 0 <= depth <= MAX_DEPTH:
            raise InvalidArgument(f"depth must be between 0 and {MAX_DEPTH} (got {depth})")
        if not 1 <= max_nodes <= MAX_NODES:
            raise InvalidArgument(f"maxNodes must be between 1 and {MAX_NODES} (got {max_nodes})")
        if min_weight < 1:
            raise InvalidArgument(f"minWeight must be at least 1 (got {min_weight})")

    def _projection(self, graph: GraphName) -> nx.Graph:
        rel: analytics.ProjectionType = "COAUTHOR" if graph == "COAUTHOR" else "CO_OCCURS"
        return analytics.projection(self.store, rel, version=self.version())

    def network_nodes(self, graph: GraphName) -> dict[str, NetworkNode]:
        """Every author (``COAUTHOR``) or concept (``CONCEPT``) as a network node row (cached)."""

        def build() -> dict[str, NetworkNode]:
            if graph == "COAUTHOR":
                nodes, counts = self.author_nodes(), self.author_paper_counts()
            else:
                nodes, counts = self.concept_index().nodes, self.concept_paper_counts()
            return {i: _network_node(n, counts) for i, n in nodes.items()}

        return self._snapshot().memo(("network_nodes", graph), build)

    def _view(self, sub: analytics.Subgraph, graph: GraphName) -> NetworkView:
        rows = self.network_nodes(graph)
        missing = [i for i in sub.nodes if i not in rows]
        if missing:  # not an author/concept after all: read it (never the case in practice)
            counts = self.author_paper_counts() if graph == "COAUTHOR" else self.concept_paper_counts()
            found = {n.id: _network_node(n, counts) for n in self.store.get_nodes(missing) if n is not None}
            rows = {**found, **{i: rows[i] for i in sub.nodes if i in rows}}
        return NetworkView(
            nodes=[rows[i] for i in sub.nodes if i in rows],
            edges=list(map(tuple.__new__, repeat(NetworkEdge), sub.edges)),  # NetworkEdge._make, in C
            truncated=sub.truncated,
        )

    def coauthor_network(self, author: str, depth: int = 1, max_nodes: int = 200) -> NetworkView:
        """Co-authorship ego network of one author (by name), ``depth`` hops, ``max_nodes`` at most."""
        self._check_graph_args(depth, max_nodes)
        center = self.require_author(author)
        sub = analytics.ego_network(self._projection("COAUTHOR"), center.id, depth, max_nodes)
        return self._view(sub, "COAUTHOR")

    def concept_graph(
        self, concept: str | None, min_weight: int = 1, max_nodes: int = 200, depth: int = 1
    ) -> NetworkView:
        """Co-occurrence around one concept, or the strongest part of the whole concept graph."""
        self._check_graph_args(depth, max_nodes, min_weight)
        g = self._projection("CONCEPT")
        if concept is None:
            sub = analytics.top_subgraph(g, max_nodes, min_weight)
        else:
            center = self.require_concept(concept)
            sub = analytics.ego_network(g, center.id, depth, max_nodes, min_weight)
        return self._view(sub, "CONCEPT")

    def collaboration_path(self, source: str, target: str) -> list[Node] | None:
        """Authors on a shortest co-authorship chain between two authors, or ``None``."""
        a, b = self.require_author(source), self.require_author(target)
        path = analytics.collaboration_path(self._projection("COAUTHOR"), a.id, b.id)
        if path is None:
            return None
        nodes = self.store.get_nodes(path)
        return [n for n in nodes if n is not None]

    def central(self, graph: GraphName, measure: analytics.Measure, first: int) -> list[tuple[Node, float]]:
        """The ``first`` most central authors or concepts by one measure (cached per version)."""
        ranking = self._snapshot().memo(
            ("central", graph, measure),
            lambda: analytics.centrality(self._projection(graph), measure, MAX_NODES),
        )[:first]
        nodes = self.store.get_nodes([n for n, _ in ranking]) if ranking else []
        return [(n, s) for n, (_, s) in zip(nodes, ranking, strict=True) if n is not None]

    def communities(self, graph: GraphName) -> list[list[str]]:
        """Louvain communities of the co-author or concept graph, largest first (cached).

        Members of each community are ordered by paper count (most prolific first), then id.
        """

        def build() -> list[list[str]]:
            counts = self.author_paper_counts() if graph == "COAUTHOR" else self.concept_paper_counts()
            groups = analytics.communities(self._projection(graph))
            return [sorted(g, key=lambda n: (-counts.get(n, 0), n)) for g in groups]

        return self._snapshot().memo(("communities", graph), build)

    def community_members(self, graph: GraphName, index: int, first: int) -> list[NetworkNode]:
        """The first members of one community, with their paper counts."""
        groups = self.communities(graph)
        ids = groups[index][:first] if 0 <= index < len(groups) else []
        sub = analytics.Subgraph(nodes=ids, edges=[])
        return self._view(sub, graph).nodes

    def nodes(self, ids: Sequence[str]) -> list[Node | None]:
        """Nodes by id, in key order (one store call)."""
        return self.store.get_nodes(ids) if ids else []
