"""Fast mode's guess of whether a phrase was cut out of a longer one (role: fragment rule
without a parse).

Why: accurate mode asks spaCy's parse whether an occurrence is a complete noun phrase
(:mod:`extractors.concepts.completeness`); fast mode runs no model, and its word-class chunker
still puts phrases such as "created ReHeAT", "edge LLMs" (from "cutting edge LLMs") or "tasks
thought" in a paper's top 10. A logistic regression over the token stream around an occurrence
(word classes and words at its edges and next to it, whether it is a known term) learns the
parse's verdict: ``scripts/train_fragment_model.py`` fits it on abstracts of ``../shared/data``
venues that are not evaluation sets, labelled by the accurate rule, and writes
``extractors/data/fragment_model.json`` with its cross-validated figures. Inference is a sum of
a few dozen weights from a dict: offline, CPU-only. Without the file nothing is demoted.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from extractors import DATA_DIR
from extractors.concepts.completeness import read_spans
from extractors.concepts.tokens import TokenStream
from kg.core.errors import ExtractionError

__all__ = ["DEFAULT_FRAGMENT_MODEL", "FragmentModel", "features", "load_fragment_model"]

DEFAULT_FRAGMENT_MODEL = DATA_DIR / "fragment_model.json"
# Words before and after a phrase kept as themselves; any other word is "*" in the
# word-class features (its own identity is the pw=/nw= feature).
_PREV_WORDS = frozenset(
    """we they which that who to and or of the a an this our its their by for in on with as is are
    be can""".split()
)
_NEXT_WORDS = frozenset("of to that the a and for in on with is are can by from as which".split())


def features(stream: TokenStream, start: int, end: int, known: bool, title_end: int) -> list[str]:
    """The feature names of the occurrence ``stream[start:end]`` (binary features: present or not).

    ``known``: the phrase is a vocabulary name or an author keyword (the accurate rule lets a
    known term start on any word class and modify a later word).
    """
    cls, keys, glued = stream.cls, stream.keys, stream.glued
    n = len(keys)
    first, last = cls[start], cls[end - 1]
    prev = cls[start - 1] if start > 0 else "^"
    prev2 = cls[start - 2] if start > 1 else "^"
    nxt = cls[end] if end < n else "$"
    nxt2 = cls[end + 1] if end + 1 < n else "$"
    prev_word = keys[start - 1] if start > 0 else "^"
    next_word = keys[end] if end < n else "$"
    return [
        f"f={first}",
        f"l={last}",
        f"p={prev}",
        f"n={nxt}",
        f"pf={prev}{first}",
        f"ln={last}{nxt}",
        f"pk={prev_word if prev_word in _PREV_WORDS else '*'}",
        f"nk={next_word if next_word in _NEXT_WORDS else '*'}",
        f"len={min(end - start, 3)}",
        f"known={known}",
        f"fw={keys[start]}",
        f"lw={keys[end - 1]}",
        f"gs={bool(glued[start])}",
        f"ge={end < n and bool(glued[end])}",
        f"cap={stream.text[start][:1].isupper()}",
        f"title={stream.starts[start] < title_end}",
        f"kf={known}{first}",
        f"kl={known}{last}",
        f"ctx={prev2}{prev}|{first}{last}|{nxt}{nxt2}",
        f"pfln={prev}{first}{last}{nxt}",
        f"pw={prev_word}",
        f"nw={next_word}",
        f"pwf={prev_word}|{first}",
        f"nwl={last}|{next_word}",
    ]


@dataclass(frozen=True)
class FragmentModel:
    """Logistic regression weights by feature name, and the probability above which a phrase
    counts as cut out of a longer one."""

    weights: dict[str, float]
    bias: float
    threshold: float

    def probability(
        self, stream: TokenStream, spans: Sequence[tuple[int, int]], known: bool, title_end: int
    ) -> float:
        """P(no occurrence is a complete noun phrase), as the least of the occurrences' own:
        one complete occurrence is enough; the occurrences the accurate rule reads
        (:func:`~extractors.concepts.completeness.read_spans`)."""
        weights = self.weights
        least = 1.0
        for start, end in read_spans(spans, stream.starts, title_end):
            z = self.bias
            for name in features(stream, start, end, known, title_end):
                z += weights.get(name, 0.0)
            least = min(least, 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))))
        return least

    def is_fragment(
        self, stream: TokenStream, spans: Sequence[tuple[int, int]], known: bool, title_end: int
    ) -> bool:
        return self.probability(stream, spans, known, title_end) > self.threshold


@lru_cache(maxsize=4)
def load_fragment_model(path: Path = DEFAULT_FRAGMENT_MODEL) -> FragmentModel | None:
    """The shipped model, ``None`` when the file is absent (no fast-mode fragment demotion)."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return FragmentModel(
            weights={str(k): float(v) for k, v in data["weights"].items()},
            bias=float(data["bias"]),
            threshold=float(data["threshold"]),
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise ExtractionError(f"fragment model {path} is unreadable: {e}") from e
