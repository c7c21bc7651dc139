"""One HTTP request reads the Neo4j store's version once (:mod:`kg.stores.request_scope`).

Before, a concept page asked the server for the version several times (the read service,
then each held structure it consulted), one read transaction each. The count is taken on the
seeded Neo4j store the API tests share (read only: nothing is written), by counting the version
statements its own read plumbing sends to the real server.
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

QUERIES = (
    '{ concept(name: "bandits") { name papers(first: 5) { totalCount nodes { title authors { name } } } } }',
    '{ conceptGraph(concept: "equivariance", minWeight: 2, maxNodes: 20) { rows truncated } }',
)
VERSION = q.read_version().text
pytestmark = pytest.mark.neo4j


@pytest.mark.parametrize("seeded_store", ["neo4j"], indirect=True)
def test_a_request_reads_the_neo4j_version_once(
    seeded_store: Neo4jStore, serve_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = seeded_store
    reads = [0]
    plain = store._read

    def counting(stmt: q.Statement) -> list[neo4j.Record]:
        reads[0] += stmt.text == VERSION
        return plain(stmt)

    monkeypatch.setattr(store, "_read", counting)
    app = create_app(Settings(), store=store)
    with serve_app(app) as server, httpx.Client(base_url=server.url) as client:
        for query in QUERIES * 2:
            before = reads[0]
            response = client.post("/graphql", json={"query": query}, timeout=60)
            body = response.json()
            assert response.status_code == 200 and "errors" not in body, body
            assert body["data"], body
            # at most once: the read service keeps a version half a second on Neo4j (api.app)
            assert reads[0] - before <= 1, (query, reads[0] - before)
    # Outside a request (`kg query`, ingest) every ask reads afresh: the same concept page asks
    # several times, which is what the request scope spares the server.
    before = reads[0]
    assert "errors" not in execute_query(QUERIES[0], store=store)
    assert reads[0] - before > 1
