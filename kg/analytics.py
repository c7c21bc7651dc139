"""Graph analytics on a networkx graph: ego networks, paths, centrality, communities.

The algorithms are pure functions taking an undirected, ``weight``-ed :class:`networkx.Graph`
first (networkx style), so they run the same on either backend: the Neo4j backend never runs
an algorithm server-side. ``kg analyze`` (:mod:`kg.analyze`) runs them on the whole graph,
outside the API, and stores the results; the API never builds a graph.

Every result is deterministic (ties broken by node id, seeded sampling) and bounded by a node
budget rather than by a time limit, so the same request always returns the same answer.

Example:
    >>> import networkx as nx
    >>> g = nx.Graph()
    >>> g.add_weighted_edges_from([("a", "b", 2), ("b", "c", 1), ("c", "d", 1)])
    >>> sub = ego_network(g, "b", depth=1, max_nodes=10)
    >>> sub.nodes, sub.edges, sub.truncated
    (['b', 'a', 'c'], [('a', 'b', 2), ('b', 'c', 1)], False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

import networkx as nx

from kg.core.models import Relationship

__all__ = [
    "BETWEENNESS_SAMPLES",
    "Measure",
    "Subgraph",
    "betweenness_ranking",
    "centrality",
    "collaboration_path",
    "communities",
    "degree_ranking",
    "ego_network",
    "pagerank",
    "top_subgraph",
]

Measure = Literal["DEGREE", "BETWEENNESS", "PAGERANK"]
# Exact betweenness is O(V·E); above this many nodes it is estimated from this many sampled
# sources (networkx's ``k``), seeded so the ranking is reproducible.
BETWEENNESS_SAMPLES = 200
LOUVAIN_SEED = 42
PAGERANK_ALPHA = 0.85


@dataclass(frozen=True)
class Subgraph:
    """Node ids (in discovery or rank order) and weighted edges ``(a, b, w)`` with ``a < b``."""

    nodes: list[str]
    edges: list[tuple[str, str, int]]
    truncated: bool = False


# -- projections --------------------------------------------------------------------------------


def build_projection(rels: Iterable[Relationship], weight_property: str = "papers") -> nx.Graph:
    """An undirected graph from stored pair relationships, edge ``weight`` from a property.

    Pairs stored once per direction-insensitive pair are merged (weights added) if a backend
    ever returns both directions.

    >>> from kg.core.models import Relationship
    >>> g = build_projection([Relationship(type="COAUTHOR", start="a", end="b", properties={"papers": 2})])
    >>> g["a"]["b"]["weight"]
    2
    """
    g = nx.Graph()
    for r in rels:
        if r.start == r.end:
            continue
        raw = r.properties.get(weight_property)
        w = int(raw) if isinstance(raw, int | float) else 1
        if g.has_edge(r.start, r.end):
            g[r.start][r.end]["weight"] += w
        else:
            g.add_edge(r.start, r.end, weight=w)
    return g


# -- neighbourhoods ----------------------------------------------------------------------------


def _ranked_neighbors(g: nx.Graph, node: str, min_weight: int) -> list[tuple[str, int]]:
    pairs = []
    for v, d in g._adj[node].items():  # the adjacency dict itself: views cost more than the work
        w = int(d["weight"])
        if w >= min_weight:
            pairs.append((str(v), w))
    pairs.sort(key=lambda p: (-p[1], p[0]))
    return pairs


def _induced_edges(g: nx.Graph, nodes: list[str], min_weight: int) -> list[tuple[str, str, int]]:
    """Edges among ``nodes`` (``a < b``, sorted). In id order, each node looks up the nodes
    after it in its adjacency, or walks its adjacency when that is the shorter list: a popular
    concept has thousands of neighbours, a network a few hundred nodes."""
    adj = g._adj  # the adjacency dicts themselves: views cost more than the work
    order = sorted(nodes)
    chosen = set(order)
    n = len(order)
    out: list[tuple[str, str, int]] = []
    append = out.append
    # Weights are compared as stored, then made int: for an integer min_weight and weights >= 0,
    # w >= min_weight exactly when int(w) >= min_weight.
    for i, a in enumerate(order):
        nbrs = adj.get(a)
        if not nbrs:
            continue
        if n - i - 1 <= len(nbrs):
            get = nbrs.get
            for b in order[i + 1 :]:
                d = get(b)
                if d is not None and d["weight"] >= min_weight:
                    append((a, b, int(d["weight"])))
        else:
            for b, d in nbrs.items():
                if b > a and b in chosen and d["weight"] >= min_weight:
                    append((a, str(b), int(d["weight"])))
    out.sort()
    return out


def ego_network(g: nx.Graph, center: str, depth: int, max_nodes: int, min_weight: int = 1) -> Subgraph:
    """Breadth-first neighbourhood of ``center`` up to ``depth`` hops, at most ``max_nodes`` nodes.

    Within a hop, heavier ties come first (then node id), so when the budget runs out the
    strongest collaborators are the ones kept. Edges are all edges among the kept nodes.

    Args:
        g: weighted undirected graph.
        center: the start node (a graph without it gives just the centre).
        depth: hops from the centre (0 = the centre alone).
        max_nodes: node budget, at least 1.
        min_weight: ignore edges lighter than this.

    Returns:
        Nodes in BFS order (centre first), edges sorted, and ``truncated`` when nodes were left out.
    """
    nodes = [center]
    if center not in g or depth <= 0:
        return Subgraph(nodes=nodes, edges=[])
    seen = {center}
    frontier = [center]
    truncated = False
    for _ in range(depth):
        nxt: list[str] = []
        for node in frontier:
            for other, _w in _ranked_neighbors(g, node, min_weight):
                if other in seen:
                    continue
                if len(nodes) >= max_nodes:
                    truncated = True
                    break
                seen.add(other)
                nodes.append(other)
                nxt.append(other)
            if truncated:
                break
        if truncated or not nxt:
            break
        frontier = nxt
    return Subgraph(nodes=nodes, edges=_induced_edges(g, nodes, min_weight), truncated=truncated)


def top_subgraph(g: nx.Graph, max_nodes: int, min_weight: int = 1) -> Subgraph:
    """The ``max_nodes`` nodes with the highest weighted degree over edges of ``min_weight`` or more.

    >>> g = nx.Graph()
    >>> g.add_weighted_edges_from([("a", "b", 3), ("b", "c", 1)])
    >>> top_subgraph(g, max_nodes=2, min_weight=2)
    Subgraph(nodes=['a', 'b'], edges=[('a', 'b', 3)], truncated=False)
    """
    strength: dict[str, int] = {}
    for a, b, d in g.edges(data=True):
        w = int(d["weight"])
        if w < min_weight:
            continue
        strength[str(a)] = strength.get(str(a), 0) + w
        strength[str(b)] = strength.get(str(b), 0) + w
    ranked = sorted(strength, key=lambda n: (-strength[n], n))
    nodes = ranked[:max_nodes]
    return Subgraph(
        nodes=nodes, edges=_induced_edges(g, nodes, min_weight), truncated=len(ranked) > max_nodes
    )


def collaboration_path(g: nx.Graph, source: str, target: str) -> list[str] | None:
    """The shortest chain of ties from ``source`` to ``target`` (fewest hops), or ``None``.

    Among equally short paths the one found first by BFS in sorted-projection order is returned,
    which is stable for a given graph.

    >>> g = nx.Graph([("a", "b"), ("b", "c")])
    >>> collaboration_path(g, "a", "c")
    ['a', 'b', 'c']
    >>> collaboration_path(g, "a", "z") is None
    True
    """
    if source == target:
        return [source] if source in g else None
    if source not in g or target not in g:
        return None
    try:
        path = nx.shortest_path(g, source, target)
    except nx.NetworkXNoPath:
        return None
    return [str(n) for n in path]


# -- centrality --------------------------------------------------------------------------------


def _top(scores: dict[Any, float], first: int) -> list[tuple[str, float]]:
    # Rounded so that float noise from summation order never reorders tied nodes.
    ranked = sorted(((str(n), round(float(s), 10)) for n, s in scores.items()), key=lambda p: (-p[1], p[0]))
    return ranked[:first]


def degree_ranking(g: nx.Graph, first: int) -> list[tuple[str, float]]:
    """Top ``first`` nodes by normalised degree centrality.

    >>> degree_ranking(nx.Graph([("a", "b"), ("a", "c")]), 1)
    [('a', 1.0)]
    """
    if g.number_of_nodes() == 0:
        return []
    return _top(nx.degree_centrality(g), first)


def betweenness_ranking(
    g: nx.Graph, first: int, samples: int = BETWEENNESS_SAMPLES, seed: int = 0
) -> list[tuple[str, float]]:
    """Top ``first`` nodes by betweenness, estimated from ``samples`` seeded sources on large graphs.

    >>> betweenness_ranking(nx.path_graph(["a", "b", "c"]), 1)
    [('b', 1.0)]
    """
    n = g.number_of_nodes()
    if n == 0:
        return []
    k = samples if n > samples else None
    return _top(nx.betweenness_centrality(g, k=k, seed=seed, normalized=True), first)


def pagerank(
    g: nx.Graph, alpha: float = PAGERANK_ALPHA, tol: float = 1e-10, max_iter: int = 200
) -> dict[str, float]:
    """Weighted PageRank by power iteration on numpy arrays.

    ``networkx.pagerank`` needs scipy, which paperkg does not otherwise depend on; this is the
    same algorithm (uniform teleport, dangling mass spread uniformly) on plain numpy.

    >>> pr = pagerank(nx.star_graph(3))
    >>> max(pr, key=pr.__getitem__)
    '0'
    """
    import numpy as np

    nodes = sorted(str(n) for n in g.nodes)
    n = len(nodes)
    if n == 0:
        return {}
    index = {node: i for i, node in enumerate(nodes)}
    src: list[int] = []
    dst: list[int] = []
    wts: list[float] = []
    for a, b, d in g.edges(data=True):
        w = float(d.get("weight", 1))
        i, j = index[str(a)], index[str(b)]
        src += [i, j]
        dst += [j, i]
        wts += [w, w]
    s = np.asarray(src, dtype=np.int64)
    t = np.asarray(dst, dtype=np.int64)
    w_arr = np.asarray(wts, dtype=np.float64)
    out_strength = np.bincount(s, weights=w_arr, minlength=n)
    dangling = out_strength == 0
    share = np.divide(w_arr, out_strength[s], out=np.zeros_like(w_arr), where=out_strength[s] > 0)
    x = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        flow = np.bincount(t, weights=x[s] * share, minlength=n)
        nxt = alpha * (flow + x[dangling].sum() / n) + (1.0 - alpha) / n
        done = float(np.abs(nxt - x).sum()) < n * tol
        x = nxt
        if done:
            break
    return {node: float(x[i]) for i, node in enumerate(nodes)}


def centrality(g: nx.Graph, measure: Measure, first: int) -> list[tuple[str, float]]:
    """Top ``first`` (node, score) pairs by one centrality measure, ties by node id."""
    if measure == "DEGREE":
        return degree_ranking(g, first)
    if measure == "BETWEENNESS":
        return betweenness_ranking(g, first)
    return _top(pagerank(g), first)


def communities(g: nx.Graph, seed: int = LOUVAIN_SEED, resolution: float = 1.0) -> list[list[str]]:
    """Louvain communities (weighted, seeded), largest first; members sorted by id.

    >>> g = nx.Graph([("a", "b"), ("c", "d")])
    >>> communities(g)
    [['a', 'b'], ['c', 'd']]
    """
    if g.number_of_nodes() == 0:
        return []
    parts = nx.community.louvain_communities(g, weight="weight", resolution=resolution, seed=seed)
    groups = [sorted(str(n) for n in part) for part in parts]
    groups.sort(key=lambda members: (-len(members), members[0]))
    return groups
