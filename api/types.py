# strawberry.field(description=...) is typed as returning Any, which strict mypy reports on every
# resolver; the resolvers themselves are fully annotated.
# mypy: disable-error-code="untyped-decorator"
"""GraphQL object types: each wraps a domain :class:`kg.core.models.Node` and resolves links through loaders.

Every type has ``from_domain`` and keeps the node as ``strawberry.Private``; resolvers only ask
the per-request DataLoaders or the :class:`kg.read.service.ReadService` (no Cypher, no networkx).
Errors a client can fix are :class:`APIError` with a ``code`` extension and are never masked.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import replace
from enum import Enum
from typing import Annotated, Any, Generic, TypeVar, cast

import strawberry
from strawberry.scalars import JSON
from strawberry.types.nodes import SelectedField, Selection

from api.context import Context
from kg.core.ids import fold
from kg.core.models import Node, RelType
from kg.read.institutions import Affiliation
from kg.read.key_concepts import KeyConcept as DomainKeyConcept
from kg.read.likeness import SharedConcept as DomainShared
from kg.read.likeness import Similar
from kg.read.service import MAX_COAUTHORS, PaperFilter, PaperPage, ReadService
from kg.stores.protocol import Direction, Page, PaperQuery
from kg.stores.protocol import Edge as StoreEdge
from kg.stores.protocol import PaperOrder as StoreOrder

Info = strawberry.Info[Context, None]
NodeT = TypeVar("NodeT")

DEFAULT_PAGE = 20


class APIError(Exception):
    """An error the client caused or can act on; its ``extensions`` reach the response unmasked.

    Args:
        message: one clear sentence.
        code: ``BAD_USER_INPUT``, ``STORE_UNAVAILABLE``, ...
        extra: more extension fields (e.g. ``suggestions``).
    """

    def __init__(self, message: str, code: str = "BAD_USER_INPUT", **extra: object) -> None:
        super().__init__(message)
        self.extensions: dict[str, object] = {"code": code, **extra}


# -- enums ---------------------------------------------------------------------------------------


@strawberry.enum(description="What a concept is.")
class ConceptKind(Enum):
    CONCEPT = "CONCEPT"
    METHOD = "METHOD"
    TASK = "TASK"
    DATASET = "DATASET"
    MODEL = "MODEL"
    METRIC = "METRIC"


@strawberry.enum(
    description="Order of a concept list. PAPER_COUNT: by the papers about the concept itself "
    "(`paperCount(includeNarrower: false)`), most first; NAME: by name."
)
class ConceptOrder(Enum):
    PAPER_COUNT = "PAPER_COUNT"
    NAME = "NAME"


@strawberry.enum(
    description="Where a paper's key concept came from. VOCABULARY: the curated vocabulary; "
    "DISCOVERED: found in the paper's text; PREDICTED: implied by the text rather than said."
)
class KeyConceptSource(Enum):
    VOCABULARY = "VOCABULARY"
    DISCOVERED = "DISCOVERED"
    PREDICTED = "PREDICTED"


@strawberry.enum(
    description="Order of a list of papers; every order ends in the id, so pages never overlap. "
    "RELEVANCE: with a text query, best text match first; with a concept, most central first "
    "(papers about the concept before passing mentions, then by salience and score of the "
    "paper's best link to it, then newest); otherwise newest. NEWEST: newest first (no year "
    "last), then by title. OLDEST: oldest first (no year last), then by title."
)
class PaperOrder(Enum):
    RELEVANCE = "RELEVANCE"
    NEWEST = "NEWEST"
    OLDEST = "OLDEST"


def paper_order(order_by: PaperOrder | None, default: PaperOrder = PaperOrder.NEWEST) -> StoreOrder:
    """The store's order for an ``orderBy`` argument (an explicit null means the default)."""
    return (order_by or default).value


@strawberry.enum(description="Order of an author list.")
class AuthorOrder(Enum):
    PAPER_COUNT = "PAPER_COUNT"
    NAME = "NAME"


@strawberry.enum(description="A centrality measure over a co-author or concept graph.")
class CentralityMeasure(Enum):
    DEGREE = "DEGREE"
    BETWEENNESS = "BETWEENNESS"
    PAGERANK = "PAGERANK"


@strawberry.enum(description="A weighted graph derived from the papers.")
class GraphKind(Enum):
    COAUTHOR = "COAUTHOR"
    CONCEPT = "CONCEPT"


class Lazy(Enum):
    """Marks a link of a paper not read with it: loaded when selected."""

    LAZY = "LAZY"


# -- pagination ----------------------------------------------------------------------------------


# The two arguments of every paged list, documented once: ``first: PageSize = DEFAULT_PAGE``.
PageSize = Annotated[
    int | None,
    strawberry.argument(description="How many items, 0 to the server's page limit (100 unless configured)."),
]
Cursor = Annotated[
    str | None,
    strawberry.argument(description="Start after this cursor: the `pageInfo.endCursor` of the page before."),
]


@strawberry.type(description="Where a page of a connection is.")
class PageInfo:
    has_next_page: bool
    has_previous_page: bool
    start_cursor: str | None
    end_cursor: str | None


@strawberry.type(description="One item of a connection with its cursor.")
class Edge(Generic[NodeT]):
    cursor: str
    node: NodeT


@strawberry.type(description="A page of a list: pass `pageInfo.endCursor` as `after` for the next.")
class Connection(Generic[NodeT]):
    total_count: int
    nodes: list[NodeT]
    edges: list[Edge[NodeT]]
    page_info: PageInfo


def encode_cursor(offset: int) -> str:
    """Opaque cursor of the item at ``offset``.

    >>> decode_cursor(encode_cursor(41))
    41
    """
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    """Offset of the item a cursor points at; :class:`APIError` when it is not one of ours."""
    try:
        text = base64.urlsafe_b64decode(cursor.encode()).decode()
        prefix, _, number = text.partition(":")
        offset = int(number)
        if prefix != "offset" or offset < 0:
            raise ValueError(text)
    except (ValueError, binascii.Error, UnicodeDecodeError) as e:
        raise APIError(f"invalid cursor {cursor!r}: pass a pageInfo.endCursor from an earlier page") from e
    return offset


def check_first(info: Info, first: int | None, default: int = DEFAULT_PAGE, name: str = "first") -> int:
    """``first`` within ``0..settings.max_page_size``, or a BAD_USER_INPUT error saying so."""
    limit = info.context.settings.max_page_size
    value = default if first is None else first
    if value < 0 or value > limit:
        raise APIError(
            f"`{name}` must be between 0 and {limit} (got {value}); page with `after` for more",
            max=limit,
        )
    return value


def page_window(total: int, first: int, after: str | None) -> tuple[int, int]:
    """``(start, stop)`` offsets of the page after cursor ``after``."""
    start = decode_cursor(after) + 1 if after else 0
    return start, min(start + first, total)


def make_connection(items: Sequence[NodeT], start: int, total: int) -> Connection[NodeT]:
    """A connection over one page of ``items`` that starts at offset ``start`` of ``total``."""
    edges = [Edge(cursor=encode_cursor(start + i), node=item) for i, item in enumerate(items)]
    return Connection(
        total_count=total,
        nodes=list(items),
        edges=edges,
        page_info=PageInfo(
            has_next_page=start + len(items) < total,
            has_previous_page=start > 0,
            start_cursor=edges[0].cursor if edges else None,
            end_cursor=edges[-1].cursor if edges else None,
        ),
    )


def page_start(after: str | None) -> int:
    """Offset of the first item after cursor ``after``."""
    return decode_cursor(after) + 1 if after else 0


async def paper_connection(
    info: Info, query: PaperQuery | PaperFilter, first: int | None, after: str | None
) -> Connection[Paper]:
    """One page of the papers matching ``query``: the store sorts, counts and cuts the page."""
    n = check_first(info, first)
    start = page_start(after)
    service = info.context.service
    if isinstance(query, PaperFilter) and query.like is not None:
        return await _like_connection(info, query, start, n)
    if isinstance(query, PaperFilter):
        query = await info.context.call(service.paper_query, query)
    run = info.context.compute if query.text is not None else info.context.call  # text: heavy lane
    if any(isinstance(key, int) for key in info.path.as_list()):
        # One page per item of a list (e.g. every co-author's papers): the loaders batch the
        # pages' papers, authors and venues across all of them, one store call each.
        found: Page = await run(service.papers, query, start, n)
        nodes = await info.context.loaders.nodes.load_many(found.ids)
        listed = [Paper.from_domain(p, info.context) for p in nodes if p is not None]
        return make_connection(listed, start, found.total)
    shown = page_paper_fields(info)
    page: PaperPage = await run(
        service.paper_page, query, start, n, authors="authors" in shown, venues="venue" in shown
    )
    papers = [
        Paper.from_domain(
            p,
            info.context,
            authors=Lazy.LAZY if page.authors is None else page.authors[i],
            venue=Lazy.LAZY if page.venues is None else page.venues[i],
        )
        for i, p in enumerate(page.papers)
    ]
    return make_connection(papers, start, page.total)


async def _like_connection(info: Info, where: PaperFilter, start: int, n: int) -> Connection[Paper]:
    """``papers(where: {like})``: the papers nearest to the text (among those matching the other
    conditions, if any), each with its ``likeness``."""
    if where.order is not None:
        raise APIError("`like` lists papers by their likeness to the text: leave `orderBy` out")
    assert where.like is not None
    others = [f for f, v in vars(where).items() if f not in ("like", "about_only") and v is not None]
    service = info.context.service
    within = await info.context.call(service.paper_query, where) if others else None
    found, total = await info.context.compute(service.like, where.like, start, n, within)
    papers = [Paper.from_domain(s.node, info.context, likeness=Likeness.from_domain(s)) for s in found]
    return make_connection(papers, start, total)


def _fields(selections: Sequence[Selection]) -> Iterator[SelectedField]:
    """The fields among ``selections``, those inside fragments included."""
    for selection in selections:
        if isinstance(selection, SelectedField):
            yield selection
        else:
            yield from _fields(selection.selections)


def page_paper_fields(info: Info) -> set[str]:
    """Names of the fields a connection field selects on its papers (``nodes`` or ``edges.node``).

    Why: a page's papers get their ``authors`` and ``venue`` read with the page (one store call)
    when the query selects them, instead of through a loader per paper and field (40 awaitables
    and three more worker-thread hops for 20 papers). A field under a fragment or directive that
    ends up not applying only costs a read whose result is not shown. Pages under a list keep
    the loaders, which batch across the list (see :func:`paper_connection`).
    """
    names: set[str] = set()
    for connection in info.selected_fields:
        for field in _fields(connection.selections):
            if field.name == "nodes":
                names.update(f.name for f in _fields(field.selections))
            elif field.name == "edges":
                for edge in _fields(field.selections):
                    if edge.name == "node":
                        names.update(f.name for f in _fields(edge.selections))
    return names


def by_score(edges: Sequence[StoreEdge]) -> list[StoreEdge]:
    """``MENTIONS`` edges best score first, then by concept name and id (same on every store)."""

    def key(edge: StoreEdge) -> tuple[float, str, str]:
        score = edge.rel.properties.get("score")
        name = edge.node.properties.get("name") or edge.node.id
        return (-(float(score) if isinstance(score, int | float) else 0.0), fold(str(name)), edge.node.id)

    return sorted(edges, key=key)


def _str(node: Node, key: str) -> str | None:
    value = node.properties.get(key)
    return None if value is None else str(value)


def _int(node: Node, key: str) -> int | None:
    value = node.properties.get(key)
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _list(node: Node, key: str) -> list[str]:
    value = node.properties.get(key)
    return [str(v) for v in value] if isinstance(value, list) else []


def listed_field(
    read: Callable[[ReadService, str], Sequence[Any]],
    convert: Callable[[Any], object],
    listed: object,
    description: str | None = None,
) -> Any:
    """A field listing what one :class:`ReadService` method ``read`` returns for the object's id,
    each item made its GraphQL type by ``convert`` (a concept's broader concepts, a topic's
    children, ...). ``listed`` is the field's GraphQL type: assigned without an annotation, the
    field keeps its place among the resolver methods in the SDL. ``convert`` is a lambda where the
    type is the class being defined, which does not exist yet when the field is made."""

    async def resolve(root: strawberry.Parent[Any], info: Info) -> list[Any]:
        rows = await info.context.call(read, info.context.service, root.id)
        return [convert(row) for row in rows]

    return strawberry.field(resolver=resolve, description=description, graphql_type=listed)


# -- domain types --------------------------------------------------------------------------------


@strawberry.type
class NamedNode:
    """What an author, venue, concept, topic and institution start with: the node kept private,
    its id and its name, declared once (the SDL lists the fields first, as before). Not a
    GraphQL interface: no field returns it, so it is not in the schema."""

    node: strawberry.Private[Node]
    id: strawberry.ID
    name: str


def _named(node: Node) -> dict[str, Any]:
    """The fields an author, venue, concept, topic and institution start with: the node kept
    private, its id, and its name (the id when the node has none), read one way for all five."""
    return {"node": node, "id": strawberry.ID(node.id), "name": _str(node, "name") or node.id}


@strawberry.type(description="A research paper.")
class Paper:
    node: strawberry.Private[Node]
    id: strawberry.ID
    title: str = strawberry.field(description="The listing's title, or one derived from the abstract.")
    title_source: str | None = strawberry.field(description="LISTING or DERIVED.")
    short_title: str | None
    abstract: str | None = strawberry.field(description="As listed (LaTeX and markdown kept).")
    year: int | None
    authors_truncated: bool = strawberry.field(description="The listing cut the author list short.")
    keywords: list[str] = strawberry.field(description="Author keywords, when the source had them.")
    sources: list[str] = strawberry.field(description="`file:line` of every listing that had it.")
    url: str | None
    track: str | None = strawberry.field(description="The listing's track (`main`, …), when it had one.")
    status: str | None = strawberry.field(
        description="The listing's decision (`Oral`, `Poster`, `Reject`, …), when it had one."
    )
    # Plain fields, so that a page of papers needs no resolver call per paper and field: values
    # read with the page (ReadService.paper_page), or awaitables that load them only when the
    # field is selected (see api.loaders.Lookup).
    venue: Venue | None = strawberry.field(description="Where it was published, when the listing said.")
    authors: list[Author] = strawberry.field(description="Authors in byline order.")
    likeness: Likeness | None = strawberry.field(
        default=None,
        description="How like the text of `papers(where: {like})` it is, and why; null elsewhere.",
    )

    @classmethod
    def from_domain(
        cls,
        node: Node,
        context: Context,
        *,
        authors: list[Node] | Lazy = Lazy.LAZY,
        venue: Node | None | Lazy = Lazy.LAZY,
        likeness: Likeness | None = None,
    ) -> Paper:
        """The paper of ``node``; ``authors`` and ``venue`` as read with its page, else loaded
        when selected (:class:`api.loaders.Lookup`)."""
        return cls(
            node=node,
            id=strawberry.ID(node.id),
            title=_str(node, "title") or "",
            title_source=_str(node, "titleSource"),
            short_title=_str(node, "shortTitle"),
            abstract=_str(node, "abstract"),
            year=_int(node, "year"),
            authors_truncated=bool(node.properties.get("authorsTruncated")),
            keywords=_list(node, "keywords"),
            sources=_list(node, "sources"),
            url=_str(node, "url"),
            track=_str(node, "track"),
            status=_str(node, "status"),
            venue=context.paper_venue.get(node.id, _venue) if isinstance(venue, Lazy) else _venue(venue),
            authors=(
                context.paper_authors.get(node.id, _authors)
                if isinstance(authors, Lazy)
                else _authors(authors)
            ),
            likeness=likeness,
        )

    @strawberry.field(
        description="The papers most like this one by the embedding and the words of their title and "
        "abstract, nearest first, each with the concepts the two share. Empty when this paper has "
        "no embedding yet (ingested with `--no-embed`: `kg embed` adds them)."
    )
    async def similar(self, info: Info, first: int | None = 10) -> list[SimilarPaper]:
        n = check_first(info, first, default=10)
        found: list[Similar] = await info.context.compute(info.context.service.similar, str(self.id), n)
        return [SimilarPaper.from_domain(s, info.context) for s in found]

    @strawberry.field(description="Topics it is listed under (leaf topics).")
    async def topics(self, info: Info) -> list[Topic]:
        edges = await info.context.loaders.neighbors("HAS_TOPIC", "out").load(self.id)
        return [Topic.from_domain(e.node) for e in edges]

    @strawberry.field(description="Concepts it mentions, best score first.")
    async def concepts(self, info: Info, first: int | None = None) -> list[ConceptMention]:
        edges = await info.context.loaders.neighbors("MENTIONS", "out").load(self.id)
        ranked = by_score(edges)
        return [ConceptMention.from_edge(e) for e in (ranked if first is None else ranked[: max(first, 0)])]

    @strawberry.field(
        description="Every concept it is about or mentions, best first (what it is about before passing "
        "mentions, then by score, then salience), including phrases of this paper only, which have no "
        "Concept node (`concept` null)."
    )
    def key_concepts(self, info: Info, first: int | None = 10) -> list[KeyConcept]:
        n = check_first(info, first, default=10)

        def convert(ranked: list[DomainKeyConcept]) -> list[KeyConcept]:
            return [KeyConcept.from_domain(k) for k in ranked[:n]]

        return info.context.key_concepts.get(self.id, convert)

    @strawberry.field(description="Concepts it introduces (new methods, models, datasets).")
    async def introduces(self, info: Info) -> list[Concept]:
        edges = await info.context.loaders.neighbors("INTRODUCES", "out").load(self.id)
        return [Concept.from_domain(e.node) for e in edges]


@strawberry.type(description="A paper's mention of a concept, with the evidence for it.")
class ConceptMention:
    concept: Concept
    count: int = strawberry.field(description="Occurrences in title and abstract.")
    score: float = strawberry.field(description="Salience within this paper (higher is more central).")
    evidence: list[str] = strawberry.field(description="Sentences that mention it.")

    @classmethod
    def from_edge(cls, edge: StoreEdge) -> ConceptMention:
        props = edge.rel.properties
        count, score, evidence = props.get("count"), props.get("score"), props.get("evidence")
        return cls(
            concept=Concept.from_domain(edge.node),
            count=int(count) if isinstance(count, int | float) else 1,
            score=float(score) if isinstance(score, int | float) else 0.0,
            evidence=[str(s) for s in evidence] if isinstance(evidence, list) else [],
        )


@strawberry.type(description="A concept a paper is about or mentions, as the paper has it.")
class KeyConcept:
    name: str = strawberry.field(description="The canonical name.")
    surface: str = strawberry.field(description="The paper's own wording.")
    score: float = strawberry.field(description="Rank score within this paper (higher is better).")
    salience: float = strawberry.field(description="How central it is to the paper, 0-1.")
    about: bool = strawberry.field(description="The paper is about it, not just mentioning it.")
    source: KeyConceptSource
    evidence: list[str] = strawberry.field(description="Sentences that mention it.")
    concept: Concept | None = strawberry.field(
        description="Its Concept node; null for a phrase of this paper only (no other paper has it yet)."
    )

    @classmethod
    def from_domain(cls, k: DomainKeyConcept) -> KeyConcept:
        return cls(
            name=k.name,
            surface=k.surface,
            score=k.score,
            salience=k.salience,
            about=k.about,
            source=KeyConceptSource(k.source),
            evidence=k.evidence,
            concept=Concept.from_domain(k.node) if k.node is not None else None,
        )


@strawberry.type(description="A concept: a method, task, model, dataset, metric or idea.")
class Concept(NamedNode):
    kind: ConceptKind
    aliases: list[str]
    source: str | None = strawberry.field(description="`vocabulary` (curated) or how it was discovered.")

    @classmethod
    def from_domain(cls, node: Node) -> Concept:
        kind = _str(node, "kind") or "CONCEPT"
        return cls(
            **_named(node),
            kind=ConceptKind(kind) if kind in ConceptKind.__members__ else ConceptKind.CONCEPT,
            aliases=_list(node, "aliases"),
            source=_str(node, "source"),
        )

    @strawberry.field(
        description="Papers about it and its narrower concepts (`includeNarrower: false`: its own "
        "only, the count `concepts(orderBy: PAPER_COUNT)` sorts by; `includeMentions`: also passing "
        "mentions). Equals `papers.totalCount` for the same arguments, defaults included."
    )
    async def paper_count(
        self, info: Info, include_narrower: bool | None = True, include_mentions: bool | None = False
    ) -> int:
        # The same defaults as ``papers``: with different ones, "bandits" showed 700 papers beside a
        # list of 750 (issue 29).
        service = info.context.service
        query = await info.context.call(
            service.concept_query, self.id, include_narrower is not False, include_mentions is not True
        )
        return await info.context.call(service.paper_count, query)

    @strawberry.field(
        description="Papers about it, most central first (`orderBy: NEWEST` for newest first); a "
        "contextual-bandits paper is a bandits paper. `includeMentions` adds papers that only "
        "mention it in passing."
    )
    async def papers(
        self,
        info: Info,
        first: PageSize = DEFAULT_PAGE,
        after: Cursor = None,
        include_narrower: bool | None = True,
        include_mentions: bool | None = False,
        order_by: PaperOrder | None = PaperOrder.RELEVANCE,
    ) -> Connection[Paper]:
        query = await info.context.call(
            info.context.service.concept_query,
            self.id,
            include_narrower is not False,
            include_mentions is not True,
            paper_order(order_by, PaperOrder.RELEVANCE),
        )
        return await paper_connection(info, query, first, after)

    @strawberry.field(description="Concepts it co-occurs with, most shared papers first.")
    async def related(self, info: Info, first: int | None = 10) -> list[RelatedConcept]:
        n = check_first(info, first, default=10)
        ranked = await info.context.call(info.context.service.related, self.id, n)
        return [RelatedConcept(concept=Concept.from_domain(node), papers=w) for node, w in ranked]

    broader = listed_field(
        ReadService.broader,
        lambda node: Concept.from_domain(node),
        list["Concept"],
        "Direct broader concepts.",
    )
    narrower = listed_field(
        ReadService.narrower,
        lambda node: Concept.from_domain(node),
        list["Concept"],
        "Direct narrower concepts.",
    )

    @strawberry.field(description="Papers that introduce it.")
    async def introduced_by(self, info: Info) -> list[Paper]:
        edges = await info.context.loaders.neighbors("INTRODUCES", "in").load(self.id)
        return [Paper.from_domain(e.node, info.context) for e in edges]

    @strawberry.field(
        description="Papers about it per year (`includeMentions` adds passing mentions), of one venue "
        "or series (`CoRL`) or of all; every year that has papers, with the share of that year's "
        "papers. Its own papers only by default; `includeNarrower: true` counts as `paperCount` does "
        "(then the years add up to `paperCount` less its papers without a year)."
    )
    async def trend(
        self,
        info: Info,
        venue: Annotated[
            str | None,
            strawberry.argument(description="A venue id or a series (`CoRL`); omitted: all venues."),
        ] = None,
        include_mentions: bool | None = False,
        include_narrower: bool | None = False,
    ) -> list[YearCount]:
        rows = await info.context.call(
            info.context.service.concept_trend,
            self.id,
            venue,
            include_mentions is not True,
            include_narrower is True,
        )
        return [YearCount(year=r.year, papers=r.papers, share=r.share) for r in rows]


@strawberry.type(description="A concept that co-occurs with another, and in how many papers.")
class RelatedConcept:
    concept: Concept
    papers: int


async def _author_query(author: Author, info: Info) -> PaperQuery:
    return PaperQuery(author=author.id)


async def _venue_query(venue: Venue, info: Info) -> PaperQuery:
    return PaperQuery(venues=(venue.id,))


async def _topic_query(topic: Topic, info: Info) -> PaperQuery:
    return await info.context.call(info.context.service.topic_query, topic.id)


async def _institution_query(institution: Institution, info: Info) -> PaperQuery:
    ids = await info.context.call(info.context.service.institution_papers, institution.id)
    return PaperQuery(papers=ids)


def papers_field(description: str, query_of: Callable[[Any, Info], Awaitable[PaperQuery]]) -> Any:
    """The ``papers(first, after, orderBy)`` field of an author, venue, topic or institution:
    the papers ``query_of`` selects for the object, newest first unless ``orderBy`` says
    otherwise. One definition, so the four lists page and order alike and their arguments cannot
    drift apart."""

    async def papers(
        root: strawberry.Parent[Any],
        info: Info,
        first: PageSize = DEFAULT_PAGE,
        after: Cursor = None,
        order_by: PaperOrder | None = PaperOrder.NEWEST,
    ) -> Connection[Paper]:
        query = await query_of(root, info)
        return await paper_connection(info, replace(query, order=paper_order(order_by)), first, after)

    return strawberry.field(resolver=papers, description=description)


def degree_field(rel_type: RelType, direction: Direction, description: str | None = None) -> Any:
    """A count field (``paperCount``, ``coauthorCount``) counted by the per-request degree
    loader: the object's ``rel_type`` relationships in ``direction`` (an author's AUTHORED out,
    a venue's PUBLISHED_IN in, an author's COAUTHOR ties either way)."""

    async def paper_count(root: strawberry.Parent[Any], info: Info) -> int:
        return await info.context.loaders.degree(rel_type, direction).load(root.id)

    return strawberry.field(resolver=paper_count, description=description)


def check_coauthors_first(first: int | None) -> int:
    """``Author.coauthors``' page size: :data:`DEFAULT_PAGE` when not given, at most
    :data:`~kg.read.service.MAX_COAUTHORS` (all the store serves), else a BAD_USER_INPUT error."""
    value = DEFAULT_PAGE if first is None else first
    if value < 0 or value > MAX_COAUTHORS:
        raise APIError(
            f"`first` must be between 0 and {MAX_COAUTHORS} (got {value}); `coauthorCount` says how many "
            "there are",
            max=MAX_COAUTHORS,
        )
    return value


@strawberry.type(description="A person who wrote papers in the graph.")
class Author(NamedNode):
    nickname: str | None

    @classmethod
    def from_domain(cls, node: Node) -> Author:
        return cls(**_named(node), nickname=_str(node, "nickname"))

    paper_count: int = degree_field("AUTHORED", "out")
    papers: Connection[Paper] = papers_field("Their papers, newest first (`orderBy`).", _author_query)

    coauthor_count: int = degree_field(
        "COAUTHOR", "both", "How many people they wrote papers with (`coauthors` lists them)."
    )

    # Why a bounded default: the list grows with the store (the most prolific authors of 100k
    # papers have hundreds of co-authors, and completing every item was most of the request's
    # CPU); lists that grow with the store are paged, and `coauthorCount` gives the total.
    @strawberry.field(
        description=f"Co-authors, most shared papers first, then by name: the first `first` "
        f"(default {DEFAULT_PAGE}, at most {MAX_COAUTHORS}; `coauthorCount` says how many there are)."
    )
    def coauthors(self, info: Info, first: int | None = DEFAULT_PAGE) -> list[Coauthor]:
        n = check_coauthors_first(first)

        def convert(ranked: list[tuple[Node, int]]) -> list[Coauthor]:
            return [Coauthor(author=Author.from_domain(node), papers=w) for node, w in ranked]

        return info.context.coauthors.get((self.id, n), convert)

    @strawberry.field(description="Other spellings of the name seen in the listings.")
    def aliases(self) -> list[str]:
        return _list(self.node, "aliases")

    @strawberry.field(
        description="Every external id of this person: OpenReview profiles (openreview:~Ada_Lovelace1), "
        "ORCID, DBLP, ACL Anthology, IEEE, old OpenReview emails (hashed: email:…)."
    )
    def external_ids(self) -> list[str]:
        return _list(self.node, "externalIds")

    @strawberry.field(
        description="Why author slots were joined into this person (which rule, which shared co-authors), "
        "or kept apart."
    )
    def merge_evidence(self) -> list[str]:
        return _list(self.node, "mergeEvidence")

    @strawberry.field(description="The year of their first paper in the graph (null when none has a year).")
    async def first_year(self, info: Info) -> int | None:
        return (await info.context.call(info.context.service.author_span, self.id))[0]

    @strawberry.field(description="The year of their last paper in the graph (null when none has a year).")
    async def last_year(self, info: Info) -> int | None:
        return (await info.context.call(info.context.service.author_span, self.id))[1]

    @strawberry.field(
        description="Where their papers appeared: per venue series (e.g. ICLR), most papers first, then by "
        "name. With years, co-authors and ids, what tells two people of one name apart."
    )
    async def venues(self, info: Info, first: int = 3) -> list[VenuePapers]:
        n = check_first(info, first)
        rows = await info.context.call(info.context.service.author_venues, self.id, n)
        return [VenuePapers(venue=v, papers=w) for v, w in rows]

    @strawberry.field(description="Other people with the same name, most papers first.")
    async def namesakes(self, info: Info) -> list[Author]:
        nodes = await info.context.call(info.context.service.author_namesakes, self.node)
        return [Author.from_domain(n) for n in nodes]

    institutions = listed_field(
        ReadService.author_institutions,
        lambda affiliation: AuthorInstitution.from_affiliation(affiliation),
        list["AuthorInstitution"],
        "The institutions they gave as affiliation (paperlists `aff`), the latest year first, "
        "with the years of those papers.",
    )


@strawberry.type(
    description="A venue series (or a venue without one) and how many of an author's papers it has."
)
class VenuePapers:
    venue: str
    papers: int


@strawberry.type(description="A co-author and the number of papers written together.")
class Coauthor:
    author: Author
    papers: int


@strawberry.type(description="A venue edition, e.g. ICLR 2026.")
class Venue(NamedNode):
    series: str | None
    year: int | None

    @classmethod
    def from_domain(cls, node: Node) -> Venue:
        return cls(**_named(node), series=_str(node, "series"), year=_int(node, "year"))

    paper_count: int = degree_field("PUBLISHED_IN", "in")
    papers: Connection[Paper] = papers_field(
        "Its papers, newest first, then by title (`orderBy`).", _venue_query
    )

    @strawberry.field(description="The concepts most of its papers (of `year`, or all) are about.")
    async def top_concepts(
        self, info: Info, year: int | None = None, kind: ConceptKind | None = None, first: int | None = 10
    ) -> list[ConceptCount]:
        n = check_first(info, first, default=10)
        ranked = await info.context.call(
            info.context.service.top_concepts, self.id, year, kind.value if kind else None, n
        )
        return [ConceptCount(concept=Concept.from_domain(c), papers=k) for c, k in ranked]


@strawberry.type(description="Papers about a concept in one year, and their share of that year's papers.")
class YearCount:
    year: int
    papers: int
    share: float


@strawberry.type(description="A concept and how many papers of a selection are about it.")
class ConceptCount:
    concept: Concept
    papers: int


@strawberry.type(
    description="A concept's change between two years: papers about it and their share in each, "
    "`growth` = log2 of the ratio of the add-one-smoothed shares, `zScore` of a two-proportion test."
)
class ConceptTrend:
    concept: Concept
    from_papers: int
    to_papers: int
    from_share: float
    to_share: float
    growth: float
    z_score: float


@strawberry.type(description="A topic in a listing's hierarchy, e.g. Deep Learning › Algorithms.")
class Topic(NamedNode):
    path: list[str]

    @classmethod
    def from_domain(cls, node: Node) -> Topic:
        return cls(**_named(node), path=_list(node, "path"))

    @strawberry.field(description="Papers under it, including its subtopics.")
    async def paper_count(self, info: Info) -> int:
        service = info.context.service
        query = await info.context.call(service.topic_query, self.id)
        return await info.context.call(service.paper_count, query)

    papers: Connection[Paper] = papers_field(
        "Papers under it, including its subtopics, newest first (`orderBy`).", _topic_query
    )

    @strawberry.field
    async def parent(self, info: Info) -> Topic | None:
        node = await info.context.call(info.context.service.topic_parent, self.id)
        return Topic.from_domain(node) if node else None

    children = listed_field(ReadService.topic_children, lambda node: Topic.from_domain(node), list["Topic"])


# -- search, stats, analytics --------------------------------------------------------------------


@strawberry.type(
    description="A concept both papers have (or the paper has and the text names): why they are alike."
)
class SharedConcept:
    name: str = strawberry.field(description="The canonical name.")
    about: bool = strawberry.field(description="The similar paper is about it, not just mentioning it.")
    evidence: list[str] = strawberry.field(description="Sentences of the similar paper that mention it.")
    query_evidence: list[str] = strawberry.field(
        description="Sentences of the paper asked about that mention it (empty for `like` text)."
    )
    concept: Concept | None = strawberry.field(
        description="Its Concept node; null for a phrase no third paper has (no node yet)."
    )

    @classmethod
    def from_domain(cls, s: DomainShared) -> SharedConcept:
        k = s.hit
        return cls(
            name=k.name,
            about=k.about,
            evidence=k.evidence,
            query_evidence=s.query_evidence,
            concept=Concept.from_domain(k.node) if k.node is not None else None,
        )


@strawberry.type(description="How like a paper is to the text asked about, and why.")
class Likeness:
    score: float = strawberry.field(
        description="Cosine similarity of the embeddings (-1 to 1, higher is nearer)."
    )
    shared_concepts: list[SharedConcept] = strawberry.field(
        description="Its key concepts the text names, what it is about first (at most 5)."
    )

    @classmethod
    def from_domain(cls, s: Similar) -> Likeness:
        return cls(score=s.score, shared_concepts=[SharedConcept.from_domain(c) for c in s.shared])


@strawberry.type(description="A paper like another one, and why.")
class SimilarPaper:
    paper: Paper
    score: float = strawberry.field(
        description="What orders the list: the cosine, plus 2 x the tf-idf cosine of the two "
        "papers' titles and abstracts (word weights from the query and its 40 nearest papers), "
        "plus 0.02 x the sum of log(1 + papers in the store / papers of the concept) over the "
        "concepts among both papers' first 10 key concepts (a shared rare method counts more "
        "than a shared field)."
    )
    cosine: float = strawberry.field(
        description="Cosine similarity of the embeddings (-1 to 1, higher is nearer)."
    )
    shared_concepts: list[SharedConcept] = strawberry.field(
        description="Key concepts both papers have, in the similar paper's order (what it is about "
        "first; at most 5), with each paper's sentences that mention them."
    )

    @classmethod
    def from_domain(cls, s: Similar, context: Context) -> SimilarPaper:
        return cls(
            paper=Paper.from_domain(s.node, context),
            score=s.score,
            cosine=s.score if s.cosine is None else s.cosine,
            shared_concepts=[SharedConcept.from_domain(c) for c in s.shared],
        )


@strawberry.type(description="A full-text hit: a paper or a concept.")
class SearchHit:
    score: float
    paper: Paper | None
    concept: Concept | None


@strawberry.type
class LabelCount:
    label: str
    count: int


@strawberry.type
class TypeCount:
    type: str
    count: int


@strawberry.type(description="Node counts per label and relationship counts per type.")
class Stats:
    nodes: list[LabelCount]
    relationships: list[TypeCount]


@strawberry.type(description="A node of a network, sized by `weight` (its paper count).")
class NetworkNode:
    """Plain fields only: resolvers return :class:`kg.read.networks.NetworkNode` rows in its place."""

    id: strawberry.ID
    label: str
    name: str
    weight: float | None


@strawberry.type(description="An undirected tie; `weight` is the number of shared papers.")
class NetworkEdge:
    """Plain fields only: resolvers return :class:`kg.read.networks.NetworkEdge` rows in its place."""

    source: strawberry.ID
    target: strawberry.ID
    weight: int


@strawberry.type(description="A bounded subgraph; `truncated` when `maxNodes` cut it short.")
class Network:
    """``rows`` is the same subgraph as ``nodes`` and ``edges`` in one JSON value: a client that
    draws thousands of edges asks for it, because graphql-core resolves and checks every field
    of every typed edge (3,000 edges cost more than the store query that found them)."""

    nodes: list[NetworkNode]
    edges: list[NetworkEdge]
    truncated: bool

    @strawberry.field(
        description="`nodes` and `edges` compactly: `{nodes: [[id, label, name, weight]], "
        "edges: [[source, target, weight]]}`, in the same order."
    )
    def rows(self) -> JSON:
        # The rows are the service's tuples (kg.read.networks.NetworkNode, PairEdge: see
        # api.schema._network), in exactly these fields' order: each becomes a list as it is,
        # without a read per field (a depth-2 network has ~1,000 edges).
        return JSON(
            {"nodes": list(map(list, cast(Any, self.nodes))), "edges": list(map(list, cast(Any, self.edges)))}
        )


@strawberry.type(description="A shortest chain of co-authors between two authors.")
class CollaborationPath:
    authors: list[Author]
    length: int = strawberry.field(description="Number of co-authorship hops.")


@strawberry.type
class RankedAuthor:
    author: Author
    score: float


@strawberry.type
class RankedConcept:
    concept: Concept
    score: float


@strawberry.type(description="A Louvain community of the co-author or concept graph.")
class Community:
    graph: strawberry.Private[GraphKind]
    index: int = strawberry.field(description="Rank by size (0 = largest).")
    size: int

    @strawberry.field(description="Members, most papers first.")
    async def members(self, info: Info, first: int | None = DEFAULT_PAGE) -> list[NetworkNode]:
        n = check_first(info, first)
        members = await info.context.call(
            info.context.service.community_members, self.graph.value, self.index, n
        )
        return cast(list[NetworkNode], members)  # rows with NetworkNode's fields, served as they are


def _authors(nodes: list[Node]) -> list[Author]:
    return [Author.from_domain(n) for n in nodes]


def _venue(node: Node | None) -> Venue | None:
    return None if node is None else Venue.from_domain(node)


def search_hit(node: Node, score: float, context: Context) -> SearchHit:
    """A search hit for whichever kind of node the store found."""
    return SearchHit(
        score=score,
        paper=Paper.from_domain(node, context) if node.label == "Paper" else None,
        concept=Concept.from_domain(node) if node.label == "Concept" else None,
    )


@strawberry.type(
    description="An institution authors gave as their affiliation; variants of its name (the same "
    "name in other case or punctuation, or names sharing its domain) are one institution."
)
class Institution(NamedNode):
    domain: str | None
    aliases: list[str]

    @classmethod
    def from_domain(cls, node: Node) -> Institution:
        return cls(**_named(node), domain=_str(node, "domain"), aliases=_list(node, "aliases"))

    @strawberry.field(description="Its authors, most papers there first, then by name.")
    async def authors(self, info: Info, first: int | None = 10) -> list[InstitutionAuthor]:
        n = check_first(info, first, default=10)
        rows = await info.context.call(info.context.service.institution_members, self.id)
        return [
            InstitutionAuthor(author=Author.from_domain(a.node), papers=len(a.papers), years=list(a.years))
            for a in rows[:n]
        ]

    papers: Connection[Paper] = papers_field(
        "The papers where an author gave it as affiliation, newest first (`orderBy`).", _institution_query
    )


@strawberry.type(description="An author of an institution: papers there and their years.")
class InstitutionAuthor:
    author: Author
    papers: int
    years: list[int]


@strawberry.type(description="An institution an author gave, and the years of those papers.")
class AuthorInstitution:
    institution: Institution
    name: str
    years: list[int]

    @classmethod
    def from_affiliation(cls, a: Affiliation) -> AuthorInstitution:
        node = Institution.from_domain(a.node)
        return cls(institution=node, name=node.name, years=list(a.years))
