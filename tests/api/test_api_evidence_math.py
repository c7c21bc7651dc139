"""Evidence sentences as the paper wrote them, LaTeX included, over HTTP on both stores.

Matching sees inline math as a placeholder (a wall no concept spans); the stored evidence gets
the math back, so a quote is what the paper says ("a faster rate than $O(1/\\sqrt{T})$.").
"""

from __future__ import annotations

from typing import Any

import httpx

from api.app import create_app
from kg.core.config import Settings
from kg.core.models import RawPaper
from kg.ingest.pipeline import Pipeline

SENTENCES = [
    "We study contextual bandits with $K$ arms and a horizon $T$.",
    "Our algorithm, optimistic policy optimization, achieves a faster convergence rate than "
    "$O(1/\\sqrt{T})$.",
    "For the $k$-armed bandit with linear rewards ($d \\ge 2$), the regret bound of "
    "$\\tilde{O}(d\\sqrt{T})$ $\\pm$ $\\epsilon$ is tight.",
    "Experiments on reinforcement learning benchmarks confirm the theory.",
]
ABSTRACT = " ".join(SENTENCES)


def test_evidence_is_the_sentence_as_written(store: Any, nlp_fast: Any, serve_app: Any, post_to: Any) -> None:
    raw = RawPaper(
        file="math.jsonl",
        line=1,
        title="Optimistic policy optimization for $k$-armed contextual bandits",
        abstract=ABSTRACT,
        authors=["Ada Example"],
        venue="ICLR 2024",
        year=2024,
    )
    records, problems = Pipeline(nlp=nlp_fast).build([raw])
    assert not problems, problems
    store.upsert(records)
    pid = records[0].paper.id
    query = "query($id: ID!) { paper(id: $id) { concepts(first: 40) { concept { name } evidence } } }"
    with serve_app(create_app(Settings(), store=store)) as server, httpx.Client(base_url=server.url) as c:
        body = post_to(c, query, {"id": pid})
    assert "errors" not in body, body
    mentions = body["data"]["paper"]["concepts"]
    quoted = {s for m in mentions for s in m["evidence"]}
    assert quoted, mentions
    title = raw.title
    assert title is not None
    # Each quote is a sentence of the abstract (or the title), character for character.
    assert quoted <= {*SENTENCES, title + "."} | {title}, quoted - set(SENTENCES)
    assert not any("§" in s for s in quoted), quoted
    # The sentences with math are among the quotes: the math came back, not only math-free ones.
    assert {SENTENCES[0], SENTENCES[1], SENTENCES[2]} <= quoted, quoted
