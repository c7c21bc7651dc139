"""Structures built once a store version is warm, off the lock other requests wait on (role:
read-side build-once cache).

Why: several reads answer faster from a structure built from the whole store (the heavy ties,
the concept pages' lists, every co-author tie, the nearest papers' first pass), but building it
costs 0.3-2.5 s of CPU at 100k papers, paid again at every store version. A server on a store
under ingest sees a new version every few seconds, so a structure is built only once its
version has been asked for ``warm_asks`` times; until then, and while it is being built, the
caller answers with its statements (the same answer, a few ms more). The build runs on the
thread of the ask that warmed the version (or, with ``background``, on a thread of its own),
outside the lock: other requests are answered meanwhile instead of waiting for it (2.2 s at
100k for the concept pages' lists, when they were built under the lock).

>>> slot: WarmSlot[str] = WarmSlot(warm_asks=2)
>>> slot.get(7, lambda: "built at 7"), slot.get(7, lambda: "built at 7"), slot.get(7, lambda: "again")
(None, 'built at 7', 'built at 7')
>>> slot.get(8, lambda: "built at 8")  # a new version starts cold
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")

# Asks of one version before its structure is built.
WARM_ASKS = 3


class WarmSlot(Generic[V]):
    """One structure per key (e.g. a pair type), for the store version last asked for.

    :meth:`get` counts the asks of each (key, version); the ask that reaches ``warm_asks`` builds
    the structure, outside the lock, and keeps it (a ``None`` from the build is kept too: that
    version has nothing to hold, and is not built again). While it builds, other asks of that
    key get ``None`` at once. A build that raises is retried by the next ask.

    With ``background`` the warming ask starts the build on a thread of its own and gets
    ``None`` too (the statements answer it): no request waits for a build (on Neo4j the concept
    pages' lists take seconds at 100k papers, the driver decoding 1.5M records).
    """

    def __init__(self, warm_asks: int = WARM_ASKS, background: bool = False) -> None:
        self._lock = threading.Lock()
        self._warm_asks = warm_asks
        self._background = background
        self._held: dict[Hashable, tuple[Hashable, V | None]] = {}
        self._asks: dict[Hashable, tuple[Hashable, int]] = {}  # key -> (version, asks of it)
        self._building: set[Hashable] = set()
        self._idle = threading.Condition(self._lock)  # notified when a build ends

    def get(self, version: Hashable, build: Callable[[], V | None], key: Hashable = None) -> V | None:
        """The structure of ``key`` at ``version``; ``None`` while that version is not warm or
        its structure is being built (by another thread)."""
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[0] == version:
                return held[1]
            seen, asks = self._asks.get(key, (version, 0))
            asks = asks + 1 if seen == version else 1
            self._asks[key] = (version, asks)
            if asks < self._warm_asks or key in self._building:
                return None
            self._building.add(key)
        if self._background:
            threading.Thread(target=self._build, args=(version, build, key), daemon=True).start()
            return None
        return self._build(version, build, key)

    def build_now(self, version: Hashable, build: Callable[[], V | None], key: Hashable = None) -> V | None:
        """Build the structure of ``key`` at ``version`` on this thread, warm or not, and keep
        it (a benchmark, or a server that wants it before its first request)."""
        with self._lock:
            held = self._held.get(key)
            if held is not None and held[0] == version:
                return held[1]
            self._building.add(key)
        return self._build(version, build, key)

    def _build(self, version: Hashable, build: Callable[[], V | None], key: Hashable) -> V | None:
        try:
            value = build()
        except BaseException:
            with self._lock:
                self._building.discard(key)
                self._idle.notify_all()
            if self._background:  # nobody to tell: the next ask builds again
                return None
            raise
        with self._lock:  # kept and no longer building at once: wait() then finds it held
            self._held[key] = (version, value)
            self._building.discard(key)
            self._idle.notify_all()
        return value

    def wait(self, timeout: float | None = None) -> bool:
        """Block until no build of this slot is running; whether none is (a test or a
        benchmark that wants a background build's result: no sleeping and polling)."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._building, timeout)

    def held(self, version: Hashable, key: Hashable = None) -> V | None:
        """The structure of ``key`` if one is held for ``version`` (not an ask: counts nothing)."""
        with self._lock:
            held = self._held.get(key)
            return held[1] if held is not None and held[0] == version else None


T = TypeVar("T")
_ATTACH = threading.Lock()


def attached(owner: object, name: str, make: Callable[[], T]) -> T:
    """``owner``'s attribute ``name``, made by ``make`` at its first use, once (the stores'
    read mixins keep their per-store caches and slots this way, having no ``__init__``).

    Why a lock: two requests' threads asking first at once each made one, and the second
    replaced the first, so a structure the first had built (seconds at 100k papers, such as the
    Neo4j store's at start) was thrown away and built again.

    >>> class Store: ...
    >>> store = Store()
    >>> attached(store, "_slot", dict) is attached(store, "_slot", list)
    True
    """
    found = getattr(owner, name, None)
    if found is not None:
        return found  # type: ignore[no-any-return]
    with _ATTACH:
        found = getattr(owner, name, None)
        if found is None:
            found = make()
            setattr(owner, name, found)
        return found
