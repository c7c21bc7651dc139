"""The FastAPI app: ``/graphql`` (with GraphiQL) and ``/healthz``, CORS, and a request timeout.

The lifespan opens the configured store (unless one is injected, e.g. by tests) and closes what
it opened. If the store cannot be reached at start-up the app still starts: ``/healthz`` answers
503 and GraphQL answers ``STORE_UNAVAILABLE`` until the store comes back, which is what an
orchestrator's health check and a client's retry need.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable, Hashable
from contextlib import asynccontextmanager, nullcontext
from typing import Any

import orjson
from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api import graphql_http, lanes, static_files
from api.admission import AdmissionMiddleware
from api.graphiql import GraphiQLRouter
from api.guard import RequestGuardMiddleware, replaying
from api.health import HealthProbe
from api.http_context import get_context
from api.lanes import HEALTH, run_in
from api.schema import build_schema
from kg.core import deadline
from kg.core.collector import collector_relaxed
from kg.core.config import Settings, get_settings
from kg.core.errors import KGError, StoreUnavailable
from kg.read.service import ReadService
from kg.stores.protocol import GraphStore, ReadStore
from kg.stores.request_scope import request_scope

log = logging.getLogger("paperkg.api")
HEALTH_TIMEOUT_S = 5.0
REOPEN_INTERVAL_S = 2.0
DEFAULT_RESPONSE_CACHE_SIZE = 1024
# Allocations between two young collections while serving (CPython's default is 700). Why: a
# request allocates thousands of short-lived containers (rows, nodes, graphql-core's results),
# so the default ran several young collections per request and a full one, over every module,
# the schema and the warm caches, every few dozen: 30-50% of the server's CPU per request at
# 10k papers (bench/README.md, "GraphQL CPU per request"). The server's process freezes what is
# alive once it is warm (never garbage) and collects young objects in fewer, larger passes;
# cyclic garbage is still collected. Restored at shutdown (tests serve apps in-process).
SERVING_GEN0_THRESHOLD = 10_000


class RequestScopeMiddleware:
    """Each HTTP request in its own :func:`kg.stores.request_scope.request_scope`: what a store
    reads once per request (the Neo4j store's version: a server round trip that one request
    asked for three to five times) is read once. Pure ASGI, like the timeout it wraps."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        with request_scope():
            await self.app(scope, receive, send)


class RequestTimeoutMiddleware:
    """Answer 504 with a GraphQL-shaped ``TIMEOUT`` error when a request takes too long.

    Pure ASGI (not ``BaseHTTPMiddleware``), so it adds no per-request task. Work already running
    in a worker thread finishes in the background (threads cannot be killed); the client gets
    its answer on time. If the response had already started, the connection is just closed.

    Args:
        app: the wrapped ASGI app.
        timeout_s: seconds per request; ``0`` or less disables the limit.
    """

    def __init__(self, app: ASGIApp, timeout_s: float) -> None:
        self.app = app
        self.timeout_s = timeout_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or self.timeout_s <= 0:
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracking(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await asyncio.wait_for(self.app(scope, receive, send_tracking), self.timeout_s)
        except TimeoutError:
            if started:
                return
            body = json.dumps(
                {
                    "data": None,
                    "errors": [
                        {
                            "message": f"request timed out after {self.timeout_s:g} s "
                            "(KG_REQUEST_TIMEOUT_S); narrow the query (smaller first/maxNodes/depth)",
                            "extensions": {"code": "TIMEOUT"},
                        }
                    ],
                }
            ).encode()
            await _send_json(send, 504, body)


class ResponseCacheMiddleware:
    """Answer repeated identical GraphQL POSTs from memory while the store's version is unchanged.

    The API only reads, and the store changes only through ingest, so a response is valid until
    :meth:`kg.read.service.ReadService.version` changes (bumped by every write). Keyed by the raw
    request body and ``Accept`` header; only successful JSON responses without ``errors`` are
    kept, in an LRU bounded by entries and bytes. A hit costs one dictionary lookup instead of
    parsing, resolving and serialising; it is what keeps p95 low under concurrency on a small
    machine (see ``bench/README.md``). Disable with ``response_cache_size=0``.

    Args:
        app: the wrapped ASGI app.
        version: async callable giving the current store version (raising when the store is down).
        max_entries: responses kept (0 disables the cache).
        max_bytes: total size of kept responses.
        max_entry_bytes: larger responses are not kept.
    """

    def __init__(
        self,
        app: ASGIApp,
        version: Callable[[], Awaitable[Hashable]],
        max_entries: int = DEFAULT_RESPONSE_CACHE_SIZE,
        max_bytes: int = 64 * 1024 * 1024,
        max_entry_bytes: int = 2 * 1024 * 1024,
        path: str = "/graphql",
    ) -> None:
        self.app = app
        self.version = version
        self.max_entries = max_entries
        self.max_bytes = max_bytes
        self.max_entry_bytes = max_entry_bytes
        self.path = path
        self._entries: OrderedDict[tuple[Hashable, bytes, bytes], bytes] = OrderedDict()
        self._bytes = 0
        self.hits = 0
        self.misses = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            self.max_entries <= 0
            or scope["type"] != "http"
            or scope["method"] != "POST"
            or scope["path"].rstrip("/") != self.path
        ):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        if not headers.get(b"content-type", b"").startswith(b"application/json"):
            await self.app(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:
            return  # the client went away
        replay = replaying(body, receive)

        try:
            key: tuple[Hashable, bytes, bytes] | None = (
                await self.version(),
                headers.get(b"accept", b""),
                body,
            )
        except KGError:
            key = None  # store down: let the request fail properly
        cached = self._entries.get(key) if key is not None else None
        if cached is not None and key is not None:
            self._entries.move_to_end(key)
            self.hits += 1
            await _send_json(send, 200, cached)
            return
        self.misses += 1
        status = 0
        content_type = b""
        parts: list[bytes] = []

        async def capture(message: Message) -> None:
            nonlocal status, content_type
            if message["type"] == "http.response.start":
                status = message["status"]
                content_type = dict(message.get("headers", [])).get(b"content-type", b"")
            elif message["type"] == "http.response.body":
                parts.append(message.get("body", b""))
            await send(message)

        await self.app(scope, replay, capture)
        if key is None or status != 200 or not content_type.startswith(b"application/json"):
            return
        payload = b"".join(parts)
        if len(payload) > self.max_entry_bytes or b'"errors"' in payload and "errors" in json.loads(payload):
            return
        self._store(key, payload)

    def _store(self, key: tuple[Hashable, bytes, bytes], payload: bytes) -> None:
        self._entries[key] = payload
        self._bytes += len(payload) + len(key[2])
        while self._entries and (len(self._entries) > self.max_entries or self._bytes > self.max_bytes):
            old_key, old = self._entries.popitem(last=False)
            self._bytes -= len(old) + len(old_key[2])


async def _read_body(receive: Receive) -> bytes | None:
    """The whole request body, or ``None`` when the client disconnects before sending it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return None
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _send_json(send: Send, status: int, body: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})


class GraphQLJSONRouter(GraphiQLRouter):
    """strawberry's FastAPI router with responses encoded by ``orjson`` (a network of 1,000
    edges is ~80 KB of JSON: about 1.5 ms with ``json.dumps``, a tenth of that with orjson)."""

    def encode_json(self, data: object) -> bytes | str:
        try:
            return orjson.dumps(data)
        except TypeError:  # what orjson cannot encode (e.g. an int beyond 64 bits): as before
            return super().encode_json(data)


class _ReopeningStore:
    """Stands in for a store that could not be opened, retrying ``open_store`` on use.

    Every call raises :class:`StoreUnavailable` until the store opens; then it delegates.
    """

    def __init__(self, settings: Settings, error: KGError) -> None:
        self.backend_name = settings.backend
        self._settings = settings
        self._error = error
        self._inner: GraphStore | None = None
        self._next_try = time.monotonic() + REOPEN_INTERVAL_S
        self._lock = threading.Lock()

    def _get(self) -> GraphStore:
        if self._inner is not None:
            return self._inner
        with self._lock:
            if self._inner is None and time.monotonic() >= self._next_try:
                from kg.stores import open_store

                try:
                    self._inner = open_store(self._settings)
                except KGError as e:
                    self._error = e
                    self._next_try = time.monotonic() + REOPEN_INTERVAL_S
            if self._inner is None:
                raise StoreUnavailable(str(self._error)) from self._error
            return self._inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)

    def close(self) -> None:
        if self._inner is not None:
            self._inner.close()


def serving_settings(settings: Settings) -> Settings:
    """``settings`` for the server's own store: driver retries end well inside a request.

    Why: with Neo4j gone the driver retried each read for 30 s, so every request ran into the
    request timeout and answered TIMEOUT, and a client could not tell an outage from a slow
    query. A quarter of the timeout leaves room for the answer: STORE_UNAVAILABLE.
    """
    if settings.request_timeout_s <= 0:
        return settings
    cap = settings.request_timeout_s / 4
    return settings.model_copy(update={"neo4j_retry_s": min(settings.neo4j_retry_s, cap)})


def _open(settings: Settings) -> ReadStore:
    from kg.stores import open_store

    settings = serving_settings(settings)
    try:
        return open_store(settings)
    except StoreUnavailable as e:
        log.error("graph store unavailable at start-up (will retry on use): %s", e)
        return _ReopeningStore(settings, e)  # type: ignore[return-value]


def admission_wait(settings: Settings) -> float:
    """How long a request may wait for an execution slot: ``queue_wait_s``, but at most half the
    request timeout, so a request that waited still has the time to run."""
    if settings.request_timeout_s <= 0:
        return settings.queue_wait_s
    return min(settings.queue_wait_s, settings.request_timeout_s / 2)


def create_app(
    settings: Settings | None = None,
    store: ReadStore | None = None,
    *,
    response_cache_size: int | None = None,
    warm: bool | None = None,
    warm_first: bool = False,
    stop_work_on_shutdown: bool = False,
) -> FastAPI:
    """The paperkg API.

    Args:
        settings: defaults to :func:`kg.core.config.get_settings` (``KG_*`` environment variables).
        store: an open store to serve (not closed on shutdown); default: open one from settings.
        response_cache_size: responses kept by :class:`ResponseCacheMiddleware`; default
            ``settings.response_cache_size`` when that setting exists, else 1024; 0 disables it.
        warm: build the service's indexes and projections in the background at start-up;
            default: only when the app opens the store itself (``kg serve``).
        warm_first: build them before serving instead (the lifespan waits), so that no request
            meets cold caches; what each worker of ``kg serve --workers N`` does.
        stop_work_on_shutdown: at shutdown, stop every queued and running store call of the
            process (:func:`kg.core.deadline.stop_all`), so SIGTERM ends it in seconds under load;
            what ``kg serve`` does (not the default: it is process-wide, and tests serve several
            apps in one process).

    Returns:
        A FastAPI app serving ``/graphql`` and ``/healthz``.

    Example:
        >>> from kg.stores.sqlite import SQLiteStore
        >>> app = create_app(Settings(), store=SQLiteStore(None))
        >>> app.title
        'paperkg'
    """
    cfg = settings if settings is not None else get_settings()
    cache_size = (
        int(getattr(cfg, "response_cache_size", DEFAULT_RESPONSE_CACHE_SIZE))
        if response_cache_size is None
        else response_cache_size
    )
    warm_up = store is None if warm is None else warm

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        owned = store is None
        active = store if store is not None else await asyncio.to_thread(_open, cfg)
        lanes.size_for(active.backend_name)
        app.state.settings = cfg
        if owned:
            app.state.store = active
            app.state.service = _service(active)
        warming = None
        if warm_first:
            await _warm(app.state.service)
        elif warm_up:
            warming = asyncio.create_task(_warm(app.state.service))
        # The server's own process (it opened the store): see SERVING_GEN0_THRESHOLD.
        if stop_work_on_shutdown:
            deadline.resume()
        with collector_relaxed(SERVING_GEN0_THRESHOLD) if owned else nullcontext():
            try:
                yield
            finally:
                if stop_work_on_shutdown:
                    deadline.stop_all()
                if warming is not None:
                    warming.cancel()
                if owned:
                    await asyncio.to_thread(active.close)

    app = FastAPI(
        title="paperkg",
        description="Knowledge graph of research papers: GraphQL at /graphql, health at /healthz.",
        lifespan=lifespan,
    )
    # Set eagerly too, so the app works under test clients that skip the lifespan.
    app.state.settings = cfg
    if store is not None:
        app.state.store = store
        app.state.service = _service(store)

    # No WebSocket protocols: the schema has no subscriptions, and a socket would be one more
    # way into execution for the gate to cover (the schema's own check still would).
    graphql = GraphQLJSONRouter(
        build_schema(cfg), context_getter=get_context, graphql_ide="graphiql", subscription_protocols=()
    )
    app.include_router(graphql, prefix="/graphql")

    probes: dict[int, HealthProbe] = {}  # one per store object (the lifespan may open it late)

    @app.get("/healthz", summary="Liveness and store reachability")
    async def healthz() -> JSONResponse:
        active: GraphStore = app.state.store
        probe = probes.get(id(active))
        if probe is None:
            probes.clear()
            probe = probes[id(active)] = HealthProbe(active.ping, timeout_s=HEALTH_TIMEOUT_S)
        reason = await probe.check()
        if reason is not None:
            return JSONResponse(
                {"status": "unavailable", "backend": active.backend_name, "error": reason}, status_code=503
            )
        return JSONResponse({"status": "ok", "backend": active.backend_name})

    async def version() -> Hashable:
        service: ReadService = app.state.service
        return await run_in(HEALTH, service.version)

    # Added innermost first: CORS wraps the request scope (what a store reads once per
    # request), which wraps the timeout, which wraps the gate that refuses hostile
    # requests before any parsing they could make expensive (and before the response cache
    # reads a body: the gate stops reading at its size limit), which wraps the response cache,
    # which wraps the admission (a cached answer needs no execution slot; api.admission).
    app.add_middleware(
        AdmissionMiddleware,
        capacity=cfg.max_concurrent_queries,
        wait_s=admission_wait(cfg),
        retry_after_s=cfg.retry_after_s,
    )
    app.add_middleware(ResponseCacheMiddleware, version=version, max_entries=cache_size)
    app.add_middleware(RequestGuardMiddleware)
    app.add_middleware(RequestTimeoutMiddleware, timeout_s=cfg.request_timeout_s)
    app.add_middleware(RequestScopeMiddleware)
    if cfg.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=cfg.cors_origins,
            allow_methods=["GET", "POST", "OPTIONS"],
            allow_headers=["*"],
        )
    static_files.install(app)
    graphql_http.install(app)  # outermost: negotiates the media type of every /graphql answer
    return app


def worker_app() -> FastAPI:
    """The app as each worker process of ``kg serve --workers N`` builds it (a uvicorn factory).

    Settings come from ``KG_*`` environment variables (``kg serve`` exports its flags there);
    every worker opens its own store (the embedded one loads the graph file; Neo4j gets its own
    driver) and warms its own caches before it accepts connections.
    """
    return create_app(warm_first=True, stop_work_on_shutdown=True)


def _service(store: ReadStore) -> ReadService:
    """The read service over ``store``. Its version is re-read on every request (one indexed
    row on SQLite); on Neo4j at most every half second, so an ingest from elsewhere shows up
    almost at once without a round trip per resolver."""
    if store.backend_name == "sqlite":
        return ReadService(store, refresh_interval_s=0.0)
    return ReadService(store, refresh_interval_s=0.5)


async def _warm(service: ReadService) -> None:
    """Open the database and read the small tables before the first request needs them."""
    t0 = time.perf_counter()
    try:
        await asyncio.to_thread(service.warm)
    except KGError as e:
        log.warning("could not warm up (reads fill on demand): %s", e)
        return
    log.info("store ready after %.2f s", time.perf_counter() - t0)
