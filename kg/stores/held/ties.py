"""Every tie of one pair type from a floor weight up, keyed by node id: the ties among a set of
nodes and each node's heaviest neighbours, both from memory.

Why: on Neo4j a concept graph's two reads were most of its request at 100k papers, on the
server: the centre's ~16k ties ranked by weight (32,600 db hits) and the ties among the 100
chosen nodes, 4,950 pair-key seeks (12,872 db hits), 38 ms of the JVM's CPU per request with
the API's driver work on top; a co-author page and network walk a few hundred ties the same
way. The ties heavier than 1 (``CO_OCCURS``, 195k at 100k papers) or every co-author tie (609k)
fit in a few MB, so a warm version holds them (:class:`kg.stores.warm.WarmSlot`). The store
gives the ties as ``(id, id, weight)`` rows (:mod:`kg.stores.neo4j.held`); the ids become dense
codes in id order, so a neighbour list sorted by code is sorted by id, as the statements sort.

Held: the pair keys (:class:`kg.stores.held.heavy_ties.HeavyTies`, 12 bytes a tie) for the ties
among a set, and both ends' adjacency (CSR, each node's list heaviest first, then by id: 8
bytes a tie and end) for the neighbours; plus each id once and its code.

>>> ties = HeldTies.from_rows([("a", "e", 3), ("e", "b", 2), ("b", "a", 7), ("x", "a", 2)], floor=2)
>>> ties.among(["a", "b", "e", "q"], 3)
[PairEdge(source='a', target='b', weight=7), PairEdge(source='a', target='e', weight=3)]
>>> [[tuple(w) for w in ws] for ws in ties.neighbours(["a", "q", "e"], 2, 2)]
[[('b', 7), ('e', 3)], [], [('a', 3), ('b', 2)]]
>>> ties.degrees(["a", "q", "x"])
[3, 0, 1]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from kg.stores.held.heavy_ties import HeavyTies
from kg.stores.protocol import PairEdge, Weighted


class HeldTies:
    """The ties of weight ``floor`` or more: :attr:`keys` for pairs, a CSR for neighbours."""

    def __init__(
        self,
        ids: list[str],
        floor: int,
        keys: HeavyTies,
        offsets: npt.NDArray[np.int64],
        others: npt.NDArray[np.int32],
        weights: npt.NDArray[np.int32],
    ) -> None:
        self.ids = ids  # code -> id, sorted
        self.codes = {node_id: code for code, node_id in enumerate(ids)}
        self.floor = floor
        self.keys = keys
        self.offsets = offsets  # node code -> its first place in others / weights
        self.others = others  # each node's neighbours' codes, heaviest first, then by code
        self.weights = weights

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[str, str, int]], floor: int) -> HeldTies:
        """From ``(id, id, weight)`` rows, each tie once (either end first), every tie of at
        least ``floor``."""
        starts: list[str] = []
        ends: list[str] = []
        weights: list[int] = []
        for a, b, w in rows:
            starts.append(a)
            ends.append(b)
            weights.append(w)
        ids = sorted(set(starts).union(ends))
        code = {node_id: i for i, node_id in enumerate(ids)}
        a_codes = np.fromiter(map(code.__getitem__, starts), dtype=np.int64, count=len(starts))
        b_codes = np.fromiter(map(code.__getitem__, ends), dtype=np.int64, count=len(ends))
        del starts, ends, code
        weight = np.array(weights, dtype=np.int64)
        keys = HeavyTies.from_codes(a_codes, b_codes, weight)
        # both directions: each node's list by weight descending, then the other end's code
        src = np.concatenate((a_codes, b_codes))
        dst = np.concatenate((b_codes, a_codes))
        both = np.concatenate((weight, weight))
        order = np.lexsort((dst, -both, src))
        offsets = np.zeros(len(ids) + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=len(ids)), out=offsets[1:])
        return cls(ids, floor, keys, offsets, dst[order].astype(np.int32), both[order].astype(np.int32))

    @property
    def nbytes(self) -> int:
        """The arrays' bytes (the id strings and their dict not counted)."""
        return int(self.keys.nbytes + self.offsets.nbytes + self.others.nbytes + self.weights.nbytes)

    def covers(self, min_weight: int) -> bool:
        """Whether every tie of ``min_weight`` or more is held."""
        return min_weight >= self.floor

    def among(self, ids: Sequence[str], min_weight: int) -> list[PairEdge]:
        """The ties of at least ``min_weight`` among the distinct ``ids``, sorted by (source,
        target), source < target (``pair_edges_among``)."""
        return self.keys.among(sorted(set(ids)), self.codes, min_weight)

    def degrees(self, ids: Sequence[str]) -> list[int]:
        """Per id, how many ties of ``floor`` or more it has (an id without any: 0); with floor
        1 a node's count of every tie, either end (``degree_many`` of the pair type, "both")."""
        offsets, codes = self.offsets, self.codes
        out: list[int] = []
        for node_id in ids:
            code = codes.get(node_id)
            out.append(0 if code is None else int(offsets[code + 1] - offsets[code]))
        return out

    def neighbours(self, ids: Sequence[str], min_weight: int, limit: int) -> list[list[Weighted]]:
        """Per id, its ties of at least ``min_weight``, heaviest first then by id, at most
        ``limit`` (``weighted_neighbors``); an id without held ties has none."""
        out: list[list[Weighted]] = []
        ids_of = self.ids
        for node_id in ids:
            code = self.codes.get(node_id)
            if code is None or limit < 1:
                out.append([])
                continue
            a, b = int(self.offsets[code]), int(self.offsets[code + 1])
            weights = self.weights[a:b]
            n = min(int(np.count_nonzero(weights >= min_weight)), limit)
            others = self.others[a : a + n].tolist()
            out.append([Weighted(ids_of[o], w) for o, w in zip(others, weights[:n].tolist(), strict=True)])
        return out
