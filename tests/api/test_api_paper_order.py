"""``orderBy`` on every list of papers, over HTTP against the seed listings, on each backend.

The store's orders themselves are checked tie by tie in tests/contract/test_paper_order.py;
here: each list takes the argument, its default is what the list promised before, and one order
reached two ways (``concept.papers`` and ``papers(where: {concept})``) is one list.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

GQL = Callable[..., dict[str, Any]]
NODES = "totalCount nodes { id title year }"


def data(body: dict[str, Any]) -> dict[str, Any]:
    assert not body.get("errors"), body.get("errors")
    result: dict[str, Any] = body["data"]
    return result


def newest_first(nodes: list[dict[str, Any]]) -> bool:
    years = [n["year"] if n["year"] is not None else -1 for n in nodes]
    return years == sorted(years, reverse=True)


def test_a_text_query_by_relevance_or_newest_first(gql: GQL) -> None:
    q = (
        "query($t: String, $o: PaperOrder) { papers(where: {text: $t}, first: 100, orderBy: $o) { "
        + NODES
        + " } }"
    )
    default = data(gql(q, t="equilibrium", o=None))["papers"]
    ranked = data(gql(q, t="equilibrium", o="RELEVANCE"))["papers"]
    newest = data(gql(q, t="equilibrium", o="NEWEST"))["papers"]
    assert default == ranked  # a text query ranks by default
    assert newest["totalCount"] == ranked["totalCount"] >= 3
    assert {n["id"] for n in newest["nodes"]} == {n["id"] for n in ranked["nodes"]}
    assert newest_first(newest["nodes"])


def test_a_concept_by_relevance_is_one_list_however_it_is_asked_for(gql: GQL) -> None:
    by_concept = data(gql('{ concept(name: "bandits") { papers(first: 50) { ' + NODES + " } } }"))
    by_filter = data(
        gql('{ papers(where: {concept: "bandits"}, first: 50, orderBy: RELEVANCE) { ' + NODES + " } }")
    )
    assert by_filter["papers"] == by_concept["concept"]["papers"]
    plain = data(gql('{ papers(where: {concept: "bandits"}, first: 50) { ' + NODES + " } }"))["papers"]
    assert newest_first(plain["nodes"])  # without orderBy a filter lists newest first, as before
    assert plain["totalCount"] == by_filter["papers"]["totalCount"]


def test_author_venue_topic_papers_take_an_order(gql: GQL) -> None:
    lists = "papers(first: 50, orderBy: $o) { " + NODES + " }"
    q = (
        "query($o: PaperOrder) { authors(first: 1, orderBy: PAPER_COUNT) { nodes { " + lists + " } } "
        "venues { " + lists + " } topics { " + lists + " } }"
    )
    default = data(gql(q.replace(", orderBy: $o", "").replace("query($o: PaperOrder) ", "")))
    newest = data(gql(q, o="NEWEST"))
    assert newest == default
    pages = [newest["authors"]["nodes"][0]["papers"]]
    pages += [v["papers"] for v in newest["venues"]] + [t["papers"] for t in newest["topics"]]
    assert sum(page["totalCount"] for page in pages) > 0
    assert all(newest_first(page["nodes"]) for page in pages)


def test_oldest_first_is_newest_first_reversed_by_year(gql: GQL) -> None:
    q = "query($o: PaperOrder) { venues { papers(first: 100, orderBy: $o) { " + NODES + " } } }"
    newest, oldest = data(gql(q, o="NEWEST"))["venues"], data(gql(q, o="OLDEST"))["venues"]
    assert len(newest) == len(oldest) >= 2
    for new, old in zip(newest, oldest, strict=True):
        assert new["papers"]["totalCount"] == old["papers"]["totalCount"] <= 100
        years = [n["year"] for n in old["papers"]["nodes"] if n["year"] is not None]
        assert years == sorted(years)
        assert {n["id"] for n in new["papers"]["nodes"]} == {n["id"] for n in old["papers"]["nodes"]}
