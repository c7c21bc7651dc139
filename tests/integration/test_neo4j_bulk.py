"""``kg ingest --backend neo4j --bulk`` against a server of its own, which the test stops and starts.

The fixture starts a dedicated server with ``scripts/neo4j/start`` (its own NEO4J_HOME and free
ports), so the import never touches the shared test server. Slow: two restarts and an import.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import neo4j
import pytest

from api.cli import main
from extractors.embedding import MODEL_ID
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.neo4j.bulk import bulk_load
from kg.stores.neo4j.store import Neo4jStore
from kg.stores.neo4j.vectors import EMBEDDING_LABEL

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "listings"
SCRIPTS = ROOT / "scripts" / "neo4j"

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def bulk_server(
    tmp_path_factory: pytest.TempPathFactory, pytestconfig: pytest.Config
) -> Iterator[tuple[Path, str]]:
    """``(home, bolt uri)`` of a server started for this module and stopped after it."""
    if not pytestconfig.getoption("--neo4j"):
        pytest.skip("need --neo4j (or KG_TEST_NEO4J_URI) to run")
    home = tmp_path_factory.mktemp("neo4j-bulk")
    env = {
        **os.environ,
        "NEO4J_HOME": str(home),
        "NEO4J_BOLT_PORT": str(free_port()),
        "NEO4J_HTTP_PORT": str(free_port()),
        "NEO4J_PYTHON": sys.executable,
    }
    env.pop("NEO4J_AUTH", None)
    started = subprocess.run([str(SCRIPTS / "start")], env=env, capture_output=True, text=True, check=False)
    assert started.returncode == 0, started.stderr[-2000:]
    uri = started.stdout.strip().splitlines()[-1]
    try:
        yield home, uri
    finally:
        subprocess.run([str(SCRIPTS / "stop")], env=env, capture_output=True, check=False)


def internal_state(driver: neo4j.Driver) -> tuple[list[object], ...]:
    """What ``export()`` leaves out: the read index (internal properties, key nodes) and the
    keyphrase rows of provisional concepts, sorted."""
    props = driver.execute_query(
        "MATCH (n:__KGNode__) RETURN n.id AS id, properties(n) AS p ORDER BY id"
    ).records
    keys = driver.execute_query(
        "MATCH (k:__KGKey)-[r:__KEY_OF]->(n) RETURN k.key AS k, k.rkey AS rk, r.rank AS rank, n.id AS id "
        "ORDER BY k, id"
    ).records
    phrases = driver.execute_query(
        "MATCH (k:__KGKeyphrase__) RETURN k.id AS id, k.concept AS c, k.paper AS p, k.node AS n, k.rel AS r "
        "ORDER BY id"
    ).records
    return tuple([tuple(r.values()) for r in rows] for rows in (props, keys, phrases))


def kg(home: Path, uri: str, *args: str, monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setenv("KG_NEO4J_HOME", str(home))
    for key in ("KG_NEO4J_USER", "KG_NEO4J_PASSWORD", "KG_NEO4J_DATABASE"):
        monkeypatch.delenv(key, raising=False)
    return main(["ingest", "--no-progress", "--backend", "neo4j", "--neo4j-uri", uri, *args])


def test_bulk_import_equals_transactional_ingest(
    bulk_server: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home, uri = bulk_server
    with neo4j.GraphDatabase.driver(uri) as driver:
        Neo4jStore(driver).clear()
        before = Neo4jStore(driver).version()
    assert kg(home, uri, "--bulk", str(EXAMPLES), monkeypatch=monkeypatch) == 0
    out = capsys.readouterr().out
    assert "bulk import: " in out and "papers" in out

    with neo4j.GraphDatabase.driver(uri) as driver:
        store = Neo4jStore(driver)
        bulk = store.export()
        bulk_internal = internal_state(driver)
        assert bulk_internal[1] and bulk_internal[2]  # key nodes and keyphrase rows were imported
        assert store.version() == before + 1  # monotonic across the import
        assert bulk.nodes and any(r.type == "CO_OCCURS" for r in bulk.relationships)
        kinds = driver.execute_query(
            "MATCH (n:Concept) WHERE n.kind <> 'CONCEPT' "
            "RETURN count(n) AS all, count(CASE WHEN size(labels(n)) = 3 THEN 1 END) AS labelled"
        ).records[0]
        assert kinds["all"] > 0 and kinds["all"] == kinds["labelled"]
        leftover = driver.execute_query(
            "MATCH (n) WHERE any(l IN labels(n) WHERE l STARTS WITH '__KGFix') RETURN count(n) AS n"
        ).records[0]["n"]
        assert leftover == 0
        online = driver.execute_query("SHOW INDEXES YIELD state RETURN collect(DISTINCT state) AS s").records
        assert online[0]["s"] == ["ONLINE"]
        assert {"paperkg_node_id", "paperkg_meta_id"} <= {
            r["name"] for r in driver.execute_query("SHOW CONSTRAINTS YIELD name").records
        }
        hits = store.search("graph neural networks", limit=3)  # the fulltext index answers
        assert hits
        # The workers embedded every paper and the import wrote the vectors, in the vector index.
        papers = sorted(n.id for n in bulk.nodes if n.label == "Paper")
        bulk_vectors = store.paper_embeddings(papers)
        assert all(v is not None for v in bulk_vectors)
        models = driver.execute_query(
            f"MATCH (e:{EMBEDDING_LABEL}) RETURN collect(DISTINCT e.model) AS m, count(e) AS n"
        ).records[0]
        assert models["m"] == [MODEL_ID] and models["n"] == len(papers)  # each names its model
        assert [pid for pid, _score in store.nearest_papers(bulk_vectors[0] or b"", 1)] == papers[:1]

        # The same files through the transactional store give the same graph.
        store.clear()
    assert kg(home, uri, str(EXAMPLES), monkeypatch=monkeypatch) == 0
    with neo4j.GraphDatabase.driver(uri) as driver:
        assert Neo4jStore(driver).export() == bulk
        assert internal_state(driver) == bulk_internal  # reads answer alike after either load
        assert Neo4jStore(driver).paper_embeddings(papers) == bulk_vectors  # the same vectors too

    # Not empty any more: refused with one line, before anything is stopped.
    assert kg(home, uri, "--bulk", str(EXAMPLES), monkeypatch=monkeypatch) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("kg ingest: error: --bulk loads only into an empty database")
    with neo4j.GraphDatabase.driver(uri) as driver:
        assert Neo4jStore(driver).export() == bulk


def test_bulk_refuses_a_uri_that_is_not_the_home_server(
    bulk_server: tuple[Path, str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    home, _uri = bulk_server
    assert kg(home, "bolt://127.0.0.1:1", "--bulk", str(EXAMPLES), monkeypatch=monkeypatch) == 2
    assert "KG_NEO4J_URI is bolt://127.0.0.1:1" in capsys.readouterr().err


def test_values_with_line_breaks_import_as_written(bulk_server: tuple[Path, str]) -> None:
    """Files holding a value with a line break are the only ones the importer parses as
    multiline (``bulk_csv.multiline_args``); the others are split between its threads. Both
    kinds in one import give the transactional store's graph."""
    home, uri = bulk_server
    records = [
        PaperRecord(
            paper=Node(id=f"paper:{i}", label="Paper", properties={"title": title, "year": 2026}),
            nodes=[Node(id=f"author:{i}", label="Author", properties={"name": f"Ada {i}"})],
            relationships=[Relationship(type="AUTHORED", start=f"author:{i}", end=f"paper:{i}")],
        )
        for i, title in enumerate(["One line", "Two\nlines", 'A "quoted"\r\nCRLF line'])
    ]
    with neo4j.GraphDatabase.driver(uri) as driver:
        Neo4jStore(driver).clear()
    bulk_load(records, Settings(neo4j_uri=uri), home=home)
    with neo4j.GraphDatabase.driver(uri) as driver:
        store = Neo4jStore(driver)
        bulk = store.export()
        titles = {n.properties["title"] for n in bulk.nodes if n.label == "Paper"}
        assert titles == {"One line", "Two\nlines", 'A "quoted"\r\nCRLF line'}
        store.clear()
        store.upsert(records)
        assert store.export() == bulk
