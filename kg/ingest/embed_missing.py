"""``kg embed``: embed the stored papers that have no vector yet (ingested with ``--no-embed``,
before embeddings existed, or whose embedding failed)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from extractors.embedding import Embedder, paper_text
from kg.stores.protocol import ReadStore

BATCH = 256


@dataclass
class EmbedReport:
    papers: int = 0
    seconds: float = 0.0


def embed_missing(
    store: ReadStore, embedder: Embedder, batch: int = BATCH, on_batch: Callable[[int], None] | None = None
) -> EmbedReport:
    """Embed every paper without a vector, ``batch`` at a time (each batch one write), in id
    order: each batch asks for the papers after the last one, so the pass reads each paper once
    and never loops on the same papers (one that cannot be stored, deleted meanwhile, is passed).
    """
    report = EmbedReport()
    t0 = time.perf_counter()
    after = ""
    while True:
        rows = store.papers_without_embedding(batch, after)
        if not rows:
            break
        after = rows[-1][0]
        blobs = embedder.embed_quantized([paper_text(title, abstract) for _, title, abstract in rows])
        stored = store.put_embeddings([(pid, blob) for (pid, _, _), blob in zip(rows, blobs, strict=True)])
        report.papers += stored
        if on_batch is not None:
            on_batch(report.papers)
    report.seconds = time.perf_counter() - t0
    return report
