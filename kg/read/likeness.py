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

import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from extractors.embedding import from_blob
from kg.core.ids import fold
from kg.core.models import Node
from kg.core.text_index import STOP_WORDS, tokens
from kg.read.key_concepts import KeyConcept

# Shared concepts listed per hit: the explanation, not the whole overlap.
MAX_SHARED = 5
# Deepest hit `papers(where: {like})` pages through, and longest text embedded for it.
LIKE_MAX = 1000
LIKE_MAX_CHARS = 10_000
# `like` with other conditions (:meth:`kg.read.service.ReadService._like_within`): a matching set
# of at most FILTER_FIRST_MAX papers is ranked whole; a larger one is looked for among the
# LIKE_POOL nearest papers, checked against the conditions FILTER_CHUNK ids per store read (one
# read: SQLite scans the conditions' rows once per read, so 2,000-id reads of a 75k-paper
# condition took 3.4 s against 0.75 s in one, bench/like_filters.py; under SQLite's 32,766
# variables).
FILTER_FIRST_MAX = 20_000
LIKE_POOL = 10_000
FILTER_CHUNK = 10_000
# `similar` re-ranks this many nearest papers by what they share (:func:`rank_similar`).
RERANK_POOL = 40
# Key concepts of each paper compared, and the weight of a shared one's rarity.
SHARED_TOP = 10
SHARED_WEIGHT = 0.02
# Weight of the two papers' wording (:func:`wording_similarity`, 0 to 1) next to the cosine.
WORDING_WEIGHT = 2.0


@dataclass(frozen=True)
class SharedConcept:
    """A concept both sides have (role: read result): the hit's key concept and the sentences
    of the query paper that mention it (empty for free text)."""

    hit: KeyConcept
    query_evidence: list[str]


@dataclass(frozen=True)
class Similar:
    """One paper like the query (role: read result): ``score`` orders the hits (for a paper, the
    cosine plus what the two share, :func:`rank_similar`; for free text, the cosine),
    ``cosine`` is the embeddings' own similarity; both rounded to 4 decimals."""

    node: Node
    score: float
    shared: list[SharedConcept]
    cosine: float | None = None


def shared_concepts(query: Sequence[KeyConcept], hit: Sequence[KeyConcept]) -> list[SharedConcept]:
    """The hit's key concepts the query paper has too, in the hit's order, at most :data:`MAX_SHARED`;
    a concept either paper only implies (``PREDICTED``: no sentence says it) explains nothing.

    >>> from kg.read.key_concepts import KeyConcept as K
    >>> def k(i, e): return K(i, i, i, 1.0, 1.0, True, 1, "VOCABULARY", [e], None)
    >>> found = shared_concepts([k("a", "qa"), k("b", "qb")], [k("b", "hb"), k("c", "hc")])
    >>> [(s.hit.name, s.query_evidence) for s in found]
    [('b', ['qb'])]
    """
    mine = {k.concept_id: k for k in query if k.source != "PREDICTED"}
    out = [
        SharedConcept(k, mine[k.concept_id].evidence)
        for k in hit
        if k.concept_id in mine and k.source != "PREDICTED"
    ]
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


def shared_rarity(
    query: Sequence[KeyConcept], hit: Sequence[KeyConcept], papers_of: Mapping[str, int], store_papers: int
) -> float:
    """How much two papers share: the sum of ``log(1 + N / papers)`` over the concepts among
    both papers' first :data:`SHARED_TOP` key concepts that both say (not ``PREDICTED``), ``N``
    the store's papers and ``papers`` the concept's, so a rare shared method counts more than a
    shared field.

    >>> from kg.read.key_concepts import KeyConcept as K
    >>> def k(i): return K(i, i, i, 1.0, 1.0, True, 1, "VOCABULARY", [], None)
    >>> round(shared_rarity([k("a"), k("b")], [k("b"), k("c")], {"b": 9}, 99), 3)  # log(1 + 11)
    2.485
    """
    mine = {k.concept_id for k in query[:SHARED_TOP] if k.source != "PREDICTED"}
    return sum(
        math.log(1.0 + store_papers / max(papers_of.get(k.concept_id, 1), 1))
        for k in hit[:SHARED_TOP]
        if k.concept_id in mine and k.source != "PREDICTED"
    )


def _terms(text: str) -> Counter[str]:
    return Counter(w for w in tokens(text) if w not in STOP_WORDS)


def wording_similarity(query: str, hits: Sequence[str]) -> list[float]:
    """How much each hit's text shares the query's words: the cosine of their tf-idf vectors
    (``1 + log tf`` times ``log((P + 1) / (df + 0.5))``), the document frequencies counted
    among the ``P`` texts compared (the query and its hits), stop words left out.

    Why words next to the embedding: the embedding sees the first 64 word pieces of a paper
    (its title and about two sentences), while the words a paper's authors pick as keywords
    are mostly in the rest of its abstract. Why document frequencies from the hits: they are
    the query's nearest papers, so the words they all use (``robot`` among robotics papers)
    weigh little and what sets a hit apart (``tactile``) weighs most; and every store answers
    the same, since the hits and their texts are the same on both (no store-side index, whose
    BM25 differs between FTS5 and Lucene).

    >>> q = "tactile sensing for robot grasping"
    >>> [round(x, 2) for x in wording_similarity(q, ["tactile robot hands", "robot navigation", ""])]
    [0.23, 0.05, 0.0]
    """
    docs = [_terms(t) for t in (query, *hits)]
    df: Counter[str] = Counter()
    for d in docs:
        df.update(d.keys())
    size = len(docs) + 1

    def unit(d: Counter[str]) -> dict[str, float]:
        v = {t: (1.0 + math.log(c)) * math.log(size / (df[t] + 0.5)) for t, c in d.items()}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        return {t: x / norm for t, x in v.items()}

    q = unit(docs[0])
    return [sum((x * q.get(t, 0.0) for t, x in unit(d).items()), 0.0) for d in docs[1:]]


def rank_similar(
    query: Sequence[KeyConcept],
    hits: Sequence[tuple[Node, float, Sequence[KeyConcept]]],
    papers_of: Mapping[str, int],
    store_papers: int,
    wording: Sequence[float] | None = None,
) -> list[Similar]:
    """``hits`` (node, cosine, key concepts) as ``similar`` lists them: by the cosine, plus
    :data:`WORDING_WEIGHT` times ``wording`` (each hit's :func:`wording_similarity` to the query,
    0 when not given), plus :data:`SHARED_WEIGHT` times :func:`shared_rarity`; best first, then
    by id.

    Why not the cosine alone: a sentence embedding of title and abstract ranks papers on the same
    broad subject alike, while two papers sharing a rare method or task are what a reader means
    by "like this". On the 2,399 dev papers with author keywords (bench/similar.py), the top 5
    of the cosine included a paper sharing an author keyword for 57.9% of the papers; re-ranking
    the 40 nearest by the shared concepts, 61.9%; adding the wording of the whole abstracts,
    63.6% (weights 1-2, pools of 40-200 nearest: 63.3-64.3%).
    """
    words = list(wording) if wording is not None else [0.0] * len(hits)
    n = store_papers
    ranked = [
        Similar(
            node,
            round(cos + WORDING_WEIGHT * lex + SHARED_WEIGHT * shared_rarity(query, keys, papers_of, n), 4),
            shared_concepts(query, keys),
            cos,
        )
        for (node, cos, keys), lex in zip(hits, words, strict=True)
    ]
    return sorted(ranked, key=lambda s: (-s.score, s.node.id))


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


# A paper that has none of a search's words is added when its cosine to the text is at least
# this (MiniLM puts unrelated texts at 0.0-0.2); a vector asked for to learn whether any exists.
SEMANTIC_MIN_COSINE = 0.3
PROBE = bytes([127]) + bytes(383)


def semantic_floor(bm25: Sequence[float]) -> float:
    """The BM25 score a paper found by meaning alone is blended from: the lowest of the word
    hits' (the last hit on the page), or 1.0 when no word matched.

    Why the lowest: such a paper has no word evidence, so at equal meaning it ranks below every
    word hit; with more meaning it passes the weakest of them (cosine 0.7 against a word hit's
    0.1), never a strong one. It is each store's own BM25 scale, as the word hits' are.

    >>> semantic_floor([3.5, 1.25]), semantic_floor([])
    (1.25, 1.0)
    """
    return min(bm25) if bm25 else 1.0


def semantic_hits(nearest: Sequence[tuple[str, float]], floor: float) -> list[tuple[str, float]]:
    """Papers found by meaning alone (id, cosine), with at least :data:`SEMANTIC_MIN_COSINE`,
    scored as a word hit is (:func:`blended_score`) from the BM25 score ``floor``.

    >>> semantic_hits([("p1", 0.5), ("p2", 0.1)], 2.0)
    [('p1', 3.0)]
    """
    return [(pid, blended_score(floor, cos)) for pid, cos in nearest if cos >= SEMANTIC_MIN_COSINE]
