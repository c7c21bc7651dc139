"""The modifier rule of kg/read/resolve.py on a real SQLite store: a bare modifier resolves to the
curated concept that holds at least half of the curated concepts it starts (itself included),
and to nothing on a tie, below half, or when only discovered phrases start with it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from kg.read.resolve import resolve_concept
from kg.stores.sqlite import SQLiteStore


def concept(name: str, source: str = "vocabulary") -> Node:
    props: dict[str, Any] = {"name": name, "kind": "TASK", "aliases": [], "source": source}
    return Node(id="concept:" + name.lower().replace(" ", "-"), label="Concept", properties=props)


def store_of(tmp_path: Path, nodes: list[Node], broader: list[tuple[Node, Node]]) -> SQLiteStore:
    store = SQLiteStore(tmp_path / "kg")
    rels = [Relationship(type="MENTIONS", start="paper:p", end=n.id, properties={"count": 1}) for n in nodes]
    rels += [Relationship(type="BROADER", start=a.id, end=b.id) for a, b in broader]
    paper = Node(id="paper:p", label="Paper", properties={"title": "p", "year": 2024})
    store.upsert([PaperRecord(paper=paper, nodes=nodes, relationships=rels)])
    return store


def name_of(store: SQLiteStore, query: str) -> str | None:
    node = resolve_concept(store, query)
    return None if node is None else str(node.properties["name"])


def test_the_concept_holding_half_of_them_answers(tmp_path: Path) -> None:
    vision, recon, detect, printing = (
        concept(n) for n in ("3D vision", "3D reconstruction", "3D detection", "3D printing")
    )
    store = store_of(tmp_path, [vision, recon, detect, printing], [(recon, vision)])
    assert name_of(store, "3D") == "3D vision"  # holds 2 of 4: itself and 3D reconstruction
    assert name_of(store, "3d") == "3D vision"


def test_below_half_nothing_answers(tmp_path: Path) -> None:
    names = ("neural networks", "neural radiance fields", "neural ODEs", "neural operators", "neural codecs")
    nets, *others = (concept(n) for n in names)
    store = store_of(tmp_path, [nets, *others], [(others[0], nets)])
    assert name_of(store, "neural") is None  # neural networks holds 2 of 5


def test_a_tie_answers_nothing(tmp_path: Path) -> None:
    a, a1, b, b1 = (concept(n) for n in ("graph learning", "graph kernels", "graph theory", "graph coloring"))
    store = store_of(tmp_path, [a, a1, b, b1], [(a1, a), (b1, b)])
    assert name_of(store, "graph") is None


def test_discovered_phrases_do_not_count(tmp_path: Path) -> None:
    vision = concept("3D vision")
    lifting = concept("3D lifting", source="discovered")
    garment = concept("3D garment stylization", source="discovered")
    store = store_of(tmp_path, [vision, lifting, garment], [(lifting, vision), (garment, vision)])
    assert name_of(store, "3D") is None  # one curated concept starts with it: no field to name


def test_a_head_noun_counts_names_not_alias_suffixes(tmp_path: Path) -> None:
    """The word "large" is no head noun of BERT for two model sizes written "BERT-large" and
    "RoBERTa-large"; "bandits" is the head noun of the concepts named "... bandits"."""
    bert = concept("BERT")
    roberta = concept("RoBERTa")
    bert.properties["aliases"], roberta.properties["aliases"] = ["BERT-large"], ["RoBERTa-large"]
    bandits, contextual, dueling = (concept(n) for n in ("bandits", "contextual bandits", "dueling bandits"))
    store = store_of(
        tmp_path,
        [bert, roberta, bandits, contextual, dueling],
        [(roberta, bert), (contextual, bandits), (dueling, bandits)],
    )
    assert name_of(store, "large") is None
    assert name_of(store, "bandit") == "bandits"
