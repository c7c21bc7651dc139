"""A bare modifier ("3D") resolves to the concept its phrases sit under, through HTTP, on a
hand-made graph where the answer is known exactly (the modifier rule of kg/read/resolve.py)."""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship


def concept(cid: str, name: str, source: str = "vocabulary") -> Node:
    props: dict[str, Any] = {"name": name, "kind": "TASK", "aliases": [], "source": source}
    return Node(id=cid, label="Concept", properties=props)


VISION = concept("concept:3d-vision", "3D vision")
RECON = concept("concept:3d-reconstruction", "3D reconstruction")
DETECT = concept("concept:3d-object-detection", "3D object detection")
GARMENT = concept("concept:3d-garment-stylization", "3D garment stylization", source="discovered")
# "neural" starts three curated concepts, none under another: no answer.
NETS = concept("concept:neural-networks", "neural networks")
NERF = concept("concept:neural-radiance-fields", "neural radiance fields")
ODE = concept("concept:neural-odes", "neural ODEs")
NODES = [VISION, RECON, DETECT, GARMENT, NETS, NERF, ODE]
BROADER = [(RECON, VISION), (DETECT, VISION)]


def paper(pid: str, year: int, mentions: list[Node]) -> PaperRecord:
    rels = [
        Relationship(
            type="MENTIONS", start=pid, end=c.id, properties={"count": 1, "score": 1.0, "evidence": []}
        )
        for c in mentions
    ]
    rels += [Relationship(type="BROADER", start=a.id, end=b.id) for a, b in BROADER]
    return PaperRecord(
        paper=Node(
            id=pid, label="Paper", properties={"title": pid, "abstract": f"about {pid}", "year": year}
        ),
        nodes=NODES,
        relationships=rels,
    )


def test_a_bare_modifier_resolves_to_the_concept_its_phrases_sit_under(
    store: Any, serve_app: Any, post_to: Any
) -> None:
    store.upsert(
        [
            paper("paper:recon", 2025, [RECON]),
            paper("paper:detect", 2024, [DETECT]),
            paper("paper:garment", 2023, [GARMENT]),
            paper("paper:nerf", 2022, [NERF, ODE, NETS]),
        ]
    )
    query = """{ three: concept(name: "3D") { name papers { nodes { id } } }
      lower: concept(name: "3d") { name }
      neural: concept(name: "neural") { name }
      exact: concept(name: "3D reconstruction") { name } }"""
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        body = post_to(c, query)
    assert not body.get("errors"), body["errors"]
    d = body["data"]
    assert d["three"]["name"] == "3D vision"
    # Its papers are those of the concepts below it; the discovered phrase hangs elsewhere.
    assert [p["id"] for p in d["three"]["papers"]["nodes"]] == ["paper:recon", "paper:detect"]
    assert d["lower"]["name"] == "3D vision"
    assert d["neural"] is None
    assert d["exact"]["name"] == "3D reconstruction"  # a name or alias still wins
