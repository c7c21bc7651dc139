"""The per-request speed-ups change nothing a client sees.

Each test serves the real app twice over the seeded store (memory, and Neo4j with ``--neo4j``):
as built, and without one speed-up (graphql-core's own executor instead of
:class:`api.executor.PlainFieldExecutor`; the strawberry router instead of
:class:`api.app.GraphQLFastPath`), and compares status, content type and body.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import Enum
from typing import Any

import httpx
import pytest
import strawberry
from strawberry.schema.schema import StrawberryGraphQLCoreExecutionContext

from api.app import GraphQLFastPath, create_app
from api.executor import PlainFieldExecutor
from kg.config import Settings

PARITY_QUERIES: list[tuple[str, dict[str, Any]]] = [
    (
        """{ papers(first: 5) { totalCount pageInfo { hasNextPage hasPreviousPage startCursor endCursor }
            edges { cursor node { id title titleSource year keywords sources authorsTruncated
            venue { id name series year } authors { id name nickname } } } } }""",
        {},
    ),
    (
        """query($yes: Boolean!) { c: concept(name: "bandits") { n: name kind aliases __typename ...F }
            again: concept(name: "bandits") { name } }
           fragment F on Concept { id papers(first: 3) { nodes { title @include(if: $yes) year @skip(if: $yes)
            t: __typename } } }""",
        {"yes": True},
    ),
    (
        """query($yes: Boolean!) { concept(name: "bandits") { name papers(first: 3) {
            nodes { title @include(if: $yes) year @skip(if: $yes) } } } }""",
        {"yes": False},
    ),
    (
        """{ search(text: "equilibrium", first: 10) { score __typename paper { id title authors { name } }
            concept { id name kind aliases } } }""",
        {},
    ),
    (
        """{ coauthorNetwork(author: "Sanjeev Arora", depth: 2) { __typename truncated
            nodes { id label name weight __typename } edges { source target weight } } }""",
        {},
    ),
    (
        """{ conceptGraph(minWeight: 1, maxNodes: 20) { nodes { id name weight }
            edges { source target weight } }
            big: coauthorNetwork(author: "Sanjeev Arora", depth: 3, maxNodes: 500) {
            truncated nodes { id } } }""",
        {},
    ),
    (
        """{ author(name: "Sanjeev Arora") { name paperCount coauthors { author { name } papers }
            top: coauthors(first: 2) { papers author { id paperCount
            papers(first: 2) { nodes { title } } } } } }""",
        {},
    ),
    ("""{ communities(first: 2) { index size members(first: 3) { id label name weight } } }""", {}),
    ("""{ papers(first: 1000) { totalCount } }""", {}),
    ("""{ coauthorNetwork(author: "Nobody Atall") { nodes { id } } }""", {}),
    ("""{ stats { nodes { label count } relationships { type count } } venues { name paperCount } }""", {}),
]


@contextmanager
def served(
    seeded_store: Any, serve_app: Any, *, plain_fields: bool = True, fast_path: bool = True
) -> Iterator[str]:
    """The app over the seeded store, optionally without one of the speed-ups; yields its URL."""
    app = create_app(Settings(), store=seeded_store, response_cache_size=0)
    if not fast_path:
        app.user_middleware = [m for m in app.user_middleware if m.cls is not GraphQLFastPath]
    with serve_app(app) as server:
        if not plain_fields:
            _schema(app).execution_context_class = StrawberryGraphQLCoreExecutionContext
        yield server.url


def _schema(app: Any) -> Any:
    """The schema the running app executes (Starlette builds the middleware chain on startup)."""
    node = app.middleware_stack
    while node is not None and not isinstance(node, GraphQLFastPath):
        node = getattr(node, "app", None)
    assert isinstance(node, GraphQLFastPath)
    return node.router.schema


def _responses(url: str, requests: list[tuple[str, dict[str, Any]]]) -> list[tuple[int, str, Any]]:
    out = []
    with httpx.Client(base_url=url, timeout=120) as c:
        for query, variables in requests:
            r = c.post("/graphql", json={"query": query, "variables": variables})
            out.append((r.status_code, r.headers["content-type"], r.json()))
    return out


def test_plain_field_executor_answers_exactly_like_graphql_core(seeded_store: Any, serve_app: Any) -> None:
    with served(seeded_store, serve_app) as url:
        fast = _responses(url, PARITY_QUERIES)
    with served(seeded_store, serve_app, plain_fields=False) as url:
        stock = _responses(url, PARITY_QUERIES)
    for (query, _), mine, reference in zip(PARITY_QUERIES, fast, stock, strict=True):
        assert mine == reference, query
    assert all(status == 200 for status, _, _ in fast)
    assert fast[4][2]["data"]["coauthorNetwork"]["edges"], "a real network was compared"


RAW_REQUESTS: list[tuple[str, dict[str, str], bytes | None, str | None]] = [
    # (method, headers, body, query string)
    ("POST", {"content-type": "application/json"}, b'{"query": "{ __typename }"}', None),
    ("POST", {"content-type": "application/json; charset=utf-8"}, b'{"query": "{ venues { name } }"}', None),
    (
        "POST",
        {"content-type": "application/json"},
        b'{"query": "query A { venues { name } } query B { __typename }", "operationName": "B"}',
        None,
    ),
    (
        "POST",
        {"content-type": "application/json"},
        b'{"query": "query A { __typename } query B { __typename }", "operationName": "C"}',
        None,
    ),
    (
        "POST",
        {"content-type": "application/json"},
        b'{"query": "query A { __typename } query B { __typename }"}',
        None,
    ),
    ("POST", {"content-type": "application/json"}, b'{"query": "{ venues { name }"}', None),
    ("POST", {"content-type": "application/json"}, b'{"query": "{ nope }", "variables": null}', None),
    ("POST", {"content-type": "application/json"}, b"not json", None),
    ("POST", {"content-type": "application/json"}, b'{"query": 5}', None),
    ("POST", {"content-type": "application/json"}, b'{"variables": {}}', None),
    ("POST", {"content-type": "application/json"}, b'{"query": "{ __typename }", "variables": [1]}', None),
    ("POST", {"content-type": "application/json"}, b'[{"query": "{ __typename }"}]', None),
    ("POST", {"content-type": "text/plain"}, b'{"query": "{ __typename }"}', None),
    (
        "POST",
        {"content-type": "application/json", "accept": "multipart/mixed"},
        b'{"query": "{ __typename }"}',
        None,
    ),
    ("POST", {"content-type": "application/json"}, b'{"query": "mutation { x }"}', None),
    ("GET", {"accept": "application/json"}, None, "query={ venues { name } }"),
]


def _raw(url: str) -> list[tuple[int, str, bytes]]:
    out = []
    with httpx.Client(base_url=url, timeout=60) as c:
        for method, headers, body, params in RAW_REQUESTS:
            r = c.request(
                method, "/graphql" + (f"?{params}" if params else ""), headers=headers, content=body
            )
            out.append((r.status_code, r.headers.get("content-type", ""), r.content))
    return out


def test_json_fast_path_answers_exactly_like_the_router(seeded_store: Any, serve_app: Any) -> None:
    with served(seeded_store, serve_app) as url:
        fast = _raw(url)
    with served(seeded_store, serve_app, fast_path=False) as url:
        router = _raw(url)
    for request, mine, reference in zip(RAW_REQUESTS, fast, router, strict=True):
        assert mine == reference, request
    assert fast[0][:2] == (200, "application/json") and fast[7][0] == 400


# -- the executor on its own, where values can be made to go wrong -------------------------------


@strawberry.enum
class Color(Enum):
    RED = "red"


@strawberry.type
class Item:
    name: str
    count: int
    ratio: float | None
    tags: list[str]
    maybe: list[str | None]
    color: Color
    ident: strawberry.ID


@strawberry.type
class Holder:
    item: Item
    items: list[Item]
    optional: Item | None


def _item(**overrides: Any) -> Item:
    values: dict[str, Any] = {
        "name": "a",
        "count": 1,
        "ratio": 0.5,
        "tags": ["x"],
        "maybe": ["y", None],
        "color": Color.RED,
        "ident": strawberry.ID("i1"),
    }
    values.update(overrides)
    return Item(**values)


CASES: dict[str, Callable[[], Item]] = {
    "plain": lambda: _item(),
    "int too large": lambda: _item(count=2**40),
    "int from float": lambda: _item(count=3.0),
    "not finite": lambda: _item(ratio=math.inf),
    "null ratio": lambda: _item(ratio=None),
    "null in non-null": lambda: _item(name=None),
    "null in non-null list": lambda: _item(tags=["x", None]),
    "tuple list": lambda: _item(tags=("x", "y")),
    "generator list": lambda: _item(tags=(t for t in ["x", "y"])),
    "number as ID": lambda: _item(ident=7),
    "bool as int": lambda: _item(count=True),
    "not a color": lambda: _item(color="blue"),
}

QUERY = """{ holder { __typename item { name count ratio tags maybe color ident t: __typename }
    items { n: name count tags } optional { name } } }"""


def _run(executor: type, make: Callable[[], Item]) -> tuple[Any, list[Any]]:
    @strawberry.type
    class Query:
        @strawberry.field
        def holder(self) -> Holder:
            item = make()
            return Holder(item=item, items=[_item(), make(), _item(name="b")], optional=None)

    schema = strawberry.Schema(query=Query, execution_context_class=executor)
    result = asyncio.run(schema.execute(QUERY))
    return result.data, sorted((e.message, str(e.path)) for e in result.errors or [])


@pytest.mark.parametrize("case", list(CASES))
def test_executor_falls_back_to_graphql_core_on_anything_unusual(case: str) -> None:
    mine = _run(PlainFieldExecutor, CASES[case])
    assert mine == _run(StrawberryGraphQLCoreExecutionContext, CASES[case])
    if case == "plain":
        assert mine[0]["holder"]["items"][2] == {"n": "b", "count": 1, "tags": ["x"]}
