"""Reads follow the store: an ingest elsewhere and a property-only change show up at once.

Both go through real HTTP; the first through two real processes (``kg serve`` and ``kg ingest``)
sharing one SQLite file, as a user runs them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import Node, PaperRecord, Relationship
from kg.stores.sqlite import SQLiteStore
from tests.api.test_serve_workers import EXAMPLES, ROOT, free_port

COUNT = "{ stats { nodes { label count } } }"


def _papers(body: dict[str, Any]) -> int:
    count = next(n["count"] for n in body["data"]["stats"]["nodes"] if n["label"] == "Paper")
    assert isinstance(count, int), body
    return count


@pytest.mark.slow  # two real ingests (spaCy) and a kg serve process: 62 s at load 20
def test_serve_sees_an_ingest_from_another_process_within_2_s(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("KG_")}
    env |= {"PYTHONPATH": str(ROOT), "KG_DATA_DIR": str(tmp_path / "kg")}
    kg = [sys.executable, "-m", "api.cli"]
    subprocess.run([*kg, "ingest", "--no-progress", str(EXAMPLES)], env=env, check=True, timeout=300)
    port = free_port()
    server = subprocess.Popen(
        [*kg, "serve", "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    extra = tmp_path / "more.jsonl"
    extra.write_text(
        "\n".join(
            json.dumps({"title": f"Live paper {i}", "abstract": f"We study live updates {i}."})
            for i in range(7)
        )
        + "\n",
        encoding="utf-8",
    )
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as c:
            deadline = time.monotonic() + 60
            while True:
                try:
                    before = _papers(c.post("/graphql", json={"query": COUNT}).json())
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "kg serve did not start"
                    time.sleep(0.2)
            subprocess.run([*kg, "ingest", "--no-progress", str(extra)], env=env, check=True, timeout=300)
            ingested = time.monotonic()
            while _papers(c.post("/graphql", json={"query": COUNT}).json()) != before + 7:
                assert time.monotonic() - ingested < 2.0, "the new papers did not show within 2 s"
                time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_property_only_update_is_visible_to_the_next_request(tmp_path: Path, serve_app: Any) -> None:
    """A new alias changes no node or relationship count: the old count-based cache key missed
    it. The store version is bumped by every write, so the response cache and the service's
    caches move on."""
    store = SQLiteStore(tmp_path)
    paper = Node(id="paper:x", label="Paper", properties={"title": "X", "abstract": "About X."})
    concept = Node(id="concept:xyz", label="Concept", properties={"name": "xyz method", "aliases": []})
    rel = Relationship(type="MENTIONS", start="paper:x", end="concept:xyz", properties={"score": 1.0})
    store.upsert([PaperRecord(paper=paper, nodes=[concept], relationships=[rel])])
    query = '{ concept(name: "Zed Trick") { name aliases } }'
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        assert c.post("/graphql", json={"query": query}).json()["data"]["concept"] is None
        renamed = concept.model_copy(update={"properties": {"name": "xyz method", "aliases": ["Zed Trick"]}})
        store.upsert([PaperRecord(paper=paper, nodes=[renamed], relationships=[rel])])
        assert c.post("/graphql", json={"query": query}).json()["data"]["concept"] == {
            "name": "xyz method",
            "aliases": ["Zed Trick"],
        }
