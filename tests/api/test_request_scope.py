"""One HTTP request reads the Neo4j store's version once (:mod:`kg.stores.request_scope`).

Before, a concept page asked the server for the version several times (the read service,
then each held structure it consulted), one read transaction each. The count
is taken on a real store over the real server: a subclass that counts its own version reads.
"""

from __future__ import annotations

from typing import Any

import httpx
import neo4j
import pytest

from api.app import create_app
from api.execute import execute_query
from kg.core.config import Settings
from kg.stores.neo4j import queries as q
from kg.stores.neo4j.store import Neo4jStore

pytestmark = pytest.mark.neo4j

QUERIES = (
    '{ concept(name: "bandits") { name papers(first: 5) { totalCount nodes { title authors { name } } } } }',
    '{ conceptGraph(concept: "equivariance", minWeight: 2, maxNodes: 20) { rows truncated } }',
)


VERSION = q.read_version().text


class CountingStore(Neo4jStore):
    """A real Neo4j store that counts the times it reads its version from the server."""

    version_reads = 0

    def _read(self, stmt: q.Statement) -> list[neo4j.Record]:
        self.version_reads += stmt.text == VERSION
        return super()._read(stmt)


def test_a_request_reads_the_neo4j_version_once(
    neo4j_driver: Any, seed_records: list[Any], serve_app: Any
) -> None:
    store = CountingStore(neo4j_driver)
    store.upsert(seed_records)  # the seed graph the API tests share: writing it again changes nothing
    app = create_app(Settings(), store=store)
    with serve_app(app) as server, httpx.Client(base_url=server.url) as client:
        for query in QUERIES * 2:
            before = store.version_reads
            response = client.post("/graphql", json={"query": query}, timeout=60)
            body = response.json()
            assert response.status_code == 200 and "errors" not in body, body
            # at most once: the read service keeps a version half a second on Neo4j (api.app)
            assert store.version_reads - before <= 1, (query, store.version_reads - before)
    # Outside a request (`kg query`, ingest) every ask reads afresh: the same concept page asks
    # several times, which is what the request scope spares the server.
    before = store.version_reads
    assert "errors" not in execute_query(QUERIES[0], store=store)
    assert store.version_reads - before > 1
