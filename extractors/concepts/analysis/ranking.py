"""Stage 6: the learned re-ranking of the top candidates, with the demotions that keep filler out of
a paper's top 10.

What it decides: each of the best :data:`RERANK_TOP` candidates' score becomes ``10 x P(author
keyword)`` from the shipped logistic model (:mod:`extractors.concepts.ranker`), then generic
phrases, low-specificity phrases ("security issue") and broad parents beside their child
("reinforcement learning" beside RLHF) are demoted, and so are fragments (:mod:`.demotions`).
The rest keep their hand-set order below.

Why: the hand-set score (:mod:`.scoring`) weighs a dozen signals by hand; the model weighs them
as authors' keyword choices do. :class:`RankTerms` computes the model's sum from precomputed
addends (a tenth of the fast mode's time otherwise).
"""

from __future__ import annotations

import math

from spacy.tokens import Doc

from extractors.concepts.analysis.candidate import Candidate
from extractors.concepts.analysis.demotions import demote_fragments
from extractors.concepts.analysis.result import Analysis
from extractors.concepts.analysis.scoring import GENERIC_FACTOR, low_specificity, static_part
from extractors.concepts.background import Background
from extractors.concepts.filler import is_generic_key
from extractors.concepts.ranker import FEATURES, KIND_FEATURES, Ranker

SPECIFIC_FACTOR = 0.1  # further down than GENERIC_FACTOR when the paper has its narrower wording
# The learned re-ranker (extractors/data/ranker.json); scripts/train_ranker.py switches it off
# to collect the features of the hand-set ranking it is trained on.
RANKER_ENABLED = True
RANKER_SCALE = 10.0  # MENTIONS.score = 10 x P(author keyword): comparable within a paper
RERANK_TOP = 30  # candidates re-ranked by the model (the top 10-20 are what is shown)


def rerank(analysis: Analysis, ranker: Ranker, background: Background, parse: Doc | None) -> None:
    """Replace each candidate's hand-set score by the model's (generic ones stay demoted, and so
    do phrases cut out of longer ones: :func:`.demotions.demote_fragments`)."""
    terms = rank_terms(ranker, background)
    ranked = analysis.candidates
    head, rest = ranked[:RERANK_TOP], ranked[RERANK_TOP:]
    parents = _parents_with_narrower(analysis, head)
    for c in head:
        p, generic = terms.probability(analysis, c)
        if not generic:
            if c.source != "vocabulary":
                generic = terms.low_specificity(c.key)  # "security issue", "user input"
            elif c.spans and c.vocab_id in analysis.vocab.ambiguous:
                # A curated concept the paper first names by a generic shortened alias
                # ("Diffusion" for diffusion models, "Vision"): its surface is what a reader sees.
                s, e = c.spans[0]
                first = tuple(analysis.stream.keys[s:e])
                generic = first in analysis.vocab.ambiguous[c.vocab_id] and is_generic_key(
                    first, background.df, background.keywords
                )
        if generic and not (c.defined or c.introduced or c.named):
            p *= GENERIC_FACTOR
            if _has_narrower_wording(c, ranked):
                p *= SPECIFIC_FACTOR  # "language models" where the paper says "large language models"
        elif c.vocab_id in parents and not c.in_title:
            p *= PARENT_FACTOR  # "reinforcement learning" beside RLHF
        c.score = round(RANKER_SCALE * p, 4)
    demote_fragments(analysis, head, background, parse)
    if rest and head:
        # Below the re-ranked ones, in their hand-set order (they only matter as extra MENTIONS).
        floor = min(c.score for c in head) * 0.99
        top_rest = max(rest[0].score, 1e-9)
        for c in rest:
            c.score = round(floor * c.score / top_rest, 4)
    ranked.sort(key=lambda c: (-c.score, c.first, c.key))


def _parents_with_narrower(analysis: Analysis, head: list[Candidate]) -> frozenset[str]:
    """Broad vocabulary concepts of the paper (:data:`BROAD_PARENT`) that a narrower vocabulary
    concept of the paper is at least as salient as (:meth:`Analysis.salience`).

    Why: a broad parent next to its child ("reinforcement learning" beside RLHF, "information
    retrieval" beside RAG) says less than the child, so it leaves the top 10 unless the title
    names it (:func:`rerank`). A parent the paper stresses more than any child stays: an
    abstract on multi-armed bandits that also names contextual bandits once is about bandits.
    """
    found = [c for c in head if c.source == "vocabulary" and c.vocab_id]
    if len(found) < 2:
        return frozenset()
    vocab = analysis.vocab
    broad = {c.vocab_id for c in found if vocab.narrower_count(c.vocab_id) >= BROAD_PARENT}
    if not broad:
        return frozenset()
    # The last candidate of each id speaks for it; its salience is computed only when compared
    # (most papers' vocabulary concepts have no broad ancestor among them).
    last = {c.vocab_id: c for c in found}
    parents: set[str] = set()
    for c in found:
        above = [a for a in vocab.ancestors(c.vocab_id) if a in broad and a != c.vocab_id]
        if above:
            mine = analysis.salience(last[c.vocab_id])
            parents.update(a for a in above if analysis.salience(last[a]) <= mine)
    return frozenset(parents)


# A parent is broad when this many vocabulary concepts are narrower than it (reinforcement
# learning 63, large language models 36, transformers 15; imitation learning 5, blockchain 4):
# only a broad parent leaves the top 10 beside its child. Demoting every parent cost 0.5-0.7
# points of F1@10 on COLM 2024 and CoRL (authors list "imitation learning" beside "behavior
# cloning"); broad ones only, about a third of that.
BROAD_PARENT = 15
PARENT_FACTOR = 0.035  # as a generic phrase beside its narrower wording (GENERIC x SPECIFIC)


def _has_narrower_wording(c: Candidate, candidates: list[Candidate]) -> bool:
    """Whether another candidate of the paper is a longer phrase holding ``c``'s words in a row
    ("large language models" for "language models", "graph neural networks" for "graph").

    Why: a generic concept next to its narrower wording adds nothing to a paper's top 10; the
    narrower one says it better. On the dev sets this moved the generic rate of the top 10 from
    6.9/9.3/1.5% to 2.5/3.0/0.4% (ICLR 2018 / COLM 2024 / CoRL), for 1.1/0.8/0.2 points of
    F1@10 (authors do list "language models" beside "large language models").
    """
    n = len(c.key)
    for other in candidates:
        k = other.key
        if len(k) > n and any(k[i : i + n] == c.key for i in range(len(k) - n + 1)):
            return True
    return False


KEY_TERMS_LIMIT = 300_000  # phrases whose ranker addends are remembered (see RankTerms)
# Features that depend only on the phrase, in feature order.
_KEY_FEATURES = ("log_static", "one_word", "three_plus_words", "log_keyword", "idf", "generic")
# The 0/1 features: the cues (``_flags``), then the kind one-hots and the acronym flag (``_kinds``).
_FLAG_FEATURES = (
    "in_title",
    "vocabulary",
    "defined",
    "introduced",
    "named",
    "first_sentence",
    "contribution",
)
_BINARY_FEATURES = _FLAG_FEATURES + KIND_FEATURES


class RankTerms:
    """The re-ranker's score of a candidate from precomputed addends (role: ranking fast path).

    :func:`~extractors.concepts.ranker.features` builds 21 features per candidate and
    :meth:`Ranker.probability` standardises and weighs each; for the 30 candidates of every
    paper that was a tenth of the fast mode's time. Six features depend only on the phrase
    (its idf, keyword count, static score, length, genericness): their addends are computed
    once per phrase. Twelve are 0 or 1: both addends are computed once. Only the score, count
    and position are computed per candidate. The addends are the same floats, summed in the
    same order, so the probability is bit for bit the one of
    ``ranker.probability(features(...))``. :meth:`probability` spells the sum out in the order
    of :data:`~extractors.concepts.ranker.FEATURES`; ``tests/unit/test_rank_terms.py`` compares
    the two exactly on real papers, so a feature added or dropped there fails it.
    """

    def __init__(self, ranker: Ranker, background: Background) -> None:
        self.ranker = ranker
        self.background = background
        index = {name: i for i, name in enumerate(FEATURES)}
        self._key_index = tuple(index[name] for name in _KEY_FEATURES)
        binary = {
            name: (ranker.term(index[name], 0.0), ranker.term(index[name], 1.0)) for name in _BINARY_FEATURES
        }
        self._flags = tuple(binary[name] for name in _FLAG_FEATURES)
        self._kinds = tuple(binary[name] for name in KIND_FEATURES)
        # (weight, mean, scale) of the three features computed per candidate
        self._dynamic = tuple(
            (ranker.weights[i], ranker.mean[i], ranker.scale[i])
            for i in (index["log_score"], index["log_count"], index["position"])
        )
        self.by_key: dict[tuple[str, ...], tuple[tuple[float, ...], bool]] = {}

    def key_terms(self, key: tuple[str, ...]) -> tuple[tuple[float, ...], bool]:
        """The phrase-only addends (order: ``_KEY_FEATURES``) and whether the phrase is generic."""
        hit = self.by_key.get(key)
        if hit is None:
            bg = self.background
            df = bg.df.get(key, 1)
            idf = min(math.log((bg.n_docs + 1) / (df + 1)), 7.0) / 7.0
            static = static_part(key, bg)
            generic = bool(key) and is_generic_key(key, bg.df, bg.keywords)
            values = (
                math.log(static if static > 0 else 0.1),
                float(len(key) == 1),
                float(len(key) >= 3),
                math.log1p(bg.keywords.get(key, 0)),
                idf,
                float(generic),
            )
            term = self.ranker.term
            if len(self.by_key) > KEY_TERMS_LIMIT:
                self.by_key.clear()
            hit = self.by_key[key] = (
                tuple(term(i, v) for i, v in zip(self._key_index, values, strict=True)),
                generic,
            )
        return hit

    def low_specificity(self, key: tuple[str, ...]) -> bool:
        """:func:`~extractors.concepts.specificity.is_low_specificity` of a phrase."""
        return low_specificity(key, self.background)

    def probability(self, analysis: Analysis, c: Candidate) -> tuple[float, bool]:
        """(P(author keyword), generic) of one candidate: ``features`` + ``Ranker.probability``.

        The addends are summed left to right in one expression, as ``Ranker.from_terms`` does.
        """
        (log_static, one_word, three_plus, log_keyword, idf, generic_term), generic = self.key_terms(c.key)
        (b_title, b_vocab, b_defined, b_introduced, b_named, b_first, b_contribution) = self._flags
        (b_model, b_dataset, b_task, b_method, b_acronym) = self._kinds
        (w0, m0, s0), (w3, m3, s3), (w4, m4, s4) = self._dynamic
        first, contribution = analysis.where(c)
        n = max(len(analysis.stream), 1)
        surface = analysis.stream.keys[c.spans[0][0]] if c.spans else ""
        kind = c.kind
        z = (
            self.ranker.bias
            + w0 * (math.log(max(c.score, 1e-3)) - m0) / s0
            + log_static
            + b_title[c.in_title]
            + w3 * (math.log(max(c.count, 1)) - m3) / s3
            + w4 * (c.first / n - m4) / s4
            + b_vocab[c.source == "vocabulary"]
            + b_defined[c.defined]
            + b_introduced[c.introduced]
            + b_named[c.named]
            + one_word
            + three_plus
            + log_keyword
            + idf
            + generic_term
            + b_first[first]
            + b_contribution[contribution]
            + b_model[kind == "MODEL"]
            + b_dataset[kind == "DATASET"]
            + b_task[kind == "TASK"]
            + b_method[kind == "METHOD"]
            + b_acronym[surface.startswith("A:")]
        )
        return self.ranker.squash(z), generic


_RANK_TERMS: list[RankTerms] = []


def rank_terms(ranker: Ranker, background: Background) -> RankTerms:
    """The :class:`RankTerms` of a ranker and a background, kept while both are the ones in use."""
    if _RANK_TERMS and _RANK_TERMS[0].ranker is ranker and _RANK_TERMS[0].background is background:
        return _RANK_TERMS[0]
    _RANK_TERMS[:] = [RankTerms(ranker, background)]
    return _RANK_TERMS[0]
