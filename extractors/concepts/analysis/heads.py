"""Is-a by the appositive's head noun, for a field's term the vocabulary leaves out: "we present
GPQA, a challenging dataset of 448 questions" makes GPQA a dataset.

What it decides: the *head parent* of a name the paper introduces (stage 4,
:mod:`.introductions`): the head noun of the appositive right after the name (", a [adjectives
and nouns] HEAD", or ": a ... HEAD"), else of the noun phrase right before it ("a new synthetic
benchmark RULER", "a benchmark named UniQA-3D"), when that noun is a one-word field term that is
no curated concept. The record links the name to it with ``BROADER``; the parent is a Concept
node of its own (``source: discovered``, never provisional: :func:`extractors.concepts.extract.parent_node`).

Only a *field's term* heads a parent: a one-word author keyword of at least
:data:`HEAD_MIN_KEYWORD` NeurIPS 2023 papers, so "benchmark" (60 papers), "dataset" (50) and
"evaluation" (19) do; "framework" (2), "method" and "approach" (0) do not, nor words that are
parts of many terms but seldom a keyword alone ("learning" 7, "language" 5). A curated head is
left to the vocabulary (:meth:`Analysis.finalize` places a phrase under the longest vocabulary
concept at its end), and a curated name gets a head parent only when the vocabulary gives it none
(GPQA, a curated dataset with no parent, becomes a dataset).

Why: authors file a paper under its genre ("evaluation", "benchmark", "dataset" are three of
COLM 2024's five most frequent keywords) and the vocabulary may not hold such generic words
(``check_vocabulary.GENERIC_TERMS``), so before this rule no paper climbed to them: their
``concept(K).papers`` held 0 of 22, 2 of 11 and 1 of 5 of the papers listing them
(bench/README.md, "Concept → papers: the missed papers that are not passing mentions"). A paper
that introduces a benchmark or a dataset is about one: of the 26 links the rule adds on the
four dev sets, 22 were judged about and 4 borderline (a dataset or benchmark built as a second
contribution). The wider rule (a headline phrase the paper is about is a kind
of its last word: "Multilingual Evaluation" -> evaluation) was tried and not kept: 58% of its
links were about ("3D scene graph" -> graph, "knot theory" -> theory, "offline dataset" ->
dataset, "policy evaluation" -> evaluation). The test is a static table and the paper's own
text, so a record is the same alone or in any batch.
"""

from __future__ import annotations

from extractors.concepts.background import Background
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary

# A head parent's word is an author keyword on its own in at least this many NeurIPS 2023 papers:
# "benchmark" 60, "dataset" 50, "evaluation" 19, "graph" 15 do; "learning" 7, "representation" 6,
# "language" 5, parts of many terms but seldom a paper's genre, do not.
HEAD_MIN_KEYWORD = 10
APPOSITIVE_WORDS = 6  # at most this many adjectives and nouns between "a"/"an" and the head
_ARTICLES = frozenset({"a", "an"})
_NAMING = frozenset({"named", "called", "dubbed"})  # "a benchmark named UniQA-3D"
_SEPARATORS = frozenset({",", ":"})  # "GPQA, a challenging dataset"; "IllusionVQA: a diverse dataset"


def field_head(word: str, vocab: Vocabulary, background: Background) -> tuple[str, ...] | None:
    """``(word,)`` when that one word is a field's term and no curated concept, else ``None``."""
    key = (word,)
    if not word or word.startswith("A:") or key in vocab.index:
        return None
    return key if background.keywords.get(key, 0) >= HEAD_MIN_KEYWORD else None


def appositive_head(
    stream: TokenStream, end: int, vocab: Vocabulary, background: Background
) -> tuple[str, ...] | None:
    """The head parent of a name ending at token ``end`` that an appositive describes: ", a
    [adjectives and nouns] HEAD" right after it (or ": a ... HEAD"), HEAD the
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


def preceding_head(
    stream: TokenStream, start: int, vocab: Vocabulary, background: Background
) -> tuple[str, ...] | None:
    """The head parent of a name starting at token ``start`` that its own noun phrase describes:
    "a new synthetic benchmark RULER", "a benchmark dataset CUNIT", "a benchmark named UniQA-3D"
    (HEAD right before the name, or before "named"/"called"/"dubbed", and only adjectives and
    nouns back to "a"/"an": "the popular benchmark WebArena" is one the paper uses)."""
    keys, cls = stream.keys, stream.cls
    j = start - 1
    if j >= 0 and keys[j] in _NAMING:
        j -= 1
    if j < 1 or cls[j] != "N":
        return None
    k = j - 1
    while k >= 0 and j - k <= APPOSITIVE_WORDS and cls[k] in ("N", "A") and keys[k] not in _ARTICLES:
        k -= 1
    if k < 0 or keys[k] not in _ARTICLES:
        return None
    return field_head(keys[j], vocab, background)
