"""Stage 5: scores. Junk is removed, every candidate gets the hand-set score of
:func:`score_candidate`, generic ones are demoted, and only the best plain phrases become
candidates (:data:`PLAIN_KEEP`).

What it decides: a first ranking from the paper itself and the static background table
(document frequencies, author keywords of NeurIPS 2023, general English), so a paper's record
is the same alone or in any batch. The learned re-ranker (:mod:`.ranking`) replaces the scores
of the top candidates afterwards; these scores order the rest and are one of its features.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from extractors.concepts.analysis.candidate import STATIC_CACHE_LIMIT, Candidate, kind_for_head
from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.background import Background
from extractors.concepts.filler import is_generic_key
from extractors.concepts.junk import TITLE_TOPICS, is_junk, is_vacuous
from extractors.concepts.specificity import is_low_specificity, is_specific_word
from extractors.concepts.vocabulary import Vocabulary

PLAIN_KEEP = 22  # plain phrases turned into candidates (the extractor keeps at most 20)


def score_candidates(ctx: PaperContext) -> list[Candidate]:
    """Every kept candidate of the paper, scored, best first."""
    stream, vocab, background, title_end = ctx.stream, ctx.vocab, ctx.background, ctx.title_end
    by_vocab, by_key, plain = ctx.by_vocab, ctx.by_key, ctx.plain
    keys = stream.keys
    ranked: list[Candidate] = []
    starts = stream.starts
    if by_key:
        for key, spans in plain.items():
            c2 = by_key.get(key)
            if c2 is not None:
                c2.spans.extend(spans)
    for c in (*by_vocab.values(), *by_key.values()):
        if c.source == "discovered" and not c.named and is_junk(c.key) and not (c.introduced and c.name):
            continue  # an introduced *name* ("GRAPE") is never junk; a spelt-out phrase can be
        spans = c.spans = sorted(set(c.spans))
        c.count = len({s for s, _ in spans})
        c.first = spans[0][0]
        c.in_title = starts[c.first] < title_end
        c.score = score_candidate(c, vocab, background)
        if not (c.defined or c.introduced or c.named) and (
            generic_here(c, keys, background)
            or (c.source != "vocabulary" and low_specificity(c.key, background))
        ):
            c.score = round(c.score * GENERIC_FACTOR, 4)  # "language models", "classification"
        ranked.append(c)
    # Plain phrases: scored from their spans; only the best become Candidate objects.
    scored: list[tuple[float, int, tuple[str, ...], list[tuple[int, int]]]] = []
    for key, spans in plain.items():
        part = static_part(key, background)
        first = spans[0][0]
        in_title = starts[first] < title_end
        if part < 0:
            if not (key in TITLE_TOPICS and in_title):
                continue
            part = _static_score(key, background)  # "evaluation" in the title: what the paper is
        if key in by_key:
            continue
        count = len(spans)
        score = part * (1.0 + TF_WEIGHT * math.log(count) if count > 1 else 1.0)
        if in_title:
            score *= TITLE_BOOST
        scored.append((round(score, 4), first, key, spans))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    for score, first, key, spans in scored[:PLAIN_KEEP]:
        ranked.append(
            Candidate(
                key=key,
                source="discovered",
                spans=spans,
                kind=kind_for_head(key),
                count=len(spans),
                first=first,
                in_title=starts[first] < title_end,
                score=score,
            )
        )
    ranked.sort(key=lambda c: (-c.score, c.first, c.key))
    return ranked


def generic_here(c: Candidate, keys: Sequence[str], background: Background) -> bool:
    """A concept named generically in this paper: its name or its first wording is generic
    (:func:`~extractors.concepts.filler.is_generic_key`); acronyms are judged by their long form."""
    s, e = c.spans[0]
    first = tuple(k for k in keys[s:e] if k not in ("(", ")"))
    for key in (c.key, first):
        if key and not (len(key) == 1 and key[0].startswith("A:")):
            if is_generic_key(key, background.df, background.keywords):
                return True
    return False


def low_specificity(key: tuple[str, ...], background: Background) -> bool:
    """:func:`~extractors.concepts.specificity.is_low_specificity` with the background's tables,
    remembered per phrase (a pure function of the phrase, so the cache never changes a result)."""
    if not background.general or len(key) < 2:
        return False
    cache = background.low_specificity
    hit = cache.get(key)
    if hit is None:
        if len(cache) > STATIC_CACHE_LIMIT:
            cache.clear()
        hit = cache[key] = is_low_specificity(
            key,
            background.general,
            background.df,
            background.n_docs,
            background.keywords,
            background.affinity,
        )
    return hit


def is_filler(key: tuple[str, ...], background: Background) -> bool:
    """A discovered phrase that is no concept: evaluative or generic, a lone everyday word that
    is no established keyword ("buyer", "recipe", "security"), or a one-letter head ("truncated
    q"). (A phrase of everyday words, "security issue", stays a mention but scores low:
    :func:`static_part`, :func:`.ranking.rerank`.)

    A lone word counts when it is rare in general English ("blockchain", "phishing",
    "locomotion") or an author keyword of :data:`SINGLE_MIN_KEYWORD` papers; without a
    general-English table only the keyword rule applies.
    """
    if len(key[-1]) < 2 or key[-1] in VERB_HEADS or (key[-1].endswith("ed") and len(key[-1]) > 4):
        return True  # "truncated q", "agents lack", "LLM-based", "fine-tuned"
    if not QUANTIFIERS.isdisjoint(key):
        return True  # "actions several steps"
    general = background.general
    if len(key) == 1:
        word = key[0]
        if (
            not word.startswith("A:")
            and background.keywords.get(key, 0) < SINGLE_MIN_KEYWORD
            and not (general and is_specific_word(word, general))
        ):
            return True
    return is_generic_key(key, background.df, background.keywords)


QUANTIFIERS = frozenset("several many multiple various few numerous each all some any every".split())
GENERIC_FACTOR = 0.35  # a generic concept stays a MENTIONS but leaves the top of the list
# A lone everyday word is a keyphrase only if authors chose it as a keyword this often.
SINGLE_MIN_KEYWORD = 2
# Verbs the word-class lexicon reads as nouns; a phrase never ends on them ("agents lack").
VERB_HEADS = frozenset(
    """lack persist exist remain emerge occur hold lead rely allow enable fail outperform suffer
    struggle require yield matter""".split()
)


def score_candidate(c: Candidate, vocab: Vocabulary, background: Background) -> float:
    """Rank score of one concept in one paper (comparable within a paper); see :func:`_static_score`."""
    prior = 1.0
    if c.source == "vocabulary":
        prior *= VOCAB_BOOST
    if c.defined:
        prior *= DEFINED_BOOST
    if c.introduced:
        prior *= INTRODUCED_BOOST
    if c.named:
        prior *= NAMED_BOOST
    if c.kind == "DATASET":
        prior *= DATASET_FACTOR
    if c.kind in ("MODEL", "DATASET") and not c.in_title and _is_product_name(c):
        prior *= USED_ARTIFACT_FACTOR  # GPT-4, Llama 2, GSM8K: used by the paper, rarely its topic
    part = background.static_scores.get(c.key)
    if part is None or part < 0:
        part = _static_score(c.key, background)
    return round(
        part * (1.0 + TF_WEIGHT * math.log(c.count)) * (TITLE_BOOST if c.in_title else 1.0) * prior, 4
    )


# Weights of the score. Tuned by coordinate ascent on ICLR 2018 (F1@10 against author keywords,
# see bench/README.md); COLM 2024 was not used for tuning. Position in the abstract turned out
# not to help once the title is a feature, so it is not one.
TF_WEIGHT = 0.5  # (1 + 0.5 ln count): repetition helps, with fast saturation
TITLE_BOOST = 1.4  # mentioned in the title
IDF_FLOOR = 0.1  # specificity = 0.1 + min(idf, 7) / 7
IDF_CAP = 7.0
KEYWORD_WEIGHT = 0.35  # (1 + 0.35 ln(1 + NeurIPS keyword count))
UNIGRAM_FACTOR = 0.8
VOCAB_BOOST = 1.5
DEFINED_BOOST = 2.0  # the paper spells out an acronym for it
INTRODUCED_BOOST = 1.3
NAMED_BOOST = 1.2
DATASET_FACTOR = 0.7  # datasets are rarely what a paper is "about"
USED_ARTIFACT_FACTOR = 0.4  # a named model or dataset outside the title: used, rarely the topic


def _is_product_name(c: Candidate) -> bool:
    """A specific model or dataset (``GPT-4``, ``ChatGPT``, ``Llama 2``), not a class of models."""
    if c.named:
        return True
    name = c.name
    return any(ch.isdigit() for ch in name) or sum(ch.isupper() for ch in name) >= 2


def static_part(key: tuple[str, ...], background: Background) -> float:
    """The phrase-only part of a plain phrase's score, ``-1.0`` for a junk phrase; cached in the
    background, and a pure function of the phrase (so the cache never changes a result)."""
    done = background.static_parts.get(key)
    if done is None:
        if len(background.static_parts) > STATIC_CACHE_LIMIT:
            background.static_parts.clear()
        done = background.static_parts[key] = _static_part(key, background)
    return done


def _static_part(key: tuple[str, ...], background: Background) -> float:
    part = background.static_scores.get(key)
    if part is None:
        static = background.static_scores
        if len(static) > STATIC_CACHE_LIMIT:
            static.clear()
        junk = is_junk(key) or is_vacuous(key, background.lexicon.word_class) or is_filler(key, background)
        part = static[key] = -1.0 if junk else _static_score(key, background)
    if part > 0 and low_specificity(key, background):
        part *= GENERIC_FACTOR  # "security issue", "user input": everyday words
    return part


def _static_score(key: tuple[str, ...], background: Background) -> float:
    """The part of a phrase's score that depends only on the phrase (cached per background).

    ``specificity * keyword prior * length factor``: the background idf, capped so
    common-yet-topical phrases ("reinforcement learning") are not punished like boilerplate,
    and how often NeurIPS 2023 authors chose the phrase as a keyword.
    """
    if not key:
        return IDF_FLOOR + 0.6
    df = background.df.get(key, 1)
    idf = min(math.log((background.n_docs + 1) / (df + 1)), IDF_CAP) / IDF_CAP
    kw = 1.0 + KEYWORD_WEIGHT * math.log1p(background.keywords.get(key, 0))
    return (IDF_FLOOR + idf) * kw * (UNIGRAM_FACTOR if len(key) == 1 else 1.0)
