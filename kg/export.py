"""The whole graph as JSON (the documented contract), GraphML or Cypher, written as it is read.

Each writer takes the store's node and relationship iterators (:meth:`ReadStore.iter_nodes`,
:meth:`ReadStore.iter_relationships`) and writes element by element, so memory does not grow
with the store: at 17,657 papers the old writers held the graph, then a networkx copy, then the
whole text (JSON 3.0 GB, GraphML 4.1 GB, GEXF 5.8 GB peak). GraphML declares its attribute keys
before the graph, so it reads the store twice. Gephi and VOSviewer get one network each, bounded
(:mod:`kg.export_network`).
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TextIO
from xml.sax.saxutils import quoteattr

from kg.core.models import Graph, Node, PropertyValue, Relationship, number_type


@dataclass
class Written:
    """What a writer wrote: the counts ``kg export`` prints are these, not the store's."""

    nodes: int = 0
    relationships: int = 0


def _node_json(n: Node) -> str:
    return json.dumps(
        {"id": n.id, "label": n.label, "properties": n.properties}, ensure_ascii=False, sort_keys=True
    )


def _rel_json(r: Relationship) -> str:
    record = {"type": r.type, "start": r.start, "end": r.end, "properties": r.properties}
    return json.dumps(record, ensure_ascii=False, sort_keys=True)


def write_json(nodes: Iterable[Node], rels: Iterable[Relationship], out: TextIO) -> Written:
    """``{"nodes": [{id, label, properties}], "relationships": [{type, start, end, properties}]}``,
    one element per line in the store's order (nodes by id, relationships by start, type, end),
    keys sorted, so two exports can be diffed."""
    done = Written()
    out.write('{"nodes": [')
    for n in nodes:
        out.write(("," if done.nodes else "") + "\n" + _node_json(n))
        done.nodes += 1
    out.write('\n], "relationships": [')
    for r in rels:
        out.write(("," if done.relationships else "") + "\n" + _rel_json(r))
        done.relationships += 1
    out.write("\n]}\n")
    return done


def to_json(graph: Graph) -> str:
    """:func:`write_json` of a graph held in memory (tests compare stores with it)."""
    buffer = io.StringIO()
    write_json(graph.nodes, graph.relationships, buffer)
    return buffer.getvalue()


def to_json_dict(graph: Graph) -> dict[str, Any]:
    """The JSON export as Python data."""
    data: dict[str, Any] = json.loads(to_json(graph))
    return data


# --------------------------------------------------------------------------- Cypher
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


def write_cypher(nodes: Iterable[Node], rels: Iterable[Relationship], out: TextIO) -> Written:
    """Idempotent ``MERGE`` statements that rebuild the graph in any Neo4j database."""
    done = Written()
    for n in nodes:
        props = ", ".join(f"n.`{k}` = {_cypher_literal(v)}" for k, v in sorted(n.properties.items()))
        stmt = f"MERGE (n:{n.label} {{id: {_cypher_literal(n.id)}}})"
        out.write(stmt + (f" SET {props};\n" if props else ";\n"))
        done.nodes += 1
    for r in rels:
        props = ", ".join(f"r.`{k}` = {_cypher_literal(v)}" for k, v in sorted(r.properties.items()))
        stmt = (
            f"MATCH (a {{id: {_cypher_literal(r.start)}}}), (b {{id: {_cypher_literal(r.end)}}}) "
            f"MERGE (a)-[r:{r.type}]->(b)"
        )
        out.write(stmt + (f" SET {props};\n" if props else ";\n"))
        done.relationships += 1
    return done


def to_cypher(graph: Graph) -> str:
    buffer = io.StringIO()
    write_cypher(graph.nodes, graph.relationships, buffer)
    return buffer.getvalue()


# --------------------------------------------------------------------------- GraphML
def _graphml_type(value: PropertyValue) -> str:
    # strings, and lists (written as JSON text: GraphML has no list type), are strings
    return number_type(value) or "string"


def _wider(a: str | None, b: str) -> str:
    if a is None or a == b:
        return b
    if {a, b} == {"long", "double"}:
        return "double"
    return "string"


def _graphml_text(value: PropertyValue) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


def _xml_text(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def write_graphml(
    nodes: Callable[[], Iterable[Node]], rels: Callable[[], Iterable[Relationship]], out: TextIO
) -> Written:
    """GraphML for Gephi/yEd (``label`` and ``type`` plus every property; lists as JSON text).

    Keys must be declared before the graph, with one type each: a first pass over the store
    collects them (the widest type seen wins), the second writes.
    """
    node_keys: dict[str, str] = {"label": "string"}
    edge_keys: dict[str, str] = {"type": "string"}
    for n in nodes():
        for k, v in n.properties.items():
            if v is not None:
                node_keys[k] = _wider(node_keys.get(k), _graphml_type(v))
    for r in rels():
        for k, v in r.properties.items():
            if v is not None:
                edge_keys[k] = _wider(edge_keys.get(k), _graphml_type(v))
    out.write('<?xml version="1.0" encoding="utf-8"?>\n')
    out.write(
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
        'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
        'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
        'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n'
    )
    for where, keys in (("node", node_keys), ("edge", edge_keys)):
        for k, t in sorted(keys.items()):
            key = quoteattr(f"{where}:{k}")
            out.write(f'  <key id={key} for="{where}" attr.name={quoteattr(k)} attr.type="{t}"/>\n')
    out.write('  <graph edgedefault="directed">\n')
    done = Written()
    for n in nodes():
        data = _graphml_data("node", {"label": n.label, **n.properties})
        out.write(f"    <node id={quoteattr(n.id)}>{data}</node>\n")
        done.nodes += 1
    for r in rels():
        data = _graphml_data("edge", {"type": r.type, **r.properties})
        out.write(f"    <edge source={quoteattr(r.start)} target={quoteattr(r.end)}>{data}</edge>\n")
        done.relationships += 1
    out.write("  </graph>\n</graphml>\n")
    return done


def _graphml_data(where: str, props: dict[str, PropertyValue]) -> str:
    return "".join(
        f"<data key={quoteattr(f'{where}:{k}')}>{_xml_text(_graphml_text(v))}</data>"
        for k, v in sorted(props.items())
        if v is not None
    )


def to_graphml(graph: Graph) -> str:
    buffer = io.StringIO()
    write_graphml(lambda: graph.nodes, lambda: graph.relationships, buffer)
    return buffer.getvalue()
