"""Cosine ranking of int8 paper vectors (:mod:`extractors.embedding`), shared by both stores.

The embedded store ranks its whole matrix with it; Neo4j ranks the candidates its vector index
found with it, so both compute every score with the same arithmetic and agree to the digit.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from extractors.embedding import from_blob

# Rows turned into float32 at a time by the scan: bounds its scratch memory (16k x 384 x 4 B =
# 25 MB) whatever the store's size.
SCAN_ROWS = 16_384
SCORE_DIGITS = 4


class Matrix:
    """Every stored vector of one store version: ids and an int8 matrix (one row each)."""

    def __init__(self, ids: list[str], rows: npt.NDArray[np.int8]) -> None:
        self.ids = ids
        self.rows = rows
        self.index = {pid: i for i, pid in enumerate(ids)}
        norms = np.linalg.norm(rows.astype(np.float32), axis=1) if len(ids) else np.zeros(0, np.float32)
        self.norms = np.maximum(norms, 1e-9).astype(np.float32)

    def nearest(self, vector: bytes, limit: int, exclude: Sequence[str]) -> list[tuple[str, float]]:
        """The ``limit`` papers with the highest cosine to ``vector``, best first (then by id)."""
        if limit <= 0 or not self.ids:
            return []
        q = from_blob(vector).astype(np.float32)
        q /= max(float(np.linalg.norm(q)), 1e-9)
        scores = np.empty(len(self.ids), dtype=np.float32)
        for start in range(0, len(self.ids), SCAN_ROWS):
            block = self.rows[start : start + SCAN_ROWS].astype(np.float32)
            scores[start : start + len(block)] = block @ q
        scores /= self.norms
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
