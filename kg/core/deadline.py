"""A per-request time budget that store queries check while they run (role: cancellation).

Why: a request timeout that only stops *waiting* leaves the abandoned query running and
competing with every later request. The API sets a deadline for each request
(:func:`deadline_scope`); the SQLite store checks it from SQLite's progress handler every few
thousand VM steps and aborts the statement, which surfaces as :class:`QueryTimeout`. A context
variable carries the deadline, so it follows the request into worker threads.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from kg.core.errors import GraphStoreError

_DEADLINE: ContextVar[float | None] = ContextVar("kg_deadline", default=None)
# Set when the server shuts down: every deadline counts as passed, so queued work never starts
# and running SQLite statements stop at their next progress check (see :func:`stop_all`).
_STOPPING = threading.Event()


def stop_all() -> None:
    """Make every deadline, in every thread, count as passed: what ``kg serve`` does when it
    shuts down, so a SIGTERM under load ends the process in seconds instead of waiting for each
    queued and running query (worker threads are joined at exit and cannot be killed)."""
    _STOPPING.set()


def resume() -> None:
    """Undo :func:`stop_all` (a server started again in the same process)."""
    _STOPPING.clear()


class QueryTimeout(GraphStoreError):
    """A store query ran past the request's deadline and was stopped."""


def expired() -> bool:
    """Whether the current deadline (if any) has passed."""
    if _STOPPING.is_set():
        return True
    d = _DEADLINE.get()
    return d is not None and time.monotonic() > d


def remaining() -> float | None:
    """Seconds left before the current deadline, or ``None`` without one."""
    d = _DEADLINE.get()
    return None if d is None else d - time.monotonic()


def start(seconds: float | None) -> None:
    """Set a deadline ``seconds`` from now for the rest of the current context (an API request's
    task; worker threads it starts inherit it)."""
    _DEADLINE.set(time.monotonic() + seconds if seconds and seconds > 0 else None)


@contextmanager
def deadline_scope(seconds: float | None) -> Iterator[None]:
    """Run the block with a deadline ``seconds`` from now (``None`` or <= 0: no deadline).

    >>> with deadline_scope(0.0):
    ...     expired()
    False
    """
    token = _DEADLINE.set(time.monotonic() + seconds if seconds and seconds > 0 else None)
    try:
        yield
    finally:
        _DEADLINE.reset(token)
