"""Stage 3: plain phrase candidates: noun phrases and their sub-phrases, adjectives authors use as
keywords on their own, and known keyphrases that span a function word.

What it decides: which word runs are candidate phrases at all (``ctx.plain``: key -> spans). The
fast mode cuts noun phrases from word classes, the accurate mode from the parser's noun chunks
(:mod:`extractors.concepts.candidates`); a run inside an acronym definition's parentheses is
skipped. Nothing is scored here (:mod:`.scoring` does).
"""

from __future__ import annotations

from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.candidates import chunks_fast, chunks_parsed, collect_plain
from extractors.concepts.tokens import FUNC_FIRST, positions


def collect_noun_phrases(ctx: PaperContext) -> None:
    """Noun-phrase candidates and their sub-phrases, into ``ctx.plain``."""
    stream, background, skip = ctx.stream, ctx.background, ctx.skip
    if ctx.parsed:
        chunks = chunks_parsed(ctx.doc, stream, skip)
    else:
        chunks = chunks_fast(stream, skip)
    collect_plain(
        stream,
        chunks,
        ctx.vocab.index,
        ctx.plain,
        background.inner_ok,
        skip,
        background.units,
        background.modifier_pairs,
    )


def collect_keyword_adjectives(ctx: PaperContext) -> None:
    """Adjectives that authors use as keywords on their own ("multimodal", "Bayesian")."""
    background = ctx.background
    if not background.adjective_keywords:
        return
    keys, cls, index, plain = ctx.stream.keys, ctx.stream.cls, ctx.vocab.index, ctx.plain
    for i in positions(keys, background.adjective_keywords):
        k = keys[i]
        if cls[i] == "A" and (k,) not in index:
            plain.setdefault((k,), []).append((i, i + 1))


def collect_function_word_phrases(ctx: PaperContext) -> None:
    """Known keyphrases spanning a function word ("mixture of experts"), which no noun-phrase
    rule yields."""
    background = ctx.background
    if not background.function_firsts:
        return
    stream, index, plain = ctx.stream, ctx.vocab.index, ctx.plain
    phrases = background.function_phrases
    keys, cls, flags = stream.keys, stream.cls, stream.flags
    n = len(stream)
    top = background.function_max_len
    for i in stream.marked:
        if not flags[i] & FUNC_FIRST:
            continue
        for length in range(3, min(top, n - i) + 1):
            key = tuple(keys[i : i + length])
            if key in phrases and key not in index:
                if not any(cls[j] in (".", "M") for j in range(i, i + length)):
                    plain.setdefault(key, []).append((i, i + length))
