"""``/healthz`` that answers within a second whatever the load (role: liveness probe).

Why not simply await a store ping: under a flood of expensive queries the ping's thread waits
for the GIL and the store, and an orchestrator that sees no answer for seconds restarts a server
that is only busy (issue 27 measured 9.9 s). Here the ping runs in a thread of its own
(:data:`PROBE`, shared with nothing, not even the response cache's version reads) and the
handler waits for it at most ``answer_s``. A ping still running after that is not a failure yet:
the answer is the last completed ping's, as long as that one succeeded less than ``timeout_s``
ago and the running one is younger than ``timeout_s``. A store that stays silent for
``timeout_s`` is unavailable (503), as is one whose ping fails.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

from kg.core.errors import KGError

PROBE = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kg-probe")


class HealthProbe:
    """The store check behind ``/healthz``.

    Args:
        ping: the store's ``ping`` (raises :class:`kg.core.errors.KGError` when the store is down).
        answer_s: longest wait for a fresh ping before the last result is used.
        timeout_s: a ping silent this long, or a success this old, means unavailable.

    Example:
        >>> probe = HealthProbe(lambda: None)
        >>> asyncio.run(probe.check()) is None
        True
    """

    def __init__(self, ping: Callable[[], None], answer_s: float = 0.5, timeout_s: float = 5.0) -> None:
        self.ping = ping
        self.answer_s = answer_s
        self.timeout_s = timeout_s
        self._running: asyncio.Future[None] | None = None
        self._started = 0.0
        self._last_ok = float("-inf")
        self._last_error: str | None = None

    async def check(self) -> str | None:
        """``None`` when the store is reachable, else why not (one line for the client)."""
        now = time.monotonic()
        loop = asyncio.get_running_loop()
        # A new ping when none runs, or when the running one belongs to another event loop (a
        # test client may serve each request on a loop of its own).
        if self._running is None or self._running.done() or self._running.get_loop() is not loop:
            self._running = loop.run_in_executor(PROBE, self._ping)
            self._started = now
        try:
            await asyncio.wait_for(asyncio.shield(self._running), self.answer_s)
        except TimeoutError:
            pass
        if self._running.done():
            return self._last_error
        silent = time.monotonic() - self._started
        if silent >= self.timeout_s:
            return f"no answer within {self.timeout_s:g} s"
        if self._last_error is None and time.monotonic() - self._last_ok < self.timeout_s:
            return None  # busy, not down: the store answered a moment ago
        try:  # no recent success to stand on: wait for this ping, up to timeout_s in all
            await asyncio.wait_for(asyncio.shield(self._running), self.timeout_s - silent)
        except TimeoutError:
            return f"no answer within {self.timeout_s:g} s"
        return self._last_error

    def _ping(self) -> None:
        """Runs in :data:`PROBE`; records the outcome instead of raising it."""
        try:
            self.ping()
        except KGError as e:
            self._last_error = str(e) or type(e).__name__
            return
        self._last_ok = time.monotonic()
        self._last_error = None
