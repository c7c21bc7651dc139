"""GEXF and VOSviewer exports, read back with a GEXF parser (networkx) and json."""

from __future__ import annotations

import json
from io import BytesIO

import networkx as nx
import pytest

from kg.export import shared_years, to_gexf, to_vosviewer, to_vosviewer_dict
from kg.models import Graph, Node, Relationship


def _graph() -> Graph:
    """Ada and Bob share papers of 2019 and 2021; Bob and Cy one undated paper."""
    papers = [("p1", 2019), ("p2", 2021), ("p3", None)]
    nodes = [
        Node(id=pid, label="Paper", properties={"title": f"Paper {pid}", "shortTitle": pid, "year": year})
        for pid, year in papers
    ]
    nodes += [Node(id=f"a:{n}", label="Author", properties={"name": n}) for n in ("Ada", "Bob", "Cy")]
    nodes += [
        Node(
            id="c:gnn",
            label="Concept",
            properties={"name": "graph neural network", "kind": "MODEL", "aliases": ["GNN", "GNNs"]},
        ),
        Node(id="c:kg", label="Concept", properties={"name": "knowledge graph", "kind": "CONCEPT"}),
    ]
    authored = [
        ("a:Ada", "p1"),
        ("a:Bob", "p1"),
        ("a:Ada", "p2"),
        ("a:Bob", "p2"),
        ("a:Bob", "p3"),
        ("a:Cy", "p3"),
    ]
    rels = [Relationship(type="AUTHORED", start=a, end=p, properties={"position": 0}) for a, p in authored]
    rels += [Relationship(type="MENTIONS", start=p, end=c) for p in ("p1", "p2") for c in ("c:gnn", "c:kg")]
    rels += [
        Relationship(type="COAUTHOR", start="a:Ada", end="a:Bob", properties={"papers": 2}),
        Relationship(type="COAUTHOR", start="a:Bob", end="a:Cy", properties={"papers": 1}),
        Relationship(type="CO_OCCURS", start="c:gnn", end="c:kg", properties={"papers": 2}),
    ]
    return Graph(nodes=nodes, relationships=rels)


def test_shared_years_come_from_authored_and_mentions() -> None:
    years = shared_years(_graph())
    assert years[("a:Ada", "a:Bob")] == [2019, 2021]
    assert years[("a:Bob", "a:Cy")] == []  # the shared paper has no year
    assert years[("c:gnn", "c:kg")] == [2019, 2021]


def _read_gexf(text: str) -> nx.MultiDiGraph:
    # networkx returns a DiGraph unless the file has parallel edges: view both alike.
    g = nx.read_gexf(BytesIO(text.encode("utf-8")))
    assert g.is_directed()
    return nx.MultiDiGraph(g)


def test_gexf_reads_back_with_years_on_coauthor_edges() -> None:
    text = to_gexf(_graph())
    assert 'mode="dynamic"' in text and 'timeformat="date"' in text
    g = _read_gexf(text)
    assert g.number_of_nodes() == 8
    assert g.number_of_edges() == len(_graph().relationships)
    assert g.nodes["a:Ada"]["label"] == "Ada"
    assert g.nodes["c:gnn"]["type"] == "MODEL"
    assert g.nodes["c:gnn"]["aliases"] == "GNN|GNNs"
    assert g.nodes["p1"]["spells"] == [("2019-01-01", "2019-12-31")]
    coauthor = g.get_edge_data("a:Ada", "a:Bob")
    (edge,) = coauthor.values()
    assert edge["relationship"] == edge["label"] == "COAUTHOR"
    assert edge["weight"] == 2.0
    assert edge["years"] == "2019|2021"
    assert edge["spells"] == [("2019-01-01", "2019-12-31"), ("2021-01-01", "2021-12-31")]
    (undated,) = g.get_edge_data("a:Bob", "a:Cy").values()
    assert "spells" not in undated and undated["years"] == ""
    (authored,) = g.get_edge_data("a:Ada", "p2").values()
    assert authored["spells"] == [("2021-01-01", "2021-12-31")]


def test_gexf_keeps_parallel_edges_of_different_types() -> None:
    graph = _graph()
    graph.relationships.append(Relationship(type="INTRODUCES", start="p1", end="c:gnn"))
    g = _read_gexf(to_gexf(graph))
    types = sorted(d["relationship"] for d in g.get_edge_data("p1", "c:gnn").values())
    assert types == ["INTRODUCES", "MENTIONS"]


def test_vosviewer_coauthor_network_reads_back() -> None:
    data = json.loads(to_vosviewer(_graph()))
    items = {i["label"]: i for i in data["network"]["items"]}
    assert set(items) == {"Ada", "Bob", "Cy"}
    assert all(isinstance(i["id"], int) for i in items.values())
    assert items["Bob"]["weights"] == {"Documents": 3, "Links": 2, "Total link strength": 3}
    assert items["Ada"]["scores"] == {"Avg. pub. year": 2020.0}
    assert items["Cy"].get("scores") is None  # Cy's only paper is undated
    by_id = {i["id"]: name for name, i in items.items()}
    links = {
        (by_id[link["source_id"]], by_id[link["target_id"]]): link["strength"]
        for link in data["network"]["links"]
    }
    assert links == {("Ada", "Bob"): 2, ("Bob", "Cy"): 1}
    assert data["config"]["terminology"]["item"] == "Author"


def test_vosviewer_concept_network() -> None:
    data = to_vosviewer_dict(_graph(), "concepts")
    labels = sorted(i["label"] for i in data["network"]["items"])
    assert labels == ["graph neural network", "knowledge graph"]
    assert [link["strength"] for link in data["network"]["links"]] == [2]


def test_vosviewer_unknown_network_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="unknown VOSviewer network 'venues'"):
        to_vosviewer_dict(_graph(), "venues")
