"""The API process answers co-author paths, centrality and communities without a whole-graph
copy: networkx is never even imported by a server that served ``collaborationPath``,
``centralAuthors``, ``centralConcepts`` and ``communities`` (both stores; the analytics are
what ``kg analyze`` stored, computed in another process).

Why a test: the paths used to run in networkx over a projection each API process built and
kept per store version; at paperlists scale that lost most paths and held the graph in every
process. One import of the projection in the path's code would bring it back unnoticed. The
server runs in a fresh process (``kg serve``'s app over the ``KG_*`` settings, under uvicorn)
so that nothing this test process imported counts.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from kg.core.models import Node, PaperRecord, Relationship
from tests.conftest import ROOT, neo4j_uri

PROBE = """
import json, sys, threading, time
import httpx, uvicorn
from api.app import create_app
server = uvicorn.Server(uvicorn.Config(create_app(), host="127.0.0.1", port=0, log_level="warning"))
thread = threading.Thread(target=server.run, daemon=True)
thread.start()
while not server.started:
    time.sleep(0.01)
port = server.servers[0].sockets[0].getsockname()[1]
query = (
    '{ collaborationPath(from: "Author 0", to: "Author 5") { length authors { id } } '
    "centralAuthors(measure: BETWEENNESS, first: 1) { author { id } } "
    "communities { size members { id } } }"
)
body = httpx.post(f"http://127.0.0.1:{port}/graphql", json={"query": query}, timeout=120).json()
server.should_exit = True
thread.join(20)
print(json.dumps({"body": body, "networkx": "networkx" in sys.modules}))
"""


def chain(n: int) -> list[PaperRecord]:
    """Papers ``i`` by authors ``i`` and ``i + 1``: a chain of ``n + 1`` authors."""
    out = []
    for i in range(n):
        pid = f"paper:chain-{i}"
        authors = [
            Node(id=f"author:c{j}", label="Author", properties={"name": f"Author {j}"}) for j in (i, i + 1)
        ]
        rels = [
            Relationship(type="AUTHORED", start=a.id, end=pid, properties={"position": k})
            for k, a in enumerate(authors, start=1)
        ]
        paper = Node(id=pid, label="Paper", properties={"title": f"Chain {i}", "year": 2024})
        out.append(PaperRecord(paper=paper, nodes=authors, relationships=rels))
    return out


def test_paths_and_analytics_are_served_without_networkx(store: Any, tmp_path: Path) -> None:
    from kg.analyze import analyze

    store.upsert(chain(8))
    analyze(store)
    store.flush()
    env = {**os.environ, "KG_REQUEST_TIMEOUT_S": "60"}
    if store.backend_name == "neo4j":
        env |= {"KG_BACKEND": "neo4j", "KG_NEO4J_URI": neo4j_uri()}
        for name in ("USER", "PASSWORD"):  # the test server's credentials, when it has any
            if os.environ.get(f"KG_TEST_NEO4J_{name}"):
                env[f"KG_NEO4J_{name}"] = os.environ[f"KG_TEST_NEO4J_{name}"]
    else:
        env |= {"KG_BACKEND": "sqlite", "KG_DATA_DIR": str(tmp_path / "kg")}
    r = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
    )
    assert r.returncode == 0, r.stderr[-2000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert "errors" not in got["body"], got["body"]["errors"]
    path = got["body"]["data"]["collaborationPath"]
    assert path["length"] == 5
    assert [a["id"] for a in path["authors"]] == [f"author:c{j}" for j in range(6)]
    data = got["body"]["data"]
    assert data["centralAuthors"] == [{"author": {"id": "author:c4"}}]  # the middle of the chain
    assert sum(c["size"] for c in data["communities"]) == 9
    assert got["networkx"] is False
