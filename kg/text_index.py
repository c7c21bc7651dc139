"""Search terms and field boosts shared by both stores' full-text indexes.

The embedded store searches with SQLite FTS5 (BM25), Neo4j with its Lucene fulltext index; both
index paper titles and abstracts and concept names and aliases with these boosts, and both turn
free text into the same quoted terms, so ``search`` means the same thing on either backend.
"""

from __future__ import annotations

import re

from kg.ids import fold

_WORD = re.compile(r"[0-9a-z]+")
# Field boosts: a hit in a concept name or paper title says more than one in an abstract.
FIELD_BOOST = {"name": 3.0, "aliases": 2.0, "title": 2.0, "abstract": 1.0}


def tokens(text: str) -> list[str]:
    """Lowercase, accent-free word tokens.

    >>> tokens("Nash Equilibria, E(3)-equivariant!")
    ['nash', 'equilibria', 'e', '3', 'equivariant']
    """
    return _WORD.findall(fold(text))
