"""``Concept.trend(includeNarrower: true)`` counts as ``paperCount`` does, over HTTP on both
stores: "bandits" has its own papers and those of its narrower "contextual bandits", so the
picture of a concept's years adds up to the count beside it (issue 29, one count).

Papers about bandits: 2021 one, 2022 one; about contextual bandits: 2022 two, 2023 one, and
one without a year.
"""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from tests.graph_builders import curated_concept


def concept(slug: str, name: str) -> Node:
    return curated_concept(slug, name, "TASK")


BANDITS = concept("bandits", "bandits")
CONTEXTUAL = concept("contextual-bandits", "contextual bandits")
PAPERS = [
    (2021, BANDITS),
    (2022, BANDITS),
    (2022, CONTEXTUAL),
    (2022, CONTEXTUAL),
    (2023, CONTEXTUAL),
    (None, CONTEXTUAL),
]


def records() -> list[PaperRecord]:
    out = []
    for i, (year, c) in enumerate(PAPERS):
        pid = f"paper:p{i}"
        props: dict[str, Any] = {"title": pid, "abstract": "a"}
        if year is not None:
            props["year"] = year
        rels = [
            Relationship(
                type="MENTIONS", start=pid, end=c.id, properties={"count": 1, "score": 1.0, "about": True}
            )
        ]
        if i == 0:
            rels.append(Relationship(type="BROADER", start=CONTEXTUAL.id, end=BANDITS.id))
        nodes = [BANDITS, CONTEXTUAL] if i == 0 else [c]
        out.append(
            PaperRecord(paper=Node(id=pid, label="Paper", properties=props), nodes=nodes, relationships=rels)
        )
    return out


QUERY = """{ concept(name: "bandits") {
  paperCount papers { totalCount }
  own: trend { year papers }
  all: trend(includeNarrower: true) { year papers }
} }"""


def test_trend_with_narrower_adds_up_to_paper_count(store: Any, serve_app: Any, post_to: Any) -> None:
    store.upsert(records())
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        body = post_to(c, QUERY)
    assert "errors" not in body, body
    got = body["data"]["concept"]
    assert got["paperCount"] == got["papers"]["totalCount"] == 6
    assert [(t["year"], t["papers"]) for t in got["own"]] == [(2021, 1), (2022, 1), (2023, 0)]
    assert [(t["year"], t["papers"]) for t in got["all"]] == [(2021, 1), (2022, 3), (2023, 1)]
    assert sum(t["papers"] for t in got["all"]) == got["paperCount"] - 1  # one paper has no year
