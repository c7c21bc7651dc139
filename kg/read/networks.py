"""Co-author and concept networks, built hop by hop from store queries (role: bounded networks).

Why hop by hop: an ego network of ``depth`` hops and ``max_nodes`` nodes needs at most
``depth`` batched neighbour queries (each capped at the remaining node budget) and one query for
the ties among the chosen nodes, so its cost follows the size of the answer, not of the graph.
The result is the same as a breadth-first search over the whole projection: within a hop,
heavier ties first, then node id; edges are all ties among the kept nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from kg.read.errors import InvalidArgument
from kg.stores.protocol import PairEdge, PairType, ReadStore

MAX_DEPTH = 3
MAX_NODES = 1000
# Frontier nodes whose ties a hop reads first (see ego_ids).
FIRST_BATCH = 8


class NetworkNode(NamedTuple):
    """A node of a network as served: id, label, display name, weight (its paper count)."""

    id: str
    label: str
    name: str
    weight: float | None


# An undirected tie as served, ``source < target``; ``weight`` is the shared papers. The store's
# own tuples are served as they are (a network can have thousands of ties).
NetworkEdge = PairEdge


@dataclass(frozen=True)
class NetworkView:
    """A subgraph ready for display: rows the API serves as they are."""

    nodes: list[NetworkNode]
    edges: list[NetworkEdge]
    truncated: bool


def check_years(years: tuple[int, int] | None) -> None:
    """Refuse a year range that ends before it starts."""
    if years is not None and years[0] > years[1]:
        raise InvalidArgument(f"years: `from` ({years[0]}) is after `to` ({years[1]})")


def check_graph_args(depth: int, max_nodes: int, min_weight: int = 1) -> None:
    """Refuse out-of-range network arguments before any work."""
    if not 0 <= depth <= MAX_DEPTH:
        raise InvalidArgument(f"depth must be between 0 and {MAX_DEPTH} (got {depth})")
    if not 1 <= max_nodes <= MAX_NODES:
        raise InvalidArgument(f"maxNodes must be between 1 and {MAX_NODES} (got {max_nodes})")
    if min_weight < 1:
        raise InvalidArgument(f"minWeight must be at least 1 (got {min_weight})")


def ego_ids(
    store: ReadStore,
    pair: PairType,
    center: str,
    depth: int,
    max_nodes: int,
    min_weight: int = 1,
    years: tuple[int, int] | None = None,
) -> tuple[list[str], bool]:
    """Node ids of the ego network in BFS order (centre first) and whether the budget cut it.

    A hop's frontier is read in growing batches (:data:`FIRST_BATCH`, then twice as many each
    time) and reading stops as soon as the answer is known: once the budget is full, at the
    first node left out. Why: a popular author's first co-authors fill a depth-2 network of 200
    nodes, and reading the ties of all 70-odd of them was most of the request (two statements
    each on SQLite). Each node's list is still cut at the budget the hop started with, so the
    answer is exactly the one of reading the whole frontier at once. With ``years`` a tie counts
    only the papers of those years.
    """
    nodes = [center]
    seen = {center}
    frontier = [center]
    truncated = False
    for _ in range(depth):
        # One more than the budget per node tells whether anything was left out.
        limit = max_nodes - len(nodes) + 1
        nxt: list[str] = []
        start, size = 0, FIRST_BATCH
        while start < len(frontier) and not truncated:
            batch = frontier[start : start + size]
            start, size = start + len(batch), size * 2
            if years is None:
                found = store.weighted_neighbors(batch, pair, min_weight, limit)
            elif pair == "COAUTHOR":
                found = store.coauthors_in_years(batch, years, min_weight, limit)
            else:
                found = store.concepts_in_years(batch, years, min_weight, limit)
            for neighbours in found:
                for other in neighbours:
                    if other.id in seen:
                        continue
                    if len(nodes) >= max_nodes:
                        truncated = True
                        break
                    seen.add(other.id)
                    nodes.append(other.id)
                    nxt.append(other.id)
                if truncated:
                    break
        if truncated or not nxt:
            break
        frontier = nxt
    return nodes, truncated


def view(
    store: ReadStore,
    pair: PairType,
    ids: list[str],
    truncated: bool,
    min_weight: int = 1,
    years: tuple[int, int] | None = None,
) -> NetworkView:
    """Rows for ``ids`` (names and paper counts from the store) and the ties among them (of the
    papers of ``years`` only, when given)."""
    rows = [NetworkNode(n.id, n.label, n.name or n.id, float(n.papers)) for n in store.network_nodes(ids)]
    chosen = [n.id for n in rows]
    if years is None:
        edges = store.pair_edges_among(chosen, pair, min_weight)
    elif pair == "COAUTHOR":
        edges = store.coauthor_edges_in_years(chosen, years, min_weight)
    else:
        edges = store.concept_edges_in_years(chosen, years, min_weight)
    return NetworkView(nodes=rows, edges=edges, truncated=truncated)
