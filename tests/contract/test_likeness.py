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

from extractors.embedding import DIMENSIONS, Embedder, from_blob, quantize
from kg.core.models import PaperRecord
from kg.ingest.pipeline import Pipeline
from kg.read import likeness
from kg.read.service import PaperFilter, ReadService
from kg.readers import read_file
from kg.stores.neo4j import vectors as neo4j_vectors
from kg.stores.sqlite import vectors as sqlite_vectors
from kg.stores.sqlite.store import SQLiteStore

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


def test_an_in_memory_store_answers_vector_reads(records: list[PaperRecord]) -> None:
    """``SQLiteStore(None)`` (no file) reads its vectors through the locked single connection,
    whose rows must iterate like a cursor's; it used to raise TypeError on the first read."""
    memory = SQLiteStore(None)
    try:
        memory.upsert(records)
        first = records[0]
        assert first.embedding is not None
        got = memory.nearest_papers(first.embedding, 3, exclude=[first.paper.id])
        assert [pid for pid, _ in got] == [
            pid for pid, _ in brute_force(records, first.embedding, first.paper.id)[:3]
        ]
    finally:
        memory.close()


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
    # a pass in batches resumes after its last paper (kg embed reads each paper once)
    assert [m[0] for m in store.papers_without_embedding(2, ids[1])] == ids[2:4]
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


def test_vectors_of_another_model_are_missing_and_never_compared(
    store: Any, records: list[PaperRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A release that ships another model (a new ``MODEL_ID``) finds the store's vectors stale:
    none is read or compared, ``kg embed`` (papers_without_embedding, put_embeddings) replaces
    them, and the replaced ones are read again."""
    store.upsert(records)
    ids = sorted({r.paper.id for r in records})
    query = records[0].embedding
    assert query is not None and store.nearest_papers(query, 3)
    for module in (sqlite_vectors, neo4j_vectors):
        monkeypatch.setattr(module, "MODEL_ID", "next-model")
    assert store.paper_embeddings(ids[:2]) == [None, None]
    assert store.nearest_papers(query, 3) == []
    assert [m[0] for m in store.papers_without_embedding(1000)] == ids
    by_id = {r.paper.id: r.embedding for r in records}
    assert store.put_embeddings([(ids[0], by_id[ids[0]])]) == 1  # same bytes, new model: rewritten
    assert store.paper_embeddings(ids[:2]) == [by_id[ids[0]], None]
    assert [hit for hit, _ in store.nearest_papers(query, 3)] == [ids[0]]
    assert [m[0] for m in store.papers_without_embedding(1000)] == ids[1:]


def test_clear_drops_the_vectors(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    store.clear()
    assert store.paper_embeddings([records[0].paper.id]) == [None]
    assert records[0].embedding is not None
    assert store.nearest_papers(records[0].embedding, 5) == []


LIKE_TEXT = "training deep neural networks with reinforcement learning"


def _like_expected(store: Any, records: list[PaperRecord], where: PaperFilter) -> list[tuple[str, float]]:
    """The papers the store lists for ``where`` without ``like``, by brute-force cosine to the text."""
    service = ReadService(store)
    query = service.paper_query(where)
    matching = set(store.papers(query, 0, 1000).ids)
    q8 = quantize(Embedder().embed([LIKE_TEXT]))[0].astype(np.float64)
    scored = []
    for r in records:
        if r.paper.id in matching and r.embedding is not None:
            v = from_blob(r.embedding).astype(np.float64)
            scored.append((r.paper.id, float(q8 @ v / np.linalg.norm(q8) / np.linalg.norm(v))))
    return sorted(scored, key=lambda t: (-t[1], t[0]))


def _same_order(got: list[str], expected: list[tuple[str, float]]) -> bool:
    """``got`` is ``expected``'s order, ids swapped only where two cosines are within rounding."""
    cos = dict(expected)
    return len(got) == len(expected) and all(
        pid == want or abs(cos[pid] - c) < 2e-3 for pid, (want, c) in zip(got, expected, strict=True)
    )


@pytest.mark.parametrize(
    "where", [PaperFilter(text="network"), PaperFilter(text="learning", venue="ICLR", year=2018)]
)
def test_like_within_filters_ranks_the_matching_papers_by_cosine(
    store: Any, records: list[PaperRecord], where: PaperFilter
) -> None:
    store.upsert(records)
    expected = _like_expected(store, records, where)
    assert 2 < len(expected) < len(records)  # a real filter: some papers match, not all
    service = ReadService(store)
    found, total = service.like(LIKE_TEXT, 0, 100, service.paper_query(where))
    assert total == len(expected)
    assert _same_order([s.node.id for s in found], expected)
    assert [s.score for s in found] == sorted((s.score for s in found), reverse=True)
    # paging cuts the same order
    second, _ = service.like(LIKE_TEXT, 2, 2, service.paper_query(where))
    assert [s.node.id for s in second] == [s.node.id for s in found[2:4]]


def test_like_within_a_large_set_filters_the_nearest_pool(
    store: Any, records: list[PaperRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above FILTER_FIRST_MAX the pool of nearest papers is filtered: with the pool covering the
    store the answer is the filter-first one; with a smaller pool, the matches among it."""
    store.upsert(records)
    where = PaperFilter(text="network")
    service = ReadService(store)
    query = service.paper_query(where)
    exact, _ = service.like(LIKE_TEXT, 0, 100, query)
    monkeypatch.setattr(likeness, "FILTER_FIRST_MAX", 0)
    monkeypatch.setattr(likeness, "FILTER_CHUNK", 3)  # several store reads per answer
    pooled, total = ReadService(store).like(LIKE_TEXT, 0, 100, query)
    assert [s.node.id for s in pooled] == [s.node.id for s in exact] and total == len(exact)
    monkeypatch.setattr(likeness, "LIKE_POOL", 10)
    nearest10 = [
        pid for pid, _ in store.nearest_papers(quantize(Embedder().embed([LIKE_TEXT]))[0].tobytes(), 10)
    ]
    few, total = ReadService(store).like(LIKE_TEXT, 0, 100, query)
    assert [s.node.id for s in few] == [s.node.id for s in exact if s.node.id in nearest10]
    assert total == len(few) < len(exact)
