"""Exports from a real store: the whole graph streamed (JSON, GraphML, Cypher) and the bounded
networks for Gephi (GEXF, read back with networkx) and VOSviewer (JSON).

What the issue found at 17k papers: GEXF of the whole graph took 535 s and 6 GB for a file
networkx could not open; VOSviewer said "wrote 541 nodes and 2518 relationships" for a file of
108 items and 303 links; GEXF declared undirected ties directed.
"""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from api.cli import main
from kg import export_network
from kg.core.models import Graph, PaperRecord
from kg.export import to_json, write_cypher, write_graphml, write_json
from kg.export_network import read_network, vosviewer_dict, write_gexf
from kg.stores.sqlite import SQLiteStore
from tests.conftest import EXAMPLES


@pytest.fixture
def seeded(tmp_path: Path, seed_records: list[PaperRecord]) -> Iterator[SQLiteStore]:
    store = SQLiteStore(tmp_path / "kg")
    store.upsert(seed_records)
    store.flush()
    yield store
    store.close()


def test_streamed_whole_graph_writers_write_what_the_store_holds(seeded: SQLiteStore) -> None:
    graph = seeded.export()
    buffer = io.StringIO()
    done = write_json(seeded.iter_nodes(), seeded.iter_relationships(), buffer)
    assert (done.nodes, done.relationships) == (len(graph.nodes), len(graph.relationships))
    by_start = sorted(graph.relationships, key=lambda r: (r.start, r.type, r.end))
    assert buffer.getvalue() == to_json(Graph(nodes=graph.nodes, relationships=by_start))
    data = json.loads(buffer.getvalue())
    assert [n["id"] for n in data["nodes"]] == [n.id for n in graph.nodes]
    assert data["relationships"][0] == by_start[0].model_dump()
    buffer = io.StringIO()
    done = write_graphml(seeded.iter_nodes, seeded.iter_relationships, buffer)
    g = nx.read_graphml(io.BytesIO(buffer.getvalue().encode("utf-8")), force_multigraph=True)
    assert g.number_of_nodes() == done.nodes == len(graph.nodes)
    assert g.number_of_edges() == done.relationships == len(graph.relationships)
    paper = next(n for n in graph.nodes if n.label == "Paper")
    assert g.nodes[paper.id]["label"] == "Paper" and g.nodes[paper.id]["title"] == paper.properties["title"]
    buffer = io.StringIO()
    done = write_cypher(seeded.iter_nodes(), seeded.iter_relationships(), buffer)
    assert buffer.getvalue().count("\n") == done.nodes + done.relationships


def test_coauthor_network_in_gexf_is_undirected_weighted_and_dated(seeded: SQLiteStore) -> None:
    network = read_network(seeded, "coauthors", top=0)
    buffer = io.StringIO()
    write_gexf(network, buffer)
    text = buffer.getvalue()
    assert 'defaultedgetype="undirected"' in text and 'mode="dynamic"' in text
    g = nx.read_gexf(io.BytesIO(text.encode("utf-8")))
    assert not g.is_directed()
    assert g.number_of_nodes() == len(network.items) and g.number_of_edges() == len(network.links)
    arora = next(i for i in network.items if i.label == "Sanjeev Arora")
    assert g.nodes[arora.id]["label"] == "Sanjeev Arora" and g.nodes[arora.id]["type"] == "Author"
    assert "spells" not in g.nodes[arora.id]  # the 论文检索 seed has no year: shown throughout
    ties = seeded.pair_edges_among([i.id for i in network.items], "COAUTHOR", 1)
    edge = ties[0]
    assert g.edges[edge.source, edge.target]["weight"] == float(edge.weight)
    concepts = read_network(seeded, "concepts", top=50)
    buffer = io.StringIO()
    write_gexf(concepts, buffer)
    g = nx.read_gexf(io.BytesIO(buffer.getvalue().encode("utf-8")))
    dated = next(i for i in concepts.items if i.years)
    assert g.nodes[dated.id]["spells"] == [("2026-01-01", "2026-12-31")]  # ICLR/ICML 2026 listings
    link = next(link for link in concepts.links if link.years)
    assert g.edges[link.source, link.target]["years"] == "2026"


def test_vosviewer_counts_are_the_counts_written_and_top_says_what_is_left_out(seeded: SQLiteStore) -> None:
    full = vosviewer_dict(read_network(seeded, "coauthors", top=0))
    ties = len(seeded.relationships("COAUTHOR"))
    assert len(full["network"]["links"]) == ties
    items = {i["id"]: i for i in full["network"]["items"]}
    for link in full["network"]["links"]:
        assert link["source_id"] in items and link["target_id"] in items
    assert sum(i["weights"]["Links"] for i in items.values()) == 2 * ties
    top = read_network(seeded, "coauthors", top=5)
    assert len(top.items) == 5 and top.more
    assert "left out by --top 5" in top.left_out()
    concepts = read_network(seeded, "concepts", top=10, min_weight=2)
    assert all(link.weight >= 2 for link in concepts.links)
    assert "of 2+ shared papers" in concepts.left_out()


@pytest.mark.parametrize("fmt", ["json", "graphml", "cypher", "gexf", "vosviewer"])
def test_kg_export_prints_the_counts_it_wrote(
    fmt: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KG_DATA_DIR", str(tmp_path / "kg"))
    assert main(["ingest", "--no-progress", str(EXAMPLES)]) == 0
    capsys.readouterr()
    out = tmp_path / f"x.{fmt}"
    assert main(["export", "--format", fmt, "-o", str(out), "--top", "20"]) == 0
    said = capsys.readouterr().err.strip()
    assert said.startswith("wrote ") and said.endswith(f"to {out}") and "\n" not in said
    assert not out.with_name(out.name + ".part").exists()
    text = out.read_text(encoding="utf-8")
    if fmt == "vosviewer":
        data: Any = json.loads(text)["network"]
        assert said.startswith(f"wrote {len(data['items'])} items and {len(data['links'])} links: ")
        assert "left out by --top 20" in said
    elif fmt == "gexf":
        root = ET.fromstring(text)
        ns = {"g": "http://www.gexf.net/1.2draft"}
        nodes, edges = root.findall(".//g:node", ns), root.findall(".//g:edge", ns)
        assert said.startswith(f"wrote {len(nodes)} items and {len(edges)} links: ")
        description = root.find(".//g:description", ns)
        assert description is not None and "left out" in str(description.text)
    elif fmt == "json":
        data = json.loads(text)
        assert said.startswith(
            f"wrote {len(data['nodes'])} nodes and {len(data['relationships'])} relationships"
        )


def test_without_min_weight_the_weakest_ties_go_first_and_it_says_so(
    seeded: SQLiteStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    every = read_network(seeded, "concepts", top=30, min_weight=1)
    monkeypatch.setattr(export_network, "LINKS_PER_ITEM", 1)  # a budget of 30 ties
    chosen = read_network(seeded, "concepts", top=30)
    assert len(every.links) > 30, "the seeds' 30 strongest concepts share more than 30 ties"
    assert len(chosen.links) <= 30 and chosen.chosen and chosen.min_weight > 1
    assert all(link.weight >= chosen.min_weight for link in chosen.links)
    assert chosen.weaker == len(every.links) - len(chosen.links)
    assert (
        f"of {chosen.min_weight}+ shared papers ({chosen.weaker:,} weaker ties left out" in chosen.left_out()
    )
    assert "--min-weight 1 writes them" in chosen.left_out()
