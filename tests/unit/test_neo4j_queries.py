"""Query builders and bulk-import CSV writing for the Neo4j store, without a server."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest

from extractors.embedding import MODEL_ID
from kg.core.errors import GraphStoreError
from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.neo4j import queries as q
from kg.stores.neo4j import vectors
from kg.stores.neo4j.bulk_csv import ARRAY_DELIMITER, cell, merge_records, value_type, write_csv


def record(
    pid: str, authors: list[str], concepts: dict[str, str], aliases: list[str] | None = None
) -> PaperRecord:
    nodes = [Node(id=a, label="Author", properties={"name": a}) for a in authors]
    nodes += [
        Node(id=c, label="Concept", properties={"name": c, "kind": kind, "aliases": aliases or []})
        for c, kind in concepts.items()
    ]
    rels = [Relationship(type="AUTHORED", start=a, end=pid) for a in authors]
    rels += [Relationship(type="MENTIONS", start=pid, end=c, properties={"score": 1.0}) for c in concepts]
    return PaperRecord(
        paper=Node(id=pid, label="Paper", properties={"title": f"T {pid}", "sources": ["f:1"]}),
        nodes=nodes,
        relationships=rels,
    )


def test_kind_labels_cover_every_kind_but_concept() -> None:
    assert q.kind_label("CONCEPT") is None
    assert {q.kind_label(k) for k in ("METHOD", "TASK", "DATASET", "MODEL", "METRIC")} == {
        "Method",
        "Task",
        "Dataset",
        "Model",
        "Metric",
    }
    assert q.kind_label(None) is None and q.kind_label("method") is None


def test_create_nodes_adds_the_kind_label_only_when_asked() -> None:
    assert "SET n:Dataset" in q.create_nodes("Concept", [], kind="DATASET").text
    plain = q.create_nodes("Concept", [], kind="CONCEPT").text
    assert "SET n:" not in plain and "RETURN collect" in plain


def test_relabel_removes_every_kind_label_then_sets_the_new_one() -> None:
    stmt = q.relabel_concepts("MODEL", ["c:a", "c:b"])
    assert "REMOVE n:Method:Task:Dataset:Model:Metric SET n:Model" in stmt.text
    assert stmt.params == {"ids": ["c:a", "c:b"]}
    assert q.relabel_concepts("CONCEPT", ["c:a"]).text.endswith("REMOVE n:Method:Task:Dataset:Model:Metric")


def test_version_statements_use_the_meta_node() -> None:
    bump = q.bump_version()
    assert f"MERGE (m:{q.META_LABEL} {{id: $id}})" in bump.text and "+ 1" in bump.text
    assert bump.params == {"id": q.VERSION_ID}
    assert q.META_LABEL in q.read_version().text
    rels, nodes = q.delete_all()
    assert "DELETE r" in rels.text and "IN TRANSACTIONS" in rels.text  # relationships first
    assert f"WHERE NOT n:{q.META_LABEL}" in nodes.text  # clear() keeps the version
    assert any(q.META_LABEL in s.text for s in q.schema_statements())


def test_restore_empty_lists_refuses_foreign_labels_and_keys() -> None:
    stmt = q.restore_empty_lists(q.fix_label(3), ["aliases", "keywords"])
    assert "SET n.`aliases` = [], n.`keywords` = [] REMOVE n:__KGFix3__" in stmt.text
    with pytest.raises(GraphStoreError):
        q.restore_empty_lists("Paper", ["aliases"])
    with pytest.raises(GraphStoreError):
        q.restore_empty_lists(q.fix_label(0), ["a`b"])


def test_value_types_and_cells() -> None:
    assert value_type(True, "x") == "boolean"  # not long: bool is an int in Python
    assert value_type([1, 2], "x") == "long[]"
    assert value_type([0.5], "x") == "double[]"
    mixed: Any = [1, "a"]
    with pytest.raises(GraphStoreError, match="node n"):
        value_type(mixed, "node n")
    assert cell([1.5, 2.0], "x") == f"1.5{ARRAY_DELIMITER}2.0"
    with pytest.raises(GraphStoreError, match="U\\+001F"):
        cell(f"a{ARRAY_DELIMITER}b", "x")


def test_merge_records_follows_the_store_rules() -> None:
    graph = merge_records(
        [
            record("p:1", ["a:x", "a:y"], {"c:m": "METHOD"}),
            record("p:2", ["a:x", "a:y", "a:z"], {"c:m": "METHOD"}, aliases=["M"]),
            record("p:1", ["a:x", "a:y"], {"c:m": "METHOD"}),  # the same paper again: unchanged
        ]
    )
    assert (graph.summary.added, graph.summary.unchanged) == (2, 1)
    bumps = {(a, t, b): n for (a, t, b), n in graph.batch.pair_deltas.items() if t == "COAUTHOR"}
    assert bumps == {
        ("a:x", "COAUTHOR", "a:y"): 2,
        ("a:x", "COAUTHOR", "a:z"): 1,
        ("a:y", "COAUTHOR", "a:z"): 1,
    }
    assert graph.batch.nodes["c:m"]["aliases"] == ["M"]


def read_csv(path: str | Path) -> list[list[str]]:
    with Path(path).open(encoding="utf-8", newline="") as f:
        return list(csv.reader(f))


def test_write_csv_groups_by_labels_and_signature(tmp_path: Path) -> None:
    graph = merge_records(
        [
            record("p:1", ["a:x", "a:y"], {"c:m": "METHOD", "c:plain": "CONCEPT"}),
            record("p:2", ["a:x"], {"c:d": "DATASET"}, aliases=["D;1", "D2"]),
        ]
    )
    files = write_csv(graph, tmp_path, version=7)
    args = {a.split("=")[1]: a.split("=")[2] for a in files.node_args}
    assert "__KGNode__:Concept:Method:__KGFix0__" in args  # empty aliases: restored after import
    assert "__KGNode__:Concept:__KGFix0__" in args  # CONCEPT: no kind label
    assert files.node_fixes == {"__KGFix0__": ("aliases",)}
    dataset = read_csv(args["__KGNode__:Concept:Dataset"])
    # the read index travels in the rows: sort name, search text, paper count, key list
    assert dataset[0] == [
        "id:ID",
        "_aliasText:string",
        "_keys:string[]",
        "_papers:long",
        "_search:string",
        "_sortName:string",
        "aliases:string[]",
        "kind:string",
        "name:string",
    ]
    row = dict(zip(dataset[0], dataset[1], strict=True))
    assert row["aliases:string[]"] == f"D2{ARRAY_DELIMITER}D;1" and row["kind:string"] == "DATASET"
    assert row["_papers:long"] == "1" and row["_sortName:string"] == "c:d"
    assert "d;1" in row["_search:string"].split(" | ")
    # the version, and the markers that every pair and keyphrase row below carries its lookup key
    assert read_csv(args[q.META_LABEL]) == [
        ["id:ID(paperkg_meta)", "value:long"],
        ["version", "7"],
        [q.PAIR_KEYS_ID, "1"],
        [q.KEYPHRASE_KEYS_ID, "1"],
        [vectors.MODELS_ID, "1"],  # every vector row names its model
    ]
    rels = {a.split("=")[1]: a.split("=")[2] for a in files.rel_args}
    assert read_csv(rels["COAUTHOR"]) == [
        [":START_ID", ":END_ID", f"{q.PAIR_KEY}:long", "papers:long"],
        ["a:x", "a:y", str(q.pair_key("a:x", "a:y")), "1"],
    ]
    assert read_csv(rels["MENTIONS"])[0] == [":START_ID", ":END_ID", "score:double"]
    # key nodes: one per key, with the reversed loose key where there is one; each points at
    # its node, ranked (curated 0 / discovered 2, +1 for an alias)
    key_of = read_csv(rels["__KEY_OF"])
    assert key_of[0] == [":START_ID(paperkg_key)", ":END_ID", "rank:long"]
    assert ["a:a:x", "a:x", "0"] in key_of and ["l:d 1", "c:d", "3"] in key_of
    keys = [r[0] for f in sorted(tmp_path.glob("keys*.csv")) for r in read_csv(f)[1:]]
    assert sorted(keys) == sorted({r[0] for r in key_of[1:]})
    assert ["l:c d", "d c"] in read_csv(tmp_path / "keys-r.csv")
    assert (files.nodes, files.relationships) == (7 + len(keys), 1 + 3 + 3 + 1 + len(key_of) - 1)


def test_a_forked_relationship_writer_writes_the_same_files(tmp_path: Path) -> None:
    graph = merge_records(
        [
            record("p:1", ["a:x", "a:y"], {"c:m": "METHOD", "c:plain": "CONCEPT"}),
            record("p:2", ["a:x", "a:z"], {"c:d": "DATASET", "c:m": "METHOD"}, aliases=["D"]),
        ]
    )
    one = write_csv(graph, tmp_path / "one", version=3)
    two = write_csv(graph, tmp_path / "two", version=3, jobs=2)
    assert two.admin_args() == [
        a.replace(str(tmp_path / "one"), str(tmp_path / "two")) for a in one.admin_args()
    ]
    assert (two.nodes, two.relationships, two.node_fixes) == (one.nodes, one.relationships, one.node_fixes)
    names = sorted(p.name for p in (tmp_path / "one").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "two").iterdir()) and any("rels" in n for n in names)
    for name in names:
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes()


def test_only_files_with_a_line_break_in_a_value_are_read_as_multiline(tmp_path: Path) -> None:
    """The importer parses a file in parallel unless it is named as multiline: only the file
    holding the paper whose title spans lines is, and the rows read back as written."""
    plain = record("p:1", ["a:x"], {"c:m": "METHOD"})
    broken = record("p:2", ["a:y"], {})
    broken.paper.properties.update(title="A title\nover two lines", abstract="and a\r\nCRLF")
    files = write_csv(merge_records([plain, broken]), tmp_path, version=1)
    assert len(files.multiline) == 1 and files.multiline[0].name.startswith("nodes-")
    assert files.admin_args()[:2] == [
        "--multiline-fields-format=v2",
        f"--multiline-fields={files.multiline[0]}",
    ]
    rows = read_csv(files.multiline[0])
    assert any("A title\nover two lines" in row and "and a\r\nCRLF" in row for row in rows)
    assert all(len(row) == len(rows[0]) for row in rows)
    assert sum(n for _p, n in files.files) == sum(len(read_csv(p)) - 1 for p, _n in files.files)

    clean = write_csv(merge_records([plain]), tmp_path / "clean", version=1)
    assert clean.multiline == [] and clean.admin_args()[0] == "--multiline-fields=false"


def test_vectors_are_written_as_the_floats_an_upsert_stores(tmp_path: Path) -> None:
    """Every int8 value, negative ones included, becomes the float ``vectors.put`` sends (k / 127);
    a paper in two records keeps the later record's vector, as upserts in order would."""
    first, again, other = record("p:1", ["a:x"], {}), record("p:1", ["a:x"], {}), record("p:2", ["a:y"], {})
    blob = bytes(range(256)) + bytes(range(128))  # 384 bytes: every int8 value
    first.embedding, again.embedding, other.embedding = bytes(384), blob, blob[::-1]
    files = write_csv(merge_records([first, again, other]), tmp_path, version=1)
    rows = read_csv(tmp_path / "vectors.csv")
    assert rows[0] == [":ID(__KGEmbedding__)", "paper", "vector:double[]", "model"]
    assert {row[3] for row in rows[1:]} == {MODEL_ID}  # a vector a store reads as today's model's
    written = {row[1]: [float(v) for v in row[2].split(ARRAY_DELIMITER)] for row in rows[1:]}
    assert written == {
        "p:1": vectors.put([("p:1", blob)]).params["rows"][0]["vector"],
        "p:2": vectors.put([("p:2", blob[::-1])]).params["rows"][0]["vector"],
    }
    assert f"--nodes=__KGEmbedding__={tmp_path / 'vectors.csv'}" in files.node_args
    plain = write_csv(merge_records([record("p:3", ["a:z"], {})]), tmp_path / "plain", version=1)
    assert not (tmp_path / "plain" / "vectors.csv").exists()  # no embeddings (--no-embed): no file
    assert not any("__KGEmbedding__" in a for a in plain.node_args)


def test_write_csv_refuses_the_array_delimiter_in_any_value(tmp_path: Path) -> None:
    for where in ("title", "sources"):
        bad = record("p:1", ["a:x"], {})
        bad.paper.properties[where] = (
            f"x{ARRAY_DELIMITER}y" if where == "title" else ["a", f"b{ARRAY_DELIMITER}"]
        )
        with pytest.raises(GraphStoreError, match="U\\+001F"):
            write_csv(merge_records([bad]), tmp_path / where, version=1)


def test_write_csv_refuses_a_record_with_an_unknown_end(tmp_path: Path) -> None:
    bad = record("p:1", ["a:x"], {})
    bad.relationships.append(Relationship(type="AUTHORED", start="a:ghost", end="p:1"))
    with pytest.raises(GraphStoreError, match="a:ghost"):
        merge_records([bad])
