"""Concepts a paper's text implies but does not say: a calibrated linear model per concept.

Why: 38% of author keywords are not in the title or abstract ("deep learning", "reinforcement
learning", "robot learning"), so no ranking of text candidates can reach them. A model trained
on papers whose authors listed keywords (``../shared/data``) learns which words imply which
vocabulary concept and how likely the authors are to name it.

The model (``extractors/data/predictor.npz``, trained by ``scripts/train_predictor.py``): for
each vocabulary concept with enough support, a logistic regression over the presence of the
paper's unigram and bigram token keys (the same keys the vocabulary matcher uses, so training
and extraction tokenise alike), its rows L2-normalised; each concept's weights pruned to the
largest, stored as a term-major sparse matrix; and a Platt calibration fitted on held-out
folds, so ``probability`` reads as P(the authors list this concept). Inference is a few numpy
calls per paper: offline, CPU-only, deterministic, no scikit-learn at run time. Without the
file nothing is predicted.

Emission rule (:func:`predicted_mentions`): the concepts with probability at least
``min_probability`` (at most ``max_predicted``) that the text does not already mention; the
text mention wins, as it carries evidence. Their ``MENTIONS.score`` is ``10 x probability``,
the scale of the text mentions' re-ranked score (``RANKER_SCALE``: 10 x P(author keyword)),
so both kinds compare; ``about`` only from ``about_probability`` up, so an unconfident
prediction ranks below every concept the text shows the paper is about.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path

import numpy as np
import numpy.typing as npt
from spacy.tokens import Doc

from extractors import DATA_DIR
from extractors.concepts.term_rows import TermRows
from extractors.concepts.vocabulary import SKIP_TOKENS
from extractors.text import MATH_PLACEHOLDER
from kg.core.errors import ExtractionError
from kg.core.normalize import token_key

__all__ = [
    "DEFAULT_PREDICTOR",
    "SCORE_SCALE",
    "ConceptPredictor",
    "Prediction",
    "doc_mentions",
    "doc_terms",
    "key_terms",
    "load_predictor",
    "predicted_mentions",
    "predictor_of",
]

DEFAULT_PREDICTOR = DATA_DIR / "predictor.npz"
# MENTIONS.score = SCORE_SCALE x probability: the text mentions' scale (the re-ranker's
# ``RANKER_SCALE`` in extractors/concepts/analysis/ranking.py, 10 x P(author keyword); a test keeps
# them equal). Kept here so this stage does not reach into the analysis internals.
SCORE_SCALE = 10.0


@lru_cache(maxsize=200_000)
def _is_word(key: str) -> bool:
    """Whether a token key holds a letter or digit (cached: the stage's hottest test)."""
    return any(ch.isalnum() for ch in key)


def key_terms(keys: Iterable[str]) -> set[str]:
    """The features of a token-key sequence: every word key and every adjacent pair of word keys.

    A non-word key (punctuation, a math wall) breaks pairs, so "learning. Deep" is no bigram.

    >>> sorted(key_terms(["deep", "network", ",", "A:RL"]))
    ['A:RL', 'deep', 'deep network', 'network']
    """
    out: set[str] = set()
    add = out.add
    prev = ""
    for key in keys:
        if not _is_word(key):
            prev = ""
            continue
        add(key)
        if prev:
            add(prev + " " + key)
        prev = key
    return out


def doc_terms(doc: Doc) -> set[str]:
    """:func:`key_terms` of a tokenised Doc (hyphens skipped, math a wall, like the matcher)."""
    texts = [t.text for t in doc]
    return key_terms("\0" if w == MATH_PLACEHOLDER else token_key(w) for w in texts if w not in SKIP_TOKENS)


@dataclass(frozen=True)
class Prediction:
    """One implied concept of a paper (role: model output)."""

    concept_id: str
    probability: float


@dataclass(frozen=True)
class ConceptPredictor:
    """A trained predictor: sparse weights (term-major CSR), biases and Platt calibration.

    ``indptr``/``indices``/``data``: row ``t`` of the weight matrix (term ``terms[t]``) holds
    weights ``data[indptr[t]:indptr[t+1]]`` for concepts ``indices[...]``.
    """

    terms: dict[str, int]
    concepts: tuple[str, ...]
    indptr: npt.NDArray[np.int64]
    indices: npt.NDArray[np.int32]
    data: npt.NDArray[np.float64]
    bias: npt.NDArray[np.float64]
    platt_a: npt.NDArray[np.float64]
    platt_b: npt.NDArray[np.float64]
    min_probability: float
    about_probability: float
    max_predicted: int
    provenance: str

    def decision(self, terms: Iterable[str]) -> npt.NDArray[np.float64]:
        """The linear scores of every concept for a paper's features (unknown terms ignored)."""
        rows = sorted({i for t in terms if (i := self.terms.get(t)) is not None})
        return self.decision_rows(np.asarray(rows, dtype=np.int64))

    def decision_rows(self, idx: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """:meth:`decision` of the sorted, distinct term rows of a paper's features
        (:class:`~extractors.concepts.term_rows.TermRows` reads them from a Doc)."""
        out = self.bias.copy()
        if not len(idx):
            return out
        starts, ends = self.indptr[idx], self.indptr[idx + 1]
        lengths = ends - starts
        total = int(lengths.sum())
        if total:
            # The positions of every selected row's entries, without a Python loop.
            offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(total)
            sums = np.bincount(
                self.indices[offsets], weights=self.data[offsets], minlength=len(self.concepts)
            )
            out += sums / math.sqrt(len(idx))
        return out

    @cached_property
    def term_rows(self) -> TermRows:
        """The index that reads a Doc's term rows without building the terms (built once)."""
        return TermRows(self.terms)

    def doc_probabilities(self, doc: Doc, orths: Sequence[int] | None = None) -> npt.NDArray[np.float64]:
        """:meth:`probabilities` of ``doc_terms(doc)``, bit for bit, by :attr:`term_rows`
        (``orths``: the Doc's ``ORTH`` hashes, when read already)."""
        return self.calibrated(self.decision_rows(self.term_rows.rows(doc, orths)))

    def probabilities(self, terms: Iterable[str]) -> npt.NDArray[np.float64]:
        """Calibrated P(the authors list the concept), for every concept of the model."""
        return self.calibrated(self.decision(terms))

    def calibrated(self, decision: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """Platt's calibration of :meth:`decision` scores."""
        z = self.platt_a * decision + self.platt_b
        return 1.0 / (1.0 + np.exp(-z))

    def predict(
        self, terms: Iterable[str], exclude: frozenset[str] | set[str] = frozenset()
    ) -> list[Prediction]:
        """The concepts at least ``min_probability`` likely, best first, ``exclude`` left out.

        At most ``max_predicted``; ties broken by concept id, so the order is deterministic.
        """
        return self.best(self.probabilities(terms), exclude)

    def best(
        self, p: npt.NDArray[np.float64], exclude: frozenset[str] | set[str] = frozenset()
    ) -> list[Prediction]:
        """:meth:`predict` of the probabilities ``p`` of every concept."""
        hits = np.flatnonzero(p >= self.min_probability)
        ranked = sorted(
            (
                Prediction(self.concepts[i], round(float(p[i]), 4))
                for i in hits
                if self.concepts[i] not in exclude
            ),
            key=lambda x: (-x.probability, x.concept_id),
        )
        return ranked[: self.max_predicted]


def predicted_mentions(
    predictor: ConceptPredictor, terms: Iterable[str], mentioned: Sequence[str] | set[str], scale: float
) -> list[tuple[Prediction, float, bool]]:
    """``(prediction, MENTIONS.score, about)`` of each concept the text implies but does not mention."""
    return _mentions(predictor, predictor.predict(terms, exclude=set(mentioned)), scale)


def doc_mentions(
    predictor: ConceptPredictor,
    doc: Doc,
    mentioned: Sequence[str] | set[str],
    scale: float,
    orths: Sequence[int] | None = None,
) -> list[tuple[Prediction, float, bool]]:
    """:func:`predicted_mentions` of ``doc_terms(doc)``, without building the terms."""
    p = predictor.doc_probabilities(doc, orths)
    return _mentions(predictor, predictor.best(p, exclude=set(mentioned)), scale)


def _mentions(
    predictor: ConceptPredictor, predictions: list[Prediction], scale: float
) -> list[tuple[Prediction, float, bool]]:
    out: list[tuple[Prediction, float, bool]] = []
    for pred in predictions:
        out.append(
            (pred, round(scale * pred.probability, 4), pred.probability >= predictor.about_probability)
        )
    return out


def read_predictor(path: Path) -> ConceptPredictor:
    """Load a model file; a clear :class:`ExtractionError` naming the file when it is malformed."""
    try:
        with np.load(path, allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            terms = [str(t) for t in z["terms"]]
            concepts = tuple(str(c) for c in z["concepts"])
            model = ConceptPredictor(
                terms={t: i for i, t in enumerate(terms)},
                concepts=concepts,
                indptr=z["indptr"].astype(np.int64),
                indices=z["indices"].astype(np.int32),
                data=z["data"].astype(np.float64),
                bias=z["bias"].astype(np.float64),
                platt_a=z["platt_a"].astype(np.float64),
                platt_b=z["platt_b"].astype(np.float64),
                min_probability=float(meta["min_probability"]),
                about_probability=float(meta["about_probability"]),
                max_predicted=int(meta["max_predicted"]),
                provenance=str(meta.get("provenance", "")),
            )
    except (OSError, KeyError, ValueError, TypeError) as e:
        raise ExtractionError(f"{path}: not a concept predictor model file: {e}") from e
    n = len(concepts)
    if not (
        len(model.indptr) == len(terms) + 1
        and len(model.indices) == len(model.data) == int(model.indptr[-1])
        and len(model.bias) == len(model.platt_a) == len(model.platt_b) == n
        and (n == 0 or int(model.indices.max(initial=0)) < n)
    ):
        raise ExtractionError(f"{path}: concept predictor arrays have inconsistent shapes")
    return model


def predictor_of(context: Mapping[str, object]) -> ConceptPredictor | None:
    """The pipeline's predictor: ``context["predictor"]`` when set (``None`` turns it off), else
    the shipped one."""
    if "predictor" in context:
        given = context["predictor"]
        return given if isinstance(given, ConceptPredictor) else None
    return load_predictor()


@lru_cache(maxsize=4)
def load_predictor(path: Path = DEFAULT_PREDICTOR) -> ConceptPredictor | None:
    """The shipped model, read once per process; ``None`` when the file is absent."""
    if not path.exists():
        return None
    return read_predictor(path)
