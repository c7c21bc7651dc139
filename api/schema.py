# strawberry.field(description=...) is typed as returning Any, which strict mypy reports on every
# resolver; the resolvers themselves are fully annotated.
# mypy: disable-error-code="untyped-decorator"
"""The GraphQL schema: ``Query`` (thin resolvers over :class:`kg.read.service.ReadService`), its protection.

Protection: :class:`~strawberry.extensions.QueryDepthLimiter` and
:class:`~strawberry.extensions.MaxAliasesLimiter` from settings, page sizes capped at
``settings.max_page_size``, node budgets and depths capped by the service, and
:class:`ErrorPolicy` (a :class:`~strawberry.extensions.MaskErrors`) that gives every error a
``code`` extension and hides only the unexpected ones. Codes: ``BAD_USER_INPUT``,
``GRAPHQL_VALIDATION_FAILED``, ``GRAPHQL_PARSE_FAILED``, ``STORE_UNAVAILABLE``, ``STORE_ERROR``,
``INTERNAL_SERVER_ERROR`` (and ``TIMEOUT`` from the HTTP layer).

The checked-in ``schema.graphql`` is ``print_sdl()``; a test fails when they drift.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterator
from dataclasses import fields, replace
from functools import lru_cache, partial
from typing import Annotated, Any, TypeVar, cast

import strawberry
from graphql import GraphQLError, GraphQLSyntaxError, parse
from strawberry.extensions import (
    AddValidationRules,
    MaskErrors,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    ValidationCache,
)
from strawberry.types import ExecutionContext

from api.guard import MAX_REMEMBERED_CHARS, MAX_TOKENS, document_refusal, document_verdict
from api.types import (
    DEFAULT_PAGE,
    APIError,
    Author,
    AuthorOrder,
    CentralityMeasure,
    CollaborationPath,
    Community,
    Concept,
    ConceptKind,
    ConceptOrder,
    ConceptTrend,
    Connection,
    Cursor,
    GraphKind,
    Info,
    Institution,
    LabelCount,
    Network,
    NetworkEdge,
    NetworkNode,
    PageSize,
    Paper,
    PaperOrder,
    RankedAuthor,
    RankedConcept,
    SearchHit,
    Stats,
    Topic,
    TypeCount,
    Venue,
    check_first,
    make_connection,
    page_start,
    paper_connection,
    paper_order,
    search_hit,
)
from kg.core.config import Settings
from kg.core.deadline import QueryTimeout
from kg.core.errors import GraphStoreError, StoreUnavailable
from kg.core.models import Node
from kg.read.service import (
    MAX_DEPTH,
    MAX_NODES,
    GraphName,
    InvalidArgument,
    NetworkView,
    PaperFilter,
    ServiceError,
    UnknownName,
)
from kg.stores.protocol import ListOrder

log = logging.getLogger("paperkg.api")
ItemT = TypeVar("ItemT")
# Distinct documents whose parse and validation results are kept (clients reuse a few queries).
DOCUMENT_CACHE_SIZE = 512


@strawberry.input(name="PaperFilter", description="Conditions on papers; all given ones must hold.")
class PaperFilterInput:
    venue: str | None = strawberry.field(default=None, description="`ICLR 2026`, or a series: `ICLR`.")
    year: int | None = None
    topic: str | None = strawberry.field(
        default=None, description="A topic path (`Deep Learning · Algorithms`) or name; subtopics included."
    )
    concept: str | None = strawberry.field(
        default=None,
        description="A concept name, alias, plural or acronym; narrower concepts included. A phrase "
        "that is no Concept node yet (a key concept of its paper only) finds the papers that have it.",
    )
    author: str | None = strawberry.field(
        default=None,
        description="An author id, or a name: the person with that name with the most papers.",
    )
    text: str | None = strawberry.field(
        default=None,
        description='Full-text query; results by relevance. `"quoted phrases"` match as phrases.',
    )
    include_mentions: bool | None = strawberry.field(
        default=False, description="With `concept`: also papers that only mention it in passing."
    )
    status: str | None = strawberry.field(
        default=None, description="The listing's decision, exactly as listed: `Oral`, `Poster`, `Reject`."
    )
    track: str | None = strawberry.field(
        default=None, description="The listing's track, exactly as listed: `main`, `Datasets and Benchmarks`."
    )
    like: str | None = strawberry.field(
        default=None,
        description="Free text: papers by how like it they are (embedding cosine), nearest first, each "
        "with its `likeness` (score, shared concepts); with other conditions, the papers matching "
        "them ranked so.",
    )
    institution: str | None = strawberry.field(
        default=None,
        description="An institution (name, alias, domain or id): papers an author gave it on.",
    )

    def to_domain(self) -> PaperFilter:
        """The filter with every field of the same name copied over (a new condition needs no
        line here) and ``includeMentions`` turned into ``about_only``."""
        same = {f.name: getattr(self, f.name) for f in fields(PaperFilter) if hasattr(self, f.name)}
        return PaperFilter(**same, about_only=self.include_mentions is not True)


@strawberry.input(description="Years from `from` to `to`, both included.")
class YearRange:
    from_: int = strawberry.field(name="from")
    to: int

    def bounds(self) -> tuple[int, int]:
        return (self.from_, self.to)


# An ego network of up to this many nodes costs a few ms: with the in-process store it is
# computed right on the event loop (a worker-thread hop cost ~0.5 ms of CPU per request);
# larger ones, and the whole-graph conceptGraph, go to a worker thread so that the loop keeps
# serving other requests meanwhile. Network backends always use a thread (Context.call).
INLINE_NETWORK_NODES = 200


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _network(view: NetworkView) -> Network:
    # The service's rows have exactly the attributes of NetworkNode / NetworkEdge, whose fields
    # are plain reads: served as they are, with no object built per node and edge.
    return Network(
        nodes=cast(list[NetworkNode], view.nodes),
        edges=cast(list[NetworkEdge], view.edges),
        truncated=view.truncated,
    )


async def node_page(
    info: Info,
    first: int | None,
    after: str | None,
    listed: Callable[[int, int], tuple[list[Node], int]],
    convert: Callable[[Node], ItemT],
) -> Connection[ItemT]:
    """One page of the concept or author list: ``listed(offset, limit)`` reads the page and the
    total in a worker thread, ``convert`` makes each node its GraphQL type. Both lists page
    through this, so ``first`` and ``after`` mean the same in each."""
    n = check_first(info, first)
    start = page_start(after)
    nodes, total = await info.context.call(listed, start, n)
    return make_connection([convert(node) for node in nodes], start, total)


async def named(
    info: Info, resolve: Callable[[str], Node | None], name: str, convert: Callable[[Node], ItemT]
) -> ItemT | None:
    """The node ``resolve`` finds for ``name`` (in a worker thread) as its GraphQL type; null if
    none: what ``concept``, ``author`` and ``institution`` each answer."""
    node = await info.context.call(resolve, name)
    return convert(node) if node is not None else None


def central_field(
    graph: GraphName, listed: object, rank: Callable[[Node, float], object], description: str
) -> Any:
    """The ``central…(measure, first)`` field of one graph (``COAUTHOR`` or ``CONCEPT``): its most
    central nodes, each made an item of the GraphQL type ``listed`` by ``rank``. One resolver
    for both graphs, so their arguments and defaults cannot drift apart. Assigned without an
    annotation (the type is ``graphql_type``), the field keeps its place among the resolver
    methods in the SDL."""

    async def central(
        info: Info, measure: CentralityMeasure | None = CentralityMeasure.DEGREE, first: int | None = 10
    ) -> list[Any]:
        n = check_first(info, first, default=10)
        ranked = await info.context.compute(
            info.context.service.central, graph, (measure or CentralityMeasure.DEGREE).value, n
        )
        return [rank(node, score) for node, score in ranked]

    return strawberry.field(resolver=central, description=description, graphql_type=listed)


# The filter of both name lists, documented once.
_NamePart = Annotated[
    str | None,
    strawberry.argument(
        description="Only those whose name or an alias contains this, in any case or accents."
    ),
]
# The size arguments of both network queries, documented once.
_Depth = Annotated[
    int | None, strawberry.argument(description=f"Hops from the start node (0 to {MAX_DEPTH}).")
]
_MaxNodes = Annotated[
    int | None,
    strawberry.argument(
        description=f"The most nodes returned (1 to {MAX_NODES}): nearer hops and stronger ties first; "
        "`truncated` says whether any were left out.",
    ),
]


@strawberry.type
class Query:
    @strawberry.field(description="A paper by id.")
    async def paper(self, info: Info, id: strawberry.ID) -> Paper | None:
        node = await info.context.loaders.nodes.load(str(id))
        return Paper.from_domain(node, info.context) if node is not None and node.label == "Paper" else None

    @strawberry.field(
        description="Papers matching a filter: newest first, or by relevance with `text` (`orderBy` "
        "sets the order; a `like` filter ranks by likeness)."
    )
    async def papers(
        self,
        info: Info,
        where: PaperFilterInput | None = None,
        first: PageSize = DEFAULT_PAGE,
        after: Cursor = None,
        order_by: PaperOrder | None = None,
    ) -> Connection[Paper]:
        flt = where.to_domain() if where is not None else PaperFilter()
        if order_by is not None:
            flt = replace(flt, order=paper_order(order_by))
        return await paper_connection(info, flt, first, after)

    @strawberry.field(description="A concept by name, alias, plural, any case or acronym; null if unknown.")
    async def concept(self, info: Info, name: str) -> Concept | None:
        return await named(info, info.context.service.resolve_concept, name, Concept.from_domain)

    @strawberry.field(
        description="Concepts with names close to `name` (for a `concept` that came back null)."
    )
    async def concept_suggestions(self, info: Info, name: str, first: int | None = 5) -> list[Concept]:
        n = check_first(info, first, default=5)
        nodes = await info.context.call(info.context.service.suggest_concepts, name, n)
        return [Concept.from_domain(c) for c in nodes]

    @strawberry.field(description="Concepts, optionally filtered by name substring and kind.")
    async def concepts(
        self,
        info: Info,
        search: _NamePart = None,
        kind: ConceptKind | None = None,
        first: PageSize = DEFAULT_PAGE,
        after: Cursor = None,
        order_by: ConceptOrder | None = ConceptOrder.PAPER_COUNT,
    ) -> Connection[Concept]:
        kind_name = kind.value if kind else None
        order: ListOrder = (order_by or ConceptOrder.PAPER_COUNT).value
        listed = partial(info.context.service.list_concepts, search, kind_name, order)
        return await node_page(info, first, after, listed, Concept.from_domain)

    @strawberry.field(
        description="An author by id, or by name (any case or accents, nickname optional): of several "
        "people with that name, the one with the most papers (see `namesakes`); null if unknown."
    )
    async def author(self, info: Info, name: str) -> Author | None:
        return await named(info, info.context.service.resolve_author, name, Author.from_domain)

    @strawberry.field(
        description="An institution by name or alias (any case and punctuation), domain (`cmu.edu`) or id; "
        "null if unknown."
    )
    async def institution(self, info: Info, name: str) -> Institution | None:
        return await named(info, info.context.service.resolve_institution, name, Institution.from_domain)

    @strawberry.field(description="Authors, optionally filtered by name substring.")
    async def authors(
        self,
        info: Info,
        search: _NamePart = None,
        first: PageSize = DEFAULT_PAGE,
        after: Cursor = None,
        order_by: AuthorOrder | None = AuthorOrder.NAME,
    ) -> Connection[Author]:
        listed = partial(info.context.service.list_authors, search, (order_by or AuthorOrder.NAME).value)
        return await node_page(info, first, after, listed, Author.from_domain)

    @strawberry.field(description="Every venue, by series then year.")
    async def venues(self, info: Info) -> list[Venue]:
        nodes = await info.context.call(info.context.service.venues)
        return [Venue.from_domain(v) for v in nodes]

    @strawberry.field(description="Every topic, parents before their subtopics.")
    async def topics(self, info: Info) -> list[Topic]:
        nodes = await info.context.call(info.context.service.topics)
        return [Topic.from_domain(t) for t in nodes]

    @strawberry.field(
        description="An author's co-authorship network, `depth` hops (≤ 3), `maxNodes` (≤ 1000); "
        "`author` is an id or a name (the person with that name with the most papers). "
        "With `years`, only the papers of those years make ties."
    )
    async def coauthor_network(
        self,
        info: Info,
        author: str,
        depth: _Depth = 1,
        max_nodes: _MaxNodes = 200,
        years: YearRange | None = None,
    ) -> Network:
        budget = _or(max_nodes, 200)
        run = info.context.call if budget <= INLINE_NETWORK_NODES else info.context.compute
        span = years.bounds() if years is not None else None
        view = await run(info.context.service.coauthor_network, author, _or(depth, 1), budget, span)
        return _network(view)

    @strawberry.field(
        description="Concept co-occurrence around `concept` (or the strongest part of the whole graph). "
        "With `years` (needs `concept`), only the papers of those years make ties."
    )
    async def concept_graph(
        self,
        info: Info,
        concept: Annotated[
            str | None, strawberry.argument(description="A concept id or name; omitted: the whole graph.")
        ] = None,
        min_weight: Annotated[
            int | None, strawberry.argument(description="The fewest papers two concepts share to be tied.")
        ] = 1,
        max_nodes: _MaxNodes = 200,
        depth: _Depth = 1,
        years: YearRange | None = None,
    ) -> Network:
        budget = _or(max_nodes, 200)
        small = concept is not None and budget <= INLINE_NETWORK_NODES  # not the whole-graph one
        run = info.context.call if small else info.context.compute
        span = years.bounds() if years is not None else None
        view = await run(
            info.context.service.concept_graph, concept, _or(min_weight, 1), budget, _or(depth, 1), span
        )
        return _network(view)

    @strawberry.field(description="A shortest co-authorship chain between two authors; null if none.")
    async def collaboration_path(
        self,
        info: Info,
        from_: Annotated[str, strawberry.argument(name="from", description="An author id or name.")],
        to: Annotated[str, strawberry.argument(description="An author id or name.")],
    ) -> CollaborationPath | None:
        nodes = await info.context.compute(info.context.service.collaboration_path, from_, to)
        if nodes is None:
            return None
        return CollaborationPath(authors=[Author.from_domain(a) for a in nodes], length=len(nodes) - 1)

    central_authors = central_field(
        "COAUTHOR",
        list[RankedAuthor],
        lambda node, score: RankedAuthor(author=Author.from_domain(node), score=score),
        "The most central authors of the co-author graph.",
    )
    central_concepts = central_field(
        "CONCEPT",
        list[RankedConcept],
        lambda node, score: RankedConcept(concept=Concept.from_domain(node), score=score),
        "The most central concepts of the co-occurrence graph.",
    )

    @strawberry.field(description="Louvain communities of a graph, largest first.")
    async def communities(
        self, info: Info, graph: GraphKind | None = GraphKind.COAUTHOR, first: int | None = 10
    ) -> list[Community]:
        n = check_first(info, first, default=10)
        kind = graph or GraphKind.COAUTHOR
        sizes = await info.context.call(info.context.service.community_sizes, kind.value, n)
        return [Community(graph=kind, index=i, size=size) for i, size in enumerate(sizes)]

    @strawberry.field(
        description="Concepts that grew most from year `from` to year `to`, of one venue or series or "
        "of all: by `growth`, among those with at least 5 papers in `to` and a `zScore` of 1.96 or more."
    )
    async def rising_concepts(
        self,
        info: Info,
        from_: Annotated[int, strawberry.argument(name="from", description="The earlier year.")],
        to: Annotated[int, strawberry.argument(description="The later year.")],
        venue: str | None = None,
        kind: ConceptKind | None = None,
        first: int | None = 10,
        include_mentions: Annotated[
            bool | None,
            strawberry.argument(description="Count papers that only mention a concept in passing too."),
        ] = False,
    ) -> list[ConceptTrend]:
        n = check_first(info, first, default=10)
        ranked = await info.context.compute(
            info.context.service.rising_concepts,
            venue,
            from_,
            to,
            kind.value if kind else None,
            n,
            include_mentions is not True,
        )
        return [
            ConceptTrend(
                concept=Concept.from_domain(node),
                from_papers=r.from_papers,
                to_papers=r.to_papers,
                from_share=r.from_share,
                to_share=r.to_share,
                growth=r.growth,
                z_score=r.z,
            )
            for node, r in ranked
        ]

    @strawberry.field(
        description="Full-text search over paper titles/abstracts and concept names/aliases; "
        '`"quoted phrases"` match as phrases.'
    )
    async def search(self, info: Info, text: str, first: int | None = 20) -> list[SearchHit]:
        n = check_first(info, first)
        hits = await info.context.compute(info.context.service.search, text, n)
        return [search_hit(h.node, h.score, info.context) for h in hits]

    @strawberry.field(description="Node counts per label and relationship counts per type.")
    async def stats(self, info: Info) -> Stats:
        counts = await info.context.call(info.context.service.counts)
        return Stats(
            nodes=[LabelCount(label=k, count=v) for k, v in counts.nodes.items()],
            relationships=[TypeCount(type=k, count=v) for k, v in counts.relationships.items()],
        )


# -- errors --------------------------------------------------------------------------------------

EXPECTED_CODES = frozenset(
    {
        "BAD_USER_INPUT",
        "GRAPHQL_VALIDATION_FAILED",
        "GRAPHQL_PARSE_FAILED",
        "QUERY_TOO_COMPLEX",
        "BAD_REQUEST",
    }
)


def classify(error: GraphQLError) -> tuple[str, str, dict[str, Any]]:
    """``(code, client message, extra extensions)`` for any error a request produced."""
    original = error.original_error
    if isinstance(original, APIError):
        return str(original.extensions["code"]), error.message, {}
    if original is None:
        code = (
            "GRAPHQL_PARSE_FAILED" if isinstance(error, GraphQLSyntaxError) else "GRAPHQL_VALIDATION_FAILED"
        )
        return code, error.message, {}
    if isinstance(original, GraphQLError):  # a variable that does not coerce (e.g. a 30-digit Int)
        return "BAD_USER_INPUT", error.message, {}
    if isinstance(original, UnknownName):
        return "BAD_USER_INPUT", str(original), {"suggestions": original.suggestions}
    if isinstance(original, InvalidArgument | ServiceError):
        return "BAD_USER_INPUT", str(original), {}
    if isinstance(original, QueryTimeout):
        return "TIMEOUT", f"{original} (KG_REQUEST_TIMEOUT_S); narrow the query", {}
    if isinstance(original, StoreUnavailable):
        return "STORE_UNAVAILABLE", f"graph store unavailable: {original}", {}
    if isinstance(original, GraphStoreError):
        return "STORE_ERROR", f"graph store error: {original}", {}
    return "INTERNAL_SERVER_ERROR", "Unexpected error.", {}


class ErrorPolicy(MaskErrors):
    """Give every error a ``code``; replace unexpected ones by "Unexpected error." (logged)."""

    def __init__(self) -> None:
        super().__init__(should_mask_error=lambda e: not isinstance(e.original_error, APIError))

    def anonymise_error(self, error: GraphQLError) -> GraphQLError:
        code, message, extra = classify(error)
        return GraphQLError(
            message=message,
            nodes=error.nodes,
            source=error.source,
            positions=error.positions,
            path=error.path,
            original_error=None,
            extensions={**(error.extensions or {}), **extra, "code": code},
        )


# The parsed documents, by text and parse options (the token bound): one parse per distinct
# document for the process. Module level, so its ``cache_info()`` shows that requests hit it.
parse_document = lru_cache(maxsize=DOCUMENT_CACHE_SIZE)(parse)


class LenientParserCache(ParserCache):
    """:class:`~strawberry.extensions.ParserCache` that leaves syntax errors to strawberry.

    The stock extension raises a syntax error from its hook, outside the operation, so
    :class:`ErrorPolicy` never sees it and it reaches the client without a ``code``; here a
    document that does not parse is simply not cached and strawberry reports it as usual.
    """

    def on_parse(self) -> Iterator[None]:
        context = self.execution_context
        try:
            context.graphql_document = parse_document(context.query, **context.parse_options)
        except GraphQLError:
            pass
        yield


class ValidationsByText:
    """Validation errors remembered by document text, schema and rules (an LRU).

    Why not only :class:`~strawberry.extensions.ValidationCache`: it keys on the parsed
    document, and graphql-core's AST nodes are frozen dataclasses whose hash walks the whole
    tree on every request (40-90 µs for the benchmark's documents, as long as a light
    resolver); a string's hash is computed once and kept by Python.
    """

    def __init__(self, maxsize: int) -> None:
        self.maxsize = maxsize
        self.hits = 0
        self.misses = 0
        self._entries: OrderedDict[Hashable, list[GraphQLError]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable) -> list[GraphQLError] | None:
        with self._lock:
            errors = self._entries.get(key)
            if errors is None:
                self.misses += 1
                return None
            self._entries.move_to_end(key)
            self.hits += 1
            return list(errors)

    def put(self, key: Hashable, errors: list[GraphQLError]) -> None:
        with self._lock:
            self._entries[key] = list(errors)
            while len(self._entries) > self.maxsize:
                self._entries.popitem(last=False)


validations_by_text = ValidationsByText(DOCUMENT_CACHE_SIZE)


class PaperKGSchema(strawberry.Schema):
    """Logs unexpected errors with their traceback; client mistakes and outages only briefly."""

    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        for error in errors:
            code, _, _ = classify(error)
            if code in EXPECTED_CODES:
                log.debug("client error: %s", error.message)
            elif code.startswith("STORE_"):
                log.warning("store error: %s", error.message)
            else:
                super().process_errors([error], execution_context)


class GatedValidationCache(ValidationCache):
    """:class:`~strawberry.extensions.ValidationCache` that first applies the request gate's
    document bounds (:func:`api.guard.document_refusal`) and skips validation when they refuse.

    Why here as well as in the HTTP gate: validation is where an exponential document costs
    minutes (overlapping-fields checks walk the expansion), and every way into execution (HTTP,
    ``kg query``, any route added later) runs it, so a document refused here is refused on
    every path, and validation never sees it.
    """

    def on_validate(self) -> Iterator[None]:
        context = self.execution_context
        refusal = self._refusal()
        if refusal is None:
            query = context.query
            key = (
                (context.schema, query, context.validation_rules)
                if isinstance(query, str) and len(query) <= MAX_REMEMBERED_CHARS
                else None
            )
            known = validations_by_text.get(key) if key is not None else None
            if known is not None:
                context.pre_execution_errors = known
                yield
                return
            for _ in super().on_validate():  # validates, then yields once
                if key is not None:
                    validations_by_text.put(key, list(context.pre_execution_errors or []))
                yield
            return
        message, code = refusal
        context.pre_execution_errors = [GraphQLError(message, original_error=APIError(message, code))]
        yield

    def _refusal(self) -> tuple[str, str] | None:
        """The gate's verdict, remembered per document text (:func:`api.guard.document_verdict`:
        the HTTP gate has usually just given it), else computed on the parsed document."""
        context = self.execution_context
        if isinstance(context.query, str):
            return document_verdict(context.query, context.operation_name)
        document = context.graphql_document
        refusal = document_refusal(document, context.operation_name) if document is not None else None
        return None if refusal is None else (str(refusal), refusal.code)


def build_schema(settings: Settings | None = None) -> strawberry.Schema:
    """The schema with its protective extensions configured from ``settings``.

    The depth and alias rules are built once and shared by every request, so
    :class:`~strawberry.extensions.ValidationCache` recognises them and validates each distinct
    document only once (with per-request rule classes it never would).

    Example:
        >>> "coauthorNetwork" in print_sdl()
        True
    """
    s = settings or Settings()
    rules = [
        *QueryDepthLimiter(max_depth=s.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=s.max_aliases).validation_rules,
    ]
    return PaperKGSchema(
        query=Query,
        # Factories, not instances: strawberry builds them per request, so concurrent requests
        # never share an extension's execution context. Rules go in before ValidationCache runs.
        extensions=[
            partial(AddValidationRules, rules),
            # The gate's token bound, applied by graphql-core's parser on every path.
            partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
            partial(LenientParserCache, maxsize=DOCUMENT_CACHE_SIZE),
            partial(GatedValidationCache, maxsize=DOCUMENT_CACHE_SIZE),
            ErrorPolicy,
        ],
    )


def print_sdl() -> str:
    """The schema in SDL, as checked in at ``schema.graphql``."""
    return build_schema().as_str() + "\n"
