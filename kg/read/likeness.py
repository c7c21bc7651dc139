"""Papers like a paper, or like a free-text description: nearest embeddings, explained.

The store finds the nearest vectors (:meth:`kg.stores.protocol.ReadStore.nearest_papers`: a
scan of the embedded store's matrix, Neo4j's vector index); this module says why each hit is
near, with the concepts the two papers share (:func:`shared_concepts`) and the sentences of
each paper that mention them, so a reader can judge a hit without reading both abstracts.

Shared means the same concept id among both papers' key concepts (:mod:`kg.read.key_concepts`:
their MENTIONS and paper-only phrases), listed in the hit's order (what the hit is about
first). For free text there is no second paper: a hit's key concepts whose name or wording
occurs in the text (folded, on word boundaries) are the shared ones.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from extractors.embedding import from_blob
from kg.ids import fold
from kg.models import Node
from kg.read.key_concepts import KeyConcept

# Shared concepts listed per hit: the explanation, not the whole overlap.
MAX_SHARED = 5
# Deepest hit `papers(where: {like})` pages through, and longest text embedded for it.
LIKE_MAX = 1000
LIKE_MAX_CHARS = 10_000


@dataclass(frozen=True)
class SharedConcept:
    """A concept both sides have (role: read result): the hit's key concept and the sentences
    of the query paper that mention it (empty for free text)."""

    hit: KeyConcept
    query_evidence: list[str]


@dataclass(frozen=True)
class Similar:
    """One paper like the query (role: read result): cosine of the embeddings, 4 decimals."""

    node: Node
    score: float
    shared: list[SharedConcept]


def shared_concepts(query: Sequence[KeyConcept], hit: Sequence[KeyConcept]) -> list[SharedConcept]:
    """The hit's key concepts the query paper has too, in the hit's order, at most :data:`MAX_SHARED`.

    >>> from kg.read.key_concepts import KeyConcept as K
    >>> def k(i, e): return K(i, i, i, 1.0, 1.0, True, 1, "VOCABULARY", [e], None)
    >>> found = shared_concepts([k("a", "qa"), k("b", "qb")], [k("b", "hb"), k("c", "hc")])
    >>> [(s.hit.name, s.query_evidence) for s in found]
    [('b', ['qb'])]
    """
    mine = {k.concept_id: k for k in query}
    out = [SharedConcept(k, mine[k.concept_id].evidence) for k in hit if k.concept_id in mine]
    return out[:MAX_SHARED]


def _words(text: str) -> str:
    return " " + " ".join(re.findall(r"\w+", fold(text))) + " "


def concepts_in_text(text: str, hit: Sequence[KeyConcept]) -> list[SharedConcept]:
    """The hit's key concepts named in ``text`` (by name or the hit's wording), in the hit's order.

    >>> from kg.read.key_concepts import KeyConcept as K
    >>> ks = [K("c1", "Diffusion policy", "diffusion policies", 1.0, 1.0, True, 1, "VOCABULARY", [], None)]
    >>> [s.hit.name for s in concepts_in_text("Learning diffusion policies for robots", ks)]
    ['Diffusion policy']
    """
    words = _words(text)
    out = [
        SharedConcept(k, [])
        for k in hit
        if any(w.strip() and w in words for w in (_words(k.name), _words(k.surface)))
    ]
    return out[:MAX_SHARED]


def cosines(query: bytes, vectors: Mapping[str, bytes]) -> dict[str, float]:
    """Cosine of ``query`` with each stored vector (float64, exact for int8 vectors)."""
    q = from_blob(query).astype(np.float64)
    q /= max(float(np.linalg.norm(q)), 1e-12)
    out: dict[str, float] = {}
    for pid, blob in vectors.items():
        v = from_blob(blob).astype(np.float64)
        out[pid] = float(q @ v) / max(float(np.linalg.norm(v)), 1e-12)
    return out


def blended_score(bm25: float, cosine: float | None) -> float:
    """A search hit's score: BM25 where there is no vector, else BM25 times ``1 + max(0, cos)``.

    Why a product: BM25 scales differ by store (FTS5 against Lucene) and by query, a cosine
    does not; scaling keeps each store's word evidence first, and a paper that means what the
    text says (cosine 0.6) gains 60% over one that only shares its words (cosine near 0).

    >>> blended_score(2.0, None), blended_score(2.0, 0.5), blended_score(2.0, -0.3)
    (2.0, 3.0, 2.0)
    """
    return bm25 if cosine is None else bm25 * (1.0 + max(0.0, cosine))
