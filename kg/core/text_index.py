"""Search terms and field boosts shared by both stores' full-text indexes.

The embedded store searches with SQLite FTS5 (BM25), Neo4j with its Lucene fulltext index; both
index paper titles and abstracts and concept names and aliases with these boosts, and both turn
free text into the same quoted terms (:func:`search_words`), so ``search`` means the same thing
on either backend.
"""

from __future__ import annotations

import re

from kg.core.ids import fold

_WORD = re.compile(r"[0-9a-z]+")
# Field boosts: a hit in a concept name or paper title says more than one in an abstract.
FIELD_BOOST = {"name": 3.0, "aliases": 2.0, "title": 2.0, "abstract": 1.0}


def tokens(text: str) -> list[str]:
    """Lowercase, accent-free word tokens.

    >>> tokens("Nash Equilibria, E(3)-equivariant!")
    ['nash', 'equilibria', 'e', '3', 'equivariant']
    """
    return _WORD.findall(fold(text))


# Lucene's English stop words, which Neo4j's fulltext analyzer drops from queries. They are
# dropped from both stores' queries: on FTS5 each is in nearly every abstract, so "learning to
# rank with" scored all 100k papers (BM25 gives such a word almost no weight anyway) and a
# search took 300-600 ms; on Neo4j nothing changes.
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with".split()
)


def search_words(text: str) -> list[str]:
    """The distinct :func:`tokens` a search looks for: stop words left out.

    >>> search_words("Learning to rank with the Rank loss")
    ['learning', 'rank', 'loss']
    >>> search_words("to be or not to be")
    []
    """
    return [w for w in dict.fromkeys(tokens(text)) if w not in STOP_WORDS]


_QUOTED = re.compile(r'"([^"]*)"')


def search_terms(text: str) -> tuple[list[str], list[str]]:
    """``(phrases, words)`` of a search: each quoted part of ``text`` (two or more tokens) is a
    phrase, kept word for word (stop words too: "learning to rank" must not match "rank
    learning"); the rest, and one-token quotes, are :func:`search_words`. Both stores require
    every phrase and, next to them, any of the words (or every word when asked).

    >>> search_terms('"Diffusion Policy" for robots "grasp" and "the"')
    (['diffusion policy'], ['robots', 'grasp'])
    >>> search_terms('an "unclosed quote')
    ([], ['unclosed', 'quote'])
    """
    phrases: list[str] = []
    rest: list[str] = []
    last = 0
    for m in _QUOTED.finditer(text):
        rest.append(text[last : m.start()])
        last = m.end()
        words = tokens(m.group(1))
        if len(words) > 1:
            phrases.append(" ".join(words))
        else:
            rest.append(m.group(1))
    rest.append(text[last:])
    return list(dict.fromkeys(phrases)), search_words(" ".join(rest))
