"""Every co-author tie of one store version, held as adjacency lists of node rowids.

Why: the ties among a co-author network's nodes (``coauthorNetwork``, depth 2, 200 authors,
about 1,000 ties) were read by walking each chosen author's ties in the primary key and keeping
those to chosen ones: about 5,000 rows a network, 3-4 ms of CPU at 100k papers, growing with
how many co-authors the chosen ones have. Held here, each tie once at the smaller rowid of its
two authors (a CSR layout: ``ends[offsets[r]:offsets[r + 1]]`` are the larger rowids tied to
``r``, ``weights`` beside them), a network's ties are one gather of its nodes' lists and one
binary search of them among the chosen rowids: 1 ms, the rowids' statement included.
Unlike :mod:`kg.stores.held.heavy_ties` (the heavy ties only, one key per pair) every tie is
held, weight 1 included: an author has a few dozen ties, where a concept has thousands (the
concept graph keeps the pair keys). Held: 8 bytes a tie and 4 a node rowid (7 MB at 100k
papers: 608,749 ties); read in about 1 s of CPU at 100k, once per version once it is warm
(:class:`kg.stores.warm.WarmSlot`).

>>> ties = CoauthorTies.from_rows([(1, 5, 3), (5, 2, 1), (2, 1, 7)])
>>> [tuple(e) for e in ties.among(["a", "b", "e", "x"], {"a": 1, "b": 2, "e": 5}, 1)]
[('a', 'b', 7), ('a', 'e', 3), ('b', 'e', 1)]
>>> ties.among(["a", "b", "e"], {"a": 1, "b": 2, "e": 5}, 3)
[PairEdge(source='a', target='b', weight=7), PairEdge(source='a', target='e', weight=3)]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from kg.stores.held.heavy_ties import pair_edges
from kg.stores.protocol import PairEdge


class CoauthorTies:
    """Each tie once, at the smaller of its two rowids: ``offsets`` (per rowid, one past the
    largest), the larger rowids ``ends`` and the ``weights``, both in rowid order per node."""

    def __init__(
        self, offsets: npt.NDArray[np.int32], ends: npt.NDArray[np.int32], weights: npt.NDArray[np.int32]
    ) -> None:
        self.offsets = offsets
        self.ends = ends
        self.weights = weights

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, int, int]]) -> CoauthorTies:
        """From ``(rowid, rowid, weight)`` rows, either end first, each tie once."""
        flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64).reshape(-1, 3)
        low = np.minimum(flat[:, 0], flat[:, 1])
        high = np.maximum(flat[:, 0], flat[:, 1])
        order = np.lexsort((high, low))
        size = int(low.max()) + 2 if len(low) else 1
        offsets = np.zeros(size, dtype=np.int64)
        np.add.at(offsets, low + 1, 1)
        return cls(
            np.cumsum(offsets).astype(np.int32),
            high[order].astype(np.int32),
            flat[order, 2].astype(np.int32),
        )

    @property
    def nbytes(self) -> int:
        return int(self.offsets.nbytes + self.ends.nbytes + self.weights.nbytes)

    def among(self, ids: list[str], rowids: dict[str, int], min_weight: int) -> list[PairEdge]:
        """The ties of at least ``min_weight`` among ``ids`` (sorted, distinct; ``rowids``: their
        nodes' rowids, an id without one has no ties), sorted by (source, target), source < target."""
        known = [i for i in ids if i in rowids]
        if len(known) < 2:
            return []
        at = np.array([rowids[i] for i in known], dtype=np.int64)
        # each chosen node's list (a rowid past the offsets has none)
        inside = at < len(self.offsets) - 1
        first = np.where(inside, self.offsets[np.minimum(at, len(self.offsets) - 2)], 0)
        sizes = np.where(inside, self.offsets[np.minimum(at + 1, len(self.offsets) - 1)] - first, 0)
        total = int(sizes.sum())
        if not total:
            return []
        owner = np.repeat(np.arange(len(at)), sizes)
        slots = np.arange(total) - np.repeat(np.cumsum(sizes) - sizes, sizes) + np.repeat(first, sizes)
        # which of those end at a chosen node
        by_rowid = np.argsort(at)
        sorted_at = at[by_rowid]
        spot = np.minimum(np.searchsorted(sorted_at, self.ends[slots]), len(at) - 1)
        hit = (sorted_at[spot] == self.ends[slots]) & (self.weights[slots] >= min_weight)
        one, other = owner[hit], by_rowid[spot[hit]]
        source, target = np.minimum(one, other), np.maximum(one, other)  # places in ``known``: id order
        order = np.lexsort((target, source))
        return pair_edges(known, source[order], target[order], self.weights[slots[hit]][order])
