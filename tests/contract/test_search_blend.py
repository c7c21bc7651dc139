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


def test_search_scores_blend_bm25_with_the_cosine(store: Any, records: list[PaperRecord]) -> None:
    store.upsert(records)
    raw = store.search(TEXT, 10, every_word=True)  # one word: the service asks exactly this
    assert any(h.node.label == "Paper" for h in raw) and any(h.node.label == "Concept" for h in raw)
    q8 = quantize(Embedder().embed([TEXT]))[0].astype(np.float64)  # the query as the API stores it
    q8 /= np.linalg.norm(q8)
    vectors = {r.paper.id: from_blob(r.embedding).astype(np.float64) for r in records if r.embedding}
    expected = {}
    for h in raw:
        if h.node.label == "Paper":
            v = vectors[h.node.id]
            expected[h.node.id] = h.score * (1 + max(0.0, float(q8 @ v / np.linalg.norm(v))))
        else:
            expected[h.node.id] = h.score
    got = ReadService(store).search(TEXT, 10)
    assert {h.node.id for h in got} == {h.node.id for h in raw}
    assert [h.score for h in got] == pytest.approx([expected[h.node.id] for h in got], rel=1e-6)
    assert [h.score for h in got] == sorted((h.score for h in got), reverse=True)
    raised = [
        h
        for h in got
        if h.node.label == "Paper" and h.score > 1.2 * {r.node.id: r.score for r in raw}[h.node.id]
    ]
    assert raised  # papers on reinforcement learning mean what the word says


def test_papers_without_vectors_keep_the_bm25_order(store: Any, records: list[PaperRecord]) -> None:
    store.upsert([r.model_copy(update={"embedding": None}) for r in records])
    raw = store.search(TEXT, 10, every_word=True)
    got = ReadService(store).search(TEXT, 10)
    assert [(h.node.id, h.score) for h in got] == [(h.node.id, h.score) for h in raw]
