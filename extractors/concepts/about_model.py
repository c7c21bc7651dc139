"""A learned ``about`` decision: logistic regression over what the extractor knows of one link.

Why: ``MENTIONS.about`` decides which papers ``concept(K).papers`` lists. The hand-set rule
(:func:`extractors.concepts.extract.is_about`: salience from title, first sentence, contribution
sentence, repetition, definition; a rank and an aside check) was tuned on a few hundred judged
links. Author keywords are a large free label for the same question: a link whose concept (or a
concept above it) the authors listed is about; the others mostly are not. This module holds the
features of one link, computed from the paper's own analysis only (so a record is the same alone
or in any batch), and a standardised logistic regression run in plain Python, as
:mod:`extractors.concepts.ranker` does.

The model file (``extractors/data/about_model.json``: feature names, standardisation, weights,
bias, decision threshold and provenance) is written by ``scripts/train_about_model.py``. Without
the file, or with a file trained on other features, :func:`about_model_of` gives ``None`` and the
hand-set rule decides alone.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from extractors import DATA_DIR
from extractors.concepts.filler import is_generic_key
from kg.core.errors import ExtractionError

if TYPE_CHECKING:
    from extractors.concepts.analysis import Analysis, Candidate
    from extractors.concepts.background import Background

__all__ = [
    "ABOUT_FEATURES",
    "DEFAULT_ABOUT_MODEL",
    "AboutModel",
    "about_features",
    "about_model_of",
    "load_about_model",
]

DEFAULT_ABOUT_MODEL = DATA_DIR / "about_model.json"
RANK_SCALE = 20.0  # ranks are among the paper's 20 best mentions (extract.MAX_MENTIONS)

ABOUT_FEATURES: tuple[str, ...] = (
    "rule",  # the hand-set decision (is_about)
    "salience",
    "salience_over_threshold",
    "rank",
    "top_rank",  # among the best ABOUT_TOP_RANK
    "in_title",
    "first_sentence",
    "contribution",
    "claimed",
    "defined",
    "introduced",
    "named",
    "aside",
    "one_sentence",
    "log_count",
    "position",
    "log_score",
    "vocabulary",
    "has_broader",
    "one_word",
    "three_plus_words",
    "idf",
    "log_keyword",
    "generic",
    "kind_model",
    "kind_dataset",
    "kind_task",
    "kind_method",
)


def about_features(
    analysis: Analysis,
    c: Candidate,
    background: Background,
    *,
    salience: float,
    rank: int,
    aside: bool,
    rule: bool,
    threshold: float,
    top_rank: int,
) -> list[float]:
    """The feature vector of one (paper, concept) link, in :data:`ABOUT_FEATURES` order.

    Everything comes from the paper's own analysis and the static background table, never from
    the store, so the decision does not depend on which papers were ingested before.
    """
    from extractors.concepts.analysis.about import in_one_sentence  # the analysis package imports this module

    key = c.key
    df = background.df.get(key, 1)
    idf = min(math.log((background.n_docs + 1) / (df + 1)), 7.0) / 7.0
    first, contribution = analysis.where(c)
    n = max(len(analysis.stream), 1)
    return [
        float(rule),
        salience,
        float(salience >= threshold),
        min(rank, RANK_SCALE) / RANK_SCALE,
        float(rank < top_rank),
        float(c.in_title),
        float(first),
        float(contribution),
        float(analysis.claimed(c)),
        float(c.defined),
        float(c.introduced),
        float(c.named),
        float(aside),
        float(bool(c.spans) and in_one_sentence(analysis, c)),
        math.log(max(c.count, 1)),
        c.first / n,
        math.log(max(c.score, 1e-3)),
        float(c.source == "vocabulary"),
        float(bool(c.broader)),
        float(len(key) == 1),
        float(len(key) >= 3),
        idf,
        math.log1p(background.keywords.get(key, 0)),
        float(bool(key) and is_generic_key(key, background.df, background.keywords)),
        float(c.kind == "MODEL"),
        float(c.kind == "DATASET"),
        float(c.kind == "TASK"),
        float(c.kind == "METHOD"),
    ]


_TITLE, _DEFINED, _INTRODUCED, _CLAIMED, _ASIDE, _ONE_SENTENCE = (
    ABOUT_FEATURES.index(f) for f in ("in_title", "defined", "introduced", "claimed", "aside", "one_sentence")
)


@dataclass(frozen=True)
class AboutModel:
    """Standardised logistic regression with a decision threshold (role: learned about decision)."""

    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    threshold: float  # a link the hand-set rule calls passing becomes about from this probability
    keep_threshold: float = 0.0  # a link the rule calls about stays about from this one (0: always)
    promote_floor: float = 0.0  # a passing link needs at least this salience to become about
    keep_strong: bool = False  # a rule-about link from its title, a definition or an introduction stays
    # the rule's exclusions hold: an aside or a one-sentence mention is never promoted, a claimed
    # link (a contribution sentence) never demoted
    hard_rules: bool = False

    def probability(self, x: Sequence[float]) -> float:
        """P(the link's concept is one the authors listed, or below one)."""
        if len(x) != len(self.weights):
            raise ValueError(f"{len(x)} features for a model of {len(self.weights)}")
        z = self.bias
        for w, v, m, s in zip(self.weights, x, self.mean, self.scale, strict=True):
            z += w * (v - m) / s
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))

    def decide(self, x: Sequence[float]) -> bool:
        """Whether the paper is about the concept: the probability at or above the threshold of
        the hand-set rule's answer (the first feature): :attr:`keep_threshold` for a link the rule
        calls about, :attr:`threshold` for one it calls passing with a salience (the second feature)
        of at least :attr:`promote_floor`."""
        if not x[0] and x[1] < self.promote_floor:
            return False  # no positional evidence at all: a passing mention stays one
        if x[0] and self.keep_strong and (x[_TITLE] or x[_DEFINED] or x[_INTRODUCED]):
            return True  # the paper's own claim (is_about's exemptions), whatever the concept's odds
        if self.hard_rules and (x[_CLAIMED] if x[0] else (x[_ASIDE] or x[_ONE_SENTENCE])):
            return bool(x[0])  # what the rule decides from the paper's own words stands
        return self.probability(x) >= (self.keep_threshold if x[0] else self.threshold)


def model_from_json(
    data: Mapping[str, object], threshold: float | None = None, keep_threshold: float | None = None
) -> AboutModel | None:
    """The model a JSON object describes (thresholds replaced when given), or ``None`` when its
    features are not these."""
    names = data.get("features")
    if not isinstance(names, list) or tuple(str(n) for n in names) != ABOUT_FEATURES:
        return None

    def floats(name: str) -> tuple[float, ...]:
        values = data.get(name)
        if not isinstance(values, list) or not all(isinstance(v, int | float) for v in values):
            raise ExtractionError(f"about model: {name} is not a list of numbers")
        return tuple(float(v) for v in values)

    def number(name: str, default: float | None = None) -> float:
        value = data.get(name, default)
        if not isinstance(value, int | float):
            raise ExtractionError(f"about model: {name} is not a number")
        return float(value)

    bias, given, keep, floor = (
        number("bias"),
        number("threshold"),
        number("keep_threshold", 0.0),
        number("promote_floor", 0.0),
    )
    return AboutModel(
        mean=floats("mean"),
        scale=tuple(v or 1.0 for v in floats("scale")),
        weights=floats("weights"),
        bias=bias,
        threshold=given if threshold is None else threshold,
        keep_threshold=keep if keep_threshold is None else keep_threshold,
        promote_floor=floor,
        keep_strong=data.get("keep_strong") is True,
        hard_rules=data.get("hard_rules") is True,
    )


@lru_cache(maxsize=4)
def load_about_model(path: Path = DEFAULT_ABOUT_MODEL) -> AboutModel | None:
    """The model file's model, read once per process; ``None`` when the file is absent or was
    trained on other features (the hand-set rule then decides)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    except json.JSONDecodeError as e:
        raise ExtractionError(f"{path}: malformed about model: {e}") from e
    return model_from_json(data)


def about_model_of(context: Mapping[str, object]) -> AboutModel | None:
    """The pipeline's about model: ``context["about_model"]`` when set (``None`` turns it off,
    an :class:`AboutModel` replaces the shipped one), else the shipped file's."""
    if "about_model" in context:
        given = context["about_model"]
        return given if isinstance(given, AboutModel) else None
    return load_about_model()
