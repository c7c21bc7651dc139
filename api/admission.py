"""Bounded admission: a fixed number of GraphQL executions at once, the excess shed with 503.

Why: a request that waits behind others has no way to meet its deadline, and every extra
execution in flight slows all the others on a small machine (graphql-core runs on the event
loop, the store's threads share the GIL). 50 expensive queries at once on 2 cores answered 504
after up to 28.5 s against a 10 s deadline (issue 27). Refusing at once what cannot start soon
keeps every admitted request inside its deadline and tells the client when to come back.

The rule: at most ``capacity`` operations execute at once; up to ``capacity`` more may wait, each
at most ``wait_s`` for a slot; any other is answered ``503`` with ``Retry-After`` and a
GraphQL-shaped ``OVERLOADED`` error straight away. Only operations count (a POST, a GET with a
``query``): the IDE page, static files and ``/healthz`` never wait here. The middleware sits
inside the response cache, so a cached answer needs no slot.
"""

from __future__ import annotations

import asyncio
import json

from starlette.types import ASGIApp, Receive, Scope, Send

OVERLOADED = "OVERLOADED"


class Admission:
    """Slots for executions and the bounded queue in front of them (one per app and process).

    Args:
        capacity: executions at once; 0 or less: no limit.
        wait_s: longest wait for a slot before the request is shed.

    Example:
        >>> async def two_of_three() -> list[bool]:
        ...     gate = Admission(capacity=1, wait_s=0.01)
        ...     first = await gate.enter()
        ...     second = await gate.enter()  # waits 10 ms, then shed
        ...     gate.leave()
        ...     return [first, second, await gate.enter()]
        >>> asyncio.run(two_of_three())
        [True, False, True]
    """

    def __init__(self, capacity: int, wait_s: float) -> None:
        self.capacity = capacity
        self.wait_s = max(wait_s, 0.0)
        self.running = 0
        self.waiting = 0
        self.shed = 0
        self._freed = asyncio.Condition()

    async def enter(self) -> bool:
        """Take a slot (``True``) or give up (``False``: the queue is full or the wait ran out)."""
        if self.capacity <= 0:
            self.running += 1
            return True
        if self.running < self.capacity and self.waiting == 0:
            self.running += 1
            return True
        if self.waiting >= self.capacity or self.wait_s <= 0:
            self.shed += 1
            return False
        self.waiting += 1
        taking = asyncio.ensure_future(self._take_freed_slot())
        try:
            await asyncio.wait_for(asyncio.shield(taking), self.wait_s)
            return True
        except BaseException as e:  # the wait ran out, or the request was cancelled meanwhile
            if not taking.done():
                taking.cancel()  # it has not counted a slot: it counts only as it finishes
            elif not taking.cancelled() and taking.exception() is None:
                self.leave()  # it took the slot just as we gave up: give it back
            if isinstance(e, TimeoutError):
                self.shed += 1
                return False
            raise
        finally:
            self.waiting -= 1

    async def _take_freed_slot(self) -> None:
        # Counted inside the wait, so no newcomer can take the slot between wake-up and count.
        async with self._freed:
            await self._freed.wait_for(lambda: self.running < self.capacity)
            self.running += 1

    def leave(self) -> None:
        """Give the slot back and wake the waiters (the first to run takes it)."""
        self.running -= 1
        if self.capacity > 0:
            asyncio.get_running_loop().create_task(self._notify())

    async def _notify(self) -> None:
        async with self._freed:
            self._freed.notify_all()  # a waiter that timed out meanwhile must not eat the wake-up


class AdmissionMiddleware:
    """Pure ASGI: run a GraphQL operation only with a slot of :class:`Admission`, else 503.

    Args:
        app: the wrapped ASGI app (the GraphQL router).
        capacity: executions at once (``KG_MAX_CONCURRENT_QUERIES``); 0: no limit.
        wait_s: longest wait for a slot (``KG_QUEUE_WAIT_S``).
        retry_after_s: the ``Retry-After`` a shed request gets (``KG_RETRY_AFTER_S``).
        path: the GraphQL endpoint.
    """

    def __init__(
        self, app: ASGIApp, capacity: int, wait_s: float, retry_after_s: int, path: str = "/graphql"
    ) -> None:
        self.app = app
        self.admission = Admission(capacity, wait_s)
        self.retry_after_s = max(int(retry_after_s), 1)
        self.path = path

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].rstrip("/") != self.path or not _is_operation(scope):
            await self.app(scope, receive, send)
            return
        if not await self.admission.enter():
            await _shed(send, self.retry_after_s, self.admission)
            return
        try:
            await self.app(scope, receive, send)
        finally:
            self.admission.leave()


def _is_operation(scope: Scope) -> bool:
    """A POST, or a GET with a ``query`` parameter (a bare GET shows the IDE page)."""
    if scope["method"] == "POST":
        return True
    return scope["method"] == "GET" and b"query=" in scope.get("query_string", b"")


def overloaded_body(retry_after_s: int, capacity: int) -> bytes:
    """The GraphQL-shaped answer to a shed request (``data`` null, one ``OVERLOADED`` error)."""
    message = (
        f"server busy: {capacity} queries are running and the queue is full; retry after "
        f"{retry_after_s} s (KG_MAX_CONCURRENT_QUERIES, KG_QUEUE_WAIT_S)"
    )
    error = {"message": message, "extensions": {"code": OVERLOADED, "retryAfter": retry_after_s}}
    return json.dumps({"data": None, "errors": [error]}).encode()


async def _shed(send: Send, retry_after_s: int, admission: Admission) -> None:
    body = overloaded_body(retry_after_s, admission.capacity)
    await send(
        {
            "type": "http.response.start",
            "status": 503,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(retry_after_s).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
