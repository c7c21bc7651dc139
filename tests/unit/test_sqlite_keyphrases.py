"""Provisional concepts become nodes only when a second paper carries them, in any order."""

from __future__ import annotations

from pathlib import Path

from kg.models import Node, PaperRecord, Relationship
from kg.stores.sqlite import SQLiteStore


def _record(n: int, phrase_ids: list[str]) -> PaperRecord:
    pid = f"paper:{n}"
    paper = Node(id=pid, label="Paper", properties={"title": f"Paper {n}", "abstract": f"Abstract {n}."})
    nodes = [
        Node(
            id=cid,
            label="Concept",
            properties={
                "name": cid.split(":")[1].replace("-", " "),
                "kind": "CONCEPT",
                "source": "discovered",
                "aliases": [],
                "provisional": True,
            },
        )
        for cid in phrase_ids
    ]
    nodes.append(
        Node(id="concept:bandits", label="Concept", properties={"name": "bandits", "source": "vocabulary"})
    )
    rels = [
        Relationship(type="MENTIONS", start=pid, end=n.id, properties={"score": 1.0 + i, "count": 1})
        for i, n in enumerate(nodes)
    ]
    return PaperRecord(paper=paper, nodes=nodes, relationships=rels)


def test_a_phrase_of_one_paper_stays_a_keyphrase(tmp_path: Path) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert([_record(1, ["concept:greater-flexibility"])])
    assert store.get_nodes(["concept:greater-flexibility"]) == [None]
    assert store.counts().nodes["Concept"] == 1
    paper = store.get_nodes(["paper:1"])[0]
    assert paper is not None and paper.properties["keyphrases"] == ["greater flexibility"]
    assert store.upsert([_record(1, ["concept:greater-flexibility"])]).unchanged == 1


def test_a_second_paper_promotes_it_with_both_mentions_in_any_order(tmp_path: Path) -> None:
    exports = []
    for i, order in enumerate(([1, 2], [2, 1])):
        store = SQLiteStore(tmp_path / str(i))
        for n in order:  # separate ingests
            store.upsert([_record(n, ["concept:patch-ranking-map"])])
        node = store.get_nodes(["concept:patch-ranking-map"])[0]
        assert node is not None and "provisional" not in node.properties
        edges = store.neighbors_many(["concept:patch-ranking-map"], "MENTIONS", "in")[0]
        assert [e.node.id for e in edges] == ["paper:1", "paper:2"]
        pairs = store.weighted_neighbors(["concept:patch-ranking-map"], "CO_OCCURS", 1, 10)[0]
        assert [(w.id, w.weight) for w in pairs] == [("concept:bandits", 2)]
        exports.append(store.export())
    assert exports[0] == exports[1]
    together = SQLiteStore(tmp_path / "one-batch")
    together.upsert([_record(1, ["concept:patch-ranking-map"]), _record(2, ["concept:patch-ranking-map"])])
    assert together.export().relationships == exports[0].relationships
