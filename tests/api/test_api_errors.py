"""Limits and error responses: codes, clear messages, masking, store outages, timeouts."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest

from api.app import create_app
from kg.core.config import Settings

GQL = Callable[..., dict[str, Any]]


def codes(body: dict[str, Any]) -> list[str]:
    return [e.get("extensions", {}).get("code") for e in body.get("errors") or []]


def messages(body: dict[str, Any]) -> str:
    return " | ".join(e["message"] for e in body.get("errors") or [])


@pytest.mark.parametrize("first", [1000, 101, -1])
def test_page_size_out_of_range_is_a_clear_error(gql: GQL, first: int) -> None:
    body = gql("query($f: Int) { papers(first: $f) { totalCount } }", f=first)
    assert codes(body) == ["BAD_USER_INPUT"]
    assert "`first` must be between 0 and 100" in messages(body)
    assert f"got {first}" in messages(body)
    assert body["errors"][0]["extensions"]["max"] == 100


@pytest.mark.parametrize(
    "query",
    [
        '{ concept(name: "bandits") { papers(first: 500) { totalCount } } }',
        '{ author(name: "Sanjeev Arora") { papers(first: 101) { totalCount } } }',
        "{ concepts(first: 1000) { totalCount } }",
        "{ authors(first: 1000) { totalCount } }",
        '{ search(text: "bandits", first: 1000) { score } }',
        '{ conceptSuggestions(name: "x", first: 1000) { name } }',
    ],
)
def test_every_paged_field_is_capped(gql: GQL, query: str) -> None:
    body = gql(query)
    assert codes(body) == ["BAD_USER_INPUT"], body


def test_invalid_cursor(gql: GQL) -> None:
    body = gql('{ papers(after: "not-a-cursor") { totalCount } }')
    assert codes(body) == ["BAD_USER_INPUT"]
    assert "invalid cursor" in messages(body)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ("depth: 4", "depth must be between 0 and 3"),
        ("depth: -1", "depth must be between 0 and 3"),
        ("maxNodes: 5000", "maxNodes must be between 1 and 1000"),
        ("maxNodes: 0", "maxNodes must be between 1 and 1000"),
    ],
)
def test_network_caps(gql: GQL, args: str, message: str) -> None:
    body = gql('{ coauthorNetwork(author: "Sanjeev Arora", ' + args + ") { truncated } }")
    assert codes(body) == ["BAD_USER_INPUT"]
    assert message in messages(body)


def test_concept_graph_min_weight_cap(gql: GQL) -> None:
    body = gql("{ conceptGraph(minWeight: 0) { truncated } }")
    assert codes(body) == ["BAD_USER_INPUT"]
    assert "minWeight must be at least 1" in messages(body)


def test_unknown_names_in_arguments_carry_suggestions(gql: GQL) -> None:
    body = gql('{ papers(where: {concept: "Nash equilibirum"}) { totalCount } }')
    assert codes(body) == ["BAD_USER_INPUT"]
    assert "unknown concept 'Nash equilibirum'" in messages(body)
    assert "Nash equilibrium" in body["errors"][0]["extensions"]["suggestions"]
    body = gql('{ coauthorNetwork(author: "Sanjeev Arorra") { truncated } }')
    assert codes(body) == ["BAD_USER_INPUT"]
    assert "Sanjeev Arora" in body["errors"][0]["extensions"]["suggestions"]
    body = gql('{ papers(where: {venue: "NeurIPS 1999"}) { totalCount } }')
    assert codes(body) == ["BAD_USER_INPUT"] and "unknown venue" in messages(body)
    body = gql('{ papers(where: {topic: "Quantum Basket Weaving"}) { totalCount } }')
    assert codes(body) == ["BAD_USER_INPUT"] and "unknown topic" in messages(body)


def test_too_deep_query_is_rejected(gql: GQL) -> None:
    nested = "coauthors { author { " * 6 + "name" + " } }" * 6
    body = gql('{ author(name: "Sanjeev Arora") { ' + nested + " } }")
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "exceeds maximum operation depth of 10" in messages(body)
    assert body["data"] is None


def test_too_many_aliases_are_rejected(gql: GQL) -> None:
    aliases = " ".join(f"a{i}: stats {{ nodes {{ count }} }}" for i in range(31))
    body = gql("{ " + aliases + " }")
    assert codes(body) == ["GRAPHQL_VALIDATION_FAILED"]
    assert "aliases" in messages(body)


def test_unknown_fields_and_syntax_errors_have_codes(gql: GQL) -> None:
    assert codes(gql("{ nope }")) == ["GRAPHQL_VALIDATION_FAILED"]
    assert codes(gql("{ papers { ")) == ["GRAPHQL_PARSE_FAILED"]


def test_unexpected_errors_are_masked(proxy: Any, serve_app: Any, post_to: Any) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("secret internal detail")

    proxy.search = broken
    with serve_app(create_app(Settings(), store=proxy)) as server, httpx.Client(base_url=server.url) as c:
        body = post_to(c, '{ search(text: "bandits") { score } }')
    assert codes(body) == ["INTERNAL_SERVER_ERROR"]
    assert messages(body) == "Unexpected error."
    assert "secret" not in str(body)


def test_store_outage_gives_store_unavailable_and_503(proxy: Any, serve_app: Any, post_to: Any) -> None:
    with serve_app(create_app(Settings(), store=proxy)) as server, httpx.Client(base_url=server.url) as c:
        ok = c.get("/healthz")
        assert ok.status_code == 200
        assert ok.json() == {"status": "ok", "backend": proxy.backend_name}
        assert not post_to(c, "{ stats { nodes { count } } }").get("errors")

        proxy.down = True
        health = c.get("/healthz")
        assert health.status_code == 503
        assert health.json()["status"] == "unavailable"
        assert "simulated outage" in health.json()["error"]
        body = post_to(c, "{ stats { nodes { count } } papers(first: 3) { totalCount } }")
        assert set(codes(body)) == {"STORE_UNAVAILABLE"}
        assert "graph store unavailable" in messages(body)
        body = post_to(c, '{ paper(id: "paper:x") { title } }')
        assert codes(body) == ["STORE_UNAVAILABLE"]

        proxy.down = False
        assert c.get("/healthz").status_code == 200


def test_slow_requests_time_out_with_a_clear_error(proxy: Any, serve_app: Any, post_to: Any) -> None:
    proxy.backend_name = "slow"  # a network-like backend: calls run in worker threads
    proxy.delay_s = 1.5
    app = create_app(Settings(request_timeout_s=0.3), store=proxy)
    with serve_app(app) as server, httpx.Client(base_url=server.url, timeout=10) as c:
        body = post_to(c, "{ stats { nodes { count } } }")
    assert body["_status"] == 504
    assert codes(body) == ["TIMEOUT"]
    assert "timed out after 0.3 s" in messages(body)
