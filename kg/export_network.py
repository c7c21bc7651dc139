"""Co-authorship and concept networks for Gephi (GEXF) and VOSviewer, at a size they can open.

The whole graph of 17,657 papers is 77k nodes and 750k relationships: as GEXF a 451 MB file
that took 535 s and 6 GB to write and that networkx could not load in 300 s. What these tools
are for is one network: authors tied by shared papers, or concepts by papers that mention
both. So both formats write that network, bounded: the ``top`` items with the strongest ties
(weighted degree over ties of ``min_weight`` shared papers or more) and every tie among them
of that weight, read from the store with the bounded reads the API uses (memory grows with
``top``, not with the store). :class:`Network` says what was left out; the GEXF file says it
too (its ``description``), and ``kg export`` prints it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from html import escape as html_escape
from typing import Any, Literal, TextIO
from xml.sax.saxutils import quoteattr

from kg.core.models import Node
from kg.stores.protocol import PairEdge, PairType, ReadStore

NetworkName = Literal["coauthors", "concepts"]
DEFAULT_TOP = 1000  # VOSviewer's own default selection; Gephi lays out 1,000 nodes in seconds
# Without --min-weight, ties are kept strongest first up to this many per item: the weakest
# weight kept is chosen from the data (1,000 concepts share 73k ties of 1+ papers at 17k
# papers, a hairball; 1,000 authors 9.7k, all kept).
LINKS_PER_ITEM = 10
_CHUNK = 50  # items whose papers are read at once: bounds the paper nodes held


@dataclass(frozen=True)
class NetworkKind:
    """What one network is made of, and VOSviewer's words for it."""

    label: str  # the items' node label
    pair: PairType  # the tie between two items
    member: Literal["AUTHORED", "MENTIONS"]  # item <-> paper
    direction: Literal["out", "in"]  # from the item to its papers
    terminology: dict[str, str]


NETWORKS: dict[str, NetworkKind] = {
    "coauthors": NetworkKind(
        "Author",
        "COAUTHOR",
        "AUTHORED",
        "out",
        {
            "item": "Author",
            "items": "Authors",
            "link": "Co-authorship link",
            "links": "Co-authorship links",
            "link_strength": "Co-authored papers",
            "total_link_strength": "Total co-authored papers",
        },
    ),
    "concepts": NetworkKind(
        "Concept",
        "CO_OCCURS",
        "MENTIONS",
        "in",
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


@dataclass
class Item:
    """One author or concept: what both formats show of it."""

    id: str
    label: str
    type: str  # "Author", or a concept's kind
    documents: int  # its papers (the stored paper count)
    years: list[int] = field(default_factory=list)  # the years of its dated papers, sorted

    @property
    def average_year(self) -> float | None:
        return round(sum(self.years) / len(self.years), 2) if self.years else None


@dataclass
class Link:
    """An undirected tie: ``weight`` shared papers, in ``years``."""

    source: str
    target: str
    weight: int
    years: list[int]


@dataclass
class Network:
    """A bounded network and what it left out."""

    name: str
    kind: NetworkKind
    items: list[Item]
    links: list[Link]
    in_store: int  # items of the label in the store
    more: bool  # items with ties were left out by ``top``
    top: int
    min_weight: int
    chosen: bool = False  # min_weight was chosen from the data (no --min-weight)
    weaker: int = 0  # ties among the items left out by min_weight

    def left_out(self) -> str:
        """One sentence: what the file holds and what it does not."""
        what = self.kind.terminology["items"].lower()
        said = f"the {len(self.items):,} {what} with the most shared papers"
        said += f" of {self.in_store:,} in the store, and their {len(self.links):,} ties"
        if self.min_weight > 1:
            said += f" of {self.min_weight}+ shared papers"
            if self.weaker:
                said += f" ({self.weaker:,} weaker ties left out"
                said += (
                    f"{' to keep the picture readable; --min-weight 1 writes them' if self.chosen else ''})"
                )
        if self.more:
            said += f"; more {what} left out by --top {self.top} (--top 0 writes every one)"
        elif len(self.items) < self.in_store:
            said += f"; {what} without such a tie left out"
        return said


def read_network(
    store: ReadStore, name: str = "coauthors", top: int = DEFAULT_TOP, min_weight: int | None = None
) -> Network:
    """The ``top`` strongest items of one network (0 = all) and their ties of ``min_weight``+
    (``None``: the weakest weight that keeps at most :data:`LINKS_PER_ITEM` ties per item)."""
    if name not in NETWORKS:
        raise ValueError(f"unknown network {name!r} (one of {', '.join(sorted(NETWORKS))})")
    kind = NETWORKS[name]
    in_store = store.counts().nodes.get(kind.label, 0)
    limit = top if top > 0 else max(in_store, 1)
    ids, more = store.strongest_nodes(kind.pair, min_weight or 1, limit)
    nodes = [n for n in store.get_nodes(ids) if n is not None]
    counts = dict(zip(ids, store.paper_counts(ids), strict=True))
    items = [Item(n.id, _display_label(n), _item_type(n), counts.get(n.id, 0)) for n in nodes]
    papers: dict[str, frozenset[str]] = {}
    year_of: dict[str, int] = {}
    for chunk in _chunks(items):
        for item, edges in zip(
            chunk, store.neighbors_many([i.id for i in chunk], kind.member, kind.direction), strict=True
        ):
            papers[item.id] = frozenset(e.node.id for e in edges)
            for e in edges:
                year = e.node.properties.get("year")
                if isinstance(year, int) and not isinstance(year, bool):
                    year_of[e.node.id] = year
            item.years = sorted(year_of[p] for p in papers[item.id] if p in year_of)
    ties = store.pair_edges_among(ids, kind.pair, min_weight or 1)
    weight = min_weight or _weakest_kept(ties, LINKS_PER_ITEM * len(items))
    kept = [e for e in ties if e.weight >= weight]
    links = [Link(e.source, e.target, e.weight, _shared_years(e, papers, year_of)) for e in kept]
    network = Network(name, kind, items, links, in_store, more, top, weight, min_weight is None)
    network.weaker = len(ties) - len(kept)
    return network


def _weakest_kept(edges: Sequence[PairEdge], budget: int) -> int:
    """The smallest weight whose ties (that weight or more) number at most ``budget``.

    >>> _weakest_kept([PairEdge("a", "b", w) for w in (1, 1, 1, 2, 3)], 2)
    2
    """
    weights = sorted((e.weight for e in edges), reverse=True)
    if len(weights) <= budget:
        return 1
    return weights[budget] + 1 if budget else weights[0] + 1


def _chunks(items: Sequence[Item]) -> Iterator[Sequence[Item]]:
    for start in range(0, len(items), _CHUNK):
        yield items[start : start + _CHUNK]


def _shared_years(edge: PairEdge, papers: dict[str, frozenset[str]], year_of: dict[str, int]) -> list[int]:
    shared = papers.get(edge.source, frozenset()) & papers.get(edge.target, frozenset())
    return sorted({year_of[p] for p in shared if p in year_of})


def _display_label(node: Node) -> str:
    for key in ("name", "shortTitle", "title"):
        value = node.properties.get(key)
        if isinstance(value, str) and value:
            return value
    return node.id


def _item_type(node: Node) -> str:
    return str(node.properties.get("kind", node.label)) if node.label == "Concept" else node.label


# --------------------------------------------------------------------------- VOSviewer (JSON)
def vosviewer_dict(network: Network) -> dict[str, Any]:
    """A VOSviewer JSON network (open with "Create > Create a map based on network data > JSON").

    Items carry the weights VOSviewer sizes them by (Documents, Links, Total link strength)
    and, when papers have years, the score "Avg. pub. year" its overlay view colours by;
    links carry ``strength`` = shared papers. VOSviewer lays out and clusters itself.
    """
    number = {item.id: i for i, item in enumerate(network.items, start=1)}
    degree, strength = dict.fromkeys(number, 0), dict.fromkeys(number, 0)
    links = []
    for link in network.links:
        links.append(
            {"source_id": number[link.source], "target_id": number[link.target], "strength": link.weight}
        )
        for end in (link.source, link.target):
            degree[end] += 1
            strength[end] += link.weight
    items = []
    for item in network.items:
        out: dict[str, Any] = {
            "id": number[item.id],
            "label": item.label,
            "description": html_escape(item.id),
            "weights": {
                "Documents": item.documents,
                "Links": degree[item.id],
                "Total link strength": strength[item.id],
            },
        }
        if item.average_year is not None:
            out["scores"] = {"Avg. pub. year": item.average_year}
        items.append(out)
    return {"network": {"items": items, "links": links}, "config": {"terminology": network.kind.terminology}}


def write_vosviewer(network: Network, out: TextIO) -> None:
    json.dump(vosviewer_dict(network), out, ensure_ascii=False, indent=1)
    out.write("\n")


# --------------------------------------------------------------------------- Gephi (GEXF 1.2)
GEXF_NAMESPACE = "http://www.gexf.net/1.2draft"


def year_spell(year: int) -> tuple[str, str]:
    """The GEXF spell of a calendar year, as dates (``timeformat="date"``, which Gephi reads).

    >>> year_spell(2021)
    ('2021-01-01', '2021-12-31')
    """
    return (f"{year:04d}-01-01", f"{year:04d}-12-31")


def _spells(years: Sequence[int]) -> str:
    if not years:
        return ""
    spells = "".join(
        f'<spell start="{s}" end="{e}"/>' for s, e in (year_spell(y) for y in sorted(set(years)))
    )
    return f"<spells>{spells}</spells>"


def write_gexf(network: Network, out: TextIO) -> None:
    """GEXF 1.2 for Gephi: undirected weighted ties, dynamic in years.

    Each item lives in the years of its papers and each tie in the years of the papers behind
    it (attribute ``years``), so Gephi's timeline shows the network as it grew; undated
    elements are shown throughout. Node attributes: ``type`` (Author, or the concept's kind),
    ``documents``, ``avgYear``. Written element by element.
    """
    out.write('<?xml version="1.0" encoding="utf-8"?>\n')
    out.write(f'<gexf xmlns="{GEXF_NAMESPACE}" version="1.2">\n')
    out.write(
        f"  <meta><creator>paperkg</creator><description>{_xml(network.left_out())}</description></meta>\n"
    )
    out.write('  <graph defaultedgetype="undirected" mode="dynamic" timeformat="date">\n')
    out.write(
        '    <attributes class="node" mode="static">'
        '<attribute id="type" title="type" type="string"/>'
        '<attribute id="documents" title="documents" type="integer"/>'
        '<attribute id="avgYear" title="avgYear" type="double"/></attributes>\n'
        '    <attributes class="edge" mode="static">'
        '<attribute id="years" title="years" type="string"/></attributes>\n'
    )
    out.write("    <nodes>\n")
    for item in network.items:
        values = f'<attvalue for="type" value={quoteattr(item.type)}/>'
        values += f'<attvalue for="documents" value="{item.documents}"/>'
        if item.average_year is not None:
            values += f'<attvalue for="avgYear" value="{item.average_year}"/>'
        out.write(
            f"      <node id={quoteattr(item.id)} label={quoteattr(item.label)}>"
            f"<attvalues>{values}</attvalues>{_spells(item.years)}</node>\n"
        )
    out.write("    </nodes>\n    <edges>\n")
    for i, link in enumerate(network.links):
        years = "|".join(str(y) for y in link.years)
        out.write(
            f'      <edge id="e{i}" source={quoteattr(link.source)} target={quoteattr(link.target)} '
            f'weight="{float(link.weight)}"><attvalues><attvalue for="years" value="{years}"/></attvalues>'
            f"{_spells(link.years)}</edge>\n"
        )
    out.write("    </edges>\n  </graph>\n</gexf>\n")


def _xml(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
