"""Small per-process caches keyed on the store's version (role: read-side memo).

Why keyed on the version: the store bumps it inside every write transaction, so an entry made
before an ingest (or a property-only change such as a new alias) is never served after it. The
caches are bounded LRUs, so unknown names asked for again and again cannot grow memory.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import TypeVar, cast

T = TypeVar("T")
_MISSING = object()


class VersionedCache:
    """An LRU of at most ``max_entries`` values for the current store version.

    >>> c = VersionedCache(max_entries=2)
    >>> c.get(1, "a", lambda: "A"), c.get(1, "a", lambda: "other")
    ('A', 'A')
    >>> c.get(2, "a", lambda: "new")  # a new version starts empty
    'new'
    """

    def __init__(self, max_entries: int = 2048) -> None:
        self.max_entries = max_entries
        self._version: Hashable = None
        self._entries: OrderedDict[Hashable, object] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, version: Hashable, key: Hashable, build: Callable[[], T]) -> T:
        """The value for ``key`` at ``version``, built (outside the lock) when missing."""
        with self._lock:
            if version != self._version:
                self._version = version
                self._entries.clear()
            value = self._entries.get(key, _MISSING)
            if value is not _MISSING:
                self._entries.move_to_end(key)
                return cast(T, value)
        built = build()
        with self._lock:
            if version == self._version:
                self._entries[key] = built
                while len(self._entries) > self.max_entries:
                    self._entries.popitem(last=False)
        return built

    def __len__(self) -> int:
        return len(self._entries)
