"""Media-type negotiation and request-error status for GraphQL over HTTP (api/graphql_http.py)."""

from __future__ import annotations

from typing import Any

import pytest

from api.graphiql import graphiql_html
from api.graphql_http import APPLICATION_JSON, GRAPHQL_RESPONSE_JSON, negotiate, response_status


@pytest.mark.parametrize(
    ("accept", "expected"),
    [
        (None, APPLICATION_JSON),
        ("", APPLICATION_JSON),
        ("*/*", APPLICATION_JSON),
        ("application/*", APPLICATION_JSON),
        ("application/json", APPLICATION_JSON),
        ("application/json; charset=utf-8", APPLICATION_JSON),
        ("application/graphql-response+json", GRAPHQL_RESPONSE_JSON),
        ("application/graphql-response+json, application/json", GRAPHQL_RESPONSE_JSON),
        ("application/json, application/graphql-response+json", APPLICATION_JSON),
        ("application/graphql-response+json;q=0.5, application/json", APPLICATION_JSON),
        ("application/json;q=0.9, application/graphql-response+json", GRAPHQL_RESPONSE_JSON),
        ("application/graphql-response+json, */*;q=0.1", GRAPHQL_RESPONSE_JSON),
        # GraphiQL's fetcher: streaming types it does not need are ignored.
        ("application/graphql-response+json, application/json, multipart/mixed", GRAPHQL_RESPONSE_JSON),
        ("text/html", None),
        ("application/json;q=0", None),
        ("application/xml, text/plain", None),
    ],
)
def test_negotiate(accept: str | None, expected: str | None) -> None:
    assert negotiate(accept) == expected


@pytest.mark.parametrize(
    ("body", "status"),
    [
        ({"data": {"a": 1}}, None),
        ({"data": {"a": None}, "errors": [{"message": "x", "path": ["a"]}]}, None),
        ({"data": None, "errors": [{"message": "x", "path": ["paper"]}]}, None),  # field error
        ({"data": None, "errors": [{"message": "Syntax Error"}]}, 400),
        (
            {"data": None, "errors": [{"message": "v", "extensions": {"code": "GRAPHQL_PARSE_FAILED"}}]},
            400,
        ),
        ({"data": None, "errors": [{"message": "down", "extensions": {"code": "STORE_UNAVAILABLE"}}]}, 503),
        ({"data": None, "errors": [{"message": "?", "extensions": {"code": "INTERNAL_SERVER_ERROR"}}]}, 500),
        ({"data": None, "errors": []}, None),
    ],
)
def test_response_status(body: dict[str, Any], status: int | None) -> None:
    assert response_status(body) == status


def test_graphiql_page_is_local_only() -> None:
    page = graphiql_html("/prefix", "/prefix/graphql")
    urls = [m for m in page.split('"') if m.startswith(("/", "http", "//"))]
    assert urls and all(u.startswith("/prefix/") for u in urls), urls
    assert 'src="/prefix/static/vendor/graphiql/graphiql.min.js"' in page
