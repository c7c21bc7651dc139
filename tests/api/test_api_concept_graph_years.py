"""``conceptGraph(concept:, years:)`` over HTTP on both stores: only the papers of those years
make ties, counted in the store (the ``store`` fixture: SQLite, and Neo4j with ``--neo4j``).

The graph: "diffusion policy" co-occurs with "imitation learning" in 2021 and 2022, with
"grasping" in 2022 only and with "tactile sensing" in 2024 only.
"""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from tests.graph_builders import curated_concept


def concept(slug: str, name: str) -> Node:
    return curated_concept(slug, name, "METHOD")


DP = concept("diffusion-policy", "diffusion policy")
IL = concept("imitation-learning", "imitation learning")
GRASP = concept("grasping", "grasping")
TACTILE = concept("tactile-sensing", "tactile sensing")
PAPERS = [(2021, [DP, IL]), (2022, [DP, IL, GRASP]), (2024, [DP, TACTILE]), (2024, [GRASP, TACTILE])]


def records() -> list[PaperRecord]:
    out = []
    for i, (year, concepts) in enumerate(PAPERS):
        pid = f"paper:p{i}"
        node = Node(id=pid, label="Paper", properties={"title": pid, "abstract": "a", "year": year})
        rels = [
            Relationship(type="MENTIONS", start=pid, end=c.id, properties={"count": 1, "score": 1.0 - k / 10})
            for k, c in enumerate(concepts)
        ]
        out.append(PaperRecord(paper=node, nodes=concepts, relationships=rels))
    return out


QUERY = """query($concept: String, $years: YearRange, $depth: Int) {
  conceptGraph(concept: $concept, years: $years, depth: $depth) {
    nodes { name } edges { source target weight } truncated
  }
}"""


def ask(c: httpx.Client, post_to: Any, **variables: Any) -> dict[str, Any]:
    body: dict[str, Any] = post_to(c, QUERY, variables)
    return body


def picture(body: dict[str, Any]) -> tuple[set[str], dict[frozenset[str], int]]:
    g = body["data"]["conceptGraph"]
    names = {n["name"] for n in g["nodes"]}
    ids = {f"concept:{n.replace(' ', '-')}": n for n in names}
    edges = {frozenset((ids[e["source"]], ids[e["target"]])): e["weight"] for e in g["edges"]}
    return names, edges


def test_concept_graph_over_a_year_range(store: Any, serve_app: Any, post_to: Any) -> None:
    store.upsert(records())
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        everything = ask(c, post_to, concept="diffusion policy", depth=1)
        y2022 = ask(c, post_to, concept="diffusion policy", years={"from": 2021, "to": 2022}, depth=1)
        y2024 = ask(c, post_to, concept="diffusion policy", years={"from": 2024, "to": 2024}, depth=2)
        all_years = ask(c, post_to, concept="diffusion policy", years={"from": 1900, "to": 2100}, depth=1)
        none = ask(c, post_to, concept="diffusion policy", years={"from": 2030, "to": 2031}, depth=1)
        reversed_ = ask(c, post_to, concept="diffusion policy", years={"from": 2024, "to": 2021})
        whole = ask(c, post_to, years={"from": 2021, "to": 2022})
    for body in (everything, y2022, y2024, all_years, none):
        assert "errors" not in body, body
    assert picture(y2022) == (
        {"diffusion policy", "imitation learning", "grasping"},
        {
            frozenset({"diffusion policy", "imitation learning"}): 2,
            frozenset({"diffusion policy", "grasping"}): 1,
            frozenset({"imitation learning", "grasping"}): 1,
        },
    )
    # depth 2 in 2024: tactile sensing, then grasping through the 2024 paper they share.
    assert picture(y2024) == (
        {"diffusion policy", "tactile sensing", "grasping"},
        {
            frozenset({"diffusion policy", "tactile sensing"}): 1,
            frozenset({"grasping", "tactile sensing"}): 1,
        },
    )
    assert picture(all_years) == picture(everything)  # every year: the stored ties
    assert picture(none) == ({"diffusion policy"}, {})
    assert "after" in reversed_["errors"][0]["message"], reversed_
    assert "concept" in whole["errors"][0]["message"], whole
