"""The embedded SQLite store's own promises: concurrent writers, no code execution, crash safety."""

from __future__ import annotations

import json
import os
import pickle
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from extractors.embedding import MODEL_ID
from kg.core.errors import GraphStoreError
from kg.core.models import Node, PaperRecord
from kg.stores.protocol import RELEVANCE_RULE, PaperQuery, link_relevance
from kg.stores.sqlite import DB_FILE, SQLiteStore, vectors
from kg.stores.sqlite.schema import loads
from kg.stores.sqlite.store import retry_busy

KG = [sys.executable, "-m", "api.cli"]


def _listing(path: Path, prefix: str, n: int) -> Path:
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            record = {
                "title": f"{prefix} study {i}",
                "abstract": f"We study {prefix} bandits in setting number {i} with regret bounds.",
                "authors": [f"{prefix.title()} Author{i % 37}", f"Shared Person{i % 5}"],
                "venue": "ICLR",
                "year": 2020 + i % 5,
            }
            fh.write(json.dumps(record) + "\n")
    return path


def _run(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*KG, *args], env=env, capture_output=True, text=True, timeout=600)


def test_reopening_gives_the_same_graph(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    before = store.export()
    store.close()
    again = SQLiteStore(tmp_path)
    assert again.export() == before
    assert again.upsert(seed_records).unchanged == len(seed_records)


def test_version_is_bumped_only_by_changes(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    assert store.version() == 0
    store.upsert(seed_records[:3])
    v1 = store.version()
    store.upsert(seed_records[:3])  # nothing new: no write, same version
    assert store.version() == v1 > 0
    other = SQLiteStore(tmp_path)  # another connection (another process would see the same)
    store.upsert(seed_records[3:6])
    assert other.version() > v1


def test_a_failed_batch_leaves_nothing_behind(tmp_path: Path, seed_records: list[Any]) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records[:2])
    before = store.export()
    broken = seed_records[2].model_copy(deep=True)
    broken.relationships[0].end = "concept:not-in-this-batch-or-store"
    with pytest.raises(GraphStoreError, match="refers to unknown node"):
        store.upsert([seed_records[3], broken])
    assert store.export() == before


def test_corrupt_store_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / DB_FILE).write_bytes(b"not a database" * 100)
    with pytest.raises(GraphStoreError, match="is damaged: the file does not start with the SQLite header"):
        SQLiteStore(tmp_path)


class _Exploit:
    """Unpickling this creates a file: proof that a pickle was loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        return (Path.touch, (self.marker,))


def test_a_crafted_graph_pickle_is_never_loaded(tmp_path: Path) -> None:
    data = tmp_path / "kg"
    data.mkdir()
    marker = tmp_path / "pwned"
    (data / "graph.pickle").write_bytes(pickle.dumps({"format": 1, "graph": _Exploit(marker)}))
    env = {**os.environ, "KG_DATA_DIR": str(data)}
    for command in (["stats"], ["query", "{ stats { nodes { label count } } }"], ["export"]):
        done = _run(*command, env=env)
        assert done.returncode == 0, done.stderr
        assert "graph.pickle is a graph from an older paperkg and is ignored" in done.stderr
        assert "re-ingest" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert not marker.exists(), "the pickle was unpickled"


@pytest.mark.slow
def test_two_concurrent_ingests_both_land_completely(tmp_path: Path) -> None:
    a = _listing(tmp_path / "a.jsonl", "alpha", 300)
    b = _listing(tmp_path / "b.jsonl", "beta", 300)
    # transactions of 10 papers, so the two writers' commits interleave
    env = {
        **os.environ,
        "KG_DATA_DIR": str(tmp_path / "kg"),
        "KG_BATCH_SIZE": "10",
        "KG_WRITE_BATCH_SIZE": "10",
    }
    procs = [
        subprocess.Popen([*KG, "ingest", "--no-progress", str(f)], env=env, stdout=subprocess.PIPE, text=True)
        for f in (a, b)
    ]
    outs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert all("300 added" in out for out in outs), outs
    stats = json.loads(_run("stats", "--json", env=env).stdout)
    assert stats["nodes"]["Paper"] == 600
    # the shared authors' co-authorship weights count the papers of both ingests
    con = sqlite3.connect(tmp_path / "kg" / DB_FILE)
    total = con.execute("SELECT SUM(weight) FROM rels WHERE type = 'COAUTHOR'").fetchone()[0]
    assert total == 600  # every paper has two distinct authors: one pair each


def _processes_with(arg: str) -> list[int]:
    """Live processes whose command line holds ``arg`` (from /proc)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().split(b"\0")
            state = (entry / "stat").read_text().split()[2]
        except OSError:
            continue
        if arg.encode() in cmdline and state != "Z":
            out.append(int(entry.name))
    return out


@pytest.mark.slow  # a real ingest of 4,000 papers, killed and rerun: 224 s at load 23 (the mark
# stood on the helper above, where it marked nothing)
def test_a_killed_ingest_leaves_whole_batches(tmp_path: Path) -> None:
    """SIGKILL an ingest mid-way: the store opens, passes SQLite's integrity check, and holds a
    whole number of committed batches; a rerun completes it."""
    big = _listing(tmp_path / "big.jsonl", "gamma", 4000)
    env = {
        **os.environ,
        "KG_DATA_DIR": str(tmp_path / "kg"),
        "KG_BATCH_SIZE": "50",
        "KG_WRITE_BATCH_SIZE": "50",
        "KG_JOBS": "2",
    }
    proc = subprocess.Popen([*KG, "ingest", "--no-progress", str(big)], env=env)
    db = tmp_path / "kg" / DB_FILE
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        time.sleep(0.5)
        if db.exists() and SQLiteStore(tmp_path / "kg").counts().nodes["Paper"] >= 100:
            break
    assert proc.poll() is None, "ingest finished before it could be interrupted"
    workers = _processes_with(str(big))
    assert len(workers) >= 2, "expected extraction workers beside the ingest process"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    # its extraction workers die with it (kg/ingest/extract_pool.py), none is left waiting forever
    gone = time.monotonic() + 10
    while _processes_with(str(big)) and time.monotonic() < gone:
        time.sleep(0.1)
    assert not _processes_with(str(big))
    store = SQLiteStore(tmp_path / "kg")
    papers = store.counts().nodes["Paper"]
    assert 0 < papers < 4000 and papers % 50 == 0
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    done = _run("ingest", "--no-progress", str(big), env=env)
    assert done.returncode == 0 and f"{4000 - papers} added" in done.stdout, done.stdout


@pytest.mark.slow  # real ingests of 3,000 papers: 208 s at load 23
def test_a_full_disk_is_one_clear_line_and_exit_2_and_keeps_the_store(tmp_path: Path) -> None:
    """The ingest process may write files of at most 1 MB (``RLIMIT_FSIZE``: the kernel then
    fails writes with EFBIG, as a full disk fails them with ENOSPC), so the store fills up
    mid-ingest. It must end with exit 2 and one line, no traceback; the store keeps whole
    batches and passes SQLite's integrity check; without the limit a rerun completes it."""
    import resource

    big = _listing(tmp_path / "big.jsonl", "delta", 3000)
    env = {
        **os.environ,
        "KG_DATA_DIR": str(tmp_path / "kg"),
        "KG_BATCH_SIZE": "50",
        "KG_WRITE_BATCH_SIZE": "50",  # transactions of 50 papers: several fit in 1 MB
        "KG_JOBS": "1",
    }

    def small_files() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a failed write, not a killed process
        resource.setrlimit(resource.RLIMIT_FSIZE, (1_000_000, 1_000_000))

    full = subprocess.run(
        [*KG, "ingest", "--no-progress", str(big)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        preexec_fn=small_files,
    )
    assert full.returncode == 2, (full.returncode, full.stdout, full.stderr)
    assert "Traceback" not in full.stderr and len(full.stderr.strip().splitlines()) == 1, full.stderr
    assert "free some space" in full.stderr, full.stderr
    db = tmp_path / "kg" / DB_FILE
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    con.close()
    papers = SQLiteStore(tmp_path / "kg").counts().nodes["Paper"]
    assert 0 < papers < 3000 and papers % 50 == 0, papers
    done = _run("ingest", "--no-progress", str(big), env=env)
    assert done.returncode == 0 and f"{3000 - papers} added" in done.stdout, done.stdout


def _counted(db: Path) -> tuple[dict[str, int], dict[str, int]]:
    """Counts straight from the tables (what the trigger-kept counts must equal)."""
    con = sqlite3.connect(db)
    try:
        nodes = dict(con.execute("SELECT label, COUNT(*) FROM nodes GROUP BY label").fetchall())
        rels = dict(con.execute("SELECT type, COUNT(*) FROM rels GROUP BY type").fetchall())
    finally:
        con.close()
    return nodes, rels


def _nonzero(counts: dict[str, int]) -> dict[str, int]:
    return {k: v for k, v in counts.items() if v}


def test_kept_counts_equal_the_tables_through_writes_replaces_and_clears(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    store = SQLiteStore(tmp_path)
    db = tmp_path / DB_FILE
    store.upsert(seed_records[:20])
    store.upsert(seed_records)  # overlaps: merges, REPLACEd relationships, pair bumps
    counts = store.counts()
    nodes, rels = _counted(db)
    assert _nonzero(counts.nodes) == nodes and _nonzero(counts.relationships) == rels
    assert counts.nodes["Paper"] == 58
    store.clear()
    assert not _nonzero(store.counts().nodes) and not _nonzero(store.counts().relationships)
    store.upsert(seed_records)
    assert (_nonzero(store.counts().nodes), _nonzero(store.counts().relationships)) == _counted(db)
    store.close()


def _written_then_downgraded(tmp_path: Path, records: list[Any], statements: list[str]) -> tuple[Any, Any]:
    """Write ``records`` into a store under ``tmp_path``, close it, and run ``statements`` on its
    file, undoing what a later paperkg added; the export and counts before the downgrade."""
    store = SQLiteStore(tmp_path)
    store.upsert(records)
    before = store.export(), store.counts()
    store.close()
    con = sqlite3.connect(tmp_path / DB_FILE)
    for statement in statements:
        con.execute(statement)
    con.commit()
    con.close()
    return before


def test_a_store_without_kept_counts_gets_them_when_opened(tmp_path: Path, seed_records: list[Any]) -> None:
    """Stores written before the counts table existed (same format) are backfilled once."""
    triggers = ("count_node_in", "count_node_out", "count_rel_in", "count_rel_out")
    _, expected = _written_then_downgraded(
        tmp_path, seed_records, [*(f"DROP TRIGGER {t}" for t in triggers), "DROP TABLE counts"]
    )
    reopened = SQLiteStore(tmp_path)
    assert reopened.counts() == expected
    reopened.close()


def test_vectors_from_before_they_named_their_model_are_tagged_when_opened(
    tmp_path: Path, seed_records: list[Any]
) -> None:
    """Until they are tagged (a read-only open cannot), those vectors read as today's model's;
    the first writable open tags them so, and a later model sees them as missing."""
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    papers = sorted({r.paper.id for r in seed_records})[:2]
    vector = bytes(range(128)) * 3  # 384 int8 values
    assert store.put_embeddings([(p, vector) for p in papers]) == 2
    store.close()
    with sqlite3.connect(tmp_path / DB_FILE) as con:
        con.execute("ALTER TABLE embeddings DROP COLUMN model")
    read_only = sqlite3.connect(f"file:{tmp_path / DB_FILE}?mode=ro", uri=True)
    assert vectors.vectors_of(read_only, papers) == [vector, vector]
    assert len(vectors.read_matrix(read_only).ids) == 2
    read_only.close()
    again = SQLiteStore(tmp_path)
    assert again.paper_embeddings(papers) == [vector, vector]
    assert set(again._reader().execute("SELECT model FROM embeddings").fetchall()) == {(MODEL_ID,)}
    assert not {p for p, _, _ in again.papers_without_embedding(1000)} & set(papers)
    again.close()


def test_an_older_store_gets_the_later_indexes_when_opened(tmp_path: Path, seed_records: list[Any]) -> None:
    from kg.stores.sqlite.schema import LATER_INDEXES

    before, _ = _written_then_downgraded(
        tmp_path,
        seed_records,
        [
            *(f"DROP INDEX {name}" for name, _, _ in LATER_INDEXES),
            'CREATE INDEX rels_by_end ON rels ("end", type, start)',  # what format 1 shipped
            'CREATE INDEX rels_by_weight ON rels (type, weight DESC, start, "end") WHERE weight IS NOT NULL',
        ],
    )
    again = SQLiteStore(tmp_path)
    names = {r[0] for r in again._reader().execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {name for name, _, _ in LATER_INDEXES} <= names
    assert not names & {"rels_by_end", "rels_by_weight"}
    assert again.export() == before
    assert again.upsert(seed_records).unchanged == len(seed_records)


def _by_relevance(store: SQLiteStore) -> list[list[str]]:
    """Every concept's papers by relevance (including passing mentions): what ``rels.rank`` decides."""
    concepts = store.list_concepts(None, None, "PAPER_COUNT", 0, 10_000).ids
    query = [PaperQuery(concepts=(c,), order="RELEVANCE") for c in concepts]
    return [store.papers(q, 0, 1000).ids for q in query]


@pytest.mark.parametrize(
    "downgrade",
    [
        # written before the column: no index holding it, no column
        ["DROP INDEX rels_by_end_about_rank", "ALTER TABLE rels DROP COLUMN rank"],
        # ranked by another rule (every rank wrong) and said so in meta
        ["UPDATE rels SET rank = -rank", "INSERT INTO meta VALUES ('rank_rule', 99)"],
    ],
    ids=["no rank column", "another rank rule"],
)
def test_a_store_ranked_by_no_or_another_rule_is_ranked_again_when_opened(
    tmp_path: Path, seed_records: list[Any], downgrade: list[str]
) -> None:
    store = SQLiteStore(tmp_path)
    store.upsert(seed_records)
    ranked = _by_relevance(store)
    store.close()
    con = sqlite3.connect(tmp_path / DB_FILE)
    for statement in downgrade:
        con.execute(statement)
    con.commit()
    con.close()
    again = SQLiteStore(tmp_path)
    rows = again._reader().execute(
        "SELECT type, props, rank FROM rels WHERE type IN ('MENTIONS', 'INTRODUCES')"
    )
    assert all(rank == link_relevance(t, loads(props)) for t, props, rank in rows)
    meta = dict(again._reader().execute("SELECT key, value FROM meta").fetchall())
    assert meta["rank_rule"] == RELEVANCE_RULE
    assert _by_relevance(again) == ranked
    assert sum(len(ids) for ids in ranked) > 50  # the seed concepts hold papers to order
    again.close()


def test_a_writer_told_busy_without_waiting_runs_its_transaction_again(tmp_path: Path) -> None:
    """SQLite answers SQLITE_BUSY without calling the busy handler when waiting could deadlock;
    the store must then roll back and try again, not lose the batch (CI lost one of two
    concurrent ingests that way). A busy timeout of 0 makes every wait such an answer."""
    store = SQLiteStore(tmp_path / "kg")
    store._conn.execute("PRAGMA busy_timeout = 0")
    other = sqlite3.connect(tmp_path / "kg" / DB_FILE, isolation_level=None, check_same_thread=False)
    other.execute("BEGIN IMMEDIATE")  # another writer holds the write lock ...
    threading.Timer(0.3, lambda: other.execute("COMMIT")).start()  # ... for 0.3 s
    paper = Node(id="paper:p1", label="Paper", properties={"title": "p1", "titleSource": "LISTING"})
    t0 = time.perf_counter()
    summary = store.upsert([PaperRecord(paper=paper, nodes=[], relationships=[])])
    assert time.perf_counter() - t0 >= 0.25
    assert summary.added == 1
    assert store.get_nodes(["paper:p1"])[0] is not None
    other.close()
    store.close()


def test_busy_retries_give_up_after_the_timeout_with_sqlites_error() -> None:
    calls: list[float] = []

    def busy() -> None:
        calls.append(time.perf_counter())
        raise sqlite3.OperationalError("database is locked")

    with pytest.raises(sqlite3.OperationalError, match="locked"):
        retry_busy(busy, timeout_s=0.2)
    assert len(calls) > 3 and calls[-1] - calls[0] >= 0.15

    def broken() -> None:
        calls.append(time.perf_counter())
        raise sqlite3.OperationalError("no such table: x")

    calls.clear()
    with pytest.raises(sqlite3.OperationalError, match="no such table"):
        retry_busy(broken)
    assert len(calls) == 1  # any other error is raised at once


def test_a_folder_given_as_text_opens_the_same_store(tmp_path: Path) -> None:
    """Scripts and notebooks pass the data folder as a string first; it names the same store as
    the ``Path`` the CLI passes (it was a ``TypeError`` on ``data_dir / DB_FILE``)."""
    store = SQLiteStore(tmp_path)
    store.upsert([PaperRecord(paper=Node(id="paper:a", label="Paper", properties={"title": "A"}))])
    store.close()
    again = SQLiteStore(str(tmp_path))
    try:
        assert again.path == str(tmp_path / DB_FILE)
        assert [n.id for n in again.nodes_by_label("Paper")] == ["paper:a"]
    finally:
        again.close()
