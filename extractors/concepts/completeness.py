"""Whether an occurrence of a phrase is a complete noun phrase in a parsed Doc (role: the
fragment rule).

Why one module: accurate mode has spaCy's parse and uses this rule to keep phrases cut out of
longer ones ("benchmarking large language", "[Monte] Carlo sampling") out of a paper's top 10,
and :mod:`kg.eval.concept_quality` measures the fragment rate of both modes with the same rule, so
the figure and the extractor cannot drift apart. Fast mode has no parse; its word-class
chunker (:mod:`extractors.concepts.candidates`) approximates the rule.
"""

from __future__ import annotations

from collections.abc import Sequence

from spacy.tokens import Span

BAD_START = frozenset({"VERB", "AUX", "ADV", "ADP", "PART", "SCONJ", "CCONJ", "DET", "PRON"})
GOOD_END = frozenset({"NOUN", "PROPN", "NUM", "ADJ", "X"})
MODIFIER_DEPS = frozenset({"compound", "amod", "nmod", "nummod", "poss", "npadvmod", "flat"})


def incomplete(span: Span, known: bool) -> bool:
    """Whether one occurrence is not a complete noun phrase.

    It starts on a verb, adverb, preposition or auxiliary ("automatically eliciting"), ends on
    something that is not a noun, number or adjective ("agents *lack*"), ends on a word that
    modifies a word after it ("benchmarking large *language* [models]"), or a word before it
    modifies a non-head word inside it ("[Monte] *Carlo* sampling"). A ``known`` term (curated
    concept or author keyword) may modify a later word ("NLP tasks"): it is a name, not a
    piece cut out of one; and it may start on any word class, because the tagger reads the
    first words of known names as a preposition ("*in*-context learning"), a verb ("*pose*
    estimation") or a gerund used as a noun ("*pretraining*").
    """
    doc = span.doc
    first, last = span[0], span[-1]
    participle_modifier = first.tag_ in ("VBN", "VBG") and first.dep_ in ("amod", "compound")
    if not known and first.pos_ in BAD_START and not participle_modifier:
        return True  # a known term starts as authors write it ("in-context learning")
    if last.pos_ not in GOOD_END and last.tag_ != "VBG":  # gerunds head keyphrases ("clustering")
        return True
    if known:
        return False
    # Ends on a modifier of a later word: a prefix cut out of a longer phrase.
    if last.dep_ in MODIFIER_DEPS and last.head.i >= span.end and last.head.pos_ in ("NOUN", "PROPN"):
        return True
    # A word just before the span modifies a word inside it other than its last: a suffix cut.
    if span.start > 0:
        prev = doc[span.start - 1]
        if prev.dep_ in MODIFIER_DEPS and span.start <= prev.head.i < span.end - 1:
            return True
    return False


def read_spans(
    spans: Sequence[tuple[int, int]], starts: Sequence[int], title_end: int
) -> Sequence[tuple[int, int]]:
    """The occurrences the rule reads: those in the abstract (token spans whose first character
    is at or after ``title_end``), all of them when the abstract has none. Why: the tagger reads
    a Title Case title as proper nouns.

    >>> read_spans([(0, 2), (9, 11)], [0, 5, 9, 14, 20, 26, 30, 35, 40, 45, 50, 55], 20)
    [(9, 11)]
    >>> read_spans([(0, 2)], [0, 5, 9], 20)
    [(0, 2)]
    """
    return [s for s in spans if starts[s[0]] >= title_end] or spans
