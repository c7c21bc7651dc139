"""The heavy ties of one pair type (``COAUTHOR`` or ``CO_OCCURS`` heavier than
:data:`HEAVY_TIE`) of one store version, held as sorted integer keys (both stores: each reads
its own rows, :mod:`kg.stores.sqlite.held_rows`, :mod:`kg.stores.neo4j.held`).

Why: the ties among a network's nodes at a minimum weight above 1 (``conceptGraph``'s default
view asks ``minWeight: 2`` of 100 concepts) were one index search per candidate pair, 4,950 for
100 nodes: 6.5 ms of ``pair_edges_among`` at 100k papers (1.7 ms now), growing with the
index's depth. The heavy ties are few (195,043 ``CO_OCCURS`` of 1.9M at 100k papers), so
they are read once per store version, each as ``min(code) << 32 | max(code)`` of its two
nodes (SQLite: their rowids; Neo4j: dense codes given in the read), sorted; a network's pairs
are then one vectorised binary search. Held: 12 bytes a tie (2.3 MB at 100k); read on SQLite
in 0.33-0.36 s of CPU at 100k papers (load ~2), once per version and pair
type, and only once a version is warm (:class:`HeavyTiesCache`).

>>> ties = HeavyTies.from_rows([(1, 5, 3), (5, 2, 2), (2, 1, 7)])
>>> ties.among(["a", "b", "e", "x"], {"a": 1, "b": 2, "e": 5}, 3)
[PairEdge(source='a', target='b', weight=7), PairEdge(source='a', target='e', weight=3)]
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence

import numpy as np
import numpy.typing as npt

from kg.stores import warm
from kg.stores.protocol import PairEdge, PairType

# The heaviest weight a tie can have without being held: ties of one paper are most ties (87% at
# 100k papers) and a network at its default minimum weight of 1 reads them by statement.
HEAVY_TIE = 1
_SHIFT = 32  # rowids below 2**32 (a store of four billion nodes would need wider keys)


class HeavyTies:
    """Sorted pair keys (:func:`_keys`) and their weights."""

    def __init__(self, keys: npt.NDArray[np.int64], weights: npt.NDArray[np.int32]) -> None:
        self.keys = keys
        self.weights = weights

    @classmethod
    def from_rows(cls, rows: Iterable[tuple[int, int, int]]) -> HeavyTies:
        """From ``(rowid, rowid, weight)`` rows, either end first."""
        flat = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64).reshape(-1, 3)
        return cls.from_codes(flat[:, 0], flat[:, 1], flat[:, 2])

    @classmethod
    def from_codes(
        cls, a: npt.NDArray[np.int64], b: npt.NDArray[np.int64], weights: npt.NDArray[np.int64]
    ) -> HeavyTies:
        """From the ties' ends' codes (either end first) and their weights, one array each."""
        keys = _keys(a, b)
        order = np.argsort(keys, kind="stable")
        return cls(keys[order], weights[order].astype(np.int32))

    @property
    def nbytes(self) -> int:
        return int(self.keys.nbytes + self.weights.nbytes)

    def among(self, ids: list[str], rowids: dict[str, int], min_weight: int) -> list[PairEdge]:
        """The ties of at least ``min_weight`` among ``ids`` (sorted, distinct; ``rowids``: their
        nodes' rowids, an id without one has no ties), sorted by (source, target), source < target."""
        known = [i for i in ids if i in rowids]
        if len(known) < 2:
            return []
        if not len(self.keys):
            return []
        at = np.array([rowids[i] for i in known], dtype=np.int64)
        first, second = np.triu_indices(len(known), 1)  # every pair once, in (source, target) order
        wanted = _keys(at[first], at[second])
        # searched in key order (each search starts where the last ended: half the time), then
        # put back in pair order
        order = np.argsort(wanted)
        spot = np.empty_like(order)
        spot[order] = np.minimum(np.searchsorted(self.keys, wanted[order]), len(self.keys) - 1)
        hit = (self.keys[spot] == wanted) & (self.weights[spot] >= min_weight)
        return pair_edges(known, first[hit], second[hit], self.weights[spot[hit]])


def _keys(a: npt.NDArray[np.int64], b: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """One key per unordered pair of rowids."""
    return np.asarray((np.minimum(a, b) << _SHIFT) | np.maximum(a, b), dtype=np.int64)


# Asks of one version before its heavy ties are read (see HeavyTiesCache.get).
WARM_ASKS = warm.WARM_ASKS


class HeavyTiesCache:
    """The :class:`HeavyTies` of each pair type at the store version last asked for, read once
    that version has been asked for :data:`WARM_ASKS` times (:class:`kg.stores.warm.WarmSlot`).

    Why not at the first ask: reading them costs about a third of a second of CPU at 100k
    papers, paid again at every store version. A server on a store being ingested sees a
    new version every few seconds; a concept graph or two per version would each pay it. Until
    a version has been asked for a few times, and while its ties are read, the caller answers
    with its per-pair statement (the same edges, a few ms), so the read is paid only where it
    will be amortised and no other request waits for it.
    """

    def __init__(self, warm_asks: int = WARM_ASKS, background: bool = False) -> None:
        self._slot: warm.WarmSlot[HeavyTies] = warm.WarmSlot(warm_asks, background)

    def get(self, version: int, pair: PairType, read: Callable[[], HeavyTies | None]) -> HeavyTies | None:
        """The ties of ``pair`` at ``version``; ``None`` while the version is not yet warm (or
        ``read`` gave none: a write came in first)."""
        return self._slot.get(version, read, pair)

    def build_now(
        self, version: int, pair: PairType, read: Callable[[], HeavyTies | None]
    ) -> HeavyTies | None:
        """The ties of ``pair`` at ``version``, read on this thread if not held (a server's start)."""
        return self._slot.build_now(version, read, pair)

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no read is running (:meth:`kg.stores.warm.WarmSlot.wait`)."""
        return self._slot.wait(timeout)


def pair_edges(
    known: Sequence[str],
    source: npt.NDArray[np.intp],
    target: npt.NDArray[np.intp],
    weight: npt.NDArray[np.int64],
) -> list[PairEdge]:
    """``PairEdge`` rows from positions in ``known`` (one array per end) and their weights, in
    the arrays' order: what both held tie structures (this module's and
    :mod:`kg.stores.held.coauthor_ties`) give back."""
    names = np.array(known, dtype=object)
    return list(
        map(
            PairEdge._make,
            zip(names[source].tolist(), names[target].tolist(), weight.tolist(), strict=True),
        )
    )
