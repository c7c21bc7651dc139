"""Ego networks read hop by hop: the batched frontier gives the answer of reading it whole."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, cast

import pytest

from kg.read import networks
from kg.stores.protocol import ReadStore, Weighted

pytestmark = pytest.mark.unit


class Ties:
    """A random weighted graph answering ``weighted_neighbors`` like a store, counting ids read."""

    def __init__(self, nodes: int, ties: int, seed: int) -> None:
        rng = random.Random(seed)
        self.adj: dict[str, dict[str, int]] = {f"n{i:03d}": {} for i in range(nodes)}
        names = list(self.adj)
        for _ in range(ties):
            a, b = rng.sample(names, 2)
            self.adj[a][b] = self.adj[b][a] = rng.choice([1, 1, 1, 2, 3])
        self.read = 0

    def weighted_neighbors(
        self, ids: Sequence[str], pair: str, min_weight: int, limit: int
    ) -> list[list[Weighted]]:
        self.read += len(ids)
        out = []
        for i in ids:
            ties = [o for o in self.adj[i].items() if o[1] >= min_weight]
            ranked = sorted(ties, key=lambda o: (-o[1], o[0]))
            out.append([Weighted(o, w) for o, w in ranked[: max(0, limit)]])
        return out


def whole_frontier(
    store: Any, center: str, depth: int, max_nodes: int, min_weight: int
) -> tuple[list[str], bool]:
    """ego_ids as it was, stated as a rule: each hop reads every frontier node's ties at once,
    and the ids not met before join in the order the lists name them, until ``max_nodes``; one
    more id than fits means the network was cut (truncated)."""
    nodes, frontier = [center], [center]
    for _ in range(depth):
        lists = store.weighted_neighbors(frontier, "COAUTHOR", min_weight, max_nodes - len(nodes) + 1)
        met = set(nodes)
        new = list(dict.fromkeys(o.id for neighbours in lists for o in neighbours if o.id not in met))
        room = max_nodes - len(nodes)
        if len(new) > room:
            return nodes + new[:room], True
        if not new:
            break
        nodes, frontier = nodes + new, new
    return nodes, False


@pytest.mark.parametrize("seed", range(6))
def test_ego_ids_reads_less_for_the_same_answer(seed: int) -> None:
    graph = Ties(nodes=300, ties=1500, seed=seed)
    read_batched = read_whole = 0
    for center in list(graph.adj)[:20]:
        for depth in (1, 2, 3):
            for max_nodes in (1, 7, 40, 150, 1000):
                for min_weight in (1, 2):
                    graph.read = 0
                    expected = whole_frontier(graph, center, depth, max_nodes, min_weight)
                    read_whole += graph.read
                    graph.read = 0
                    got = networks.ego_ids(
                        cast(ReadStore, graph), "COAUTHOR", center, depth, max_nodes, min_weight
                    )
                    read_batched += graph.read
                    assert got == expected, (center, depth, max_nodes, min_weight)
    assert read_batched < read_whole
