"""``Author.coauthors`` is a bounded page and ``coauthorCount`` the whole number, over HTTP on
each backend.

Why its own store: the seed listings' authors have at most a dozen co-authors, fewer than the
default page (20), so the default would not be seen cutting anything. Here one paper has 26
authors (25 co-authors each) and a second paper gives "Ada Prime" two papers with three of them,
so the order (most shared papers first, then by name) is exercised across the cut.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kg.read.service import MAX_COAUTHORS

MANY = ["Ada Prime"] + [f"Author {chr(ord('A') + i)}{chr(ord('a') + i)}son" for i in range(25)]
TWICE = ["Ada Prime", MANY[25], MANY[24], MANY[23]]


def _record(rid: str, title: str, authors: list[str]) -> dict[str, Any]:
    return {
        "id": rid,
        "title": title,
        "author": ";".join(authors),
        "authorids": ";".join("~" + a.replace(" ", "_") + "1" for a in authors),
        "abstract": f"We study {title.lower()} and report what we found about it in detail.",
    }


@pytest.fixture
def gql(listings_api: Callable[..., Any]) -> Iterator[Callable[..., dict[str, Any]]]:
    records = [_record("p1", "A large collaboration", MANY), _record("p2", "A small follow-up", TWICE)]
    with listings_api({"iclr2024.json": records}) as gql:
        yield gql


def _coauthors(gql: Callable[..., dict[str, Any]], arguments: str) -> tuple[int, list[tuple[str, int]]]:
    fields = "{ author { name } papers }"
    body = gql(f'{{ author(name: "Ada Prime") {{ coauthorCount coauthors{arguments} {fields} }} }}')
    assert "errors" not in body, body
    author = body["data"]["author"]
    return author["coauthorCount"], [(c["author"]["name"], c["papers"]) for c in author["coauthors"]]


def test_coauthors_default_to_a_page_of_twenty_and_count_them_all(gql: Callable[..., dict[str, Any]]) -> None:
    count, everyone = _coauthors(gql, "(first: 100)")
    assert count == len(everyone) == 25
    # the three who share two papers first (by name), then the rest by name
    assert [p for _, p in everyone[:3]] == [2, 2, 2] and {n for n, _ in everyone[:3]} == set(TWICE[1:])
    assert [n for n, _ in everyone[:3]] == sorted(TWICE[1:], key=str.casefold)
    assert [n for n, _ in everyone[3:]] == sorted(MANY[1:23], key=str.casefold)
    assert _coauthors(gql, "") == (25, everyone[:20])
    assert _coauthors(gql, "(first: null)") == (25, everyone[:20])
    assert _coauthors(gql, "(first: 3)") == (25, everyone[:3])
    assert _coauthors(gql, "(first: 0)") == (25, [])


@pytest.mark.parametrize("first", [-1, MAX_COAUTHORS + 1])
def test_coauthors_first_out_of_range_is_a_user_error(gql: Callable[..., dict[str, Any]], first: int) -> None:
    body = gql(f'{{ author(name: "Ada Prime") {{ coauthors(first: {first}) {{ papers }} }} }}')
    error = body["errors"][0]
    assert error["extensions"]["code"] == "BAD_USER_INPUT"
    assert f"between 0 and {MAX_COAUTHORS}" in error["message"]


def test_every_page_size_is_the_head_of_the_whole_list(gql: Callable[..., dict[str, Any]]) -> None:
    """A page reads only the co-authors as heavy as its last one (``ReadService.coauthor_pages``):
    cut inside the three tied at two papers (ordered by name), at its end, and
    inside the rest; pages of several sizes in one request (one batched read) alike."""
    _, everyone = _coauthors(gql, "(first: 100)")
    for first in (1, 2, 3, 4, 5, 24, 25, 26):
        assert _coauthors(gql, f"(first: {first})") == (25, everyone[:first]), first
    sizes = (2, 0, 7, 25)
    aliases = " ".join(f"s{n}: coauthors(first: {n}) {{ author {{ name }} papers }}" for n in sizes)
    body = gql(f'{{ author(name: "Ada Prime") {{ {aliases} }} }}')
    assert "errors" not in body, body
    for n in sizes:
        got = [(c["author"]["name"], c["papers"]) for c in body["data"]["author"][f"s{n}"]]
        assert got == everyone[:n], n
