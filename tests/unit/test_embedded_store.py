"""The embedded store's own promises: atomic persistence and surviving interrupted ingests."""

from __future__ import annotations

import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kg.errors import GraphStoreError
from kg.networkx_store import GRAPH_FILE, NetworkXStore
from tests.conftest import EXAMPLES


def test_flush_is_atomic_when_writing_fails(
    tmp_path: Path, seed_records: list[Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = NetworkXStore(tmp_path)
    store.upsert(seed_records[:5])
    store.flush()
    before = (tmp_path / GRAPH_FILE).read_bytes()
    store.upsert(seed_records[5:])

    def broken_dump(obj: object, fh: Any, protocol: int | None = None) -> None:
        fh.write(b"half a graph")
        raise OSError("disk full")

    monkeypatch.setattr(pickle, "dump", broken_dump)
    with pytest.raises(OSError, match="disk full"):
        store.flush()
    monkeypatch.undo()
    assert (tmp_path / GRAPH_FILE).read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [GRAPH_FILE]  # no temp file left behind
    assert NetworkXStore(tmp_path).counts().nodes["Paper"] == 5


def test_reload_gives_the_same_graph(tmp_path: Path, seed_records: list[Any]) -> None:
    store = NetworkXStore(tmp_path)
    store.upsert(seed_records)
    store.close()
    again = NetworkXStore(tmp_path)
    assert again.export() == store.export()


def test_corrupt_graph_file_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / GRAPH_FILE).write_bytes(b"not a pickle")
    with pytest.raises(GraphStoreError, match=f"cannot load the graph from {tmp_path / GRAPH_FILE}"):
        NetworkXStore(tmp_path)


def test_killed_ingest_leaves_the_previous_graph_loadable(tmp_path: Path) -> None:
    """SIGKILL an ingest of a large file while it works: the old graph must still load."""
    data = tmp_path / "kg"
    env = {**os.environ, "KG_DATA_DIR": str(data)}
    kg = [sys.executable, "-m", "kg.cli"]
    subprocess.run([*kg, "ingest", "--no-progress", str(EXAMPLES)], env=env, check=True, capture_output=True)
    before = subprocess.run([*kg, "stats", "--json"], env=env, check=True, capture_output=True, text=True)
    big = tmp_path / "big.jsonl"
    with big.open("w", encoding="utf-8") as fh:
        for i in range(60_000):
            fh.write(json.dumps({"title": f"Paper {i}", "abstract": f"We study bandits number {i}."}) + "\n")
    proc = subprocess.Popen([*kg, "ingest", "--no-progress", str(big)], env=env)
    time.sleep(4.0)
    assert proc.poll() is None, "ingest finished before it could be interrupted"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    after = subprocess.run([*kg, "stats", "--json"], env=env, check=True, capture_output=True, text=True)
    assert json.loads(after.stdout) == json.loads(before.stdout)
    assert sorted(p.name for p in data.iterdir()) == [GRAPH_FILE] or all(
        p.name == GRAPH_FILE or p.name.startswith(".graph-") for p in data.iterdir()
    )
