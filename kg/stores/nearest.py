"""Cosine ranking of int8 paper vectors (:mod:`extractors.embedding`), shared by both stores.

The embedded store ranks its whole matrix with it; Neo4j ranks the candidates its vector index
found with it, so both compute every score with the same arithmetic and agree to the digit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from extractors.embedding import from_blob

# Rows turned into float32 at a time when a matrix is built: bounds the scratch memory.
SCAN_ROWS = 16_384
SCORE_DIGITS = 4


class Matrix:
    """Vectors ranked by cosine: ids and their unit vectors as one float32 matrix (row ``i`` is
    ``ids[i]``).

    Why float32 rows held ready rather than the stored int8: turning 100k int8 rows into floats
    for each query cost five times the product itself (567 against 116 ms at load 14,
    ``bench/similar.py``); held as floats a query is one matrix-vector product. The price is
    memory: 1.5 KB per paper, 146 MiB at 100k papers, once per API process and store version.
    """

    def __init__(self, ids: list[str], rows: npt.NDArray[np.int8]) -> None:
        self.ids = ids
        self.index = {pid: i for i, pid in enumerate(ids)}
        self.unit = np.empty((len(ids), rows.shape[1] if rows.ndim == 2 else 0), dtype=np.float32)
        for start in range(0, len(ids), SCAN_ROWS):  # in blocks: no second full-size temporary
            block = rows[start : start + SCAN_ROWS].astype(np.float32)
            block /= np.maximum(np.linalg.norm(block, axis=1, keepdims=True), 1e-9)
            self.unit[start : start + len(block)] = block

    def nearest(self, vector: bytes, limit: int, exclude: Sequence[str]) -> list[tuple[str, float]]:
        """The ``limit`` rows with the highest cosine to ``vector``, best first, then by id;
        scores rounded to :data:`SCORE_DIGITS` decimals."""
        if limit <= 0 or not self.ids:
            return []
        q = from_blob(vector).astype(np.float32)
        q /= max(float(np.linalg.norm(q)), 1e-9)
        # einsum, not ``@``: the product is one pass over the matrix, bound by memory, and
        # OpenBLAS's ``@`` ran it on every core with its threads spinning after: 18.5 ms of CPU
        # against einsum's single-threaded 10.5 ms at the same wall time (100k rows, load 4.6).
        scores = np.einsum("ij,j->i", self.unit, q)
        for pid in exclude:
            i = self.index.get(pid)
            if i is not None:
                scores[i] = -np.inf
        k = min(limit + len(exclude), len(scores))
        top = np.argpartition(-scores, k - 1)[:k] if k < len(scores) else np.arange(len(scores))
        ranked = sorted(
            ((round(float(scores[i]), SCORE_DIGITS), self.ids[i]) for i in top if np.isfinite(scores[i])),
            key=lambda t: (-t[0], t[1]),
        )
        return [(pid, s) for s, pid in ranked[:limit]]
