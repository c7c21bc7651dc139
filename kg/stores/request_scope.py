"""What a store reads once per request: the store version, pinned for the request's duration,
and what one statement brought along for a later call of the same request (:func:`shelf`)
(role: request-scoped memo, set by the API, read by the stores).

Why: on Neo4j the store version is a server round trip (one read transaction: 1-2 ms of the API
process's and the server's CPU), and one GraphQL request asked for it three to five times: the
read service's caches, then each held structure (:mod:`kg.stores.neo4j.held`) it consulted.
Within one request those reads can only differ if a write commits meanwhile, and then the
request mixes the two versions' answers anyway (neither store gives a request one snapshot).
So the API opens a scope per HTTP request (:func:`request_scope`) and the Neo4j store reads its
version once in it (:func:`once`). Outside a scope (the CLI, ingest, tests that call a store
directly) every call reads afresh, as before. No GraphQL field writes, so a request never needs
to see its own write. The scope is a ``ContextVar`` holding a dict: the copies of the context
that the server's worker threads and tasks run in (``api.lanes.run_in`` copies it) share that
dict, so a version read in any of them serves the whole request.

>>> reads = []
>>> def read() -> int:
...     reads.append(1)
...     return 7
>>> once("v", read), once("v", read), len(reads)  # no scope: read every time
(7, 7, 2)
>>> with request_scope():
...     once("v", read), once("v", read), len(reads)
(7, 7, 3)
>>> shelf("nodes") is None
True
>>> with request_scope():
...     shelf("nodes")["a"] = 1
...     shelf("nodes")
{'a': 1}
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TypeVar

T = TypeVar("T")

_SCOPE: ContextVar[dict[str, object] | None] = ContextVar("kg_request_scope", default=None)


@contextmanager
def request_scope() -> Iterator[None]:
    """Pin what :func:`once` reads for the duration of the block (one HTTP request)."""
    token = _SCOPE.set({})
    try:
        yield
    finally:
        _SCOPE.reset(token)


def shelf(key: str) -> dict[Any, Any] | None:
    """The request's dict kept under ``key`` (made at first use), ``None`` outside a scope: what
    a store read ahead in one statement for a later call of the same request to take (the
    Neo4j store's nodes and degrees that a name look-up brought along)."""
    scope = _SCOPE.get()
    if scope is None:
        return None
    found: dict[Any, Any] = scope.setdefault(key, {})  # type: ignore[assignment]
    return found


def once(key: str, read: Callable[[], T]) -> T:
    """``read()``, at most once per :func:`request_scope` for ``key``; every call outside one."""
    scope = _SCOPE.get()
    if scope is None:
        return read()
    if key in scope:
        return scope[key]  # type: ignore[return-value]
    value = read()
    scope[key] = value
    return value
