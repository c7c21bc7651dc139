"""``kg analyze``: centrality and communities of the whole co-author and concept graphs, computed
once per store version outside the API and stored with the graph (role: offline graph analytics).

Why offline: centrality and communities need the whole graph in memory. Built per API process
(the old way) that was a networkx copy in every process, built from the 200,000 heaviest ties
only, and a concept-community request took 14 s of CPU and hit the request deadline. Here the
``kg analyze`` process loads every tie once (``relationships``), runs :mod:`kg.analytics`, and
writes one row per node (``ReadStore.save_analysis``) keyed on the store version it read; the
API serves those rows (``ReadStore.central_nodes``, ``community_sizes``, ``community_members``)
and says "run kg analyze" when they are missing or older than the store.

Example:
    >>> from kg.stores.sqlite import SQLiteStore
    >>> [s.pair for s in analyze(SQLiteStore(None))]
    ['COAUTHOR', 'CO_OCCURS']
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from kg.stores.protocol import AnalysisRow, PairType, ReadStore

PAIRS: tuple[PairType, ...] = ("COAUTHOR", "CO_OCCURS")
SCORE_DIGITS = 10  # scores are stored rounded, so float noise never reorders tied nodes


@dataclass(frozen=True)
class AnalysisSummary:
    """What one graph's analysis did (role: command output)."""

    pair: PairType
    version: int
    nodes: int
    ties: int
    communities: int
    seconds: float


def rows_for(store: ReadStore, pair: PairType) -> tuple[list[AnalysisRow], int, int]:
    """Every node with a tie: its degree, betweenness and PageRank and its community (0 = the
    largest), with the graph's node and tie counts."""
    from kg import analytics

    g = analytics.build_projection(store.relationships(pair))
    n = g.number_of_nodes()
    if n == 0:
        return [], 0, 0
    import networkx as nx

    degree = nx.degree_centrality(g)
    k = analytics.BETWEENNESS_SAMPLES if n > analytics.BETWEENNESS_SAMPLES else None
    betweenness = nx.betweenness_centrality(g, k=k, seed=0, normalized=True)
    rank = analytics.pagerank(g)
    community = {node: i for i, members in enumerate(analytics.communities(g)) for node in members}
    rows = [
        AnalysisRow(
            str(node),
            round(float(degree[node]), SCORE_DIGITS),
            round(float(betweenness[node]), SCORE_DIGITS),
            round(float(rank[str(node)]), SCORE_DIGITS),
            community[node],
        )
        for node in sorted(g.nodes)
    ]
    return rows, n, g.number_of_edges()


def analyze(store: ReadStore, pairs: tuple[PairType, ...] = PAIRS) -> list[AnalysisSummary]:
    """Analyse each graph and store the result, keyed on the version read before the analysis
    (a write meanwhile makes it out of date, as it should)."""
    out = []
    for pair in pairs:
        start = time.perf_counter()
        version = store.version()
        rows, nodes, ties = rows_for(store, pair)
        store.save_analysis(pair, version, rows)
        communities = len({r.community for r in rows})
        out.append(AnalysisSummary(pair, version, nodes, ties, communities, time.perf_counter() - start))
    return out
