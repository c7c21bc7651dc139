"""Paper embeddings in both stores: stored with the paper, re-ingest-stable, filled in later,
and nearest neighbours equal to a brute-force ranking computed here from the records' bytes.

Real parts: the shipped model embeds the first papers of ``tests/data/iclr2018.jsonl`` (the
real pipeline), the ``store`` fixture is a SQLite file and, with ``--neo4j``, a real Neo4j
(whose vector index is approximate in general; at this size it is exact).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from extractors.embedding import DIMENSIONS, Embedder, from_blob
from kg.core.models import PaperRecord
from kg.ingest.pipeline import Pipeline
from kg.readers import read_file

DATA = Path(__file__).parents[1] / "data" / "iclr2018.jsonl"
PAPERS = 30


@pytest.fixture(scope="module")
def records(nlp_fast: Any) -> list[PaperRecord]:
    raws = read_file(DATA, max_records=PAPERS).papers
    built, problems = Pipeline(nlp=nlp_fast, embedder=Embedder()).build(raws)
    assert not [p for p in problems if p.severity == "skipped"], problems
    return built


def brute_force(records: list[PaperRecord], query: bytes, exclude: str) -> list[tuple[str, float]]:
    """Every other paper by cosine of the int8 vectors, best first (the contract's order)."""
    q = from_blob(query).astype(np.float64)
    out = []
    for r in records:
        if r.paper.id == exclude or r.embedding is None:
            continue
        v = from_blob(r.embedding).astype(np.float64)
        out.append((r.paper.id, float(q @ v / np.linalg.norm(q) / np.linalg.norm(v))))
    return sorted(out, key=lambda t: (-t[1], t[0]))


def test_every_paper_is_stored_with_its_vector(store: Any, records: list[PaperRecord]) -> None:
    assert all(r.embedding is not None and len(r.embedding) == DIMENSIONS for r in records)
    store.upsert(records)
    ids = [r.paper.id for r in records]
    assert store.paper_embeddings(ids) == [r.embedding for r in records]
    assert store.paper_embeddings(["paper:none"]) == [None]
    assert store.papers_without_embedding(10) == []


def test_nearest_papers_equal_a_brute_force_ranking(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    checked = 0
    for r in records[:10]:
        assert r.embedding is not None
        expected = brute_force(records, r.embedding, r.paper.id)
        got = store.nearest_papers(r.embedding, 5, exclude=[r.paper.id])
        assert len(got) == 5 and r.paper.id not in [pid for pid, _ in got]
        for (pid, score), (want_id, want) in zip(got, expected[:5], strict=True):
            assert score == pytest.approx(want, abs=2e-3)
            # ids may swap only where two scores are within rounding of each other
            if pid != want_id:
                assert abs(dict(expected)[pid] - want) < 2e-3
        checked += 1
    assert checked == 10
    assert store.nearest_papers(records[0].embedding, 0) == []


def test_reingest_changes_nothing(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    version = store.version()
    summary = store.upsert(records)
    assert (summary.added, summary.updated, summary.unchanged) == (0, 0, len({r.paper.id for r in records}))
    assert store.version() == version


def test_kg_embed_fills_in_what_no_embed_left_out(store: Any, records: list[PaperRecord]) -> None:
    bare = [r.model_copy(update={"embedding": None}) for r in records]
    store.upsert(bare)
    ids = sorted({r.paper.id for r in records})
    missing = store.papers_without_embedding(1000)
    assert [m[0] for m in missing] == ids
    by_id = {r.paper.id: r for r in records}
    assert all(m[1] == by_id[m[0]].paper.properties["title"] for m in missing)
    version = store.version()
    pairs = [(pid, by_id[pid].embedding) for pid in ids]
    assert store.put_embeddings([*pairs, ("concept:not-a-paper", pairs[0][1])]) == len(ids)
    assert store.version() == version + 1
    assert store.papers_without_embedding(1000) == []
    assert store.put_embeddings(pairs) == 0  # the same again: no change, no new version
    assert store.version() == version + 1
    # and a later ingest with embeddings is a re-ingest like any other
    assert store.upsert(records).unchanged == len(ids)
    assert store.version() == version + 1


def test_clear_drops_the_vectors(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    store.clear()
    assert store.paper_embeddings([records[0].paper.id]) == [None]
    assert records[0].embedding is not None
    assert store.nearest_papers(records[0].embedding, 5) == []
