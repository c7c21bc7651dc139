"""Salience and "about": how central a concept is to one paper, and whether every mention of it
is an aside.

What it decides: :func:`where` (in the abstract's first sentence; in a contribution sentence),
:func:`claimed` (the paper claims it as its own), :func:`aside` (an auxiliary loss, a regulariser,
a baseline), and :func:`salience` in [0, 1], from which ``MENTIONS.about`` follows
(:data:`ABOUT_THRESHOLD`, :func:`extractors.concepts.extract.is_about`).

Why: a paper that *uses* a concept is not *about* it; concept pages list the papers about a
concept first. Only the paper's own text counts (positions and sentence cues of
:mod:`.cues`), so a record is the same alone or in any batch. The answers are remembered per
candidate in the paper's :class:`AboutCache`.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from extractors.concepts.analysis.cues import _ASIDE_AFTER, _ASIDE_BEFORE, _OWN, ASIDE_WINDOW, Cues, cue_text

if TYPE_CHECKING:
    from extractors.concepts.analysis.candidate import Candidate
    from extractors.concepts.analysis.result import Analysis

# Salience = weighted evidence of aboutness, capped at 1; ``about`` from ABOUT_THRESHOLD.
# The title, a definition, or four mentions each make a paper about a concept; so do a
# contribution sentence ("we study X") or the first sentence together with one more signal.
# A single mention elsewhere does not. Tuned on the hand-labelled links of
# bench/labels/concept_links.jsonl (about / passing / wrong).
SALIENCE_WEIGHTS: dict[str, float] = {
    "title": 0.4,
    "first": 0.15,  # often background ("GNNs are widely adopted ..."): not enough alone
    "contribution": 0.3,  # after the cue of a contribution sentence ("we propose X")
    "repeated": 0.3,  # full weight from 4 mentions
    "defined": 0.3,  # an acronym definition or an introduced name
}
ABOUT_THRESHOLD = 0.3
OPENING_CHARS = 4  # a concept this close to the abstract's start opens it (a math prefix allowed)


@dataclass
class AboutCache:
    """One paper's answers, by candidate (``id(c)``) or by sentence, computed on first use."""

    salience: dict[int, float] = field(default_factory=dict)
    where: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    contribution: dict[int, int] = field(default_factory=dict)  # sentence -> where its cue starts
    claims: dict[int, tuple[int, int, list[tuple[int, int]]]] | None = None  # see :func:`_claim_spans`
    first_sentence: int | None = None
    cues: tuple[str, Cues] | None = None  # see :func:`_cue_text`


def where(analysis: Analysis, c: Candidate) -> tuple[bool, bool]:
    """(in the abstract's first sentence, in a contribution sentence such as "we propose")."""
    cache = analysis.about_cache
    hit = cache.where.get(id(c))
    if hit is None:
        hit = cache.where[id(c)] = _locate(analysis, c)
    return hit


def _locate(analysis: Analysis, c: Candidate) -> tuple[bool, bool]:
    cache = analysis.about_cache
    sentences = analysis.sentences
    starts = analysis.sentence_starts
    if cache.first_sentence is None:
        cache.first_sentence = next((k for k, (a, _) in enumerate(sentences) if a >= analysis.title_end), -1)
        text, cues = _cue_text(analysis)
        for k, (a, b) in enumerate(sentences):
            m = cues.contribution.search(text, a, b)
            if m is not None:
                cache.contribution[k] = m.end()
    token_starts = analysis.stream.starts
    first = contribution = False
    for s, _ in c.spans:
        start = token_starts[s]
        k = bisect_right(starts, start) - 1
        if k == cache.first_sentence and start - sentences[k][0] <= OPENING_CHARS:
            return True, True  # the abstract opens with it: its subject ("E(3)-equivariant networks ...")
        first = first or k == cache.first_sentence
        # After the cue: the object of "we propose", not the motivation before "we".
        after = cache.contribution.get(k)
        contribution = contribution or (after is not None and start >= after)
    return first, contribution


def aside(analysis: Analysis, c: Candidate) -> bool:
    """Whether every mention of a concept is an aside: an auxiliary loss or task, a
    regulariser, or a baseline ("with an auxiliary contrastive loss", "a KL regularizer",
    "baselines such as PPO and SAC", "the BERT baseline").

    Why: such a paper uses the concept, it is not about it (``MENTIONS.about``, see
    :func:`extractors.concepts.extract.is_about`). A cue counts before a mention in the same
    clause with no "we"/"our" in between (so "we propose X, which beats the baselines" keeps
    X), or right after it ("X baseline", "X regularizer").
    """
    text = analysis.text
    starts, ends = analysis.stream.starts, analysis.stream.ends
    sentences, sentence_starts = analysis.sentences, analysis.sentence_starts
    for s, e in c.spans:
        start, end = starts[s], ends[e - 1]
        a = sentences[max(bisect_right(sentence_starts, start) - 1, 0)][0]
        before = text[max(a, start - ASIDE_WINDOW) : start]
        m = _ASIDE_BEFORE.search(before)
        if m is not None and _OWN.search(before, m.end()) is None:
            continue
        if _ASIDE_AFTER.match(text, end) is not None:
            continue
        return False
    return bool(c.spans)


def claimed(analysis: Analysis, c: Candidate) -> bool:
    """Whether the paper claims a concept as its own: named in a contribution sentence.

    Stricter than :func:`where` (which the ranker was trained on): the cue must be a whole
    verb ("frame" in "framework", "show" in "showcase" are not cues), the occurrence must
    come before any report of experiments in that sentence ("we validate our system by
    training imitation learning policies"), and it must not be what the paper compares
    against or does without ("outperforms diffusion models", "unlike GNNs", "without RL").
    """
    where(analysis, c)  # sets first_sentence
    first_sentence = analysis.about_cache.first_sentence
    claims = _claim_spans(analysis)
    token_starts = analysis.stream.starts
    starts = analysis.sentence_starts
    sentences = analysis.sentences
    for s, _ in c.spans:
        start = token_starts[s]
        k = bisect_right(starts, start) - 1
        if k == first_sentence and start - sentences[k][0] <= OPENING_CHARS:
            return True  # the abstract opens with it, as in :func:`where`
        hit = claims.get(k)
        if hit is None:
            continue
        after, before, contrasts = hit
        if after <= start < before and not any(a <= start < b for a, b in contrasts):
            return True
    return False


def _claim_spans(analysis: Analysis) -> dict[int, tuple[int, int, list[tuple[int, int]]]]:
    """Sentence -> (end of its contribution cue, start of its experiments report, the
    character ranges a contrast cue governs), for contribution sentences only."""
    cache = analysis.about_cache
    if cache.claims is None:
        cache.claims = {}
        text, cues = _cue_text(analysis)
        for k, (a, b) in enumerate(analysis.sentences):
            m = cues.claim.search(text, a, b)
            if m is None:
                continue
            ev = cues.experiments.search(text, a, b)
            before = b if ev is None else ev.start()
            contrasts = [x.span("scope") for x in cues.contrast.finditer(text, a, b)]
            cache.claims[k] = (m.end(), before, contrasts)
    return cache.claims


def _cue_text(analysis: Analysis) -> tuple[str, Cues]:
    """The text the cue patterns search, with the patterns for it (see :func:`.cues.cue_text`)."""
    cache = analysis.about_cache
    if cache.cues is None:
        cache.cues = cue_text(analysis.text)
    return cache.cues


def salience(analysis: Analysis, c: Candidate) -> float:
    """How much the paper is *about* a concept, in [0, 1] (see :data:`SALIENCE_WEIGHTS`).

    From where it occurs (title, the abstract's first sentence, a contribution sentence
    such as "we propose ..."), how often, and whether the paper defines or introduces it.
    """
    cache = analysis.about_cache
    hit = cache.salience.get(id(c))
    if hit is not None:
        return hit
    in_first, _ = analysis.where(c)
    in_contribution = analysis.claimed(c)
    # Named in one sentence only, other than the abstract's first (which frames the paper: "Large
    # language models (LLMs) are susceptible to jailbreaking"): its repetitions there and an
    # acronym definition there are no evidence ("we use an Imitation Learning (IL) framework to
    # predict ...", "collected through imitation learning (IL), where robots ...").
    once = not (c.in_title or c.introduced or in_first) and in_one_sentence(analysis, c)
    w = SALIENCE_WEIGHTS
    value = (
        w["title"] * c.in_title
        + w["first"] * in_first
        + w["contribution"] * in_contribution
        + w["repeated"] * (0.0 if once else min(1.0, (c.count - 1) / 3))
        + w["defined"] * ((c.defined and not once) or c.introduced)
    )
    hit = cache.salience[id(c)] = round(min(1.0, value), 3)
    return hit


def in_one_sentence(analysis: Analysis, c: Candidate) -> bool:
    """Whether every mention of a concept is in one sentence of the text."""
    token_starts, starts = analysis.stream.starts, analysis.sentence_starts
    found = {bisect_right(starts, token_starts[s]) for s, _ in c.spans}
    return len(found) <= 1
