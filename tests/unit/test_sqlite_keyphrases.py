"""Provisional concepts become nodes only when a second paper carries them, in any order."""

from __future__ import annotations

from pathlib import Path

from kg.core.models import Node, PaperRecord, Relationship
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


def _solid(record: PaperRecord, cid: str) -> PaperRecord:
    """The record with concept ``cid`` as a regular node (defined or introduced, say)."""
    nodes = [
        n.model_copy(update={"properties": {k: v for k, v in n.properties.items() if k != "provisional"}})
        if n.id == cid
        else n
        for n in record.nodes
    ]
    return record.model_copy(update={"nodes": nodes})


def test_a_regular_node_links_the_earlier_keyphrase_carriers(tmp_path: Path) -> None:
    """Paper 1 keeps the phrase as a keyphrase; paper 2 brings the same concept as a regular node.
    Paper 1 must be linked then, not on its next re-ingest (which must change nothing)."""
    cid = "concept:patch-ranking-map"
    store = SQLiteStore(tmp_path)
    store.upsert([_record(1, [cid])])
    store.upsert([_solid(_record(2, [cid]), cid)])
    edges = store.neighbors_many([cid], "MENTIONS", "in")[0]
    assert [e.node.id for e in edges] == ["paper:1", "paper:2"]
    paper = store.get_nodes(["paper:1"])[0]
    assert paper is not None and "keyphrases" not in paper.properties
    version = store.version()
    summary = store.upsert([_record(1, [cid]), _solid(_record(2, [cid]), cid)])
    assert summary.unchanged == 2 and store.version() == version


def _spelled(record: PaperRecord, cid: str, name: str, title: str) -> PaperRecord:
    """Another listing of the record's paper: its own title, the concept ``cid`` spelled ``name``."""
    nodes = [
        n.model_copy(update={"properties": {**n.properties, "name": name}}) if n.id == cid else n
        for n in record.nodes
    ]
    paper = record.paper.model_copy(update={"properties": {**record.paper.properties, "title": title}})
    return record.model_copy(update={"paper": paper, "nodes": nodes})


def test_every_spelling_of_a_promoted_phrase_leaves_the_paper_in_any_order(tmp_path: Path) -> None:
    """Two listings of paper 1 spell the phrase differently; paper 2 promotes it. The paper's
    ``keyphrases`` (a sorted set over its listings) loses both spellings, whether the promotion
    came between the listings, after them, or with the second one."""
    cid = "concept:patch-ranking-map"
    first = _spelled(_record(1, [cid, "concept:greater-flexibility"]), cid, "patch ranking map", "One")
    second = _spelled(_record(1, [cid]), cid, "Patch Ranking Map", "Two")
    promoter = _record(2, [cid])
    exports = []
    for i, batches in enumerate(
        ([[first], [second], [promoter]], [[first], [promoter], [second]], [[first], [second, promoter]])
    ):
        store = SQLiteStore(tmp_path / str(i))
        for batch in batches:
            store.upsert(batch)
        paper = store.get_nodes(["paper:1"])[0]
        assert paper is not None and paper.properties["keyphrases"] == ["greater flexibility"], batches
        version = store.version()
        assert store.upsert([first, second, promoter]).updated == 0 and store.version() == version
        exports.append(store.export())
    assert exports[1] == exports[0] and exports[2] == exports[0]
