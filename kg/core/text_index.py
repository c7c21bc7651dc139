"""Search terms and field boosts shared by both stores' full-text indexes.

The embedded store searches with SQLite FTS5 (BM25), Neo4j with its Lucene fulltext index; both
index paper titles and abstracts and concept names and aliases with these boosts, and both turn
free text into the same quoted terms (:func:`search_words`), so ``search`` means the same thing
on either backend.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

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


# Rows of the full-text index an any-word search scores for its rarer words (see rarer_first).
RARE_ROWS = 5000


def rarer_first(
    words: list[str], rows: dict[str, int], budget: int = RARE_ROWS
) -> Iterator[tuple[list[str], list[str]]]:
    """Splits of ``words`` into ``(rarer, commoner)`` for an any-word search, each part in text
    order: first the rarest words whose ``rows`` (rows of the index holding the word) add up to
    at most ``budget`` (at least the rarest word), then one more word at a time, rarest first,
    until no word is left commoner.

    Why: a search ranks the rows holding a rarer word by the score of all the words, and the
    commonest words are only asked of those rows, so its cost follows the rarer words' rows,
    not the common words' (FTS5 scores every row a query matches). The next split is taken
    only while the rows found do not fill the page; a row holding only the commoner words
    scores at most ``(k1 + 1) x idf`` for each (2.2 x 2.1 for "learning" in a tenth of the
    rows), below most rows with a rarer word.

    >>> rows = {"deep": 12000, "inchworm": 60, "robots": 3000, "soft": 2500}
    >>> for rare, common in rarer_first(["deep", "soft", "inchworm", "robots"], rows):
    ...     print(rare, common)
    ['soft', 'inchworm'] ['deep', 'robots']
    ['soft', 'inchworm', 'robots'] ['deep']
    ['deep', 'soft', 'inchworm', 'robots'] []
    >>> list(rarer_first(["deep", "learning"], {"deep": 12000, "learning": 40000}))
    [(['deep'], ['learning']), (['deep', 'learning'], [])]
    """
    ranked = sorted(words, key=lambda w: (rows.get(w, 0), w))
    taken, total = 1, rows.get(ranked[0], 0) if ranked else 0
    while taken < len(ranked) and total + rows.get(ranked[taken], 0) <= budget:
        total += rows.get(ranked[taken], 0)
        taken += 1
    for n in range(taken, len(ranked) + 1):
        rare = set(ranked[:n])
        yield [w for w in words if w in rare], [w for w in words if w not in rare]
