"""Where blocking store calls run: a light lane and a heavy lane of worker threads.

Why two lanes: a burst of expensive requests (whole-graph concept graphs, deep networks, text
search over everything) must not make a cheap lookup or ``/healthz`` wait behind it. Heavy work
queues in its own small pool; lookups keep theirs; the health check has a thread of its own.
Each job runs in the request's context (its deadline, :mod:`kg.deadline`) and is not started at
all when the request's deadline passed while it waited, so abandoned work does not pile up;
once running, the SQLite store stops it at the deadline.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from kg import deadline

P = ParamSpec("P")
R = TypeVar("R")

LIGHT = ThreadPoolExecutor(max_workers=4, thread_name_prefix="kg-light")
HEAVY = ThreadPoolExecutor(max_workers=2, thread_name_prefix="kg-heavy")  # SQLite runs them side by side
HEALTH = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kg-health")


async def run_in(pool: ThreadPoolExecutor, fn: Callable[P, R], *args: P.args, **kwargs: P.kwargs) -> R:
    """``fn(*args, **kwargs)`` in ``pool``, with the caller's context (deadline included)."""
    ctx = contextvars.copy_context()

    def job() -> R:
        if deadline.expired():
            raise deadline.QueryTimeout("the request's time limit passed before this work could start")
        return fn(*args, **kwargs)

    return await asyncio.get_running_loop().run_in_executor(pool, ctx.run, job)
