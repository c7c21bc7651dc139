"""The concept hierarchy (``BROADER``) of one store version, held in memory for closures.

Why: ``concept.papers`` (both orders), ``papers(where: {concept})`` and trends start from the
concept's narrower closure. A recursive statement walked it one index search per concept,
sorted it and joined it with ``nodes``: at 100k papers 45 ms for "robotics" (a 5,000-concept
closure) and 1.5 ms for the median of the 150 broadest concepts, on every first request of a
concept. The whole hierarchy is small (42,982 ``BROADER`` links at 100k papers) and is read in
one pass (SQLite: of its own partial index, :data:`kg.stores.sqlite.schema.LATER_INDEXES`,
``broader_links``, :mod:`kg.stores.sqlite.held_rows`; Neo4j: :mod:`kg.stores.neo4j.held`), once
per store version and process; a closure is then a walk of a dict.
"""

from __future__ import annotations

import threading
from collections.abc import Callable


class Hierarchy:
    """Each concept's direct narrower concepts, and which of them are no node."""

    def __init__(self, links: list[tuple[str, str, int]]) -> None:
        self.below: dict[str, list[str]] = {}
        self.absent: set[str] = set()
        # every closure at one limit, once :meth:`closures` has walked them (the concept pages'
        # lists need them all: kg.stores.held.closure_pages), so a page's closure is a look-up
        self._walked: tuple[int, dict[str, tuple[str, ...]]] | None = None
        for broad, narrow, exists in links:
            self.below.setdefault(broad, []).append(narrow)
            if not exists:
                self.absent.add(narrow)

    def closure(self, concept_id: str, limit: int) -> list[str]:
        """Every concept below ``concept_id`` (not itself), at any depth, that is a node, by id,
        at most ``limit``: what ``SQLiteReads.narrower_closure`` lists after the concept."""
        walked = self._walked
        if walked is not None and walked[0] == limit:
            return list(walked[1].get(concept_id, ()))
        seen = {concept_id}
        frontier = [concept_id]
        below = self.below
        while frontier:
            found: list[str] = []
            for broad in frontier:
                for narrow in below.get(broad, ()):
                    if narrow not in seen:
                        seen.add(narrow)
                        found.append(narrow)
            frontier = found
        seen.discard(concept_id)
        return sorted(seen - self.absent)[: max(0, limit)]

    def closures(self, limit: int) -> dict[str, tuple[str, ...]]:
        """:meth:`closure` of every concept with narrower ones (those without have none), kept
        for later closures at the same ``limit``."""
        walked = self._walked
        if walked is None or walked[0] != limit:
            walked = self._walked = (
                limit,
                {broad: tuple(self.closure(broad, limit)) for broad in self.below},
            )
        return walked[1]


class HierarchyCache:
    """The :class:`Hierarchy` of the store version last asked for (one per store object)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: tuple[int, Hierarchy | None] | None = None

    def get(self, version: int, read: Callable[[], Hierarchy | None]) -> Hierarchy | None:
        with self._lock:
            if self._held is None or self._held[0] != version:
                self._held = (version, read())
            return self._held[1]
