"""Institutions over HTTP, on each backend: ``institution(name:)`` with its authors and papers,
``papers(where: {institution})`` and ``Author.institutions``.

The store is ingested here (institutions are derived by the ingest, :mod:`kg.authors.institutions`)
from two small paperlists listings: Carnegie Mellon printed as "Carnegie Mellon University" and
"CMU" with the domain ``cmu.edu``, and ETH Zurich without a domain.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest


def _record(rid: str, title: str, authors: list[str], aff: list[str], domains: list[str]) -> dict[str, Any]:
    return {
        "id": rid,
        "title": title,
        "author": ";".join(authors),
        "authorids": ";".join("~" + a.replace(" ", "_") + "1" for a in authors),
        "aff": ";".join(aff),
        "aff_domain": ";".join(domains),
        "abstract": f"We study {title.lower()} and report what we found about it in detail.",
    }


LISTINGS = {
    "corl2023.json": [
        _record(
            "p1",
            "Grasping with tactile sensing",
            ["Lena Park", "Omar Haddad"],
            ["Carnegie Mellon University", "ETH Zurich"],
            ["cmu.edu", ""],
        ),
        _record("p2", "Walking robots on ice", ["Lena Park"], ["CMU"], ["cmu.edu"]),
    ],
    "iclr2021.json": [
        _record(
            "p3",
            "Attention for control",
            ["Lena Park", "Omar Haddad"],
            ["ETH Zurich", "ETH Zurich"],
            ["", ""],
        ),
    ],
}


@pytest.fixture
def gql(listings_api: Callable[..., Any]) -> Iterator[Callable[..., dict[str, Any]]]:
    with listings_api(LISTINGS) as gql:
        yield gql


def _data(body: dict[str, Any]) -> dict[str, Any]:
    assert not body.get("errors"), body.get("errors")
    result: dict[str, Any] = body["data"]
    return result


def test_institution_by_alias_with_authors_and_papers(gql: Callable[..., dict[str, Any]]) -> None:
    d = _data(
        gql(
            '{ institution(name: "cmu") { id name domain aliases '
            "authors(first: 5) { author { name } papers years } "
            "papers(first: 1) { totalCount nodes { title year } pageInfo { hasNextPage endCursor } } } }"
        )
    )
    inst = d["institution"]
    assert (inst["id"], inst["name"], inst["domain"], inst["aliases"]) == (
        "institution:cmu.edu",
        "CMU",  # a tie of one paper each: the smallest variant
        "cmu.edu",
        ["Carnegie Mellon University"],
    )
    assert inst["authors"] == [{"author": {"name": "Lena Park"}, "papers": 2, "years": [2023]}]
    assert inst["papers"]["totalCount"] == 2
    assert inst["papers"]["nodes"] == [{"title": "Grasping with tactile sensing", "year": 2023}]
    assert inst["papers"]["pageInfo"]["hasNextPage"] is True
    after = inst["papers"]["pageInfo"]["endCursor"]
    rest = _data(
        gql(f'{{ institution(name: "cmu.edu") {{ papers(after: "{after}") {{ nodes {{ title }} }} }} }}')
    )
    assert rest["institution"]["papers"]["nodes"] == [{"title": "Walking robots on ice"}]


def test_papers_where_institution_and_author_institutions(gql: Callable[..., dict[str, Any]]) -> None:
    d = _data(
        gql(
            '{ eth: papers(where: {institution: "eth zurich"}) { totalCount nodes { title } } '
            'eth2021: papers(where: {institution: "ETH Zurich", year: 2021}) { totalCount } '
            'author(name: "Omar Haddad") { institutions { name years institution { id } } } '
            'none: institution(name: "Atlantis") { id } }'
        )
    )
    assert d["eth"] == {
        "totalCount": 2,
        "nodes": [{"title": "Grasping with tactile sensing"}, {"title": "Attention for control"}],
    }
    assert d["eth2021"] == {"totalCount": 1}
    assert d["author"]["institutions"] == [
        {"name": "ETH Zurich", "years": [2021, 2023], "institution": {"id": "institution:eth zurich"}}
    ]
    assert d["none"] is None
    body = gql('{ papers(where: {institution: "Atlantis"}) { totalCount } }')
    assert body["errors"] and "unknown institution 'Atlantis'" in body["errors"][0]["message"]
