"""A learned re-ranker of a paper's concept candidates: logistic regression over a few features.

Why: the hand-set score (:func:`~extractors.concepts.analysis.score_candidate`) weighs a dozen
signals by coordinate ascent; a logistic regression fitted on author keywords weighs them
jointly and adds the ones the score lacks (first sentence, contribution sentence, phrase
length, kind). It only re-orders the candidates the analysis already found, so every rule
about what may be a candidate (no fragments, no filler) still holds.

The model (``extractors/data/ranker.json``: feature names, standardisation, weights) is
trained by ``scripts/train_ranker.py`` on author keywords of ``../shared/data`` files that are
not evaluation sets (see the file's ``provenance``). Inference is a dot product in plain
Python: offline, CPU-only, no scikit-learn at run time. Without the file the hand-set score
is used unchanged.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from extractors import DATA_DIR
from extractors.concepts.background import Background
from extractors.concepts.filler import is_generic_key
from kg.core.errors import ExtractionError

if TYPE_CHECKING:
    from extractors.concepts.analysis import Analysis, Candidate

__all__ = ["DEFAULT_RANKER", "FEATURES", "KIND_FEATURES", "Ranker", "features", "load_ranker"]

# The candidate's kind as one-hot features, then whether its surface is an acronym; the fast
# path (:class:`~extractors.concepts.analysis.ranking.RankTerms`) reads these in this order too.
KIND_FEATURES: tuple[str, ...] = ("kind_model", "kind_dataset", "kind_task", "kind_method", "acronym_surface")
DEFAULT_RANKER = DATA_DIR / "ranker.json"
FEATURES: tuple[str, ...] = (
    "log_score",
    "log_static",
    "in_title",
    "log_count",
    "position",
    "vocabulary",
    "defined",
    "introduced",
    "named",
    "one_word",
    "three_plus_words",
    "log_keyword",
    "idf",
    "generic",
    "first_sentence",
    "contribution",
    *KIND_FEATURES,
)


def features(analysis: Analysis, c: Candidate, background: Background, static: float) -> list[float]:
    """The feature vector of one candidate (order: :data:`FEATURES`).

    ``static``: the phrase's static score (:func:`extractors.concepts.analysis.static_part`),
    negative for a junk phrase. Passed in, never read from a cache, so a paper's features do not
    depend on which papers the process saw before.
    """
    key = c.key
    df = background.df.get(key, 1)
    idf = min(math.log((background.n_docs + 1) / (df + 1)), 7.0) / 7.0
    kw = background.keywords.get(key, 0)
    static = static if static > 0 else 0.1
    first, contribution = analysis.where(c)
    n = max(len(analysis.stream), 1)
    surface = analysis.stream.keys[c.spans[0][0]] if c.spans else ""
    return [
        math.log(max(c.score, 1e-3)),
        math.log(static),
        float(c.in_title),
        math.log(max(c.count, 1)),
        c.first / n,
        float(c.source == "vocabulary"),
        float(c.defined),
        float(c.introduced),
        float(c.named),
        float(len(key) == 1),
        float(len(key) >= 3),
        math.log1p(kw),
        idf,
        float(bool(key) and is_generic_key(key, background.df, background.keywords)),
        float(first),
        float(contribution),
        float(c.kind == "MODEL"),
        float(c.kind == "DATASET"),
        float(c.kind == "TASK"),
        float(c.kind == "METHOD"),
        float(surface.startswith("A:")),
    ]


@dataclass(frozen=True)
class Ranker:
    """Standardised logistic regression (role: learned ranking model)."""

    names: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float

    def probability(self, x: list[float]) -> float:
        """P(the candidate is an author keyword)."""
        if len(x) != len(self.weights):
            raise ValueError(f"{len(x)} features for a model of {len(self.weights)}")
        return self.from_terms([self.term(i, v) for i, v in enumerate(x)])

    def term(self, i: int, value: float) -> float:
        """Feature ``i``'s addend of the linear score."""
        return self.weights[i] * (value - self.mean[i]) / self.scale[i]

    def from_terms(self, terms: Iterable[float]) -> float:
        """The probability from the features' addends (:meth:`term`), summed in feature order.

        Callers that know some addends already (those of binary features, or of features that
        depend only on the phrase) pass them in; added in the same order, the sum is the same
        float as :meth:`probability`'s.
        """
        z = self.bias
        for t in terms:
            z += t
        return self.squash(z)

    @staticmethod
    def squash(z: float) -> float:
        """The logistic function of the linear score, clipped to [-30, 30]."""
        return 1.0 / (1.0 + math.exp(-max(min(z, 30.0), -30.0)))


@lru_cache(maxsize=2)
def load_ranker(path: Path = DEFAULT_RANKER) -> Ranker | None:
    """The shipped model, or ``None`` when there is none or it was trained on other features."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        return None
    except json.JSONDecodeError as e:
        raise ExtractionError(f"{path}: malformed ranker model: {e}") from e
    names = tuple(str(n) for n in data["features"])
    if names != FEATURES:
        return None
    return Ranker(
        names=names,
        mean=tuple(float(v) for v in data["mean"]),
        scale=tuple(float(v) or 1.0 for v in data["scale"]),
        weights=tuple(float(v) for v in data["weights"]),
        bias=float(data["bias"]),
    )
