"""Graph algorithms (networkx) on bounded projections loaded from the store.

Why bounded: centrality, communities and paths need a whole graph in memory, and at 100k papers
the co-author graph has millions of ties. The projection is the :data:`PROJECTION_EDGES`
heaviest ties (``ReadStore.heaviest_pairs``), built once per store version and kept by the
service, so the cost is fixed whatever the corpus size; answers are about that core.
"""

from __future__ import annotations

import networkx as nx

from kg.stores.protocol import PairType, ReadStore

PROJECTION_EDGES = 200_000


def projection(store: ReadStore, pair: PairType, limit: int = PROJECTION_EDGES) -> nx.Graph:
    """The weighted undirected graph of the ``limit`` heaviest ``pair`` ties."""
    g = nx.Graph()
    g.add_weighted_edges_from(store.heaviest_pairs(pair, limit))
    return g
