"""Where blocking store calls run: a light lane and a heavy lane of worker threads.

Why two lanes: a burst of expensive requests (whole-graph concept graphs, deep networks, text
search over everything) must not make a cheap lookup or ``/healthz`` wait behind it. Heavy work
queues in its own small pool; lookups keep theirs; the health check has a thread of its own.
Each job runs in the request's context (its deadline, :mod:`kg.core.deadline`) and is not started at
all when the request's deadline passed while it waited, so abandoned work does not pile up;
once running, the SQLite store stops it at the deadline.

How many threads a lane has depends on the backend (:func:`size_for`). Neo4j calls wait on the
network, so threads overlap them. SQLite calls are CPU work in this process, and the sqlite3
module gives up and retakes the GIL for every statement and row: with four light threads a
depth-2 co-author network (200 small statements) served 25 per second in-process, with one 63.
So the embedded store gets one light thread; search, one large statement, keeps two.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from kg.core import deadline

P = ParamSpec("P")
R = TypeVar("R")

LIGHT_THREADS = {"sqlite": 1, "neo4j": 4}
HEAVY_THREADS = 2

_light_size = LIGHT_THREADS["neo4j"]
LIGHT = ThreadPoolExecutor(max_workers=_light_size, thread_name_prefix="kg-light")
HEAVY = ThreadPoolExecutor(max_workers=HEAVY_THREADS, thread_name_prefix="kg-heavy")
HEALTH = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kg-health")


def size_for(backend: str) -> None:
    """Size the light lane for ``backend`` (see above); called when the app opens its store.

    Replaces the executor only when the size changes; calls already queued on the old one
    finish there.
    """
    global LIGHT, _light_size
    want = LIGHT_THREADS.get(backend, LIGHT_THREADS["neo4j"])
    if want != _light_size:
        old, LIGHT = LIGHT, ThreadPoolExecutor(max_workers=want, thread_name_prefix="kg-light")
        _light_size = want
        old.shutdown(wait=False)


def light() -> ThreadPoolExecutor:
    """The light lane as sized now."""
    return LIGHT


async def run_in(pool: ThreadPoolExecutor, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` in ``pool``, with the caller's context (deadline included)."""
    ctx = contextvars.copy_context()

    def job() -> R:
        if deadline.expired():
            raise deadline.QueryTimeout("the request's time limit passed before this work could start")
        return fn(*args, **kwargs)

    return await asyncio.get_running_loop().run_in_executor(pool, ctx.run, job)
