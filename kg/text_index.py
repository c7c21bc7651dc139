"""A small ranked full-text index (BM25) for the embedded store, standing in for Neo4j's fulltext.

It indexes paper titles and abstracts and concept names and aliases, the same fields as the
Neo4j fulltext index, so ``search`` means the same thing on both backends.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Iterable

from kg.ids import fold

_WORD = re.compile(r"[0-9a-z]+")
_K1 = 1.2
_B = 0.75
# Field boosts: a hit in a concept name or paper title says more than one in an abstract.
FIELD_BOOST = {"name": 3.0, "aliases": 2.0, "title": 2.0, "abstract": 1.0}


def tokens(text: str) -> list[str]:
    """Lowercase, accent-free word tokens.

    >>> tokens("Nash Equilibria, E(3)-equivariant!")
    ['nash', 'equilibria', 'e', '3', 'equivariant']
    """
    return _WORD.findall(fold(text))


class TextIndex:
    """BM25 over weighted fields; documents are node ids."""

    def __init__(self, docs: Iterable[tuple[str, dict[str, str]]]) -> None:
        self._postings: dict[str, dict[str, float]] = defaultdict(dict)
        lengths: dict[str, float] = {}
        for doc_id, fields in docs:
            tf: dict[str, float] = defaultdict(float)
            length = 0.0
            for field_name, text in fields.items():
                boost = FIELD_BOOST.get(field_name, 1.0)
                words = tokens(text)
                length += len(words)
                for w in words:
                    tf[w] += boost
            lengths[doc_id] = length
            for w, f in tf.items():
                self._postings[w][doc_id] = f
        self._lengths = lengths
        self._avg = (sum(lengths.values()) / len(lengths)) if lengths else 1.0
        self._n = len(lengths)

    def search(self, text: str, limit: int) -> list[tuple[str, float]]:
        """Best ``limit`` (doc id, score) pairs; ties broken by id for stable output."""
        scores: dict[str, float] = defaultdict(float)
        for w in set(tokens(text)):
            posting = self._postings.get(w)
            if not posting:
                continue
            idf = math.log(1 + (self._n - len(posting) + 0.5) / (len(posting) + 0.5))
            for doc_id, f in posting.items():
                norm = 1 - _B + _B * self._lengths[doc_id] / (self._avg or 1.0)
                scores[doc_id] += idf * f * (_K1 + 1) / (f + _K1 * norm)
        ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
        return ranked[:limit]
