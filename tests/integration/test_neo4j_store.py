"""The Neo4j backend against a real server: parity with the embedded store, the CLI, crashes.

Needs ``KG_TEST_NEO4J_URI`` (or ``--neo4j``); every test here wipes the database first.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import neo4j
import pytest
from pydantic import SecretStr

from api.cli import main
from extractors.embedding import MODEL_ID
from kg.core.config import Settings
from kg.core.errors import GraphStoreError, StoreUnavailable
from kg.core.models import Node, PaperRecord, Relationship
from kg.core.provisional import phrase_key
from kg.export import to_json
from kg.stores.neo4j import queries as neo4j_queries
from kg.stores.neo4j import vectors as neo4j_vectors
from kg.stores.neo4j.store import Neo4jStore, open_neo4j_store
from kg.stores.sqlite import SQLiteStore

# The same places tests/conftest.py uses (not imported: plain `pytest` has no `tests` package).
ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "listings"
SHARED_DATA = ROOT / "tests" / "data"  # holds a copy of shared/data/iclr2018.jsonl
UNREACHABLE = "bolt://127.0.0.1:1"
START_HINT = "Is the server running? (scripts/neo4j/start, or docker compose up -d neo4j)"


def neo4j_uri() -> str:
    return os.environ.get("KG_TEST_NEO4J_URI", "bolt://127.0.0.1:7687")


def store_flags() -> list[str]:
    """CLI flags naming the test server (credentials only when the test env gives some)."""
    flags = ["--backend", "neo4j", "--neo4j-uri", neo4j_uri()]
    password = os.environ.get("KG_TEST_NEO4J_PASSWORD")
    if password:
        flags += ["--neo4j-user", os.environ.get("KG_TEST_NEO4J_USER", "neo4j"), "--neo4j-password", password]
    return flags


def kg_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "api.cli", *args]


def subprocess_env() -> dict[str, str]:
    # KG_* from the developer's shell must not redirect the child to another store.
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_") or k.startswith("KG_TEST_")}
    return {**env, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def neo4j_store(neo4j_driver: neo4j.Driver) -> Iterator[Neo4jStore]:
    store = Neo4jStore(neo4j_driver)
    store.clear()
    yield store
    store.close()


def duplicates(driver: neo4j.Driver) -> tuple[int, int]:
    """(nodes sharing an id, relationships sharing a (start, type, end) key)."""
    nodes = driver.execute_query(
        "MATCH (n) WHERE n.id IS NOT NULL RETURN count(n) - count(DISTINCT n.id) AS d"
    ).records[0]["d"]
    rels = driver.execute_query(
        # graph relationships only: the read index's key nodes (no id) link many keys to one node
        "MATCH (a)-[r]->(b) WHERE a.id IS NOT NULL AND b.id IS NOT NULL "
        "RETURN count(r) - count(DISTINCT [a.id, type(r), b.id]) AS d"
    ).records[0]["d"]
    return int(nodes), int(rels)


# -- parity ----------------------------------------------------------------------------------------
def test_export_equals_the_embedded_stores(neo4j_store: Neo4jStore, seed_records: list[PaperRecord]) -> None:
    memory = SQLiteStore(None)
    memory.upsert(seed_records)
    neo4j_store.upsert(seed_records[:20])
    neo4j_store.upsert(seed_records[20:])
    # JSON text, so 1 vs 1.0 or a list vs a string would show as a difference
    assert to_json(neo4j_store.export()) == to_json(memory.export())
    assert neo4j_store.counts() == memory.counts()
    for label in ("Concept", "Author"):
        assert neo4j_store.nodes_by_label(label) == memory.nodes_by_label(label)
    ids = [n.id for n in memory.nodes_by_label("Author")] + [n.id for n in memory.nodes_by_label("Paper")]
    for rel_type in ("AUTHORED", "COAUTHOR", "MENTIONS"):
        for direction in ("out", "in", "both"):
            assert neo4j_store.neighbors_many(ids, rel_type, direction) == memory.neighbors_many(
                ids, rel_type, direction
            )


# -- derived pair keys -----------------------------------------------------------------------------
def _plan_operators(driver: neo4j.Driver, stmt: neo4j_queries.Statement) -> list[str]:
    with driver.session() as session:
        plan = session.run("EXPLAIN " + stmt.text, stmt.params).consume().plan
    assert plan is not None
    ops: list[str] = []
    todo: list[dict[str, Any]] = [plan]
    while todo:
        p = todo.pop()
        ops.append(str(p["operatorType"]).split("@")[0])
        todo.extend(p.get("children", []))
    return ops


def test_pair_writes_seek_the_pair_key_and_element_ids(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord], neo4j_driver: neo4j.Driver
) -> None:
    """The point of pair keys: no statement walks a dense node's relationships or scans them all."""
    neo4j_store.upsert(seed_records)
    rows = [[1, "4:x:1", "4:x:2"]]
    for rtype in ("COAUTHOR", "CO_OCCURS"):
        assert "DirectedRelationshipIndexSeek" in _plan_operators(
            neo4j_driver, neo4j_queries.find_pairs(rtype, rows)
        )
        for stmt in (
            neo4j_queries.set_pair_papers(rtype, [["5:x:1", 2]]),
            neo4j_queries.delete_pairs(rtype, ["5:x:1"]),
            neo4j_queries.set_pair_keys(rtype, [["5:x:1", 2]]),
        ):
            ops = _plan_operators(neo4j_driver, stmt)
            assert "DirectedRelationshipByElementIdSeek" in ops, ops
            assert not [op for op in ops if op.endswith("Scan")], ops


def test_a_store_written_before_pair_keys_gets_them_when_opened(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord], neo4j_driver: neo4j.Driver
) -> None:
    memory = SQLiteStore(None)
    memory.upsert(seed_records)
    neo4j_store.upsert(seed_records[:30])
    key = neo4j_queries.PAIR_KEY
    # what an older paperkg wrote: pairs without keys, no marker
    neo4j_driver.execute_query(f"MATCH ()-[r:COAUTHOR|CO_OCCURS]->() REMOVE r.{key}")
    neo4j_driver.execute_query(
        f"MATCH (m:{neo4j_queries.META_LABEL} {{id: $id}}) DELETE m", id=neo4j_queries.PAIR_KEYS_ID
    )
    reopened = Neo4jStore(neo4j_driver)
    missing = neo4j_driver.execute_query(
        f"MATCH (a)-[r:COAUTHOR|CO_OCCURS]->(b) RETURN count(r) AS n, "
        f"count(CASE WHEN r.{key} IS NULL THEN 1 END) AS unkeyed"
    ).records[0]
    assert missing["n"] > 0 and missing["unkeyed"] == 0
    reopened.upsert(seed_records[30:])  # bumps pairs written before the keys
    assert duplicates(neo4j_driver) == (0, 0)
    assert to_json(reopened.export()) == to_json(memory.export())
    marker = neo4j_queries.read_meta(neo4j_queries.PAIR_KEYS_ID)
    assert neo4j_driver.execute_query(marker.text, marker.params).records[0]["value"] == 1


def test_vectors_written_before_they_named_their_model_are_tagged_when_opened(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord], neo4j_driver: neo4j.Driver
) -> None:
    papers = sorted({r.paper.id for r in seed_records})[:2]
    vector = bytes(range(128)) * 3  # 384 int8 values
    neo4j_store.upsert(seed_records)
    assert neo4j_store.put_embeddings([(p, vector) for p in papers]) == 2
    # what an older paperkg wrote: vectors without a model, no marker
    neo4j_driver.execute_query(f"MATCH (e:{neo4j_vectors.EMBEDDING_LABEL}) REMOVE e.model")
    neo4j_driver.execute_query(
        f"MATCH (m:{neo4j_queries.META_LABEL} {{id: $id}}) DELETE m", id=neo4j_vectors.MODELS_ID
    )
    assert neo4j_store.paper_embeddings(papers) == [None, None]  # untagged: not today's model
    reopened = Neo4jStore(neo4j_driver)
    assert reopened.paper_embeddings(papers) == [vector, vector]
    models = neo4j_driver.execute_query(
        f"MATCH (e:{neo4j_vectors.EMBEDDING_LABEL}) RETURN collect(DISTINCT e.model) AS m"
    ).records[0]["m"]
    assert models == [MODEL_ID]
    assert not {p for p, _, _ in reopened.papers_without_embedding(1000)} & set(papers)


def test_keyphrase_rows_written_before_their_lookup_key_get_it_when_opened(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord], neo4j_driver: neo4j.Driver
) -> None:
    memory = SQLiteStore(None)
    memory.upsert(seed_records)
    neo4j_store.upsert(seed_records)
    label = neo4j_queries.KEYPHRASE_LABEL
    # what an older paperkg wrote: rows without key and about, no marker
    neo4j_driver.execute_query(f"MATCH (k:{label}) REMOVE k.key, k.about")
    neo4j_driver.execute_query(
        f"MATCH (m:{neo4j_queries.META_LABEL} {{id: $id}}) DELETE m", id=neo4j_queries.KEYPHRASE_KEYS_ID
    )
    reopened = Neo4jStore(neo4j_driver)
    rows = neo4j_driver.execute_query(
        f"MATCH (k:{label}) RETURN count(k) AS n, "
        "count(CASE WHEN k.key IS NULL OR k.about IS NULL THEN 1 END) AS bare"
    ).records[0]
    assert rows["n"] > 0 and rows["bare"] == 0
    for paper in memory.nodes_by_label("Paper"):
        for kept in memory.paper_keyphrases([paper.id])[0]:
            key = phrase_key(kept.node)
            assert reopened.keyphrase_concepts(key, 10) == memory.keyphrase_concepts(key, 10), key
    marker = neo4j_queries.read_meta(neo4j_queries.KEYPHRASE_KEYS_ID)
    assert neo4j_driver.execute_query(marker.text, marker.params).records[0]["value"] == 1


# -- the CLI ---------------------------------------------------------------------------------------
def test_cli_ingest_twice_changes_nothing_the_second_time(
    neo4j_store: Neo4jStore, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [k for k in os.environ if k.startswith("KG_") and not k.startswith("KG_TEST_")]:
        monkeypatch.delenv(key)
    args = ["ingest", "--no-progress", *store_flags(), str(EXAMPLES)]
    assert main(args) == 0
    assert "58 added, 0 updated, 0 unchanged, 0 skipped" in capsys.readouterr().out
    counts = neo4j_store.counts()
    assert counts.nodes["Paper"] == 58
    assert main(args) == 0
    assert "0 added, 0 updated, 58 unchanged, 0 skipped" in capsys.readouterr().out
    assert neo4j_store.counts() == counts
    assert main(["stats", "--json", *store_flags()]) == 0
    assert json.loads(capsys.readouterr().out) == counts.model_dump()


@pytest.mark.slow  # three CLI ingests of 1,000+ papers into Neo4j: 600 s (the timeout) at load 25
def test_killed_ingest_then_rerun_equals_one_clean_run(
    neo4j_store: Neo4jStore, neo4j_driver: neo4j.Driver
) -> None:
    """SIGKILL an ingest after its first batches committed; re-running completes the same graph."""
    inputs = [str(SHARED_DATA / "iclr2018.jsonl"), str(EXAMPLES)]
    cmd = kg_command("ingest", "--no-progress", "--batch-size", "50", *store_flags(), *inputs)
    env = subprocess_env()
    subprocess.run(cmd, env=env, check=True, capture_output=True, timeout=600)
    clean_counts, clean = neo4j_store.counts(), neo4j_store.export()
    total = clean_counts.nodes["Paper"]
    assert total > 1000

    neo4j_store.clear()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 300
        while neo4j_store.counts().nodes["Paper"] == 0:
            assert proc.poll() is None, "ingest ended before any batch landed"
            assert time.monotonic() < deadline, "no batch landed in time"
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait()
    landed = neo4j_store.counts().nodes["Paper"]
    assert 0 < landed < total, "the ingest was not interrupted part-way"
    assert landed % 50 == 0  # whole batches only

    rerun = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True, timeout=600)
    assert f"{total - landed} added" in rerun.stdout
    assert neo4j_store.counts() == clean_counts
    assert duplicates(neo4j_driver) == (0, 0)
    assert neo4j_store.export() == clean


# -- failures --------------------------------------------------------------------------------------
def test_a_batch_failing_inside_the_server_leaves_the_graph_as_before(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last statements of the transaction (pair bumps) fail after nodes and relationships were written."""
    neo4j_store.upsert(seed_records[:30])
    before = to_json(neo4j_store.export())

    def failing_bump(type_: str, rows: list[dict[str, Any]]) -> neo4j_queries.Statement:
        return neo4j_queries.Statement(
            "UNWIND $rows AS row WITH row WHERE row[2] / 0 = 1 RETURN row", {"rows": rows}
        )

    monkeypatch.setattr(neo4j_queries, "create_pairs", failing_bump)
    monkeypatch.setattr(neo4j_queries, "set_pair_papers", failing_bump)
    with pytest.raises(GraphStoreError, match="/ by zero|[Dd]ivision by zero"):
        neo4j_store.upsert(seed_records[30:])
    monkeypatch.undo()
    assert to_json(neo4j_store.export()) == before
    assert neo4j_store.upsert(seed_records[30:]).added == 28  # and the store still works


def test_a_record_pointing_at_a_missing_node_leaves_the_graph_as_before(
    neo4j_store: Neo4jStore, seed_records: list[PaperRecord]
) -> None:
    neo4j_store.upsert(seed_records[:30])
    before = to_json(neo4j_store.export())
    p = Node(id="paper:orphan", label="Paper", properties={"abstract": "An orphan."})
    bad = PaperRecord(
        paper=p,
        relationships=[Relationship(type="HAS_TOPIC", start=p.id, end="topic:nowhere")],
    )
    with pytest.raises(GraphStoreError, match="topic:nowhere"):
        neo4j_store.upsert([*seed_records[30:], bad])
    assert to_json(neo4j_store.export()) == before


def test_unreachable_server_is_one_clear_line_and_exit_2() -> None:
    proc = subprocess.run(
        kg_command("stats", "--backend", "neo4j", "--neo4j-uri", UNREACHABLE),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"kg stats: error: cannot reach Neo4j at {UNREACHABLE}: ")
    assert lines[0].endswith(START_HINT)
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_unreachable_server_raises_store_unavailable_in_process() -> None:
    with pytest.raises(StoreUnavailable, match="cannot reach Neo4j at bolt://127.0.0.1:1"):
        open_neo4j_store(Settings(backend="neo4j", neo4j_uri=UNREACHABLE))
    driver = neo4j.GraphDatabase.driver(UNREACHABLE)
    try:
        with pytest.raises(StoreUnavailable, match=re.escape(START_HINT)):
            Neo4jStore(driver)
    finally:
        driver.close()


def test_ping_answers_on_a_live_server_and_raises_store_unavailable_once_closed(
    neo4j_driver: neo4j.Driver,
) -> None:
    """``/healthz`` relies on both sides: a live server answers, a store that cannot reach it is
    StoreUnavailable (503), never a driver error."""
    user = os.environ.get("KG_TEST_NEO4J_USER", "neo4j")
    password = os.environ.get("KG_TEST_NEO4J_PASSWORD", "")
    driver = neo4j.GraphDatabase.driver(neo4j_uri(), auth=(user, password) if password else None)
    store = Neo4jStore(driver, owns_driver=True)
    store.ping()  # raises when the store cannot answer (checked below)
    store.close()  # closes its own driver
    with pytest.raises(StoreUnavailable, match="closed"):
        store.ping()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def auth_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A second, throw-away server with auth enabled: ``(bolt uri, password)``.

    Its transactions may hold only 2 MiB (``db.memory.transaction.max``; the seed listings in
    one transaction need more), which the batch-splitting test relies on.

    Started by ``scripts/neo4j/start`` in its own ``NEO4J_HOME`` on free ports, reusing the jars
    of the main server's home when present; stopped at the end of the module.
    """
    home = tmp_path_factory.mktemp("neo4j-auth")
    main_lib = ROOT / ".neo4j" / "lib"
    if (main_lib / ".paperkg-versions").exists():
        for name in ("lib", "plugins"):
            (home / name).symlink_to(ROOT / ".neo4j" / name)
    password = "paperkg-test-password"
    env = {
        **os.environ,
        "NEO4J_HOME": str(home),
        "NEO4J_AUTH": f"neo4j/{password}",
        "NEO4J_BOLT_PORT": str(free_port()),
        "NEO4J_HTTP_PORT": str(free_port()),
        "NEO4J_HEAP_MAX": "512m",
        "NEO4J_PAGECACHE": "32m",
        "NEO4J_CONF_EXTRA": "db.memory.transaction.max=2m",
    }
    started = subprocess.run(
        [str(ROOT / "scripts" / "neo4j" / "start")], env=env, capture_output=True, text=True, timeout=300
    )
    try:
        assert started.returncode == 0, started.stderr[-2000:]
        yield started.stdout.strip().splitlines()[-1], password
    finally:
        subprocess.run([str(ROOT / "scripts" / "neo4j" / "stop")], env=env, capture_output=True, timeout=120)


def test_wrong_password_is_one_clear_line(auth_server: tuple[str, str]) -> None:
    uri, password = auth_server
    proc = subprocess.run(
        kg_command("stats", "--backend", "neo4j", "--neo4j-uri", uri, "--neo4j-password", "not-the-password"),
        env=subprocess_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        f"kg stats: error: Neo4j at {uri} rejected the credentials of user 'neo4j' "
        "(set KG_NEO4J_USER / KG_NEO4J_PASSWORD)"
    )
    good = Settings(backend="neo4j", neo4j_uri=uri, neo4j_password=SecretStr(password))
    store = open_neo4j_store(good)
    try:
        assert store.counts().nodes["Paper"] == 0
    finally:
        store.close()


def test_a_batch_over_the_servers_transaction_memory_is_split_not_lost(
    auth_server: tuple[str, str], seed_records: list[PaperRecord], caplog: pytest.LogCaptureFixture
) -> None:
    uri, password = auth_server
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", password)) as driver:
        store = Neo4jStore(driver, batch_size=500)
        store.clear()
        with caplog.at_level("WARNING", logger="kg.stores.neo4j.store"):
            summary = store.upsert(seed_records)  # one batch: over 2 MiB on the server
        assert (summary.added, summary.updated, summary.unchanged) == (len(seed_records), 0, 0)
        assert "exceeded Neo4j's transaction memory" in caplog.text
        memory = SQLiteStore(None)
        memory.upsert(seed_records)
        assert to_json(store.export()) == to_json(memory.export())
        again = store.upsert(seed_records)
        assert (again.added, again.updated, again.unchanged) == (0, 0, len(seed_records))
        assert duplicates(driver) == (0, 0)
