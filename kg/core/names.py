"""Lookup keys for names: computed once when a node is written, compared when a name is asked for.

Both stores keep these keys in an index (a table on SQLite, an indexed internal property on
Neo4j), so resolving ``concept(name: "LLMs")`` or ``author(name: "ABHRA CHAUDHURI")`` is one
index lookup instead of a scan of every name. The functions are pure and need no tokenizer:
the same code runs in the writer and in a 50 ms ``kg query`` process.

A concept surface has two keys:

- the *loose* key: every word case- and accent-folded and singularised (``Multi-armed Bandits``
  -> ``multi armed bandit``);
- the *strict* key, only when the surface contains an acronym: acronym words keep their case
  (``LP`` -> ``LP``, so ``lp`` does not find linear programming); other words as in the loose key.

A query is tried strict first, then loose.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from kg.core.ids import fold, split_nickname
from kg.core.normalize import is_acronym, norm_token

_WORDS = re.compile(r"[^\W_]+")
STRICT_PREFIX = "s:"
LOOSE_PREFIX = "l:"
# Names asked for come from clients, and ``norm_token`` keeps a 200k-entry cache for the
# extractor's hot loop: fed with query words, it grew by one entry per request for names like
# "no such name 1234" (about 200 bytes each, 40 MB at its bound; bench/api_memory.py showed the
# server's RSS climbing 0.2 MB per 1,000 requests). Query keys use the function uncached.
_norm_uncached: Callable[[str], str] = norm_token.__wrapped__


def words(text: str) -> list[str]:
    """The word tokens of a name (letters and digits; punctuation splits).

    >>> words("Q-learning (deep)")
    ['Q', 'learning', 'deep']
    """
    return _WORDS.findall(text)


def loose_key(text: str, norm: Callable[[str], str] = norm_token) -> str:
    """Case-, accent-, plural- and punctuation-insensitive key.

    >>> loose_key("Multi-armed Bandits"), loose_key("LLMs")
    ('multi armed bandit', 'llm')
    """
    return " ".join(norm(w) for w in words(text))


def query_loose_key(text: str) -> str:
    """:func:`loose_key` of text a client sent (no cache grows with it)."""
    return loose_key(text, _norm_uncached)


def strict_key(text: str, norm: Callable[[str], str] = norm_token) -> str | None:
    """The case-sensitive key for a surface with an acronym word, else ``None``.

    >>> strict_key("LLMs"), strict_key("LP relaxation"), strict_key("linear programming")
    ('LLM', 'LP relaxation', None)
    """
    ws = words(text)
    if not any(is_acronym(w) for w in ws):
        return None
    out = []
    for w in ws:
        if is_acronym(w):
            out.append(w[:-1] if w.endswith("s") and len(w) > 2 else w)
        else:
            out.append(norm(w))
    return " ".join(out)


def concept_keys(surface: str, norm: Callable[[str], str] = norm_token) -> list[str]:
    """The prefixed keys one concept surface is found by (strict first).

    >>> concept_keys("LLMs"), concept_keys("bandits")
    (['s:LLM', 'l:llm'], ['l:bandit'])
    """
    out = []
    strict = strict_key(surface, norm)
    if strict:
        out.append(STRICT_PREFIX + strict)
    loose = loose_key(surface, norm)
    if loose:
        out.append(LOOSE_PREFIX + loose)
    return out


def query_keys(name: str) -> list[str]:
    """Keys to try for a concept name asked for, in order (same scheme as :func:`concept_keys`;
    no cache grows with the names clients send)."""
    return concept_keys(name, _norm_uncached)


def author_keys(name: str, nickname: str | None = None) -> list[str]:
    """Folded name forms an author is found by: the name without a quoted nickname, and the
    nickname used as a first name (``Zhangyang “Atlas” Wang`` is also ``Atlas Wang``).

    >>> author_keys("Zhangyang Wang", "Atlas")
    ['zhangyang wang', 'atlas wang']
    """
    base = split_nickname(name)[0]
    out = [fold(base)] if base.strip() else []
    if nickname:
        _first, _, rest = base.partition(" ")
        alt = fold(f"{nickname} {rest}" if rest else nickname)
        if alt not in out:
            out.append(alt)
    return out


def author_query_key(name: str) -> str:
    """The key a queried author name is compared with."""
    return fold(split_nickname(name)[0])
