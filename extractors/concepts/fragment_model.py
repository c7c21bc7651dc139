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
from functools import cached_property, lru_cache
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
# The prefixes of the names :func:`features` returns, in its order (see FragmentModel.decision).
_PREFIXES = "f l p n pf ln pk nk len known fw lw gs ge cap title kf kl ctx pfln pw nw pwf nwl".split()
_LENGTHS = ("0", "1", "2", "3")


def _context(stream: TokenStream, start: int, end: int) -> tuple[str, str, str, str, str, str, str, str]:
    """What :func:`features` and :meth:`FragmentModel.decision` read around ``stream[start:end]``:
    the first and last word classes, the two classes before and after (``^``/``$`` past the
    ends), and the words just before and after; read in one place so the two stay alike."""
    cls, keys = stream.cls, stream.keys
    n = len(keys)
    return (
        cls[start],
        cls[end - 1],
        cls[start - 1] if start > 0 else "^",
        cls[start - 2] if start > 1 else "^",
        cls[end] if end < n else "$",
        cls[end + 1] if end + 1 < n else "$",
        keys[start - 1] if start > 0 else "^",
        keys[end] if end < n else "$",
    )


def features(stream: TokenStream, start: int, end: int, known: bool, title_end: int) -> list[str]:
    """The feature names of the occurrence ``stream[start:end]`` (binary features: present or not).

    ``known``: the phrase is a vocabulary name or an author keyword (the accurate rule lets a
    known term start on any word class and modify a later word).
    """
    keys, glued = stream.keys, stream.glued
    n = len(keys)
    first, last, prev, prev2, nxt, nxt2, prev_word, next_word = _context(stream, start, end)
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
        least = 1.0
        for start, end in read_spans(spans, stream.starts, title_end):
            z = self.decision(stream, start, end, known, title_end)
            least = min(least, 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z)))))
        return least

    def decision(self, stream: TokenStream, start: int, end: int, known: bool, title_end: int) -> float:
        """The linear score of one occurrence: the bias plus the weight of each of its
        :func:`features`, added in their order (so the sum is bit for bit the same).

        Why not ``sum(weights[f] for f in features(...))``: formatting 24 feature names per
        occurrence was most of this model's cost. The weights are split by feature prefix
        (:attr:`by_prefix`) and each is looked up by its value alone; ``features`` stays the
        definition (the trainer uses it) and ``tests/unit/test_fragment_model_speed.py``
        compares both on real papers.
        """
        t = self.by_prefix
        keys, glued = stream.keys, stream.glued
        n = len(keys)
        first, last, prev, prev2, nxt, nxt2, prev_word, next_word = _context(stream, start, end)
        k = "True" if known else "False"
        return (
            self.bias
            + t["f"].get(first, 0.0)
            + t["l"].get(last, 0.0)
            + t["p"].get(prev, 0.0)
            + t["n"].get(nxt, 0.0)
            + t["pf"].get(prev + first, 0.0)
            + t["ln"].get(last + nxt, 0.0)
            + t["pk"].get(prev_word if prev_word in _PREV_WORDS else "*", 0.0)
            + t["nk"].get(next_word if next_word in _NEXT_WORDS else "*", 0.0)
            + t["len"].get(_LENGTHS[min(end - start, 3)], 0.0)
            + t["known"].get(k, 0.0)
            + t["fw"].get(keys[start], 0.0)
            + t["lw"].get(keys[end - 1], 0.0)
            + t["gs"].get("True" if glued[start] else "False", 0.0)
            + t["ge"].get("True" if end < n and glued[end] else "False", 0.0)
            + t["cap"].get("True" if stream.text[start][:1].isupper() else "False", 0.0)
            + t["title"].get("True" if stream.starts[start] < title_end else "False", 0.0)
            + t["kf"].get(k + first, 0.0)
            + t["kl"].get(k + last, 0.0)
            + t["ctx"].get(f"{prev2}{prev}|{first}{last}|{nxt}{nxt2}", 0.0)
            + t["pfln"].get(prev + first + last + nxt, 0.0)
            + t["pw"].get(prev_word, 0.0)
            + t["nw"].get(next_word, 0.0)
            + t["pwf"].get(prev_word + "|" + first, 0.0)
            + t["nwl"].get(last + "|" + next_word, 0.0)
        )

    @cached_property
    def by_prefix(self) -> dict[str, dict[str, float]]:
        """The weights split at the first ``=`` of their names: ``{"pw": {"we": 0.3, ...}, ...}``."""
        out: dict[str, dict[str, float]] = {prefix: {} for prefix in _PREFIXES}
        for name, weight in self.weights.items():
            prefix, eq, value = name.partition("=")
            if eq and prefix in out:
                out[prefix][value] = weight
        return out

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
