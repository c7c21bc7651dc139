"""Serialising a :class:`Graph`: JSON (the documented contract), GraphML and Cypher."""

from __future__ import annotations

import json
from typing import Any

import networkx as nx

from kg.models import Graph, PropertyValue


def to_json_dict(graph: Graph) -> dict[str, Any]:
    """``{"nodes": [{id, label, properties}], "relationships": [{type, start, end, properties}]}``."""
    return {
        "nodes": [{"id": n.id, "label": n.label, "properties": n.properties} for n in graph.nodes],
        "relationships": [
            {"type": r.type, "start": r.start, "end": r.end, "properties": r.properties}
            for r in graph.relationships
        ],
    }


def to_json(graph: Graph) -> str:
    """The JSON export, stable key order so two exports can be diffed."""
    return json.dumps(to_json_dict(graph), ensure_ascii=False, indent=1, sort_keys=True)


def _graphml_value(value: PropertyValue) -> str | int | float | bool:
    # GraphML has no list type: lists are written as JSON text.
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return "" if value is None else value


def to_graphml(graph: Graph) -> str:
    """GraphML for Gephi/yEd; list properties become JSON strings."""
    g = nx.MultiDiGraph()
    for n in graph.nodes:
        g.add_node(n.id, label=n.label, **{k: _graphml_value(v) for k, v in n.properties.items()})
    for r in graph.relationships:
        g.add_edge(
            r.start,
            r.end,
            key=r.type,
            type=r.type,
            **{k: _graphml_value(v) for k, v in r.properties.items()},
        )
    return "\n".join(nx.generate_graphml(g, named_key_ids=True))


def _cypher_literal(value: PropertyValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_cypher_literal(v) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False)


def to_cypher(graph: Graph) -> str:
    """Idempotent ``MERGE`` statements that rebuild the graph in any Neo4j database."""
    lines: list[str] = []
    for n in graph.nodes:
        props = ", ".join(f"n.`{k}` = {_cypher_literal(v)}" for k, v in sorted(n.properties.items()))
        stmt = f"MERGE (n:{n.label} {{id: {_cypher_literal(n.id)}}})"
        lines.append(stmt + (f" SET {props};" if props else ";"))
    for r in graph.relationships:
        props = ", ".join(f"r.`{k}` = {_cypher_literal(v)}" for k, v in sorted(r.properties.items()))
        stmt = (
            f"MATCH (a {{id: {_cypher_literal(r.start)}}}), (b {{id: {_cypher_literal(r.end)}}}) "
            f"MERGE (a)-[r:{r.type}]->(b)"
        )
        lines.append(stmt + (f" SET {props};" if props else ";"))
    return "\n".join(lines) + "\n"
