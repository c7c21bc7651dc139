"""Is-a by head noun for a field's term the vocabulary leaves out: "automatic evaluation" is an
evaluation, "GPQA, a challenging dataset of ..." is a dataset.

What it decides: the *head parents* of a concept, one-word field terms that are no curated
concept, which the record links the concept to with ``BROADER`` (the parent is a Concept node
of its own, ``source: discovered``, never provisional: :func:`extractors.concepts.extract`):

- :func:`headline_parent`: a phrase the paper is about and names in its headline (the title or
  the abstract's first sentence) is a kind of its last word ("Multilingual Evaluation of Neural
  Toxic Degeneration" -> evaluation; "Optical Illusion Dataset" -> dataset);
- :func:`appositive_head`: a name the paper introduces is a kind of the head noun of the
  appositive that describes it ("we present GPQA, a challenging dataset of 448 questions",
  "we propose IsoBench, a benchmark dataset containing ...").

Only a *field's term* heads a parent: a one-word author keyword of at least
:data:`HEAD_MIN_KEYWORD` NeurIPS 2023 papers, so "benchmark" (60 papers), "dataset" (50) and
"evaluation" (19) do; "framework" (2), "method" and "approach" (0) do not, nor words that are
parts of many terms but seldom a keyword alone ("learning" 7, "language" 5: "vision language" is
no language). A curated head is no business of this stage: :meth:`Analysis.finalize` already
places a phrase under the longest vocabulary concept at its end; and a curated concept gets a
head parent only when the vocabulary gives it none ("LLM evaluation" -> evaluation; not
"reinforcement learning", which sits under machine learning).

Why: authors file a paper under its genre ("evaluation", "benchmark", "dataset" are three of
COLM 2024's five most frequent keywords), and the vocabulary may not hold such generic words
(``check_vocabulary.GENERIC_TERMS``), so before this rule no paper climbed to them: their
``concept(K).papers`` held 0 of 22, 2 of 11 and 1 of 5 of the papers listing them
(bench/README.md, "Concept -> papers: the missed papers that are not passing mentions"). The
link is is-a, not "about": only the paper's own *about* links climb to the parent, and a
headline phrase is what the paper is about, not one it uses in passing. The test is a static
table and the paper's own text, so a record is the same alone or in any batch.
"""

from __future__ import annotations

from extractors.concepts.background import Background
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary

# A head parent's word is an author keyword on its own in at least this many NeurIPS 2023 papers:
# "benchmark" 60, "dataset" 50, "evaluation" 19, "graph" 15 do; "learning" 7, "representation" 6,
# "language" 5, parts of many terms but seldom a paper's genre, do not.
HEAD_MIN_KEYWORD = 10
# A phrase that is an author keyword on its own in this many NeurIPS 2023 papers is a named field or
# method, not a kind of its last word's genre ("information theory" 16, "game theory" 16, "learning
# theory" 28: not theory papers); "automatic evaluation" (2) still is an evaluation.
TERM_MIN_KEYWORD = 5
APPOSITIVE_WORDS = 6  # at most this many adjectives and nouns between "a"/"an" and the head
_ARTICLES = frozenset({"a", "an"})
_SEPARATORS = frozenset({",", ":"})  # "GPQA, a challenging dataset"; a title's "IllusionVQA: A ... Dataset"


def field_head(word: str, vocab: Vocabulary, background: Background) -> tuple[str, ...] | None:
    """``(word,)`` when that one word is a field's term and no curated concept, else ``None``."""
    key = (word,)
    if not word or word.startswith("A:") or key in vocab.index:
        return None
    return key if background.keywords.get(key, 0) >= HEAD_MIN_KEYWORD else None


def headline_parent(
    key: tuple[str, ...], vocab: Vocabulary, background: Background, curated_id: str = ""
) -> tuple[str, ...] | None:
    """The head parent of a phrase of two or more words (its last word, when a field's term);
    the caller has checked that the paper is about the phrase and names it in its headline.
    ``curated_id``: the phrase is that curated concept (a parent only if the vocabulary gives
    it none). A phrase that is a field's term of its own (:data:`TERM_MIN_KEYWORD`) gets none."""
    if len(key) < 2 or (curated_id and vocab.concepts[curated_id].broader):
        return None
    if background.keywords.get(key, 0) >= TERM_MIN_KEYWORD:
        return None  # a named field of its own: information theory is no theory paper
    return field_head(key[-1], vocab, background)


def appositive_head(
    stream: TokenStream, end: int, vocab: Vocabulary, background: Background
) -> tuple[str, ...] | None:
    """The head parent of a name ending at token ``end`` that an appositive describes: ", a
    [adjectives and nouns] HEAD" right after it (or ": A ... HEAD", a title's subtitle), HEAD the
    last noun before any other word."""
    toks, keys, cls, n = stream.text, stream.keys, stream.cls, len(stream)
    if end + 2 >= n or toks[end] not in _SEPARATORS or keys[end + 1] not in _ARTICLES:
        return None
    start = e = end + 2
    while e < n and e < start + APPOSITIVE_WORDS and cls[e] in ("N", "A"):
        e += 1
    while e > start and cls[e - 1] != "N":
        e -= 1
    return field_head(keys[e - 1], vocab, background) if e > start else None
