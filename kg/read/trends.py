"""Concepts over time: a concept's papers per year, and the concepts that rose between two years
(role: trend statistics over counts the store makes).

Why counts from the store and statistics here: the counting is the expensive part (papers per
year, papers about each concept in one year) and each store answers it with one query
(``ReadStore.paper_years``, ``ReadStore.concept_counts``); the statistics are a few lines of
arithmetic over at most a few thousand rows, identical for both stores by construction.

Growth. A concept with ``a`` of ``n_from`` papers about it in year ``from`` and ``b`` of ``n_to``
in year ``to`` grows by the log2 ratio of its smoothed shares::

    growth = log2(((b + 1) / n_to) / ((a + 1) / n_from))

The ``+ 1`` (add-one smoothing) keeps a concept that goes from 0 to 2 papers from looking
infinitely better than one that goes from 5 to 60: 0 -> 2 is a ratio of 3, 0 -> 40 of 41.
Two more guards keep tiny counts out of the ranking: at least :data:`MIN_SUPPORT` papers in
year ``to``, and a two-proportion z-test of ``b / n_to`` against ``a / n_from`` (pooled
variance) of at least :data:`MIN_Z` (one-sided p < 0.025). Ties by concept id.

Example:
    >>> round(growth(0, 100, 40, 100), 2), round(growth(5, 100, 60, 100), 2)
    (5.36, 3.35)
    >>> round(z_score(0, 100, 40, 100), 1), round(z_score(3, 100, 4, 100), 1)
    (7.1, 0.4)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from kg.stores.protocol import Weighted, YearCount

MIN_SUPPORT = 5
MIN_Z = 1.96
SMOOTHING = 1.0


@dataclass(frozen=True)
class YearShare:
    """Papers about a concept in one year and their share of that year's papers (role: trend row)."""

    year: int
    papers: int
    share: float


@dataclass(frozen=True)
class Rise:
    """One concept's change between two years (role: rising-concepts row)."""

    concept: str
    from_papers: int
    to_papers: int
    from_share: float
    to_share: float
    growth: float
    z: float


def growth(a: int, n_from: int, b: int, n_to: int, alpha: float = SMOOTHING) -> float:
    """log2 of the ratio of the smoothed shares (see the module docstring)."""
    return math.log2(((b + alpha) / n_to) / ((a + alpha) / n_from))


def z_score(a: int, n_from: int, b: int, n_to: int) -> float:
    """Two-proportion z statistic of ``b / n_to`` against ``a / n_from`` (pooled variance)."""
    pooled = (a + b) / (n_from + n_to)
    spread = math.sqrt(pooled * (1 - pooled) * (1 / n_from + 1 / n_to))
    return 0.0 if spread == 0 else (b / n_to - a / n_from) / spread


def trend(about: Sequence[YearCount], totals: Sequence[YearCount]) -> list[YearShare]:
    """Every year that has papers (``totals``) with the papers about the concept in it (0 if
    none) and their share.

    >>> trend([YearCount(2024, 2)], [YearCount(2023, 4), YearCount(2024, 8)])
    [YearShare(year=2023, papers=0, share=0.0), YearShare(year=2024, papers=2, share=0.25)]
    """
    found = {y.year: y.papers for y in about}
    return [YearShare(t.year, found.get(t.year, 0), found.get(t.year, 0) / t.papers) for t in totals]


def rising(
    before: Sequence[Weighted],
    n_from: int,
    after: Sequence[Weighted],
    n_to: int,
    first: int,
    min_support: int = MIN_SUPPORT,
    min_z: float = MIN_Z,
) -> list[Rise]:
    """The ``first`` concepts that grew most from one year (``before``: papers about each concept
    among ``n_from``) to another (``after``, among ``n_to``), by :func:`growth`, among those with
    ``min_support`` papers in the later year and a z of at least ``min_z``."""
    if n_from <= 0 or n_to <= 0:
        return []
    was = {w.id: w.weight for w in before}
    out = []
    for w in after:
        if w.weight < min_support:
            continue
        a = was.get(w.id, 0)
        z = z_score(a, n_from, w.weight, n_to)
        if z < min_z:
            continue
        g = growth(a, n_from, w.weight, n_to)
        out.append(Rise(w.id, a, w.weight, a / n_from, w.weight / n_to, g, z))
    out.sort(key=lambda r: (-round(r.growth, 12), r.concept))
    return out[:first]
