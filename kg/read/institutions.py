"""Institution reads: find one by name, its authors and papers, an author's institutions.

Why on the generic store reads (``get_nodes``, ``neighbors_many``) and not new store queries:
the institution graph is small (:mod:`kg.authors.institutions`), and each ``AFFILIATED_WITH`` holds the
``papers`` and ``years`` of its slots, so every answer here is one or two id look-ups that both
stores already serve identically.
"""

from __future__ import annotations

from dataclasses import dataclass

from kg.authors.institutions import PREFIX, clean_domain, name_key
from kg.core.ids import fold
from kg.core.models import Node, Relationship
from kg.stores.protocol import ReadStore


@dataclass(frozen=True)
class Affiliation:
    """One Author-Institution tie: the node at the other end, its years and papers there."""

    node: Node
    years: tuple[int, ...]
    papers: tuple[str, ...]


def _ints(rel: Relationship, key: str) -> tuple[int, ...]:
    value = rel.properties.get(key)
    return tuple(int(v) for v in value if isinstance(v, int | float)) if isinstance(value, list) else ()


def _strs(rel: Relationship, key: str) -> tuple[str, ...]:
    value = rel.properties.get(key)
    return tuple(str(v) for v in value) if isinstance(value, list) else ()


def find(store: ReadStore, name: str) -> Node | None:
    """The Institution ``name`` means: an id, a domain (``cmu.edu``), or a name or alias in any
    case and punctuation. Names of institutions keyed by a domain are found by a scan of the
    Institution nodes, only when the direct id look-ups miss."""
    text = name.strip()
    key = name_key(text)
    if not key:
        return None
    candidates = [text] if text.startswith(PREFIX) else []
    domain = clean_domain(text)
    if domain:
        candidates.append(PREFIX + domain)
    candidates.append(PREFIX + key)
    for node in store.get_nodes(candidates):
        if node is not None and node.label == "Institution":
            return node
    for node in store.nodes_by_label("Institution"):
        if "domain" in node.properties and key in {name_key(v) for v in names(node)}:
            return node
    return None


def names(node: Node) -> list[str]:
    """An institution's name and aliases."""
    aliases = node.properties.get("aliases")
    listed = [str(a) for a in aliases] if isinstance(aliases, list) else []
    return [str(node.properties.get("name") or ""), *listed]


def members(store: ReadStore, institution_id: str) -> list[Affiliation]:
    """Its authors, most papers there first, then by name and id."""
    (edges,) = store.neighbors_many([institution_id], "AFFILIATED_WITH", "in")
    found = [Affiliation(e.node, _ints(e.rel, "years"), _strs(e.rel, "papers")) for e in edges]
    return sorted(
        found, key=lambda a: (-len(a.papers), fold(str(a.node.properties.get("name") or "")), a.node.id)
    )


def paper_ids(store: ReadStore, institution_id: str) -> tuple[str, ...]:
    """The papers where an author gave this institution, sorted by id."""
    (edges,) = store.neighbors_many([institution_id], "AFFILIATED_WITH", "in")
    return tuple(sorted({p for e in edges for p in _strs(e.rel, "papers")}))


def of_author(store: ReadStore, author_id: str) -> list[Affiliation]:
    """An author's institutions, the latest year first, then most papers, then id."""
    (edges,) = store.neighbors_many([author_id], "AFFILIATED_WITH", "out")
    found = [Affiliation(e.node, _ints(e.rel, "years"), _strs(e.rel, "papers")) for e in edges]
    return sorted(found, key=lambda a: (-max(a.years, default=0), -len(a.papers), a.node.id))
