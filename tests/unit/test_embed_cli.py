"""``kg ingest`` embeds by default, ``--no-embed`` skips it, ``kg embed`` fills in what is
missing and then finds nothing to do; a re-ingest changes nothing (real SQLite store, real model)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from api.cli import main
from kg.stores.sqlite import SQLiteStore

PAPERS = [
    {"title": "Diffusion policy for robot arms", "abstract": "We learn visuomotor policies by denoising."},
    {"title": "Graph networks for molecules", "abstract": "Message passing predicts molecular properties."},
    {"title": "Bandits with side information", "abstract": "Contextual bandits with linear payoffs."},
]


def _listing(tmp_path: Path) -> Path:
    path = tmp_path / "papers.jsonl"
    path.write_text("".join(json.dumps(p) + "\n" for p in PAPERS), encoding="utf-8")
    return path


def _missing(data: Path) -> int:
    store = SQLiteStore(data)
    try:
        return len(store.papers_without_embedding(100))
    finally:
        store.close()


def test_no_embed_then_kg_embed(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data, listing = tmp_path / "kg", _listing(tmp_path)
    assert (
        main(["ingest", "--no-progress", "--jobs", "1", "--no-embed", "--data-dir", str(data), str(listing)])
        == 0
    )
    assert _missing(data) == 3
    capsys.readouterr()
    assert main(["embed", "--threads", "1", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("3 paper(s) embedded in ")
    assert _missing(data) == 0
    assert main(["embed", "--threads", "1", "--data-dir", str(data)]) == 0
    assert capsys.readouterr().out.startswith("0 paper(s) embedded in ")
    # an ingest with embeddings (the default) of the same papers changes nothing
    store = SQLiteStore(data)
    version = store.version()
    store.close()
    assert main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(data), str(listing)]) == 0
    assert "0 added, 0 updated, 3 unchanged" in capsys.readouterr().out
    store = SQLiteStore(data)
    assert store.version() == version
    store.close()


def test_ingest_embeds_by_default(tmp_path: Path) -> None:
    data = tmp_path / "kg"
    assert (
        main(["ingest", "--no-progress", "--jobs", "1", "--data-dir", str(data), str(_listing(tmp_path))])
        == 0
    )
    assert _missing(data) == 0
