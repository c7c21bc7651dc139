"""Paper embeddings in Neo4j: one ``__KGEmbedding__`` node per embedded paper, in a vector index.

Why nodes of their own (``{paper: paper id, vector: [384 floats]}``) rather than a property of the
paper: every read and write of the store handles a paper's ``properties(n)`` as its property
map (merged, compared, exported), and 384 floats there would travel with each of them. The
internal label is outside ``__KGNode__`` like the keyphrase rows, so counts and exports never
see it; ``clear`` deletes it with everything else. The paper's id is in ``paper``, not ``id``:
``id`` is the graph's own key, which no two nodes share.

Each node names its model (``model``, :data:`extractors.embedding.MODEL_ID`), as the embedded
store's rows do: a vector of another model counts as missing (``kg embed`` replaces it) and is
never read or compared. Nodes from before the property get today's model when the store first
opens (:func:`ensure_models`).

The vector is the quantised one of :mod:`extractors.embedding` as floats (``k / 127``), the same
as the embedded store's bytes, so both stores rank alike. The index is Neo4j 5's HNSW vector
index with cosine similarity, which finds candidates; they are ranked by the same arithmetic as
the embedded store's scan (:mod:`kg.stores.nearest`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import neo4j
import numpy as np

from extractors.embedding import DIMENSIONS, MODEL_ID, QUANT_SCALE, dequantize, from_blob
from kg.stores.nearest import Matrix
from kg.stores.neo4j.queries import Statement, label, read_meta, set_meta

EMBEDDING_LABEL = "__KGEmbedding__"
VECTOR_INDEX = "paperkg_paper_vectors"
# Candidates the index is asked for per hit wanted: its HNSW search is approximate, and the
# candidates are re-ranked exactly (kg.stores.nearest, the embedded store's arithmetic).
CANDIDATES_PER_HIT = 2
MIN_CANDIDATES = 50
# Meta node present once every embedding node names its model.
MODELS_ID = "embedding-models"


def schema_statements() -> list[Statement]:
    return [
        Statement(
            f"CREATE CONSTRAINT paperkg_embedding_paper IF NOT EXISTS FOR (e:{EMBEDDING_LABEL}) "
            "REQUIRE e.paper IS UNIQUE"
        ),
        Statement(
            f"CREATE VECTOR INDEX {VECTOR_INDEX} IF NOT EXISTS FOR (e:{EMBEDDING_LABEL}) ON e.vector "
            "OPTIONS {indexConfig: {`vector.dimensions`: $dims, `vector.similarity_function`: 'cosine', "
            # the index's own int8 quantisation would move scores by ~0.004 (a paper against
            # itself scored 0.998); the vectors are int8 already
            "`vector.quantization.enabled`: false}}",
            {"dims": DIMENSIONS},
        ),
    ]


def put(pairs: Sequence[tuple[str, bytes]]) -> Statement:
    """``changed``: store each vector of a stored paper that differs from its stored one."""
    rows = [{"id": pid, "vector": dequantize(from_blob(blob))} for pid, blob in dict(pairs).items()]
    return Statement(
        f"UNWIND $rows AS row MATCH (p:{label('Paper')} {{id: row.id}}) "
        f"MERGE (e:{EMBEDDING_LABEL} {{paper: row.id}}) "
        "WITH e, row WHERE e.vector IS NULL OR e.vector <> row.vector OR coalesce(e.model, '') <> $model "
        "SET e.vector = row.vector, e.model = $model RETURN count(e) AS changed",
        {"rows": rows, "model": MODEL_ID},
    )


def vectors_of(ids: Sequence[str]) -> Statement:
    """``id, vector`` of the papers among ``ids`` that have one of today's model."""
    return Statement(
        f"UNWIND $ids AS id MATCH (e:{EMBEDDING_LABEL} {{paper: id}}) WHERE e.model = $model "
        "RETURN id, e.vector AS vector",
        {"ids": list(ids), "model": MODEL_ID},
    )


def nearest(vector: bytes, k: int) -> Statement:
    """``id, vector`` of the ``k`` nearest vectors the index finds, those of today's model."""
    return Statement(
        f"CALL db.index.vector.queryNodes('{VECTOR_INDEX}', $k, $vector) YIELD node "
        "WHERE node.model = $model RETURN node.paper AS id, node.vector AS vector",
        {"k": k, "vector": dequantize(from_blob(vector)), "model": MODEL_ID},
    )


def missing(limit: int, after: str = "") -> Statement:
    """``id, title, abstract`` of up to ``limit`` papers after ``after`` without a vector of
    today's model, by id. The id range is a seek of the paper id index in its order, so a pass
    in batches reads each paper once (without ``after`` every batch walked every embedded paper
    again: 0.66-2.1 s a batch at 100k)."""
    return Statement(
        f"MATCH (p:{label('Paper')}) WHERE p.id > $after "
        f"AND NOT EXISTS {{ MATCH (e:{EMBEDDING_LABEL} {{paper: p.id}}) WHERE e.model = $model }} "
        "RETURN p.id AS id, p.title AS title, p.abstract AS abstract ORDER BY id LIMIT $limit",
        {"limit": limit, "model": MODEL_ID, "after": after},
    )


def ensure_models(session_factory: Callable[[], neo4j.Session]) -> None:
    """Tag the embedding nodes written before nodes named their model with today's (once per
    database: a meta node records it, so later opens cost one lookup). Two processes doing it
    at once write the same value."""
    marker = read_meta(MODELS_ID)
    with session_factory() as session:
        if session.run(marker.text, marker.params).single() is not None:
            return
        session.run(
            f"MATCH (e:{EMBEDDING_LABEL}) WHERE e.model IS NULL "
            "CALL (e) { SET e.model = $model } IN TRANSACTIONS OF 10000 ROWS",
            {"model": MODEL_ID},
        ).consume()
        done = set_meta(MODELS_ID, 1)
        session.run(done.text, done.params).consume()


def to_blob(values: Sequence[Any]) -> bytes:
    """A stored float vector back in the stored bytes form."""
    return (
        np.clip(np.rint(np.asarray(values, dtype=np.float64) * QUANT_SCALE), -127, 127)
        .astype(np.int8)
        .tobytes()
    )


def ranked(
    vector: bytes, rows: Sequence[tuple[str, Sequence[float]]], limit: int, exclude: Sequence[str]
) -> list[tuple[str, float]]:
    """The index's candidates ranked exactly as the embedded store ranks (:class:`Matrix`)."""
    ids = [pid for pid, _ in rows]
    blobs = b"".join(to_blob(v) for _, v in rows)
    matrix = Matrix(ids, np.frombuffer(blobs, dtype=np.int8).reshape(len(ids), DIMENSIONS))
    return matrix.nearest(vector, limit, exclude)
