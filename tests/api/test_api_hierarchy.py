"""Narrower concepts and subtopics on a tiny hand-made graph, where the answer is known exactly."""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from tests.graph_builders import curated_concept


def concept(cid: str, name: str, aliases: list[str] | None = None) -> Node:
    return curated_concept(cid, name, "TASK", aliases)


BANDITS = concept("concept:multi-armed-bandits", "multi-armed bandits", ["bandits", "MAB"])
CONTEXTUAL = concept("concept:contextual-bandits", "contextual bandits")
LINUCB = concept("concept:linucb", "LinUCB")
ROOT_TOPIC = Node(id="topic:theory", label="Topic", properties={"name": "Theory", "path": ["Theory"]})
SUB_TOPIC = Node(
    id="topic:theory/bandits", label="Topic", properties={"name": "Bandits", "path": ["Theory", "Bandits"]}
)


def paper(pid: str, year: int, mentions: list[Node], topic: Node) -> PaperRecord:
    rels = [
        Relationship(
            type="MENTIONS", start=pid, end=c.id, properties={"count": 1, "score": 1.0, "evidence": []}
        )
        for c in mentions
    ]
    rels += [
        Relationship(type="BROADER", start=CONTEXTUAL.id, end=BANDITS.id),
        Relationship(type="BROADER", start=LINUCB.id, end=CONTEXTUAL.id),
        Relationship(type="SUBTOPIC_OF", start=SUB_TOPIC.id, end=ROOT_TOPIC.id),
        Relationship(type="HAS_TOPIC", start=pid, end=topic.id),
    ]
    return PaperRecord(
        paper=Node(
            id=pid, label="Paper", properties={"title": pid, "abstract": f"about {pid}", "year": year}
        ),
        nodes=[BANDITS, CONTEXTUAL, LINUCB, ROOT_TOPIC, SUB_TOPIC],
        relationships=rels,
    )


def test_narrower_concepts_and_subtopics_are_included(store: Any, serve_app: Any, post_to: Any) -> None:
    store.upsert(
        [
            paper("paper:direct", 2024, [BANDITS], ROOT_TOPIC),
            paper("paper:contextual", 2025, [CONTEXTUAL], SUB_TOPIC),
            paper("paper:linucb", 2023, [LINUCB], SUB_TOPIC),
        ]
    )
    query = """{ concept(name: "bandits") { name narrower { name }
        all: papers { totalCount nodes { id } }
        direct: papers(includeNarrower: false) { nodes { id } }
        paperCount own: paperCount(includeNarrower: false) }
      byFilter: papers(where: {concept: "MAB"}) { nodes { id } }
      theory: papers(where: {topic: "Theory"}) { nodes { id } }
      topics { name paperCount } }"""
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        body = post_to(c, query)
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    got = d["concept"]
    assert got["name"] == "multi-armed bandits"
    assert [n["name"] for n in got["narrower"]] == ["contextual bandits"]
    newest_first = ["paper:contextual", "paper:direct", "paper:linucb"]
    assert [p["id"] for p in got["all"]["nodes"]] == newest_first  # transitively narrower too
    assert [p["id"] for p in got["direct"]["nodes"]] == ["paper:direct"]
    assert (got["own"], got["paperCount"]) == (1, 3)  # narrower included by default, as papers
    assert [p["id"] for p in d["byFilter"]["nodes"]] == newest_first
    assert [p["id"] for p in d["theory"]["nodes"]] == newest_first
    assert {t["name"]: t["paperCount"] for t in d["topics"]} == {"Theory": 3, "Bandits": 2}
