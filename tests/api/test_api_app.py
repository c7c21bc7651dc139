"""The app around the schema: DataLoader batching, schema drift, GraphiQL, CORS, in-process queries."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import graphql
import httpx
import pytest

from api.app import ResponseCacheMiddleware, create_app
from api.execute import execute_query
from api.schema import print_sdl
from kg.core.config import Settings
from kg.stores.protocol import PageReads

ROOT = Path(__file__).resolve().parents[2]
GQL = Callable[..., dict[str, Any]]

PAGE_QUERY = """query($n: Int) { papers(first: $n) { nodes {
    authors { name } concepts { concept { name } } venue { name } } } }"""


def uncached(store: Any) -> Any:
    """The app without its response cache, so every request really resolves."""
    return create_app(Settings(), store=store, response_cache_size=0)


def test_store_round_trips_do_not_grow_with_page_size(proxy: Any, serve_app: Any, post_to: Any) -> None:
    with serve_app(uncached(proxy)) as server, httpx.Client(base_url=server.url) as c:
        assert not post_to(c, PAGE_QUERY, {"n": 20}).get("errors")  # warm the service's indexes
        per_size = {}
        for n in (5, 20, 50):
            proxy.calls.clear()
            body = post_to(c, PAGE_QUERY, {"n": n})
            assert not body.get("errors")
            assert len(body["data"]["papers"]["nodes"]) == n
            per_size[n] = dict(proxy.calls)
    assert per_size[5] == per_size[20] == per_size[50], per_size
    # the store answers the page (one papers query), the nodes (one get_nodes), the bylines (one
    # paper_authors) and one batched neighbors_many each for concepts (MENTIONS) and venues; a
    # store that reads a page's nodes, bylines and venues in one trip (Neo4j) does so instead
    if isinstance(proxy, PageReads):
        want = {"papers": 1, "page_nodes": 1, "neighbors_many": 1}
    else:
        want = {"papers": 1, "get_nodes": 1, "paper_authors": 1, "neighbors_many": 2}
    assert {k: v for k, v in per_size[5].items() if k != "version"} == want


def test_nested_lists_batch_across_parents(proxy: Any, serve_app: Any, post_to: Any) -> None:
    query = """{ author(name: "Sanjeev Arora") { coauthors { author { paperCount
        papers(first: 3) { nodes { venue { name } } } coauthors { papers } } } } }"""
    with serve_app(uncached(proxy)) as server, httpx.Client(base_url=server.url) as c:
        assert not post_to(c, query).get("errors")
        proxy.calls.clear()
        assert not post_to(c, query).get("errors")
    assert proxy.calls["degree_many"] == 1
    assert proxy.calls["neighbors_many"] <= 3  # COAUTHOR ×2 levels, PUBLISHED_IN


def test_response_cache_serves_repeats_and_skips_errors(proxy: Any, serve_app: Any, post_to: Any) -> None:
    app = create_app(Settings(), store=proxy)
    with serve_app(app) as server, httpx.Client(base_url=server.url) as c:
        first = post_to(c, PAGE_QUERY, {"n": 5})
        proxy.calls.clear()
        again = post_to(c, PAGE_QUERY, {"n": 5})
        assert again == first and set(proxy.calls) <= {"version"}, "served from the cache"
        assert (
            post_to(c, PAGE_QUERY, {"n": 6})["data"]["papers"]["nodes"][:5]
            == first["data"]["papers"]["nodes"]
        )
        assert proxy.calls, "other variables are another entry"
        bad = '{ paper(id: "paper:none") { id } papers(first: 1000) { totalCount } }'
        cache = _response_cache(app)
        hits = cache.hits
        assert post_to(c, bad)["errors"] and post_to(c, bad)["errors"]
        assert cache.hits == hits, "errors are never cached"
        # a new store version (e.g. after an ingest) makes every entry stale
        app.state.service.version = lambda: -1
        proxy.calls.clear()
        assert post_to(c, PAGE_QUERY, {"n": 5}) == first and proxy.calls


def test_schema_file_matches_the_code() -> None:
    checked_in = (ROOT / "schema.graphql").read_text(encoding="utf-8")
    assert checked_in == print_sdl(), "schema.graphql is stale: run python scripts/export_schema.py"


def _signatures(sdl: str) -> str:
    """Every field of every object type as one line ``name(arg: Type = default, ...): Type``:
    the schema as the contract reads, whatever descriptions the printed SDL puts between arguments."""
    lines = []
    for definition in graphql.parse(sdl).definitions:
        if not isinstance(definition, graphql.ObjectTypeDefinitionNode):
            continue
        for field in definition.fields or ():
            args = [
                f"{arg.name.value}: {graphql.print_ast(arg.type)}"
                + (f" = {graphql.print_ast(arg.default_value)}" if arg.default_value is not None else "")
                for arg in field.arguments or ()
            ]
            listed = f"({', '.join(args)})" if args else ""
            lines.append(f"{field.name.value}{listed}: {graphql.print_ast(field.type)}")
    return "\n".join(lines)


def test_contract_names_are_in_the_schema() -> None:
    sdl = _signatures(print_sdl())
    for fragment in (
        "paper(id: ID!): Paper",
        "papers(where: PaperFilter",
        "concept(name: String!): Concept",
        "concepts(search: String",
        "author(name: String!): Author",
        "authors(search: String",
        "venues: [Venue!]!",
        "topics: [Topic!]!",
        "coauthorNetwork(author: String!, depth: Int = 1, maxNodes: Int = 200",
        "conceptGraph(concept: String = null, minWeight: Int = 1, maxNodes: Int = 200",
        "search(text: String!, first: Int = 20): [SearchHit!]!",
        "stats: Stats!",
        "authorsTruncated: Boolean!",
        "concepts(first: Int = null): [ConceptMention!]!",
        "includeNarrower: Boolean = true",
        "coauthors(first: Int = 20): [Coauthor!]!",
        "coauthorCount: Int!",
    ):
        assert fragment in sdl, fragment


def test_graphiql_and_healthz(client: httpx.Client, seeded_store: Any) -> None:
    page = client.get("/graphql", headers={"Accept": "text/html"})
    assert page.status_code == 200 and "graphiql" in page.text.lower()
    health = client.get("/healthz")
    assert health.status_code == 200
    assert health.json() == {"status": "ok", "backend": seeded_store.backend_name}


def test_cors_from_settings(seeded_store: Any, serve_app: Any) -> None:
    app = create_app(Settings(cors_origins=["https://kg.example.org"]), store=seeded_store)
    with serve_app(app) as server, httpx.Client(base_url=server.url) as c:
        allowed = c.options(
            "/graphql",
            headers={"Origin": "https://kg.example.org", "Access-Control-Request-Method": "POST"},
        )
        assert allowed.headers.get("access-control-allow-origin") == "https://kg.example.org"
        other = c.options(
            "/graphql", headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "POST"}
        )
        assert "access-control-allow-origin" not in other.headers


def test_execute_query_in_process_matches_http(gql: GQL, seeded_store: Any) -> None:
    query = '{ author(name: "Sanjeev Arora") { coauthors { author { name } papers } } }'
    over_http = gql(query)
    over_http.pop("_status")
    assert execute_query(query, store=seeded_store) == over_http
    failed = execute_query("{ papers(first: 1000) { totalCount } }", store=seeded_store)
    assert failed["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    json.dumps(failed)  # plain JSON, as `kg query` prints it


def _response_cache(app: Any) -> ResponseCacheMiddleware:
    """The running app's response cache (Starlette builds the middleware chain on startup)."""
    node = app.middleware_stack
    while node is not None and not isinstance(node, ResponseCacheMiddleware):
        node = getattr(node, "app", None)
    assert isinstance(node, ResponseCacheMiddleware)
    return node


LINKED_PAGES = [
    """{ papers(first: 40) { totalCount nodes { id title authors { name paperCount } venue { name } } } }""",
    """{ papers(first: 5, after: "b2Zmc2V0OjI=") { edges { cursor node { ...P } } } }
       fragment P on Paper { id venue { name year } ... on Paper { authors { name nickname } } }""",
    """{ papers(first: 4) { nodes { title
       authors @skip(if: true) { name } venue @include(if: false) { id } } } }""",
    """{ venues { papers(first: 2) { nodes { title authors { name } venue { name } } } } }""",
]


def test_page_links_read_with_the_page_match_the_loaders(
    seeded_store: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page's authors and venues read with it (api.types.paper_connection) give the same
    answers as the per-paper loaders they replace for pages not under a list."""
    import api.types

    with_page = [execute_query(q, store=seeded_store) for q in LINKED_PAGES]
    monkeypatch.setattr(api.types, "page_paper_fields", lambda info: set())
    with_loaders = [execute_query(q, store=seeded_store) for q in LINKED_PAGES]
    assert all(not r.get("errors") and r["data"] for r in with_page)
    assert json.dumps(with_page) == json.dumps(with_loaders)
    nodes = with_page[0]["data"]["papers"]["nodes"]
    assert any(n["authors"] for n in nodes) and any(n["venue"] for n in nodes)


def test_server_process_relaxes_the_collector_while_serving(tmp_path: Path) -> None:
    """An app that opens its own store (``kg serve``) freezes its warm heap and collects young
    objects less often while it serves, and puts both back at shutdown; an injected store (a
    library or test caller) leaves the collector alone."""
    import asyncio
    import gc

    from api.app import SERVING_GEN0_THRESHOLD

    before = gc.get_threshold()

    async def lifespan(app: Any) -> tuple[int, int]:
        async with app.router.lifespan_context(app):
            return gc.get_threshold()[0], gc.get_freeze_count()

    owned = create_app(Settings(backend="sqlite", data_dir=tmp_path), warm_first=True)
    threshold, frozen = asyncio.run(lifespan(owned))
    assert threshold == SERVING_GEN0_THRESHOLD and frozen > 0
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    from kg.stores.sqlite import SQLiteStore

    injected = create_app(Settings(), store=SQLiteStore(None))
    assert asyncio.run(lifespan(injected))[0] == before[0]
