"""Serialising a :class:`Graph`: JSON (the documented contract), GraphML, Cypher, GEXF, VOSviewer."""

from __future__ import annotations

import json
from html import escape as html_escape
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


# --------------------------------------------------------------------------- Gephi (GEXF 1.2)
def _display_label(props: dict[str, PropertyValue], fallback: str) -> str:
    for key in ("name", "shortTitle", "title"):
        value = props.get(key)
        if isinstance(value, str) and value:
            return value
    return fallback


def paper_years(graph: Graph) -> dict[str, int]:
    """``paper id -> year`` for the papers that have one."""
    out: dict[str, int] = {}
    for n in graph.nodes:
        year = n.properties.get("year")
        if n.label == "Paper" and isinstance(year, int) and not isinstance(year, bool):
            out[n.id] = year
    return out


def _papers_weight(props: dict[str, PropertyValue]) -> int:
    """A derived pair's ``papers`` count (1 if missing or malformed)."""
    value = props.get("papers")
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 1


def shared_years(graph: Graph) -> dict[tuple[str, str], list[int]]:
    """The years of the papers behind each COAUTHOR and CO_OCCURS pair, keyed ``(start, end)``.

    Derived inside the graph: two authors share the papers both AUTHORED, two concepts the
    papers that MENTION both. Papers without a year add nothing; the pairs' ``papers`` weight
    still counts them.
    """
    years = paper_years(graph)
    members: dict[str, dict[str, set[str]]] = {"AUTHORED": {}, "MENTIONS": {}}
    for r in graph.relationships:
        if r.type in members:
            node = r.start if r.type == "AUTHORED" else r.end  # the author / the concept
            members[r.type].setdefault(node, set()).add(r.start if r.type == "MENTIONS" else r.end)
    out: dict[tuple[str, str], list[int]] = {}
    for r in graph.relationships:
        source = {"COAUTHOR": "AUTHORED", "CO_OCCURS": "MENTIONS"}.get(r.type)
        if source is None:
            continue
        papers = members[source].get(r.start, set()) & members[source].get(r.end, set())
        out[(r.start, r.end)] = sorted({years[p] for p in papers if p in years})
    return out


def _gexf_attrs(props: dict[str, PropertyValue]) -> dict[str, Any]:
    # GEXF attributes are typed scalars: lists become "a|b|c" (Gephi's list separator), and an
    # unset value is left out (an empty string would not parse as the attribute's number type).
    return {
        k: "|".join(str(x) for x in v) if isinstance(v, list) else v
        for k, v in props.items()
        if v is not None and k != "id"
    }


def year_spell(year: int) -> tuple[str, str]:
    """The GEXF spell of a calendar year, as dates (``timeformat="date"``, which Gephi reads).

    >>> year_spell(2021)
    ('2021-01-01', '2021-12-31')
    """
    return (f"{year:04d}-01-01", f"{year:04d}-12-31")


def to_gexf(graph: Graph) -> str:
    """GEXF 1.2 for Gephi, dynamic in years so its timeline can animate the graph.

    Every node gets ``label`` (its name or short title) and ``type`` (its label; concepts their
    ``kind``); every edge ``relationship`` (its type, also its label) and, for COAUTHOR /
    CO_OCCURS, ``weight`` = shared papers.
    Time: a Paper lives in its year, AUTHORED/MENTIONS/... edges of a paper too, and a COAUTHOR
    or CO_OCCURS edge has one spell per year of the papers behind it (``years`` lists them),
    so Gephi's timeline shows co-authorship as it happened. Elements without a year (authors,
    concepts, papers of undated listings) have no spell: Gephi shows them throughout.
    """
    years = paper_years(graph)
    pair_years = shared_years(graph)
    g = nx.MultiDiGraph(mode="dynamic")
    for n in graph.nodes:
        attrs = _gexf_attrs(n.properties)
        attrs["label"] = _display_label(n.properties, n.id)
        attrs["type"] = str(n.properties.get("kind", n.label)) if n.label == "Concept" else n.label
        if n.id in years:
            attrs["spells"] = [year_spell(years[n.id])]
        g.add_node(n.id, **attrs)
    for i, r in enumerate(graph.relationships):
        attrs = _gexf_attrs(r.properties)
        # GEXF's own edge "type" means directed/undirected: the relationship type is "relationship"
        # (and the edge label, which Gephi can show on the edge).
        attrs["relationship"] = attrs["label"] = r.type
        attrs["id"] = f"e{i}"
        if r.type in ("COAUTHOR", "CO_OCCURS"):
            shared = pair_years.get((r.start, r.end), [])
            attrs["weight"] = float(_papers_weight(r.properties))
            attrs["years"] = "|".join(str(y) for y in shared)
            if shared:
                attrs["spells"] = [year_spell(y) for y in shared]
        else:
            year = years.get(r.start, years.get(r.end))
            if year is not None:
                attrs["spells"] = [year_spell(year)]
        attrs.pop("papers", None)  # the weight
        g.add_edge(r.start, r.end, key=r.type, **attrs)
    return "\n".join(nx.generate_gexf(g, version="1.2draft")) + "\n"


# --------------------------------------------------------------------------- VOSviewer (JSON)
VOSVIEWER_NETWORKS: dict[str, tuple[str, str, str, dict[str, str]]] = {
    # network: (item label, pair type, membership type, VOSviewer terminology)
    "coauthors": (
        "Author",
        "COAUTHOR",
        "AUTHORED",
        {
            "item": "Author",
            "items": "Authors",
            "link": "Co-authorship link",
            "links": "Co-authorship links",
            "link_strength": "Co-authored papers",
            "total_link_strength": "Total co-authored papers",
        },
    ),
    "concepts": (
        "Concept",
        "CO_OCCURS",
        "MENTIONS",
        {
            "item": "Concept",
            "items": "Concepts",
            "link": "Co-occurrence link",
            "links": "Co-occurrence links",
            "link_strength": "Shared papers",
            "total_link_strength": "Total shared papers",
        },
    ),
}


def to_vosviewer_dict(graph: Graph, network: str = "coauthors") -> dict[str, Any]:
    """A VOSviewer JSON network: authors linked by co-authorship, or concepts by co-occurrence.

    VOSviewer maps one kind of item, so each network is its own file. Items carry the weights
    VOSviewer sizes them by (Documents, Links, Total link strength) and, when papers have
    years, the score "Avg. pub. year" that its overlay view colours by; links carry
    ``strength`` = shared papers. VOSviewer computes the layout and clusters itself.
    """
    if network not in VOSVIEWER_NETWORKS:
        raise ValueError(f"unknown VOSviewer network {network!r} (one of {sorted(VOSVIEWER_NETWORKS)})")
    label, pair_type, member_type, terminology = VOSVIEWER_NETWORKS[network]
    years = paper_years(graph)
    papers_of: dict[str, set[str]] = {}
    for r in graph.relationships:
        if r.type == member_type:
            member, paper = (r.start, r.end) if member_type == "AUTHORED" else (r.end, r.start)
            papers_of.setdefault(member, set()).add(paper)
    items = [n for n in graph.nodes if n.label == label]
    number = {n.id: i for i, n in enumerate(items, start=1)}
    links: list[dict[str, int]] = []
    degree, strength = dict.fromkeys(number, 0), dict.fromkeys(number, 0)
    for r in graph.relationships:
        if r.type == pair_type and r.start in number and r.end in number:
            weight = _papers_weight(r.properties)
            links.append({"source_id": number[r.start], "target_id": number[r.end], "strength": weight})
            for end in (r.start, r.end):
                degree[end] += 1
                strength[end] += weight
    out_items = []
    for n in items:
        dated = [years[p] for p in papers_of.get(n.id, ()) if p in years]
        item: dict[str, Any] = {
            "id": number[n.id],
            "label": _display_label(n.properties, n.id),
            "description": html_escape(n.id),
            "weights": {
                "Documents": len(papers_of.get(n.id, ())),
                "Links": degree[n.id],
                "Total link strength": strength[n.id],
            },
        }
        if dated:
            item["scores"] = {"Avg. pub. year": round(sum(dated) / len(dated), 2)}
        out_items.append(item)
    return {"network": {"items": out_items, "links": links}, "config": {"terminology": terminology}}


def to_vosviewer(graph: Graph, network: str = "coauthors") -> str:
    """:func:`to_vosviewer_dict` as JSON text (open it with VOSviewer's "Create > JSON file")."""
    return json.dumps(to_vosviewer_dict(graph, network), ensure_ascii=False, indent=1)
