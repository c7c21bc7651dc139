"""The stages of one paper's concept analysis, in order, and the per-Doc cache (:func:`analyse`).

Each stage is a function of the :class:`~.context.PaperContext`; read this function to see the
data flow, and the stage's module to see what it decides and why.
"""

from __future__ import annotations

from spacy.tokens import Doc

from extractors.concepts.analysis import ranking
from extractors.concepts.analysis.acronyms import count_acronym_uses, define_acronyms, expand_acronym_phrases
from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.analysis.demotions import demote_duplicates, introduced_first
from extractors.concepts.analysis.introductions import collect_introduced, collect_named
from extractors.concepts.analysis.phrases import (
    collect_function_word_phrases,
    collect_keyword_adjectives,
    collect_noun_phrases,
)
from extractors.concepts.analysis.result import Analysis
from extractors.concepts.analysis.scoring import score_candidates
from extractors.concepts.analysis.subphrases import lift_sub_phrases
from extractors.concepts.analysis.vocabulary_match import match_vocabulary
from extractors.concepts.analysis.word_classes import fix_word_classes
from extractors.concepts.background import Background
from extractors.concepts.ranker import load_ranker
from extractors.concepts.tokens import stream_from_doc
from extractors.concepts.vocabulary import Vocabulary

CACHE_KEY = "paperkg.concepts.analysis"


def analyse(
    doc: Doc,
    text: str,
    title_end: int,
    vocab: Vocabulary,
    background: Background,
    tokens_only: bool = False,
) -> Analysis:
    """The (cached) analysis of one paper's Doc; ``title_end`` is where the title ends in ``text``.

    ``tokens_only``: the Doc comes from the tokenizer alone (fast mode), so it has neither tags
    nor a parse; without it both are looked for, which scans every token twice.
    """
    cached = doc.user_data.get(CACHE_KEY)
    if isinstance(cached, Analysis):
        return cached
    result = run_stages(doc, text, title_end, vocab, background, tokens_only)
    doc.user_data[CACHE_KEY] = result
    return result


def run_stages(
    doc: Doc, text: str, title_end: int, vocab: Vocabulary, background: Background, tokens_only: bool
) -> Analysis:
    """One paper's analysis, uncached: the stages in order."""
    stream = stream_from_doc(doc, background.lexicon, title_end, tagged=False if tokens_only else None)
    fix_word_classes(stream, title_end, background)  # 0. verbs the lexicon reads as nouns
    parsed = not tokens_only and doc.has_annotation("DEP")
    # The inputs in PaperContext's field order, each variable named as its field.
    ctx = PaperContext(doc, text, title_end, vocab, background, stream, parsed)
    define_acronyms(ctx)  # 1. acronym definitions; their "( SF )" tokens are transparent
    match_vocabulary(ctx)  # 2. curated concepts, with support for ambiguous aliases
    count_acronym_uses(ctx)  # 1b. the short forms of discovered acronyms elsewhere
    collect_noun_phrases(ctx)  # 3. plain phrases ...
    expand_acronym_phrases(ctx)  # ... with a defined acronym inside spelt out
    collect_keyword_adjectives(ctx)
    collect_function_word_phrases(ctx)
    collect_introduced(ctx)  # 4. what the paper introduces, and the names it uses
    collect_named(ctx)
    ranked = score_candidates(ctx)  # 5. junk removed, hand-set scores, best first
    demote_duplicates(ranked, stream, text, vocab)
    analysis = Analysis(
        text=text,
        stream=stream,
        candidates=ranked,
        acronyms=ctx.acronyms,
        introduced=ctx.introduced,
        introduced_keys=ctx.introduced_keys,
        title_end=title_end,
        vocab=vocab,
        unsupported=ctx.unsupported,
        matched=frozenset(ctx.by_vocab),
    )
    ranker = load_ranker() if ranking.RANKER_ENABLED else None
    if ranker is not None:  # 6. the learned re-ranking of the top, with the demotions
        ranking.rerank(analysis, ranker, background, doc if ctx.parsed else None)
        lift_sub_phrases(analysis, background)  # 7. the known term at a long phrase's end
    introduced_first(ranked, ctx.introduced_keys)
    return analysis
