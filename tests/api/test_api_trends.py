"""Listing fields, concept trends and rising concepts over HTTP, on a hand-made venue series
where every answer is known exactly (both stores: the ``store`` fixture).

The graph: CoRL 2021-2023 with 20 papers a year and ICRA 2023 with one. Papers about
"diffusion policy" per CoRL year 0, 2, 8 (and 3 passing mentions in 2021, which do not count);
"grasping" 6, 6, 6; "sim-to-real" 8, 4, 1; "tactile sensing" 0, 0, 2. The ICRA paper is about
diffusion policy. CoRL 2023's first 5 papers are Orals, the rest Posters, all in track "main".
Paper ``i`` of a year is written by authors ``i`` and ``i + 1``: a chain of co-authors.
"""

from __future__ import annotations

import math
from typing import Any

import httpx
import pytest

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from tests.graph_builders import curated_concept

YEARS = (2021, 2022, 2023)
PER_YEAR = 20


def concept(slug: str, name: str, kind: str) -> Node:
    return curated_concept(slug, name, kind)


DP = concept("diffusion-policy", "diffusion policy", "METHOD")
GRASP = concept("grasping", "grasping", "TASK")
S2R = concept("sim-to-real", "sim-to-real", "TASK")
TACTILE = concept("tactile-sensing", "tactile sensing", "TASK")
ABOUT = [(DP, (0, 2, 8)), (GRASP, (6, 6, 6)), (S2R, (8, 4, 1)), (TACTILE, (0, 0, 2))]


def venue(series: str, year: int) -> Node:
    return Node(
        id=f"venue:{series.lower()}-{year}",
        label="Venue",
        properties={"name": f"{series} {year}", "series": series, "year": year},
    )


def author(i: int) -> Node:
    return Node(id=f"author:a{i:02d}", label="Author", properties={"name": f"Author {i:02d}"})


def paper(
    pid: str,
    year: int,
    v: Node,
    authors: list[Node],
    about: list[Node],
    passing: list[Node],
    listed: tuple[str, str] | None,
) -> PaperRecord:
    props: dict[str, Any] = {"title": pid, "abstract": f"about {pid}", "year": year}
    if listed is not None:
        props["status"], props["track"] = listed
    rels = [Relationship(type="PUBLISHED_IN", start=pid, end=v.id)]
    rels += [
        Relationship(type="AUTHORED", start=a.id, end=pid, properties={"position": k})
        for k, a in enumerate(authors, start=1)
    ]
    rels += [
        Relationship(
            type="MENTIONS", start=pid, end=c.id, properties={"count": 1, "score": 1.0, "about": about_it}
        )
        for cs, about_it in ((about, True), (passing, False))
        for c in cs
    ]
    node = Node(id=pid, label="Paper", properties=props)
    return PaperRecord(paper=node, nodes=[v, *authors, *about, *passing], relationships=rels)


def records() -> list[PaperRecord]:
    out = []
    for k, year in enumerate(YEARS):
        v = venue("CoRL", year)
        for i in range(PER_YEAR):
            about = [c for c, counts in ABOUT if i < counts[k]]
            passing = [DP] if year == 2021 and i < 3 else []
            listed = ("Oral" if i < 5 else "Poster", "main") if year == 2023 else None
            out.append(
                paper(f"paper:{year}-{i:02d}", year, v, [author(i), author(i + 1)], about, passing, listed)
            )
    out.append(paper("paper:icra", 2023, venue("ICRA", 2023), [author(50)], [DP], [], ("Poster", "main")))
    return out


def ask(store: Any, serve_app: Any, post_to: Any, query: str) -> dict[str, Any]:
    store.upsert(records())
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        body: dict[str, Any] = post_to(c, query)
    return body


def test_status_and_track_are_fields_and_filters(store: Any, serve_app: Any, post_to: Any) -> None:
    body = ask(
        store,
        serve_app,
        post_to,
        """{ orals: papers(where: {venue: "CoRL", status: "Oral"}, first: 50) {
               totalCount nodes { id status track } }
             icraPosters: papers(where: {status: "Poster", track: "main", venue: "ICRA"}) { nodes { id } }
             posters: papers(where: {status: "Poster"}) { totalCount }
             exact: papers(where: {status: "oral"}) { totalCount }
             unlisted: paper(id: "paper:2021-00") { status track } }""",
    )
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    assert d["orals"]["totalCount"] == 5
    assert [p["id"] for p in d["orals"]["nodes"]] == [f"paper:2023-{i:02d}" for i in range(5)]
    assert {(p["status"], p["track"]) for p in d["orals"]["nodes"]} == {("Oral", "main")}
    assert d["icraPosters"]["nodes"] == [{"id": "paper:icra"}]
    assert d["posters"]["totalCount"] == 16  # 15 CoRL 2023 posters and the ICRA one
    assert d["exact"]["totalCount"] == 0  # as listed, case and all
    assert d["unlisted"] == {"status": None, "track": None}


def test_trends_and_rising_concepts(store: Any, serve_app: Any, post_to: Any) -> None:
    body = ask(
        store,
        serve_app,
        post_to,
        """{ dp: concept(name: "diffusion policy") { paperCount
               corl: trend(venue: "CoRL") { year papers share }
               all: trend { year papers share }
               mentioned: trend(venue: "CoRL", includeMentions: true) { papers } }
             risingMentions: risingConcepts(venue: "CoRL", from: 2021, to: 2023, includeMentions: true) {
               concept { name } }
             rising: risingConcepts(venue: "CoRL", from: 2021, to: 2023) {
               concept { name } fromPapers toPapers fromShare toShare growth zScore }
             tasks: risingConcepts(venue: "CoRL", from: 2021, to: 2023, kind: TASK) { concept { name } }
             venues { name top: topConcepts(first: 3) { concept { name } papers }
                      none: topConcepts(year: 1999) { papers } } }""",
    )
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    assert d["dp"]["corl"] == [
        {"year": 2021, "papers": 0, "share": 0.0},  # the passing mentions do not count
        {"year": 2022, "papers": 2, "share": 0.1},
        {"year": 2023, "papers": 8, "share": 0.4},
    ]
    assert [r["papers"] for r in d["dp"]["all"]] == [0, 2, 9]  # with the ICRA paper
    assert d["dp"]["all"][2]["share"] == pytest.approx(9 / 21)
    assert sum(r["papers"] for r in d["dp"]["all"]) == d["dp"]["paperCount"]
    # grasping is flat (z = 0), sim-to-real falls, tactile sensing has 2 papers (< 5): only
    # diffusion policy rose; growth = log2(((8 + 1) / 20) / ((0 + 1) / 20))
    assert len(d["rising"]) == 1
    dp = d["rising"][0]
    assert dp["concept"]["name"] == "diffusion policy"
    assert (dp["fromPapers"], dp["toPapers"], dp["fromShare"], dp["toShare"]) == (0, 8, 0.0, 0.4)
    assert dp["growth"] == pytest.approx(math.log2(9))
    assert dp["zScore"] == pytest.approx(0.4 / math.sqrt(0.2 * 0.8 * 0.1))
    assert d["tasks"] == []
    # with its 3 passing mentions in 2021, diffusion policy goes 3 -> 8 of 20: z = 1.77 < 1.96
    assert [r["papers"] for r in d["dp"]["mentioned"]] == [3, 2, 8]
    assert d["risingMentions"] == []
    tops = {v["name"]: v for v in d["venues"]}
    assert tops["CoRL 2023"]["top"] == [
        {"concept": {"name": "diffusion policy"}, "papers": 8},
        {"concept": {"name": "grasping"}, "papers": 6},
        {"concept": {"name": "tactile sensing"}, "papers": 2},
    ]
    assert tops["CoRL 2021"]["top"][0] == {"concept": {"name": "sim-to-real"}, "papers": 8}
    assert tops["CoRL 2023"]["none"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ('venue: "CoRL", from: 2023, to: 2021', "`from` must be before `to`"),
        (
            'venue: "CoRL", from: 2019, to: 2023',
            "no papers in CoRL in 2019 (years with papers: 2021, 2022, 2023)",
        ),
        ('venue: "NoSuchVenue", from: 2021, to: 2023', "NoSuchVenue"),
    ],
)
def test_rising_concepts_refuse_bad_years_clearly(
    store: Any, serve_app: Any, post_to: Any, args: str, message: str
) -> None:
    body = ask(store, serve_app, post_to, f"{{ risingConcepts({args}) {{ growth }} }}")
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert message in body["errors"][0]["message"]


def test_coauthor_network_over_chosen_years(store: Any, serve_app: Any, post_to: Any) -> None:
    body = ask(
        store,
        serve_app,
        post_to,
        """{ all: coauthorNetwork(author: "Author 00", depth: 2) {
               nodes { id } edges { source target weight } }
             y2022: coauthorNetwork(author: "Author 00", depth: 2, years: {from: 2022, to: 2022}) {
               edges { weight } }
             later: coauthorNetwork(author: "Author 00", years: {from: 2022, to: 2030}) { edges { weight } }
             none: coauthorNetwork(author: "Author 00", years: {from: 2010, to: 2020}) {
               nodes { id } edges { weight } } }""",
    )
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    # papers 00 (authors 00, 01) and 01 (authors 01, 02) in each of the three years
    assert [n["id"] for n in d["all"]["nodes"]] == ["author:a00", "author:a01", "author:a02"]
    assert [e["weight"] for e in d["all"]["edges"]] == [3, 3]
    assert [e["weight"] for e in d["y2022"]["edges"]] == [1, 1]
    assert [e["weight"] for e in d["later"]["edges"]] == [2]
    assert d["none"] == {"nodes": [{"id": "author:a00"}], "edges": []}


def test_year_range_must_not_end_before_it_starts(store: Any, serve_app: Any, post_to: Any) -> None:
    body = ask(
        store,
        serve_app,
        post_to,
        '{ coauthorNetwork(author: "Author 00", years: {from: 2023, to: 2021}) { truncated } }',
    )
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert "years: `from` (2023) is after `to` (2021)" in body["errors"][0]["message"]


def test_collaboration_path_is_searched_over_every_tie(store: Any, serve_app: Any, post_to: Any) -> None:
    """The chain of 21 authors is 20 ties of weight 3 each: the path from one end to the other
    is the whole chain; author 50 (one paper alone) is reachable from nobody."""
    body = ask(
        store,
        serve_app,
        post_to,
        """{ long: collaborationPath(from: "Author 00", to: "Author 20") { length authors { id } }
             back: collaborationPath(from: "Author 07", to: "Author 03") { length authors { name } }
             apart: collaborationPath(from: "Author 00", to: "Author 50") { length } }""",
    )
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    assert d["long"]["length"] == 20
    assert [a["id"] for a in d["long"]["authors"]] == [f"author:a{i:02d}" for i in range(21)]
    assert [a["name"] for a in d["back"]["authors"]] == [f"Author {i:02d}" for i in (7, 6, 5, 4, 3)]
    assert d["apart"] is None


def test_analytics_say_to_run_kg_analyze_when_missing_or_out_of_date(
    store: Any, serve_app: Any, post_to: Any
) -> None:
    from kg.analyze import analyze

    query = "{ centralAuthors(first: 1) { author { id } } }"
    body = ask(store, serve_app, post_to, query)
    assert body["errors"][0]["extensions"]["code"] == "BAD_USER_INPUT"
    assert body["errors"][0]["message"] == "the co-author graph has not been analysed: run `kg analyze`"
    analyze(store)
    store.upsert([paper("paper:late", 2024, venue("CoRL", 2024), [author(60), author(61)], [], [], None)])
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        stale = post_to(c, query)
        analyze(store)
        fresh = post_to(c, query)
    assert "analytics are from store version" in stale["errors"][0]["message"]
    assert "run `kg analyze` again" in stale["errors"][0]["message"]
    assert not fresh.get("errors") and len(fresh["data"]["centralAuthors"]) == 1
