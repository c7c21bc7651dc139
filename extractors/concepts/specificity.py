"""Specificity against general English: what makes a phrase a concept in any field.

A field's concepts are words its authors use and everybody else rarely does: "blockchain",
"phishing", "locomotion", "Tor network". Filler is made of words common everywhere:
"security issue", "user input", "research question", "cost efficiency". Judging that by how
often one venue's authors chose a phrase as a keyword (the earlier NeurIPS 2023 prior) kept
"privacy" and dropped "blockchain"; judging it against general English works for any field.

Two shipped static tables, so a paper's record never depends on the batch:

* ``general_english.json`` (``scripts/build_general_english.py``): Zipf frequency of each word
  in general English (wordfreq's list; 4 = once per 100,000 words);
* the background document frequencies (:mod:`extractors.concepts.background`): how many
  research abstracts use the word, for words that are common in papers but not in general
  English ("dataset", "metric").

A word is *common* when it is frequent in either; a phrase has *low specificity* when every
content word is common, its head is a word authors rarely put in a keyword
(:func:`keyword_affinity`), and the phrase is not an established term (a vocabulary concept, or an
author keyword of at least :data:`ESTABLISHED_KEYWORD` papers and :data:`ESTABLISHED_SHARE` of
the abstracts that use it). A lone word is *specific* when it
is rare in general English (:data:`SINGLE_MAX_ZIPF`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from extractors import DATA_DIR
from kg.core.errors import ExtractionError

__all__ = [
    "COMMON_ACADEMIC_SHARE",
    "COMMON_ZIPF",
    "DEFAULT_GENERAL_ENGLISH",
    "ESTABLISHED_KEYWORD",
    "ESTABLISHED_SHARE",
    "HEAD_MAX_AFFINITY",
    "SINGLE_MAX_ZIPF",
    "is_common_word",
    "is_low_specificity",
    "is_specific_word",
    "keyword_affinity",
    "load_general_english",
]

DEFAULT_GENERAL_ENGLISH = DATA_DIR / "general_english.json"
# Zipf 4.2: about once in 16,000 words of general English ("security", "issue", "privacy",
# "concern", "user", "input", "requirement", "evaluation", "efficiency").
COMMON_ZIPF = 4.2
# Or in at least 1.5% of the background's research abstracts and titles ("dataset", "metric").
COMMON_ACADEMIC_SHARE = 0.015
# A lone word rarer than this in general English names something ("blockchain" 3.7,
# "phishing" < 3, "locomotion" < 3, "navigation" 4.0); "security" (5.2), "privacy" (4.4) and
# "buyer" (4.2)
# do not make a concept on their own.
SINGLE_MAX_ZIPF = 4.1
# The head of a low-specificity phrase is a word authors rarely put in keywords: fewer keyword
# uses per abstract than this (keyword_affinity; "issue" 0, "question" 0.11, "dataset" 0.18,
# against "model" 0.39, "planning" 0.49, "learning" 0.84).
HEAD_MAX_AFFINITY = 0.2
AFFINITY_MIN_DF = 5
# An author keyword of this many papers, and of at least this share of the background abstracts
# that use it, is an established term whatever its words.
ESTABLISHED_KEYWORD = 2
ESTABLISHED_SHARE = 0.25

_FUNCTION_WORDS = frozenset(
    {"of", "the", "a", "an", "and", "or", "for", "in", "on", "to", "with", "from", "by", "-"}
)


@lru_cache(maxsize=2)
def load_general_english(path: Path = DEFAULT_GENERAL_ENGLISH) -> dict[str, float]:
    """Word key -> Zipf frequency in general English (absent: rarer than the table's floor)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): int(v) / 10 for k, v in data["zipf"].items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ExtractionError(
            f"cannot read the general-English table {path}: {e} "
            "(build it: python scripts/build_general_english.py)"
        ) from e


def is_common_word(
    word: str, general: Mapping[str, float], df: Mapping[tuple[str, ...], int], n_docs: int
) -> bool:
    """Frequent in general English or in research abstracts.

    >>> is_common_word("issue", {"issue": 5.2}, {}, 100)
    True
    >>> is_common_word("phishing", {"phishing": 3.0}, {}, 100)
    False
    >>> is_common_word("metric", {"metric": 3.9}, {("metric",): 300}, 8855)
    True
    """
    if general.get(word, 0.0) >= COMMON_ZIPF:
        return True
    return df.get((word,), 0) >= COMMON_ACADEMIC_SHARE * n_docs


def is_specific_word(word: str, general: Mapping[str, float]) -> bool:
    """A lone word rare enough in general English to name something ("blockchain").

    >>> is_specific_word("blockchain", {"blockchain": 3.7}), is_specific_word("security", {"security": 5.2})
    (True, False)
    """
    return general.get(word, 0.0) < SINGLE_MAX_ZIPF


def is_low_specificity(
    key: tuple[str, ...],
    general: Mapping[str, float],
    df: Mapping[tuple[str, ...], int],
    n_docs: int,
    keywords: Mapping[tuple[str, ...], int],
    affinity: Mapping[str, float],
) -> bool:
    """A phrase of everyday words whose head authors never make a keyword of.

    Two or more words; every content word common (:func:`is_common_word`); the head (last
    content word) with a keyword affinity below :data:`HEAD_MAX_AFFINITY` ("issue", "concern",
    "question", "challenge", "input", "requirement", "dataset"); and not an established keyword
    itself. Acronyms (``A:`` keys) and words with digits are never common. Without a
    general-English table (an empty mapping) nothing is low-specificity.

    Why the head: "task and motion planning", "skill learning", "reward model" are made of
    everyday words too, but their heads are words authors put in keywords all the time.

    >>> g = {"security": 5.2, "issue": 5.2, "smart": 4.8, "contract": 4.9, "tor": 3.6, "network": 5.0}
    >>> aff = {"security": 0.8, "network": 0.3}
    >>> is_low_specificity(("security", "issue"), g, {}, 100, {}, aff)
    True
    >>> is_low_specificity(("tor", "network"), g, {}, 100, {}, aff)
    False
    >>> is_low_specificity(("smart", "network"), g, {}, 100, {}, aff)  # "network" heads keywords
    False
    >>> is_low_specificity(("security", "issue"), g, {}, 100, {("security", "issue"): 3}, aff)
    False
    """
    if len(key) < 2 or not general:
        return False
    uses = keywords.get(key, 0)
    if uses >= ESTABLISHED_KEYWORD and uses >= ESTABLISHED_SHARE * df.get(key, 0):
        return False  # "knowledge graph" (9 keyword uses, 29 abstracts), not "evaluation metric" (3, 23)
    content = [w for w in key if w not in _FUNCTION_WORDS]
    if not content or affinity.get(content[-1], 0.0) >= HEAD_MAX_AFFINITY:
        return False
    for w in content:
        if w.startswith("A:") or not w.isalpha() or not is_common_word(w, general, df, n_docs):
            return False
    return True


def keyword_affinity(
    keywords: Mapping[tuple[str, ...], int], df: Mapping[tuple[str, ...], int]
) -> dict[str, float]:
    """How readily authors put a word in a keyword: keyword uses of phrases containing the word
    per research abstract using it (at least :data:`AFFINITY_MIN_DF`).

    "learning" 0.84, "detection" 0.76, "planning" 0.49, "model" 0.39 against "question" 0.11,
    "task" 0.06, "issue" and "concern" 0 (NeurIPS 2023 keywords, background abstracts).

    >>> keyword_affinity({("issue", "tracking"): 1, ("planning",): 4}, {("issue",): 100, ("planning",): 8})
    {'issue': 0.01, 'tracking': 0.2, 'planning': 0.5}
    """
    uses: dict[str, int] = {}
    for k, v in keywords.items():
        for w in dict.fromkeys(k):  # each word once per phrase, in phrase order
            uses[w] = uses.get(w, 0) + v
    return {w: n / max(df.get((w,), 0), AFFINITY_MIN_DF) for w, n in uses.items()}
