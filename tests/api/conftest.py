"""GraphQL over real HTTP: the app served by uvicorn in a background thread, queried with httpx.

``seeded_store`` is parametrised like the root ``store`` fixture (memory, and Neo4j when
``--neo4j``/``KG_TEST_NEO4J_URI``), loaded once per backend with the three seed listings; the
API never writes, so the tests share it. ``gql`` posts to the server of the current backend;
``serve_app`` serves another app (e.g. over a ``proxy`` of the store that counts calls or fails).

The test folders have no ``__init__.py``, so helpers reach test modules as fixtures only.
"""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from api.app import create_app
from kg.core.config import Settings
from kg.core.errors import StoreUnavailable
from kg.ingest.job import ingest
from kg.ingest.pipeline import Pipeline
from kg.stores.protocol import GraphStore, ReadStore

# The first request on a cold Neo4j also builds the service's indexes: give it time in tests
# (the timeout test sets its own short limit explicitly).
os.environ.setdefault("KG_REQUEST_TIMEOUT_S", "60")

GQL = Callable[..., dict[str, Any]]


class Server:
    """A uvicorn server on a free port in a daemon thread (role: test harness)."""

    def __init__(self, app: FastAPI) -> None:
        config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)
        self.url = ""

    def start(self) -> Server:
        self._thread.start()
        deadline = time.monotonic() + 20
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("uvicorn did not start")
            time.sleep(0.01)
        sock = self._server.servers[0].sockets[0]
        host, port = sock.getsockname()[:2]
        self.url = f"http://{host}:{port}"
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=20)


@contextmanager
def serve(app: FastAPI) -> Iterator[Server]:
    """Serve ``app`` for the duration of the block."""
    server = Server(app).start()
    try:
        yield server
    finally:
        server.stop()


def post(client: httpx.Client, query: str, variables: dict[str, Any] | None = None) -> dict[str, Any]:
    """POST a GraphQL request and return the decoded JSON body (whatever the status)."""
    # generous timeout: the first request on a cold Neo4j also builds the service's indexes
    response = client.post("/graphql", json={"query": query, "variables": variables or {}}, timeout=120)
    body: dict[str, Any] = response.json()
    body["_status"] = response.status_code
    return body


class StoreProxy:
    """Delegates to a real store; counts calls and can simulate an outage or a slow store.

    Args:
        inner: the real store.
        backend_name: what the app sees (anything but ``memory`` makes it offload to threads).
    """

    def __init__(self, inner: GraphStore, backend_name: str | None = None) -> None:
        self._inner = inner
        self.backend_name = backend_name or inner.backend_name
        self.calls: Counter[str] = Counter()
        self.down = False
        self.delay_s = 0.0
        self.slow: dict[str, float] = {}  # method -> seconds each call of it takes

    def __getattr__(self, name: str) -> Any:
        target = getattr(self._inner, name)
        if not callable(target):
            return target

        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls[name] += 1
            if self.down:
                raise StoreUnavailable("cannot reach the store (simulated outage)")
            if self.delay_s or name in self.slow:
                time.sleep(self.slow.get(name, self.delay_s))
            return target(*args, **kwargs)

        return call

    def close(self) -> None:  # the proxied store belongs to its fixture
        pass


@pytest.fixture(
    scope="session",
    params=[
        pytest.param("sqlite", id="sqlite"),
        pytest.param("neo4j", id="neo4j", marks=pytest.mark.neo4j),
    ],
)
def seeded_store(
    request: pytest.FixtureRequest, seed_records: list[Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ReadStore]:
    """A store of each backend holding the three seed listings (read-only in these tests)."""
    store: ReadStore
    if request.param == "sqlite":
        from kg.stores.sqlite import SQLiteStore

        store = SQLiteStore(Path(tmp_path_factory.mktemp("kg")))
    else:
        from kg.stores.neo4j.store import Neo4jStore

        neo4j_store = Neo4jStore(request.getfixturevalue("neo4j_driver"))
        neo4j_store.clear()
        store = neo4j_store
    store.upsert(seed_records)
    from kg.analyze import analyze

    analyze(store)  # what `kg analyze` stores: the API serves centrality and communities from it
    yield store
    store.close()


@pytest.fixture(scope="session")
def server(seeded_store: ReadStore) -> Iterator[Server]:
    """The API over the seeded store, served once per backend."""
    with serve(create_app(Settings(), store=seeded_store)) as srv:
        yield srv


@pytest.fixture
def client(server: Server) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=server.url, timeout=30) as c:
        yield c


@pytest.fixture
def gql(client: httpx.Client) -> GQL:
    """``gql(query, **variables)`` → decoded response body."""

    def run(query: str, **variables: Any) -> dict[str, Any]:
        return post(client, query, variables)

    return run


@pytest.fixture
def serve_app() -> Callable[[FastAPI], Any]:
    """``with serve_app(app) as server:`` serves ``app`` on a free port for the block."""
    return serve


@pytest.fixture
def proxy(seeded_store: ReadStore) -> StoreProxy:
    """A fresh call-counting, failure-injecting proxy of the seeded store."""
    return StoreProxy(seeded_store)


Gql = Callable[[str], dict[str, Any]]


@pytest.fixture
def listings_api(
    store: GraphStore, nlp_fast: Any, tmp_path: Path
) -> Callable[[dict[str, list[dict[str, Any]]]], AbstractContextManager[Gql]]:
    """``with listings_api({"iclr2024.json": records}) as gql:``: each listing written as a
    paperlists file, all ingested into the contract store (``kg ingest``'s job, real pipeline)
    and served; ``gql(query)`` posts through HTTP and returns the decoded body."""

    @contextmanager
    def run(listings: dict[str, list[dict[str, Any]]]) -> Iterator[Gql]:
        paths = []
        for name, records in listings.items():
            path = tmp_path / name
            path.write_text(json.dumps(records), encoding="utf-8")
            paths.append(path)
        assert isinstance(store, ReadStore)
        ingest(paths, store, Pipeline(nlp=nlp_fast), jobs=1)
        with (
            serve(create_app(Settings(), store=store)) as server,
            httpx.Client(base_url=server.url) as client,
        ):
            yield lambda query: post(client, query)

    return run


@pytest.fixture
def post_to() -> Callable[..., dict[str, Any]]:
    """``post_to(client, query, variables)`` → decoded body with ``_status``."""
    return post
