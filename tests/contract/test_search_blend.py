"""``search`` blends BM25 with the meaning of the text where papers have embeddings, on both
stores: each paper's score is its BM25 score times ``1 + max(0, cosine)``, computed here from the
model and the records, concepts keep theirs, and the hits come in the blended order."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from extractors.embedding import Embedder, from_blob, quantize
from kg.core.models import PaperRecord
from kg.ingest.pipeline import Pipeline
from kg.read.service import ReadService
from kg.readers import read_file

DATA = Path(__file__).parents[1] / "data" / "iclr2018.jsonl"
TEXT = "reinforcement"


@pytest.fixture(scope="module")
def records(nlp_fast: Any) -> list[PaperRecord]:
    built, _ = Pipeline(nlp=nlp_fast, embedder=Embedder()).build(read_file(DATA, max_records=40).papers)
    return built


def _cosines(records: list[PaperRecord], text: str) -> dict[str, float]:
    """Each paper's cosine to ``text`` from the int8 vectors, the query as the API stores it."""
    q8 = quantize(Embedder().embed([text]))[0].astype(np.float64)
    q8 /= np.linalg.norm(q8)
    vectors = {r.paper.id: from_blob(r.embedding).astype(np.float64) for r in records if r.embedding}
    return {pid: float(q8 @ v / np.linalg.norm(v)) for pid, v in vectors.items()}


def _expected(
    store: Any, records: list[PaperRecord], text: str, raw: list[Any], n: int
) -> list[tuple[str, float]]:
    """The BM25 hits blended, and the ``n`` papers nearest in meaning that are not among them
    (cosine >= 0.3) scored from the lowest BM25 score; the best ``n``."""
    cos = _cosines(records, text)
    scored = {
        h.node.id: h.score * (1 + max(0.0, cos[h.node.id])) if h.node.label == "Paper" else h.score
        for h in raw
    }
    floor = min((h.score for h in raw), default=1.0)
    nearest = sorted(cos.items(), key=lambda t: (-t[1], t[0]))[:n]
    for pid, c in nearest:
        if pid not in scored and c >= 0.3:
            scored[pid] = floor * (1 + c)
    return sorted(scored.items(), key=lambda t: (-t[1], t[0]))[:n]


def test_search_scores_blend_bm25_with_the_cosine(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    raw = store.search(TEXT, 10, every_word=True)  # one word: the service asks exactly this
    assert any(h.node.label == "Paper" for h in raw) and any(h.node.label == "Concept" for h in raw)
    expected = _expected(store, records, TEXT, raw, 10)
    got = ReadService(store).search(TEXT, 10)
    assert [h.node.id for h in got] == [pid for pid, _ in expected]
    assert [h.score for h in got] == pytest.approx([sc for _, sc in expected], rel=1e-6)
    before = {r.node.id: r.score for r in raw}
    raised = [
        h
        for h in got
        if h.node.label == "Paper" and h.node.id in before and h.score > 1.2 * before[h.node.id]
    ]
    assert raised  # papers on reinforcement learning mean what the word says


def test_search_adds_papers_found_by_meaning_alone(store: Any, records: list[PaperRecord]) -> None:
    """A paper with none of the words is listed when it means what the text says, ranked by its
    cosine blended from the lowest BM25 score of the word hits."""
    store.upsert(records)
    text = "picture recognition"
    worded = {h.node.id for h in store.search(text, 1000)}  # every node with any of the words
    raw = store.search(text, 10, every_word=True)
    if len(raw) < 10:
        raw = store.search(text, 10)
    expected = _expected(store, records, text, raw, 10)
    got = ReadService(store).search(text, 10)
    assert [h.node.id for h in got] == [pid for pid, _ in expected]
    assert [h.score for h in got] == pytest.approx([sc for _, sc in expected], rel=1e-6)
    by_meaning = [h for h in got if h.node.id not in worded]
    assert by_meaning and all(h.node.label == "Paper" for h in by_meaning)


def test_a_phrase_adds_no_paper_by_meaning(store: Any, records: list[PaperRecord]) -> None:
    """Quoted phrases are filters: every hit has them, none is added by meaning alone."""
    store.upsert(records)
    text = '"reinforcement learning" agents'
    got = ReadService(store).search(text, 50)
    assert got
    assert {h.node.id for h in got} <= {h.node.id for h in store.search(text, 1000)}
    assert [h.node.id for h in ReadService(store).search('"picture recognition"', 10)] == [
        h.node.id for h in store.search('"picture recognition"', 10)
    ]


def test_papers_without_vectors_keep_the_bm25_order(store: Any, records: list[PaperRecord]) -> None:
    store.upsert([r.model_copy(update={"embedding": None}) for r in records])
    raw = store.search(TEXT, 10, every_word=True)
    got = ReadService(store).search(TEXT, 10)
    assert [(h.node.id, h.score) for h in got] == [(h.node.id, h.score) for h in raw]
