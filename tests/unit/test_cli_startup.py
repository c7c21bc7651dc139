"""``kg query`` starts without the modules it does not need.

Why: ``kg query`` is a whole process per question, and the issue's bar is 2 s for one at 100k
papers. FastAPI with strawberry's integration (0.5 s) and networkx (0.3 s) were imported by
it and used by nothing it runs; spaCy (1 s) must stay out too. A test, because one import at
the top of a shared module brings them back unnoticed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from kg.stores.sqlite import SQLiteStore
from tests.conftest import ROOT

HEAVY = ("fastapi", "strawberry.fastapi", "networkx", "spacy", "uvicorn")
PROBE = f"""
import atexit, json, runpy, sys
atexit.register(lambda: print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]), file=sys.stderr))
sys.argv = ["kg", "query", "{{ stats {{ nodes {{ label count }} }} }}"]
runpy.run_module("api.cli", run_name="__main__")
"""


def test_kg_query_imports_no_server_graph_or_nlp_library(tmp_path: Path) -> None:
    SQLiteStore(tmp_path / "data").close()  # kg query reads an existing store only
    env = {**os.environ, "KG_DATA_DIR": str(tmp_path / "data"), "KG_BACKEND": "sqlite"}
    r = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 0, r.stderr[-2000:]
    assert json.loads(r.stdout)["data"]["stats"]["nodes"] is not None
    loaded = json.loads(r.stderr.strip().splitlines()[-1])
    assert loaded == [], f"kg query imported {loaded}"
