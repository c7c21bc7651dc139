"""How many papers a paper query matches, remembered for the store version it was counted at.

Why: a paper list's ``totalCount`` is the size of its whole set, whatever the order and the
window. Counting it is most of a newest-first page of a broad concept at 100k papers (the
24,570 papers of "robotics" from its 5,000-concept closure: 40 ms counted, 3 ms for the page
itself), and every further page of the same list, or the same list in another order, counted
it again. The count depends only on the conditions and the store's contents, so it is kept per
(version, conditions): the store bumps the version in every write that changes something, and a
version change empties the cache. Bounded, so distinct queries cannot grow memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable

ENTRIES = 1024


class Totals:
    """An LRU of at most ``entries`` counts of the current store version.

    >>> t = Totals(entries=2)
    >>> t.put(1, "a", 10); t.get(1, "a"), t.get(2, "a"), t.get(1, "a")
    (10, None, None)
    """

    def __init__(self, entries: int = ENTRIES) -> None:
        self.entries = entries
        self._version: int | None = None
        self._counts: OrderedDict[Hashable, int] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, version: int, key: Hashable) -> int | None:
        """The count of ``key`` at ``version``, ``None`` when not known (a newer version forgets
        every count of the older one)."""
        with self._lock:
            if version != self._version:
                self._version = version
                self._counts.clear()
                return None
            count = self._counts.get(key)
            if count is not None:
                self._counts.move_to_end(key)
            return count

    def put(self, version: int, key: Hashable, count: int) -> None:
        """Remember ``count`` for ``key``, counted at ``version`` (read before counting: a write
        committed meanwhile leaves the count under the older version). Any other version than
        the last one seen empties the cache, as :class:`kg.read.cache.VersionedCache` does: a
        store file made again (``kg check --repair``) may count its versions from lower."""
        with self._lock:
            if version != self._version:
                self._version = version
                self._counts.clear()
            self._counts[key] = count
            while len(self._counts) > self.entries:
                self._counts.popitem(last=False)
