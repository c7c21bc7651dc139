"""Cosine ranking of int8 paper vectors (:mod:`extractors.embedding`), shared by both stores.

The embedded store ranks its whole matrix with it; Neo4j ranks the candidates its vector index
found with it, so both compute every score with the same arithmetic and agree to the digit.

A search's nearest papers may come from a cheaper first pass (:class:`FirstPass`, asked for with
``approximate=True``): a scan of the rows projected on their :data:`FIRST_PASS_DIMS` principal
directions picks :data:`FIRST_PASS_CANDIDATES` rows, which are then ranked with the exact cosine
above. Neo4j's vector index is such a first pass too.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from extractors.embedding import from_blob
from kg.stores.warm import WARM_ASKS, WarmSlot

# Rows turned into float32 at a time when a matrix is built: bounds the scratch memory.
SCAN_ROWS = 16_384
SCORE_DIGITS = 4
# The first pass (FirstPass): dimensions kept, the integer levels each projected coordinate and
# the query's are rounded to (their products summed in int16: dims x levels^2 must stay below
# 32,768), rows ranked exactly after it, every how many rows its directions are learnt from,
# and the approximate asks of a matrix before it is built.
FIRST_PASS_DIMS = 128
FIRST_PASS_LEVELS = 15
FIRST_PASS_CANDIDATES = 2000
FIRST_PASS_SAMPLE_STEP = 20
FIRST_PASS_WARM_ASKS = WARM_ASKS
# Rows below which there is no first pass: at 10k rows it saved 0.3 ms a query (1.06 -> 0.75 ms)
# for 0.6 s of CPU a version, and at 100k 7-8 ms for 1-1.7 s (bench/README.md).
FIRST_PASS_MIN_ROWS = 20_000


class FirstPass:
    """The unit rows projected on their principal directions: a scan of a sixth of the matrix's
    bytes that finds the rows whose exact cosine is highest, almost always.

    Why: at 100k papers the exact scan (100k x 384 float32, 146 MiB read per query) costs about
    11 ms of CPU, half of a search's; memory bandwidth bounds it, so it costs what it reads.
    The first :data:`FIRST_PASS_DIMS` principal directions of MiniLM's paper vectors hold 80% of
    their variance, so the projected product misses little of the cosine, even rounded to a few
    levels: over 150 search texts and 500 dev titles at 100k, the 2,000 best rows by it held the
    exact top 20 (ids, order and scores) of all 650 queries, at 3.8-4.7 against 12.0-12.3 ms of
    CPU a query (load 5-6). Why PCA and not k-means cells: probing cells gathers scattered rows,
    and at the same recall it cost more (bench/README.md, "Search at 100k"). The price: 256
    bytes a row (24 MiB at 100k), and 1-1.7 s of CPU to learn the directions and project the
    rows, once per version (hence :data:`FIRST_PASS_WARM_ASKS`, :data:`FIRST_PASS_MIN_ROWS`).
    """

    def __init__(self, unit: npt.NDArray[np.float32], dims: int = FIRST_PASS_DIMS) -> None:
        # einsum, not ``@``, here too: OpenBLAS's threads spinning on two busy cores made the
        # first build cost 3 s of CPU (0.4 s with one thread); with einsum's own loops 1-1.7 s
        sample = unit[::FIRST_PASS_SAMPLE_STEP].astype(np.float64)
        sample -= sample.mean(axis=0)
        _, vectors = np.linalg.eigh(np.einsum("ij,ik->jk", sample, sample))  # ascending: keep the last
        self.basis = np.ascontiguousarray(vectors[:, ::-1][:, :dims], dtype=np.float32)
        assert self.basis.shape[1] * FIRST_PASS_LEVELS**2 < 2**15  # no int16 sum can overflow
        # one row per direction (``dims`` x rows): the scan then adds whole rows of the array,
        # 3.7 against 4.2 ms a query with one row per paper (float32, 100k rows, load 6)
        projected = np.empty((self.basis.shape[1], len(unit)), dtype=np.float32)
        for start in range(0, len(unit), SCAN_ROWS):
            block = unit[start : start + SCAN_ROWS]
            projected[:, start : start + len(block)] = np.einsum("ij,jk->ik", block, self.basis).T
        # each direction scaled to +-FIRST_PASS_LEVELS and rounded, held as int16: numpy sums
        # int16 products in int16 with no cast, a quarter of float32's bytes to read (the scan
        # is memory-bound): 3.9 against 5.1 ms a query with twice the candidates (load 6.5)
        self.scale = (FIRST_PASS_LEVELS / np.maximum(np.abs(projected).max(axis=1), 1e-9)).astype(np.float32)
        self.columns = np.empty(projected.shape, dtype=np.int16)
        for start in range(0, len(unit), SCAN_ROWS):
            part = projected[:, start : start + SCAN_ROWS] * self.scale[:, None]
            self.columns[:, start : start + SCAN_ROWS] = np.rint(part)

    def candidates(self, q: npt.NDArray[np.float32], count: int) -> npt.NDArray[np.intp]:
        """The ``count`` rows with the highest projected product with ``q``, in row order (the
        query in the rows' rounded units, itself rounded to +-:data:`FIRST_PASS_LEVELS`)."""
        along = np.einsum("j,jk->k", q, self.basis) / self.scale
        top = max(float(np.abs(along).max()), 1e-9)
        scores = np.einsum(
            "ji,j->i", self.columns, np.rint(along * (FIRST_PASS_LEVELS / top)).astype(np.int16)
        )
        return np.sort(np.argpartition(scores, len(scores) - count)[len(scores) - count :])


class Matrix:
    """Vectors ranked by cosine: ids and their unit vectors as one float32 matrix (row ``i`` is
    ``ids[i]``).

    Why float32 rows held ready rather than the stored int8: turning 100k int8 rows into floats
    for each query cost five times the product itself (567 against 116 ms at load 14,
    ``bench/similar.py``); held as floats a query is one matrix-vector product. The price is
    memory: 1.5 KB per paper, 146 MiB at 100k papers, once per API process and store version.
    """

    def __init__(
        self,
        ids: list[str],
        rows: npt.NDArray[np.int8],
        first_pass_rows: int = FIRST_PASS_MIN_ROWS,
        background: bool = False,
    ) -> None:
        self.ids = ids
        self._first_pass_rows = max(first_pass_rows, FIRST_PASS_CANDIDATES + 1)
        self.index = {pid: i for i, pid in enumerate(ids)}
        # one matrix per store version: its first pass is built once, at the warm ask
        # (``background``: built on a thread of its own, the warming search scanning every row)
        self._first_slot: WarmSlot[FirstPass] = WarmSlot(FIRST_PASS_WARM_ASKS, background)
        self.unit = np.empty((len(ids), rows.shape[1] if rows.ndim == 2 else 0), dtype=np.float32)
        for start in range(0, len(ids), SCAN_ROWS):  # in blocks: no second full-size temporary
            block = rows[start : start + SCAN_ROWS].astype(np.float32)
            block /= np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-9)
            self.unit[start : start + len(block)] = block

    def nearest(
        self, vector: bytes, limit: int, exclude: Sequence[str], approximate: bool = False
    ) -> list[tuple[str, float]]:
        """The ``limit`` rows with the highest cosine to ``vector``, best first, then by id;
        scores rounded to :data:`SCORE_DIGITS` decimals. ``approximate``: among the
        :data:`FIRST_PASS_CANDIDATES` rows a :class:`FirstPass` finds (once the matrix has been
        asked :data:`FIRST_PASS_WARM_ASKS` times so; before, and for larger pages, all rows):
        the same scores, but a row the first pass misses is missing."""
        if limit <= 0 or not self.ids:
            return []
        q = from_blob(vector).astype(np.float32)
        q /= max(float(np.linalg.norm(q)), 1e-9)
        k = min(limit + len(exclude), len(self.ids))
        first = self._first(k) if approximate else None
        if first is None:
            rows = None
            # einsum, not ``@``: the product is one pass over the matrix, bound by memory, and
            # OpenBLAS's ``@`` ran it on every core with its threads spinning after: 18.5 ms of
            # CPU against einsum's single-threaded 10.5 ms at the same wall time (100k rows).
            scores = np.einsum("ij,j->i", self.unit, q)
        else:
            rows = first.candidates(q, FIRST_PASS_CANDIDATES)
            scores = np.einsum("ij,j->i", self.unit[rows], q)  # each row's product as in the scan
        for pid in exclude:
            i = self.index.get(pid)
            if i is not None and rows is not None:  # its place among the candidates, if any
                at = int(np.searchsorted(rows, i))
                i = at if at < len(rows) and rows[at] == i else None
            if i is not None:
                scores[i] = -np.inf
        k = min(k, len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        row = top if rows is None else rows[top]  # each top score's row of the matrix
        ranked = sorted(
            (
                (round(float(scores[i]), SCORE_DIGITS), self.ids[r])
                for i, r in zip(top, row, strict=True)
                if np.isfinite(scores[i])
            ),
            key=lambda t: (-t[0], t[1]),
        )
        return [(pid, s) for s, pid in ranked[:limit]]

    def _first(self, k: int) -> FirstPass | None:
        """The first pass, built at the :data:`FIRST_PASS_WARM_ASKS`-th approximate ask; ``None``
        while it would not pay (fewer rows than ``first_pass_rows``, the page large, the version
        not yet warm).

        Why not at once: building it costs 1-1.7 s of CPU at 100k rows, paid again at every
        store version; a store under ingest gets a new version every few seconds, and a search
        or two per version would each pay it (as :mod:`kg.stores.held.heavy_ties`). Only the
        ask that reaches the count builds it, outside the lock (:class:`kg.stores.warm.WarmSlot`):
        searches meanwhile scan every row rather than wait."""
        if len(self.ids) < self._first_pass_rows or k > FIRST_PASS_CANDIDATES // 10:
            return None
        return self._first_slot.get(0, lambda: FirstPass(self.unit))

    def hold_first_pass(self) -> None:
        """Build the first pass now, on this thread, if it would be built at all (a server's
        start: the searches then never scan every row)."""
        if len(self.ids) >= self._first_pass_rows:
            self._first_slot.build_now(0, lambda: FirstPass(self.unit))

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the first pass is not being built (:meth:`kg.stores.warm.WarmSlot.wait`)."""
        return self._first_slot.wait(timeout)

    @property
    def first_pass(self) -> FirstPass | None:
        """The first pass once built (asks nothing)."""
        return self._first_slot.held(0)
