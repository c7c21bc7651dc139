"""One paper's concept analysis: candidates from every source, merged, scored and ranked.

:func:`analyse` is shared by the ``kg.concepts.v2``, ``kg.introduces.v1`` and ``kg.titles.v1``
extractors and cached on the Doc (``doc.user_data``), so it runs once per paper.

Sources, merged by concept:

1. the curated vocabulary (longest-first matches on normalised keys);
2. acronym definitions, whose short form then counts as a mention of the long form;
3. noun-phrase candidates (fast: word-class chunks; accurate: parser noun chunks) and their
   sub-phrases, with defined acronyms expanded ("DMNL bandits" -> "diversified multinomial
   logit bandit");
4. phrases known as author keywords (NeurIPS 2023) that span a function word ("mixture of
   experts");
5. introduced names ("we propose X") and named models/datasets.

Scoring (:func:`score_candidate`) uses only the paper itself and the static background table,
so a paper's record is the same alone or in any batch (see
:mod:`extractors.concepts.background`). Names, ids and evidence are computed only for the
candidates that are kept (speed: the fast mode has well under a millisecond per paper).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress
from operator import methodcaller

from spacy.tokens import Doc

from extractors.concepts.background import FUNCTION_WORDS, Background
from extractors.concepts.candidates import chunks_fast, chunks_parsed, collect_plain
from extractors.concepts.completeness import incomplete, read_spans
from extractors.concepts.discovery import (
    Acronym,
    Introduced,
    find_acronyms,
    find_introduced,
    find_named_entities,
)
from extractors.concepts.filler import is_generic_key
from extractors.concepts.fragment_model import load_fragment_model
from extractors.concepts.junk import TITLE_TOPICS, is_junk, is_vacuous
from extractors.concepts.normalize import acronym_key, display_singular, is_acronym
from extractors.concepts.ranker import FEATURES, Ranker, load_ranker
from extractors.concepts.specificity import is_low_specificity, is_specific_word
from extractors.concepts.tokens import (
    CAPS,
    DIGIT,
    FUNC_FIRST,
    MARKS,
    NAME,
    Lexicon,
    TokenStream,
    positions,
    stream_from_doc,
)
from extractors.concepts.vocabulary import Vocabulary, match_stream
from extractors.text import sentence_spans
from kg.ids import concept_id
from kg.models import ConceptKind

__all__ = ["Analysis", "Candidate", "analyse", "kind_for_head", "score_candidate"]

CACHE_KEY = "paperkg.concepts.analysis"
_concept_id = lru_cache(maxsize=100_000)(concept_id)


@lru_cache(maxsize=100_000)
def _variant_id(name: str) -> str:
    return concept_id(name, variants=True)


MAX_SPANS = 6
PLAIN_KEEP = 22
SURFACE_TOP = 24  # candidates checked for near-duplicate wording (the top list is 10-20)
STATIC_CACHE_LIMIT = 300_000  # plain phrases turned into candidates (the extractor keeps at most 20)
_TASK_HEADS = frozenset(
    """classification detection recognition segmentation translation answering generation
    prediction forecasting retrieval summarization parsing tagging captioning completion
    localization tracking reconstruction synthesis inpainting denoising matching ranking
    recommendation planning navigation manipulation estimation identification verification
    imputation labeling labelling alignment grounding reasoning understanding editing""".split()
)
_METHOD_HEADS = frozenset(
    """algorithm method learning optimization optimisation regularization regularisation training
    descent sampling search encoding attention pruning distillation quantization tuning
    augmentation normalization normalisation decoding inference estimator technique procedure
    scheme approach framework mechanism strategy protocol policy loss objective embedding
    prompting pretraining fine-tuning finetuning adaptation transfer compression merging
    ensembling boosting bagging dropout clipping initialization layer""".split()
)
_MODEL_HEADS = frozenset(
    """model network transformer autoencoder encoder decoder architecture A:LLM llm A:GAN gan
    A:VAE vae A:CNN cnn A:RNN rnn A:GNN gnn A:MLP mlp predictor classifier generator
    discriminator""".split()
)
_DATASET_HEADS = frozenset({"dataset", "benchmark", "corpus", "suite", "leaderboard"})
_METRIC_HEADS = frozenset(
    {"metric", "score", "accuracy", "perplexity", "A:BLEU", "A:ROUGE", "A:AUC", "A:FID"}
)


def kind_for_head(key: tuple[str, ...]) -> ConceptKind:
    """Kind of a discovered phrase from its head word.

    >>> kind_for_head(("question", "answering")), kind_for_head(("diffusion", "model"))
    ('TASK', 'MODEL')
    """
    head = key[-1] if key else ""
    if head in _DATASET_HEADS:
        return "DATASET"
    if head in _TASK_HEADS:
        return "TASK"
    if head in _METRIC_HEADS:
        return "METRIC"
    if head in _MODEL_HEADS:
        return "MODEL"
    if head in _METHOD_HEADS:
        return "METHOD"
    return "CONCEPT"


@dataclass(slots=True)
class Candidate:
    """One concept of one paper with its occurrences and ranking features (role: analysis row).

    ``id``/``name`` of a discovered phrase are filled in by :meth:`Analysis.finalize`.
    """

    key: tuple[str, ...]
    source: str  # "vocabulary" | "discovered"
    vocab_id: str = ""
    spans: list[tuple[int, int]] = field(default_factory=list)  # token spans, in order found
    name: str = ""
    id: str = ""
    kind: ConceptKind = "CONCEPT"
    aliases: list[str] = field(default_factory=list)
    broader: list[str] = field(default_factory=list)
    defined: bool = False  # an acronym definition in this paper
    introduced: bool = False
    named: bool = False  # a model/dataset name
    count: int = 0
    first: int = 0
    in_title: bool = False
    top_level: int = 0  # vocabulary matches not nested inside a longer curated concept
    surface: str = ""  # how the paper first writes it ("GANs", "Generative Adversarial Networks")
    score: float = 0.0

    def add(self, start: int, end: int) -> None:
        """Record one occurrence (token span)."""
        self.spans.append((start, end))


@dataclass
class Analysis:
    """Everything the concept extractors need about one paper (role: shared analysis)."""

    text: str
    stream: TokenStream
    candidates: list[Candidate]  # ranked, best first, junk removed; not yet finalized
    acronyms: list[Acronym]
    introduced: list[Introduced]
    introduced_keys: list[tuple[str, ...]]
    title_end: int
    vocab: Vocabulary
    unsupported: frozenset[str] = frozenset()  # vocabulary ids matched only by unsupported aliases
    matched: frozenset[str] = frozenset()  # vocabulary ids the paper mentions (with support)
    _sentences: list[tuple[int, int]] | None = None
    _sentence_starts: list[int] = field(default_factory=list)
    sentence_texts: dict[int, str] = field(default_factory=dict)  # evidence strings, by sentence
    _finalized: set[int] = field(default_factory=set)
    _salience: dict[int, float] = field(default_factory=dict)
    _where: dict[int, tuple[bool, bool]] = field(default_factory=dict)
    _contribution: dict[int, int] = field(default_factory=dict)  # sentence -> where its cue starts
    _claims: dict[int, tuple[int, int, list[tuple[int, int]]]] | None = None  # see :meth:`_claim_spans`
    _first_sentence: int | None = None
    _cues: tuple[str, Cues] | None = None  # see :meth:`_cue_text`

    @property
    def sentences(self) -> list[tuple[int, int]]:
        """Character spans of the sentences (computed on first use)."""
        if self._sentences is None:
            self._sentences = sentence_spans(self.text)
            self._sentence_starts = [a for a, _ in self._sentences]
        return self._sentences

    @property
    def sentence_starts(self) -> list[int]:
        """First character of each sentence, ascending."""
        if self._sentences is None:
            _ = self.sentences
        return self._sentence_starts

    def finalize(self, c: Candidate) -> Candidate:
        """Fill in the display name and id of a candidate (idempotent)."""
        if id(c) in self._finalized:
            return c
        self._finalized.add(id(c))
        if not c.surface:
            c.surface = wording(c, self.stream, self.text)
        if c.source == "vocabulary":
            vc = self.vocab.concepts[c.vocab_id]
            c.id, c.name = vc.id, vc.name
            return c
        if not c.name:
            s, e = c.spans[0]
            c.name = display_name(self.stream, s, e)
        # A plain phrase only: a defined, introduced or named concept keeps its name as written.
        plain = not (c.defined or c.introduced or c.named)
        spelt = spell_out_acronyms(c.name, self.vocab, {a.key for a in self.acronyms}) if plain else c.name
        if spelt != c.name:
            if c.name not in c.aliases:
                c.aliases.append(c.name)  # "constrained RL" -> "constrained reinforcement learning"
            c.name = spelt
        c.id = _concept_id(c.name)
        curated = self.vocab.concepts.get(c.id)
        if curated is None:
            c.id = _variant_id(c.name)  # spellings that stem alike share one node
            curated = self.vocab.concepts.get(c.id)
        if curated is not None:  # a discovered spelling of a curated concept
            c.source, c.vocab_id, c.name, c.kind = "vocabulary", curated.id, curated.name, curated.kind
            c.aliases = list(curated.aliases)
            c.broader = list(curated.broader)
        elif not c.broader and len(c.key) >= 2:
            # The longest vocabulary suffix is the head: "... multinomial logit bandit" -> bandits.
            index = self.vocab.index
            for cut in range(1, len(c.key)):
                head = index.get(c.key[cut:])
                if (
                    head is not None
                    and head not in self.matched
                    and (head in self.unsupported or c.key[cut:] in self.vocab.ambiguous.get(head, ()))
                ):
                    break  # "score distillation" is not a kind of knowledge distillation
                if head is not None:
                    c.broader.append(head)
                    break
        c.spans.sort()
        return c

    def where(self, c: Candidate) -> tuple[bool, bool]:
        """(in the abstract's first sentence, in a contribution sentence such as "we propose")."""
        hit = self._where.get(id(c))
        if hit is None:
            hit = self._where[id(c)] = self._locate(c)
        return hit

    def _locate(self, c: Candidate) -> tuple[bool, bool]:
        sentences = self.sentences
        starts = self.sentence_starts
        if self._first_sentence is None:
            self._first_sentence = next((k for k, (a, _) in enumerate(sentences) if a >= self.title_end), -1)
            text, cues = self._cue_text()
            for k, (a, b) in enumerate(sentences):
                m = cues.contribution.search(text, a, b)
                if m is not None:
                    self._contribution[k] = m.end()
        token_starts = self.stream.starts
        first = contribution = False
        for s, _ in c.spans:
            start = token_starts[s]
            k = bisect_right(starts, start) - 1
            if k == self._first_sentence and start - sentences[k][0] <= OPENING_CHARS:
                return True, True  # the abstract opens with it: its subject ("E(3)-equivariant networks ...")
            first = first or k == self._first_sentence
            # After the cue: the object of "we propose", not the motivation before "we".
            after = self._contribution.get(k)
            contribution = contribution or (after is not None and start >= after)
        return first, contribution

    def aside(self, c: Candidate) -> bool:
        """Whether every mention of a concept is an aside: an auxiliary loss or task, a
        regulariser, or a baseline ("with an auxiliary contrastive loss", "a KL regularizer",
        "baselines such as PPO and SAC", "the BERT baseline").

        Why: such a paper uses the concept, it is not about it (``MENTIONS.about``, see
        :func:`extractors.concepts.extract.is_about`). A cue counts before a mention in the same
        clause with no "we"/"our" in between (so "we propose X, which beats the baselines" keeps
        X), or right after it ("X baseline", "X regularizer").
        """
        text = self.text
        starts, ends = self.stream.starts, self.stream.ends
        sentences, sentence_starts = self.sentences, self.sentence_starts
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

    def claimed(self, c: Candidate) -> bool:
        """Whether the paper claims a concept as its own: named in a contribution sentence.

        Stricter than :meth:`where` (which the ranker was trained on): the cue must be a whole
        verb ("frame" in "framework", "show" in "showcase" are not cues), the occurrence must
        come before any report of experiments in that sentence ("we validate our system by
        training imitation learning policies"), and it must not be what the paper compares
        against or does without ("outperforms diffusion models", "unlike GNNs", "without RL").
        """
        self.where(c)  # sets _first_sentence
        claims = self._claim_spans()
        token_starts = self.stream.starts
        starts = self.sentence_starts
        sentences = self.sentences
        for s, _ in c.spans:
            start = token_starts[s]
            k = bisect_right(starts, start) - 1
            if k == self._first_sentence and start - sentences[k][0] <= OPENING_CHARS:
                return True  # the abstract opens with it, as in :meth:`where`
            hit = claims.get(k)
            if hit is None:
                continue
            after, before, contrasts = hit
            if after <= start < before and not any(a <= start < b for a, b in contrasts):
                return True
        return False

    def _claim_spans(self) -> dict[int, tuple[int, int, list[tuple[int, int]]]]:
        """Sentence -> (end of its contribution cue, start of its experiments report, the
        character ranges a contrast cue governs), for contribution sentences only."""
        if self._claims is None:
            self._claims = {}
            text, cues = self._cue_text()
            for k, (a, b) in enumerate(self.sentences):
                m = cues.claim.search(text, a, b)
                if m is None:
                    continue
                ev = cues.experiments.search(text, a, b)
                before = b if ev is None else ev.start()
                contrasts = [x.span("scope") for x in cues.contrast.finditer(text, a, b)]
                self._claims[k] = (m.end(), before, contrasts)
        return self._claims

    def _cue_text(self) -> tuple[str, Cues]:
        """The text the cue patterns search, with the patterns for it (see :func:`cue_text`)."""
        if self._cues is None:
            self._cues = cue_text(self.text)
        return self._cues

    def salience(self, c: Candidate) -> float:
        """How much the paper is *about* a concept, in [0, 1] (see :data:`SALIENCE_WEIGHTS`).

        From where it occurs (title, the abstract's first sentence, a contribution sentence
        such as "we propose ..."), how often, and whether the paper defines or introduces it.
        """
        hit = self._salience.get(id(c))
        if hit is not None:
            return hit
        in_first, _ = self.where(c)
        in_contribution = self.claimed(c)
        w = SALIENCE_WEIGHTS
        value = (
            w["title"] * c.in_title
            + w["first"] * in_first
            + w["contribution"] * in_contribution
            + w["repeated"] * min(1.0, (c.count - 1) / 3)
            + w["defined"] * (c.defined or c.introduced)
        )
        hit = self._salience[id(c)] = round(min(1.0, value), 3)
        return hit

    def top(self, k: int | None = None) -> list[Candidate]:
        """The best ``k`` candidates, finalized, one per concept id."""
        out: list[Candidate] = []
        seen: set[str] = set()
        for c in self.candidates:
            self.finalize(c)
            if c.id in seen:
                continue
            seen.add(c.id)
            out.append(c)
            if k is not None and len(out) >= k:
                break
        return out


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
# The verbs that cue a contribution ("we propose", "this paper studies").
_CUE_VERBS = (
    "propose introduce present develop design show study investigate consider analy[sz]e prove "
    "demonstrate address tackle focus establish derive provide characteri[sz]e formali[sz]e formulate "
    "frame cast model revisit explore examine extend generali[sz]e leverage"
).split()
_CONTRIBUTION = re.compile(
    r"\b(?:we|this (?:paper|work|study))\b[^.;]{0,60}?\b"
    "(?:" + "|".join(_CUE_VERBS) + ")"
    # A sentence about the paper's own method ("Our method can ...", "This approach exploits ...").
    r"|\b(?:this|our|the proposed) (?:method|approach|framework|model|algorithm|technique|system)s?\b",
    re.I,
)

# The contribution cue of salience (:meth:`Analysis.claimed`): the verbs of _CUE_VERBS as
# whole words in a verb form ("proposes", "introduced"; not "framework", "showcase",
# "considerations", "human-designed", "well established"), and "our proposed method" as well as
# "our method".
_CLAIM_VERBS = (
    "(?:" + "|".join({"show": "show(?:case)?", "study": "stud(?:y|ie)"}.get(v, v) for v in _CUE_VERBS) + ")"
)
# A participle after "well" or an -ly adverb modifies a noun ("on well established algorithms").
_PARTICIPLE = rf"(?<!well )(?<!ly ){_CLAIM_VERBS}(?:d|ed|n)\b"
_CLAIM = re.compile(
    # After "we" the bare form ("we propose"; "models" in "we train models" is a noun) ...
    rf"\bwe\b[^.;]{{0,60}}?(?<![-\w])(?:re-?)?(?:{_CLAIM_VERBS}\b|{_PARTICIPLE})"
    # ... after "this paper" also the third person ("this paper studies"; "in this paper, we propose").
    rf"|\bthis (?:paper|work|study)\b[^.;]{{0,60}}?(?<![-\w])(?:re-?)?"
    rf"(?:{_CLAIM_VERBS}(?:s|es)?\b|{_PARTICIPLE})"
    r"|\b(?:this|our|the proposed)(?: (?:proposed|new|novel))? "
    r"(?:method|approach|framework|model|algorithm|technique|system)s?\b",
    re.I,
)
# Where a sentence turns to its experiments: what follows is the testbed, not the contribution
# ("We validate the effectiveness of our system by ... training imitation learning policies",
# "With our framework, we run three experiments on an LLM trained with Constitutional AI").
_EXPERIMENTS = re.compile(
    r"\b(?:in (?:the|our) experiments|we (?:\w+ly )?(?:validate|evaluate|test|benchmark)\b"
    r"|we (?:\w+ly )?(?:run|conduct|perform|carry out)\b[^.;]{0,30}?\b(?:experiments|evaluations?)\b)",
    re.I,
)
# A contrast cue and the phrase it governs, up to a clause boundary or the preposition of a
# setting ("outperforms prior methods | on image retrieval", "by 8.8% | in caption retrieval"):
# the concept there is a baseline or something the paper does without, not its contribution
# ("still cannot beat Nash-Equilibrium algorithms", "unlike prior GNN-based methods", "without
# reinforcement learning").
_CONTRAST = re.compile(
    r"\b(?:unlike|compared (?:to|with)|in contrast to|as opposed to|instead of|rather than|than|"
    r"outperform(?:s|ed|ing)?|beat(?:s|ing)?|surpass(?:es|ed|ing)?|without|beyond|versus|vs\.?)\b"
    r"(?P<scope>(?:(?!\b(?:and|but|while|whereas|which|that|on|in|at|by|for|across|under|with)\b)[^,;:()]){0,80})",
    re.I,
)


# Asides (:meth:`Analysis.aside`): a cue at most ASIDE_WINDOW characters before a mention, in
# its clause, or right after it.
ASIDE_WINDOW = 60
_ASIDE_BEFORE = re.compile(
    r"\b(?:auxiliary|baselines?|regulari[sz]ers?|regulari[sz]ation terms?|additional (?:loss|objective)"
    r"|(?:compare|compared|comparing|comparison) (?:against|with|to))\b(?:(?![.;:!?]).)*$",
    re.I,
)
_ASIDE_AFTER = re.compile(
    r"[\s-]*(?:[\w-]+\s+)?(?:baselines?|regulari[sz]ers?|regulari[sz]ation term|(?:as an? )?auxiliary"
    r" (?:loss|task|objective))\b",
    re.I,
)
_OWN = re.compile(r"\b(?:we|our|ours|this paper|this work)\b", re.I)


@dataclass(frozen=True, slots=True)
class Cues:
    """The four sentence-cue patterns, compiled for one kind of text (see :func:`cue_text`)."""

    contribution: re.Pattern[str]
    claim: re.Pattern[str]
    experiments: re.Pattern[str]
    contrast: re.Pattern[str]


def _case_sensitive(pattern: re.Pattern[str]) -> re.Pattern[str]:
    return re.compile(pattern.pattern, pattern.flags & ~re.IGNORECASE)


_ANY_CASE_CUES = Cues(_CONTRIBUTION, _CLAIM, _EXPERIMENTS, _CONTRAST)
# The same patterns without IGNORECASE, for lower-cased ASCII text. Their letters are all lower
# case (``tests/unit/test_cue_patterns.py`` checks it), so on ASCII text they match exactly
# where the case-insensitive ones match in the original: lower-casing ASCII maps A-Z to a-z one
# for one, and keeps every offset, letter class and word boundary.
_LOWER_CASE_CUES = Cues(*map(_case_sensitive, (_CONTRIBUTION, _CLAIM, _EXPERIMENTS, _CONTRAST)))


def cue_text(text: str) -> tuple[str, Cues]:
    """The text to search for sentence cues and the patterns to search it with.

    Why: case-insensitive matching compares every character through its case folds; the cue
    patterns ran over every sentence of every paper and were a twentieth of the fast mode's
    time. ASCII text (most abstracts) is lower-cased once and searched case-sensitively,
    a third cheaper; other text keeps the case-insensitive patterns (Unicode case folding
    has one-to-many and cross-script cases that lower-casing would not reproduce).

    >>> text, cues = cue_text("In This Paper, WE Propose X.")
    >>> text, cues.contribution.search(text).group()
    ('in this paper, we propose x.', 'this paper, we propose')
    """
    if text.isascii():
        return text.lower(), _LOWER_CASE_CUES
    return text, _ANY_CASE_CUES


# Words written with a hyphen before the next word in a canonical name ("multi-armed",
# "self-supervised", "few-shot"); every other pair is joined by a space, whatever the paper did,
# so "mean-field" and "mean field" give one name.
HYPHEN_PREFIXES = frozenset(
    """multi self semi non pre post co re anti sub super inter intra cross meta fine few zero one
    two three single double in out off end long short well ill under over un bi tri uni
    quasi pseudo near""".split()
)


def display_name(stream: TokenStream, start: int, end: int) -> str:
    """The canonical name of a phrase: lower case except names and acronyms, head singular.

    It depends on the words only, not on where they stand or how the paper hyphenated them,
    so every paper that names a concept gives it the same name (re-ingesting is a no-op).
    Names are remembered by the tokens' texts, keys, flags and gluing (all it reads), as the
    same phrases recur from paper to paper.
    """
    parts = (
        tuple(stream.text[start:end]),
        tuple(stream.keys[start:end]),
        tuple(stream.flags[start:end]),
        tuple(stream.glued[start:end]),
    )
    hit = _DISPLAY_NAMES.get(parts)
    if hit is None:
        if len(_DISPLAY_NAMES) > STATIC_CACHE_LIMIT:
            _DISPLAY_NAMES.clear()
        hit = _DISPLAY_NAMES[parts] = _display_name(*parts)
    return hit


_DISPLAY_NAMES: dict[tuple[tuple[str, ...], tuple[str, ...], tuple[int, ...], tuple[bool, ...]], str] = {}


def _display_name(
    texts: tuple[str, ...], keys: tuple[str, ...], flags: tuple[int, ...], glued: tuple[bool, ...]
) -> str:
    words: list[str] = []
    has_function = False
    prev_name = False
    for i in range(len(texts)):
        t = texts[i]
        if t in ("(", ")"):
            continue
        name = bool(flags[i] & (NAME | CAPS | DIGIT))
        w = t if flags[i] & (NAME | CAPS) else t.lower()
        if keys[i] in FUNCTION_WORDS:
            has_function = True
        if words and ((glued[i] and (name or prev_name)) or words[-1].rsplit("-", 1)[-1] in HYPHEN_PREFIXES):
            words[-1] = words[-1] + "-" + w
        else:
            words.append(w)
        prev_name = name
    if words and not has_function:
        head, _, tail = words[-1].rpartition("-")
        words[-1] = (head + "-" if head else "") + display_singular(tail)
    return " ".join(words)


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
    result = _analyse(doc, text, title_end, vocab, background, tokens_only)
    doc.user_data[CACHE_KEY] = result
    return result


def _analyse(
    doc: Doc, text: str, title_end: int, vocab: Vocabulary, background: Background, tokens_only: bool
) -> Analysis:
    stream = stream_from_doc(doc, background.lexicon, title_end, tagged=False if tokens_only else None)
    n = len(stream)
    if title_end:
        _title_verbs(stream, title_end, background.lexicon)
    _clause_gerunds(stream, background.gerund_pairs)
    _verb_cues(stream)
    _verbs_before_determiners(stream)
    _finite_verbs(stream, background.lexicon)
    keys = stream.keys
    index = vocab.index
    by_vocab: dict[str, Candidate] = {}
    by_key: dict[tuple[str, ...], Candidate] = {}

    def vocab_candidate(cid: str) -> Candidate:
        c = by_vocab.get(cid)
        if c is None:
            vc = vocab.concepts[cid]
            c = by_vocab[cid] = Candidate(
                key=vocab.name_keys.get(cid, ()),
                source="vocabulary",
                vocab_id=cid,
                name=vc.name,
                kind=vc.kind,
                aliases=list(vc.aliases),
                broader=list(vc.broader),
            )
        return c

    def discovered(key: tuple[str, ...]) -> Candidate:
        c = by_key.get(key)
        if c is None:
            c = by_key[key] = Candidate(key=key, source="discovered", kind=kind_for_head(key))
        return c

    # Plain noun phrases (the bulk) stay as key -> spans until they are scored.
    plain: dict[tuple[str, ...], list[tuple[int, int]]] = {}

    # 1. Acronym definitions; their "( SF )" tokens are transparent to chunking.
    acronyms = find_acronyms(stream, text)
    skip: set[int] = set()
    acr_target: dict[str, Candidate] = {}
    expansion: dict[str, tuple[tuple[str, ...], str]] = {}
    redefined: set[str] = set()
    for a in acronyms:
        long_key = tuple(keys[a.long_start : a.long_end])
        cid = index.get(long_key)
        if cid is None:
            cid = index.get((a.key,))
            if cid is not None and (
                (a.key,) in vocab.ambiguous.get(cid, ()) or not spells_concept(long_key, cid, vocab)
            ):
                # "patch-ranking map (PRM)", "Monitoring Ethereum (MoE)": another PRM or MoE
                # than the vocabulary's, and so are the paper's other uses of the short form.
                cid = None
                redefined.add(a.key)
        if cid is not None:
            cand = vocab_candidate(cid)
        elif a.introduced_by_paren:
            # "GRAPE (Group RepresentAtional Position Encoding)": the name comes first and is the name.
            cand = discovered((a.key,))
            cand.name = cand.name or a.short
            if a.long_text not in cand.aliases:
                cand.aliases.append(a.long_text)
            cand.add(a.paren[0] - 1, a.paren[0])
        else:
            cand = discovered(long_key)
            if not cand.name:
                if any(stream.flags[i] & NAME for i in range(a.long_start, a.long_end)):
                    cand.name = a.long_text  # "Turing mAchine Imitation Learning" keeps its capitals
                else:
                    cand.name = display_name(stream, a.long_start, a.long_end)
            expansion[a.key] = (long_key, cand.name)
        cand.defined = True
        if a.short not in cand.aliases and a.short != cand.name:
            cand.aliases.append(a.short)
        cand.add(a.long_start, a.long_end)
        acr_target[a.key] = cand
        if not a.introduced_by_paren:
            skip.update(range(a.paren[0], a.paren[1]))
    frozen_skip = frozenset(skip)

    # 2. Vocabulary matches (the acronym inside its own definition is not a second mention).
    nested: list[tuple[int, int, str]] = []
    for s, e, cid in match_stream(stream, vocab, nested):
        if s not in frozen_skip and not (redefined and e - s == 1 and keys[s] in redefined):
            c = vocab_candidate(cid)
            c.add(s, e)
            c.top_level += 1
    for s, e, cid in nested:
        if not (redefined and e - s == 1 and keys[s] in redefined):
            vocab_candidate(cid).add(s, e)
    # Ambiguous aliases ("distillation", "PRM") count only with support in the same paper.
    unsupported = _drop_unsupported(stream, vocab, by_vocab, plain) if vocab.ambiguous else frozenset()
    # Uses of a discovered acronym elsewhere in the text.
    if expansion:
        glued = stream.glued
        for i in stream.marked:
            k = keys[i]
            if k in expansion and i not in frozen_skip and not (i + 1 < n and glued[i + 1]):
                acr_target[k].add(i, i + 1)

    # 3. Noun-phrase candidates and their sub-phrases.
    parsed = not tokens_only and doc.has_annotation("DEP")
    if parsed:
        chunks = chunks_parsed(doc, stream, frozen_skip)
    else:
        chunks = chunks_fast(stream, frozen_skip)
    collect_plain(
        stream,
        chunks,
        index,
        plain,
        background.inner_ok,
        frozen_skip,
        background.units,
        background.modifier_pairs,
    )
    if expansion:
        # Phrases with a defined acronym inside count under their spelt-out form.
        for key in [k for k in plain if not expansion.keys().isdisjoint(k)]:
            spans = plain.pop(key)
            if len(key) > 1:
                for s, e in spans:
                    _add_expanded(
                        stream, s, e, key, frozen_skip, expansion, index, vocab_candidate, discovered
                    )

    # Adjectives that authors use as keywords on their own ("multimodal", "Bayesian").
    if background.adjective_keywords:
        adjectives = background.adjective_keywords
        cls_ = stream.cls
        for i in positions(keys, adjectives):
            k = keys[i]
            if cls_[i] == "A" and (k,) not in index:
                plain.setdefault((k,), []).append((i, i + 1))

    # 4. Known keyphrases spanning a function word ("mixture of experts").
    if background.function_firsts:
        phrases = background.function_phrases
        cls = stream.cls
        flags = stream.flags
        top = background.function_max_len
        for i in stream.marked:
            if not flags[i] & FUNC_FIRST:
                continue
            for length in range(3, min(top, n - i) + 1):
                key = tuple(keys[i : i + length])
                if key in phrases and key not in index:
                    if not any(cls[j] in (".", "M") for j in range(i, i + length)):
                        plain.setdefault(key, []).append((i, i + length))

    # 5. Introduced names and named models/datasets.
    introduced = find_introduced(stream, text, acronyms, vocab.first_keys)
    introduced_keys: list[tuple[str, ...]] = []
    for item in introduced:
        key = tuple(keys[item.start : item.end])
        if key in index:
            continue  # a known concept, not a new one
        target = acr_target.get(keys[item.start]) if item.end - item.start == 1 else None
        if target is None:
            target = by_key.get(key)
        if target is None:
            target = discovered(key)
            target.name = display_name(stream, item.start, item.end) if item.end > item.start else ""
            target.add(item.start, item.end)
            if item.end - item.start == 1:  # later uses of a one-token name ("GRAPE brings ...")
                k0 = key[0]
                for i in stream.marked if stream.flags[item.start] & MARKS else range(n):
                    if keys[i] == k0 and i != item.start:
                        target.add(i, i + 1)
        if target.source != "discovered":
            continue
        target.introduced = True
        target.kind = "METHOD"
        if item.expansion and item.expansion not in target.aliases:
            target.aliases.append(item.expansion)
        if item.acronym and item.acronym not in target.aliases:
            target.aliases.append(item.acronym)
        if target.key not in introduced_keys:
            introduced_keys.append(target.key)
    skip_keys = set(expansion) | {keys[i.start] for i in introduced if i.end - i.start == 1}
    for ent in find_named_entities(stream, text, skip_keys, index):
        c = discovered(tuple(keys[ent.start : ent.end]))
        c.named = True
        if not c.name:
            c.name = ent.surface
        if not c.introduced:
            c.kind = ent.kind  # type: ignore[assignment]
        for s, e in ent.spans:
            c.add(s, e)
        family = index.get((ent.family,)) or index.get(("A:" + ent.family.upper(),))
        if family and family not in c.broader:
            c.broader.append(family)

    # 6. Features, junk removal, scores (names and hierarchy links only for kept ones).
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
            _generic(c, keys, background)
            or (c.source != "vocabulary" and _low_specificity(c.key, background))
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
    _demote_duplicates(ranked, stream, text)
    analysis = Analysis(
        text=text,
        stream=stream,
        candidates=ranked,
        acronyms=acronyms,
        introduced=introduced,
        introduced_keys=introduced_keys,
        title_end=title_end,
        vocab=vocab,
        unsupported=unsupported,
        matched=frozenset(by_vocab),
    )
    ranker = load_ranker() if RANKER_ENABLED else None
    if ranker is not None:
        _rerank(analysis, ranker, background, doc if parsed else None)
    _introduced_first(ranked, introduced_keys)
    return analysis


# The learned re-ranker (extractors/data/ranker.json); scripts/train_ranker.py switches it off
# to collect the features of the hand-set ranking it is trained on.
RANKER_ENABLED = True
RANKER_SCALE = 10.0  # MENTIONS.score = 10 x P(author keyword): comparable within a paper
RERANK_TOP = 30  # candidates re-ranked by the model (the top 10-20 are what is shown)


def _rerank(analysis: Analysis, ranker: Ranker, background: Background, parse: Doc | None) -> None:
    """Replace each candidate's hand-set score by the model's (generic ones stay demoted, and so
    do phrases cut out of longer ones: :func:`_demote_fragments`)."""
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
    _demote_fragments(analysis, head, background, parse)
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
    names it (:func:`_rerank`). A parent the paper stresses more than any child stays: an
    abstract on multi-armed bandits that also names contextual bandits once is about bandits.
    """
    found = [c for c in head if c.source == "vocabulary" and c.vocab_id]
    if len(found) < 2:
        return frozenset()
    vocab = analysis.vocab
    broad = {c.vocab_id for c in found if vocab.narrower_count(c.vocab_id) >= BROAD_PARENT}
    if not broad:
        return frozenset()
    salience = {c.vocab_id: analysis.salience(c) for c in found}
    parents: set[str] = set()
    for c in found:
        mine = salience[c.vocab_id]
        parents.update(
            a for a in vocab.ancestors(c.vocab_id) if a in broad and a != c.vocab_id and salience[a] <= mine
        )
    return frozenset(parents)


# A parent is broad when this many vocabulary concepts are narrower than it (reinforcement
# learning 63, large language models 36, transformers 15; imitation learning 5, blockchain 4):
# only a broad parent leaves the top 10 beside its child. Demoting every parent cost 0.5-0.7
# points of F1@10 on COLM 2024 and CoRL (authors list "imitation learning" beside "behavior
# cloning"); broad ones only, about a third of that.
BROAD_PARENT = 15
PARENT_FACTOR = 0.035  # as a generic phrase beside its narrower wording (GENERIC x SPECIFIC)


def spell_out_acronyms(name: str, vocab: Vocabulary, defined: set[str]) -> str:
    """A discovered name with its well-known acronyms spelt out as the vocabulary names them:
    "constrained RL" -> "constrained reinforcement learning", "LLM agents" -> "large language
    model agents" (a spelt-out name before the head is singular).

    Why: ids are built from the name (:func:`kg.ids.concept_id`), so the two spellings of one
    concept in two papers get one id, one node. Only acronyms that resolve without support
    (not :attr:`Vocabulary.ambiguous`) and that the paper does not define itself (``defined``,
    keys of its acronym definitions, which are expanded from the paper's own words) change.
    """
    words = name.split(" ")
    if len(words) < 2:
        return name
    changed = False
    for i, word in enumerate(words):
        if not is_acronym(word):
            continue
        key = "A:" + acronym_key(word)
        cid = vocab.index.get((key,))
        if cid is None or key in defined or (key,) in vocab.ambiguous.get(cid, ()):
            continue
        spelt = vocab.concepts[cid].name
        if i < len(words) - 1:
            head, _, last = spelt.rpartition(" ")
            spelt = f"{head} {display_singular(last)}" if head else display_singular(last)
        words[i] = spelt
        changed = True
    return " ".join(words) if changed else name


def spells_concept(long_key: tuple[str, ...], cid: str, vocab: Vocabulary) -> bool:
    """Whether an acronym's spelt-out form shares a content word with the vocabulary concept its
    short form names ("mixture-of-expert layers (MoE)" does, "Monitoring Ethereum (MoE)" and
    "evolving index structures (ES)" do not)."""
    words = {w for w in long_key if w not in FUNCTION_WORDS and not w.startswith("A:")}
    for key in vocab.surface_keys.get(cid, ()):
        if not words.isdisjoint(key):
            return True
    return False


def is_known_term(c: Candidate, background: Background) -> bool:
    """A vocabulary concept or a phrase NeurIPS 2023 authors used as a keyword at least twice:
    a name, which the fragment rule lets start on any word and modify a later word."""
    return c.source == "vocabulary" or background.keywords.get(c.key, 0) >= 2


def _demote_fragments(
    analysis: Analysis, head: list[Candidate], background: Background, parse: Doc | None
) -> None:
    """Demote the phrases cut out of longer ones among those that would make the top 10: with a
    ``parse`` (accurate mode) by the rule of :mod:`extractors.concepts.completeness`, without
    one (fast mode) by the fragment model trained on that rule's verdicts
    (:mod:`extractors.concepts.fragment_model`).

    Why lazily, best first: only the top 10 is at stake, and a demoted phrase lets the next one
    in, which is then checked too. Never demoted: a defined, introduced or named concept, or one
    the ranker is sure of (:data:`FRAGMENT_SURE`).
    """
    stream, title_end = analysis.stream, analysis.title_end
    cut_out: Callable[[Candidate, bool], bool]
    if parse is not None:
        doc = parse

        def cut_out(c: Candidate, known: bool) -> bool:
            for s, e in read_spans(c.spans, stream.starts, title_end):
                span = doc.char_span(stream.starts[s], stream.ends[e - 1], alignment_mode="expand")
                if span is None or not incomplete(span, known):
                    return False
            return True

    else:
        model = load_fragment_model() if FRAGMENT_MODEL_ENABLED else None
        if model is None:
            return

        def cut_out(c: Candidate, known: bool) -> bool:
            return model.is_fragment(stream, c.spans, known, title_end)

    kept = 0
    for c in sorted(head, key=lambda c: (-c.score, c.first, c.key)):
        if kept >= FRAGMENT_CHECKS:
            break
        kept += 1
        if c.defined or c.introduced or c.named or c.score >= FRAGMENT_SURE:
            continue
        if cut_out(c, is_known_term(c, background)):
            c.score = round(c.score * FRAGMENT_FACTOR, 4)
            kept -= 1  # it leaves the top: the next one takes its place


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
_BINARY_FEATURES = (
    "in_title",
    "vocabulary",
    "defined",
    "introduced",
    "named",
    "first_sentence",
    "contribution",
    "kind_model",
    "kind_dataset",
    "kind_task",
    "kind_method",
    "acronym_surface",
)


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
        self._flags = tuple(binary[name] for name in _BINARY_FEATURES[:7])
        self._kinds = tuple(binary[name] for name in _BINARY_FEATURES[7:])
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
        return _low_specificity(key, self.background)

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


def _title_verbs(stream: TokenStream, title_end: int, lexicon: Lexicon) -> None:
    """Verbs and adverbs of a Title Case title, which the capitals hide.

    A title that opens with a gerund opens with a verb ("Solving Offline RL with ...",
    "Detecting ChatGPT Imposters", "Boosting the Actor ..."): the gerund is not part of the
    noun phrase after it. The same after a colon ("GRAPE: Learning ..."). And a capitalised
    word is read as a name only outside the title: in "Recursively Self-Improving Code
    Generation" or "Refuse Unknown Questions" the capital is Title Case, so "Recursively"
    keeps the adverb class and "Refuse" the verb class of its suffix rule.
    """
    text, cls, starts = stream.text, stream.cls, stream.starts
    n = len(text)
    for i in range(n):
        if starts[i] >= title_end:
            break
        t = text[i]
        if not t[:1].isupper():
            continue
        if (
            (i == 0 or text[i - 1] in (":", "—"))
            and len(t) > 4
            and t.endswith("ing")
            and i + 1 < n
            and (cls[i + 1] in ("N", "A") or stream.keys[i + 1] in _DETERMINERS)
            and starts[i + 1] < title_end
        ):
            cls[i] = "V"
        elif cls[i] == "N" and not stream.flags[i] & (NAME | CAPS | DIGIT):
            lower = t.lower()
            plain = lexicon.info(lower)[1]
            if plain == "R" or (plain == "V" and not lower.endswith("ing") and lower not in lexicon.classes):
                cls[i] = plain


_DETERMINERS = frozenset({"the", "a", "an", "your", "their", "our", "its", "this", "these", "my"})


# Words after which a gerund opens a clause ("for *learning* policies", "by solving video games").
CLAUSE_OPENERS = frozenset(
    """for of by in on via through without with from into towards toward when while after before
    about upon at to . : ; ( —""".split()
)


# Nouns that a gerund qualifies rather than takes as an object ("training iterations",
# "learning objectives", "pretraining data"): what the activity uses or goes through.
PURPOSE_HEADS = frozenset(
    """data datum set iteration objective strategy effort time loss procedure process regime
    pipeline dynamics signal sample example stage phase step scheme method algorithm framework
    paradigm rate curve cost budget speed corpus dataset recipe instance epoch run schedule
    protocol setup setting environment technique approach performance efficiency stability
    trajectory token compute""".split()
)


def _clause_gerunds(stream: TokenStream, pairs: frozenset[tuple[str, str]]) -> None:
    """A gerund that opens a clause and takes an object is a verb ("for *teaching* robots",
    "Learning complex locomotion is ...", "of planning flexible behavior"), so the phrase after
    it is the noun phrase ("robots"), not "teaching robots".

    It opens a clause after a preposition or at a sentence start; it is still a noun when it
    and the next word open a known term (``pairs``: "learning rate", "training data").
    """
    text, cls, keys, glued = stream.text, stream.cls, stream.keys, stream.glued
    last = len(text) - 1
    for i in compress(range(len(text)), map(methodcaller("endswith", "ing"), text)):
        if (
            0 < i < last
            and cls[i] == "N"
            and cls[i + 1] in ("N", "A")
            and not glued[i]
            and not glued[i + 1]
            and len(text[i]) > 4
            and keys[i - 1] in CLAUSE_OPENERS
            and (keys[i], keys[i + 1]) not in pairs
            and keys[i + 1] not in PURPOSE_HEADS
        ):
            cls[i] = "V"


def _verbs_before_determiners(stream: TokenStream) -> None:
    """The last word of a noun run is a verb when a determiner follows it: "the framework
    *misses* an inverse mapping", "networks *interconnect* their layers", "their performance
    *costs* the experimenter time". Two noun phrases side by side are rare in abstracts (the
    ditransitive "give robots the ability" has a one-word run), so the run ends before it.
    """
    keys, cls, flags = stream.keys, stream.cls, stream.flags
    for i in positions(keys, _DETERMINERS):
        j = i - 1
        if j > 0 and cls[j] == "N" and cls[j - 1] in ("N", "A") and not flags[j] & (NAME | CAPS | DIGIT):
            cls[j] = "V"


# Participles that name what follows ("a model called FusionNet", "termed WSNet"): never part of
# a noun phrase. "named" is one only before a name ("named entities" is a term).
NAMING_VERBS = frozenset({"called", "dubbed", "termed", "coined", "nicknamed", "named", "dub"})


# Words after which "to" marks an infinitive, so the word after "to" is a verb ("learn to
# *reorient* objects", "in order to *map* latent codes", "prompting GPT-4 to *rank* responses").
INFINITIVE_CUES = frozenset(
    """learn learns learned learnt learning how where what whether when order able unable is are
    was were aim aims aiming seek seeks seeking try tries trying attempt attempts want wants need
    needs needed prompted prompt asked ask instructed trained designed tasked required allowed
    enabled encouraged""".split()
)


_TO = frozenset({"to"})


# A word right after these (an adverb between allowed) is a verb: "we *frame* question
# answering", "we currently *lack* quantitative methods", "GANs can accurately *model* complex
# distributions", "metrics do not *favour* networks".
SUBJECTS_AND_MODALS = frozenset("""we they can could may might will would should must cannot not""".split())


_VERB_CUES = NAMING_VERBS | _TO | SUBJECTS_AND_MODALS


def _verb_cues(stream: TokenStream) -> None:
    """Verbs the word-class lexicon reads as nouns or modifiers, told by a cue word (one scan
    of the keys for the three rules: a scan costs as much as the rules themselves).

    * A naming participle is a verb: "neural structure *called* FusionNet" is not a phrase,
      "FusionNet" is. "named" (and "dub") only before a name, so "named entity recognition"
      stays a noun phrase.
    * The word after an infinitive "to" is a verb. "to" is an infinitive marker after a cue
      that takes one (:data:`INFINITIVE_CUES`: "learns to *reorient* objects", "the practice
      is to *label* data"); elsewhere it is a preposition ("from images to text descriptions",
      "sequence to sequence"). A name after it stays a name, and so does a hyphenated compound
      ("learning-to-plan").
    * A noun-class word right after a subject pronoun, a modal or "not" (an adverb between
      allowed) is a verb: the lexicon reads "frame", "lack", "model", "map" or "support" as
      nouns (their majority class), so without a tagger "we frame question answering" chunks
      as one noun run. Only noun-class words change: an adjective after "not" stays one ("not
      robust to noise"), and so do names ("can LLMs ..." asks a question about a name).
    """
    keys, cls, flags, glued = stream.keys, stream.cls, stream.flags, stream.glued
    last = len(keys) - 1
    for i in positions(keys, _VERB_CUES):
        k = keys[i]
        if k in NAMING_VERBS:
            if k in ("named", "dub") and not (i < last and flags[i + 1] & (NAME | CAPS)):
                continue
            cls[i] = "V"
            continue
        j = i + 1
        if k == "to":
            if (
                0 < i < last
                and keys[i - 1] in INFINITIVE_CUES
                and cls[j] == "N"
                and not glued[i]
                and not glued[j]
                and not flags[j] & (NAME | CAPS | DIGIT)
            ):
                cls[j] = "V"
            continue
        if j < last and cls[j] == "R":
            j += 1
        if j <= last and cls[j] == "N" and not flags[j] & (NAME | CAPS | DIGIT) and not glued[j]:
            cls[j] = "V"


_PERFECT = frozenset({"have", "has", "had"})
_RELATIVE = frozenset({"that", "which", "who"})
_PERFECT_OR_RELATIVE = _PERFECT | _RELATIVE


def _finite_verbs(stream: TokenStream, lexicon: Lexicon) -> None:
    """Verb forms the lexicon reads as modifiers or nouns, told by the word before them.

    A participle after "have" is a verb ("prior works have *tackled* cloth manipulation",
    "LLMs have *sparked* concerns"), an adverb in between allowed. After a relative pronoun, an
    -s word whose singular is a verb and which has a noun after it is a verb ("a framework
    that *automates* document editing", "which *formulates* planning as ..."); a plural subject
    ("that robots need") has a noun singular, so it stays.
    """
    keys, cls, text = stream.keys, stream.cls, stream.text
    last = len(keys) - 1
    for i in positions(keys, _PERFECT_OR_RELATIVE):
        j = i + 1
        if j < last and cls[j] == "R":
            j += 1
        if j > last:
            continue
        t = text[j]
        if keys[i] in _PERFECT:
            if cls[j] == "A" and t.endswith("ed"):
                cls[j] = "V"
        elif (
            j == i + 1
            and j < last
            and cls[j] == "N"
            and t.endswith("s")
            and t.islower()
            and cls[j + 1] == "N"
            and lexicon.info(keys[j])[1] == "V"
        ):
            cls[j] = "V"


def _drop_unsupported(
    stream: TokenStream,
    vocab: Vocabulary,
    by_vocab: dict[str, Candidate],
    plain: dict[tuple[str, ...], list[tuple[int, int]]],
) -> frozenset[str]:
    """Remove vocabulary matches made only through ambiguous aliases without support.

    Support: the concept's name or an unambiguous alias matched elsewhere in the paper (the
    candidate then has such a span), or, for an acronym, every content word of the name in the
    text ("PRM" next to "process" and "reward"). An unsupported match falls back to a plain
    phrase of the paper ("distillation" in a score-distillation paper is just "distillation").
    Returns the ids removed.
    """
    keys = stream.keys
    present: frozenset[str] | None = None
    removed: set[str] = set()
    for cid, c in list(by_vocab.items()):
        amb = vocab.ambiguous.get(cid)
        if amb is None or c.defined:
            continue
        matched = [tuple(keys[s:e]) for s, e in c.spans]
        if any(k not in amb for k in matched):
            continue
        if all(len(k) == 1 and k[0].startswith("A:") for k in matched):
            if present is None:
                present = frozenset(keys)
            words = vocab.context_words.get(cid, frozenset())
            if words and words <= present:
                continue
        del by_vocab[cid]
        removed.add(cid)
        for (s, e), k in zip(c.spans, matched, strict=True):
            plain.setdefault(k, []).append((s, e))
    return frozenset(removed)


@lru_cache(maxsize=100_000)
def fold_wording(surface: str) -> tuple[str, ...]:
    """A crude stem of a wording, to spot near-duplicates ("prompt", "prompts", "prompting").

    >>> fold_wording("Language Modeling") == fold_wording("language models")
    True
    """
    out: list[str] = []
    for token in _WORD.findall(surface.lower()):
        for suffix in ("ings", "ing", "ed", "es", "s"):
            if token.endswith(suffix) and len(token) - len(suffix) >= 3:
                token = token[: -len(suffix)]
                break
        if token.endswith(("el", "er")) and len(token) > 5:
            token = token[:-2]  # "model"/"modeling": Porter-like, enough for near-duplicates
        out.append(token)
    return tuple(out)


def is_noun_phrase(stream: TokenStream, s: int, e: int) -> bool:
    """Whether tokens ``[s, e)`` read as a noun phrase: a noun last, no verb first.

    >>> from extractors.concepts.tokens import TokenStream
    >>> t = TokenStream(text=("self", "supervised"), cls=["A", "A"])
    >>> is_noun_phrase(t, 0, 2), is_noun_phrase(TokenStream(text=("pruning",), cls=["N"]), 0, 1)
    (False, True)
    """
    cls = stream.cls
    return cls[e - 1] == "N" and cls[s] != "V"


def wording(c: Candidate, stream: TokenStream, text: str) -> str:
    """How a concept is shown for this paper (``MENTIONS.surface``): the paper's first wording
    that is a noun phrase.

    A curated concept can be matched through an adjectival or verbal alias ("self-supervised",
    "fine-tuned", "LLM-based", "evaluating LLMs"); such a wording is not a name for the
    concept, so a curated concept the paper only writes that way is shown by its canonical
    name ("self-supervised learning"). A discovered phrase keeps its first wording.
    """
    starts, ends = stream.starts, stream.ends
    if c.source == "vocabulary" and c.name:
        for s, e in c.spans:
            if is_noun_phrase(stream, s, e):
                break
        else:
            return c.name
    else:
        s, e = c.spans[0]
    return " ".join(text[starts[s] : ends[e - 1]].split())


def _demote_duplicates(ranked: list[Candidate], stream: TokenStream, text: str) -> None:
    """Give each top candidate its surface form and push near-duplicate wordings down.

    Both concepts stay (they are different concepts: "language modeling" the task and
    "language models"), but a paper's top list should not spend two places on one wording.
    """
    seen: set[tuple[str, ...]] = set()
    demoted = False
    for c in ranked[:SURFACE_TOP]:
        c.surface = wording(c, stream, text)
        folded = fold_wording(c.surface)
        if folded in seen:
            c.score = round(c.score * DUPLICATE_FACTOR, 4)
            demoted = True
        seen.add(folded)
    if demoted:
        ranked.sort(key=lambda c: (-c.score, c.first, c.key))


_WORD = re.compile(r"[^\W_]+")


def _introduced_first(ranked: list[Candidate], introduced_keys: list[tuple[str, ...]]) -> None:
    """What the paper introduces ranks at its top: above the best score, in order of appearance."""
    if not ranked or not introduced_keys:
        return
    order = {k: n for n, k in enumerate(introduced_keys)}
    mine = [c for c in ranked if c.introduced and c.source == "discovered" and c.key in order]
    if not mine:
        return
    top = max(c.score for c in ranked)
    for c in mine:
        c.score = round(top * INTRODUCED_TOP + 0.001 * (len(order) - order[c.key]), 4)
    ranked.sort(key=lambda c: (-c.score, c.first, c.key))


def _add_expanded(
    stream: TokenStream,
    s: int,
    e: int,
    key: tuple[str, ...],
    skip: frozenset[int],
    expansion: dict[str, tuple[tuple[str, ...], str]],
    index: dict[tuple[str, ...], str],
    vocab_candidate: Callable[[str], Candidate],
    discovered: Callable[[tuple[str, ...]], Candidate],
) -> None:
    """A phrase with a defined acronym inside, counted under its spelt-out form."""
    expanded: list[str] = []
    for k in key:
        expanded.extend(expansion[k][0] if k in expansion else (k,))
    ekey = tuple(expanded)
    target = index.get(ekey)
    if target is not None:
        vocab_candidate(target).add(s, e)
        return
    c = discovered(ekey)
    if not c.name:
        c.name = _expanded_name(stream, s, e, skip, expansion)
        alias = display_name(stream, s, e)
        if alias.casefold() != c.name.casefold():
            c.aliases.append(alias)
    c.add(s, e)


def _expanded_name(
    stream: TokenStream,
    s: int,
    e: int,
    skip: frozenset[int],
    expansion: dict[str, tuple[tuple[str, ...], str]],
) -> str:
    """Display name of a phrase with its acronyms spelt out ("diversified multinomial logit bandit")."""
    words: list[str] = []
    for i in range(s, e):
        if i in skip:
            continue
        k = stream.keys[i]
        if k in expansion:
            words.append(expansion[k][1])
        else:
            words.append(display_name(stream, i, i + 1) if i == e - 1 else stream.text[i].lower())
    return " ".join(words)


def _generic(c: Candidate, keys: Sequence[str], background: Background) -> bool:
    """A concept named generically in this paper: its name or its first wording is generic
    (:func:`~extractors.concepts.filler.is_generic_key`); acronyms are judged by their long form."""
    s, e = c.spans[0]
    first = tuple(k for k in keys[s:e] if k not in ("(", ")"))
    for key in (c.key, first):
        if key and not (len(key) == 1 and key[0].startswith("A:")):
            if is_generic_key(key, background.df, background.keywords):
                return True
    return False


def _low_specificity(key: tuple[str, ...], background: Background) -> bool:
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
    :func:`static_part`, :func:`_rerank`.)

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
SPECIFIC_FACTOR = 0.1  # and further down when the paper has its narrower wording (_rerank)
# A phrase cut out of a longer one leaves the top of the list (_demote_fragments) unless the
# ranker is sure of it, checked best first until FRAGMENT_CHECKS are kept.
FRAGMENT_FACTOR = 0.1
FRAGMENT_SURE = 2.0
FRAGMENT_CHECKS = 10
# Fast mode's fragment model (extractors/data/fragment_model.json);
# scripts/train_fragment_model.py turns it off to collect the candidates it is trained on.
FRAGMENT_MODEL_ENABLED = True
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
DUPLICATE_FACTOR = 0.5  # a near-duplicate of a better-ranked concept's wording
INTRODUCED_TOP = 1.05  # an introduced name scores 5% above the paper's best other concept
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
    part = background.static_scores.get(key)
    if part is None:
        static = background.static_scores
        if len(static) > STATIC_CACHE_LIMIT:
            static.clear()
        junk = is_junk(key) or is_vacuous(key, background.lexicon.word_class) or is_filler(key, background)
        part = static[key] = -1.0 if junk else _static_score(key, background)
    if part > 0 and _low_specificity(key, background):
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
