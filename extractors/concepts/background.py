"""Static background statistics shipped with the package (``extractors/data/background_df.json``).

Why a static table: a paper's concept scores must not depend on which other papers happen to
be in the same ingest batch (re-ingesting a file, or ingesting one paper alone, must give the
identical record). Corpus statistics such as "frequent in this paper, rare elsewhere" therefore
come from a fixed background corpus, never from the batch being ingested.

The file is built by ``scripts/build_background_df.py`` from ``../shared/data`` (see the
``provenance`` entry inside the file) and holds:

* ``n_docs`` and ``df``: document frequency of candidate phrases and words (keys are
  space-joined :func:`~kg.core.normalize.token_key` forms; only df >= 2 is kept,
  so an absent phrase has df <= 1);
* ``keywords``: how many NeurIPS 2023 papers list a phrase as an author keyword (a
  "keyphraseness" prior; NeurIPS 2023 is not one of the evaluation files);
* ``classes``: the word-class lexicon of the fast mode (see :mod:`extractors.concepts.tokens`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from extractors import DATA_DIR
from extractors.concepts.specificity import DEFAULT_GENERAL_ENGLISH, keyword_affinity, load_general_english
from extractors.concepts.tokens import Lexicon
from kg.core.errors import ExtractionError

__all__ = ["DEFAULT_BACKGROUND", "FUNCTION_WORDS", "Background", "load_background"]

FUNCTION_WORDS = frozenset(
    {"of", "the", "a", "an", "and", "or", "for", "in", "on", "to", "with", "from", "by"}
)
ADJECTIVE_MIN_USES = 5  # an adjective is a keyphrase on its own from this many keyword uses
INNER_MIN_SINGLE = 5  # a single word inside a longer phrase must be this common an author keyword
# A prefix of a longer noun phrase ("reinforcement learning" in "reinforcement learning agents")
# must be an author keyword this often; otherwise it is a fragment ("benchmarking large language").
INNER_MIN_PHRASE = 2
UNIT_MIN_DF = 3
UNIT_SHARE = 0.5
DEFAULT_BACKGROUND = DATA_DIR / "background_df.json"


@dataclass(frozen=True)
class Background:
    """Document frequencies, keyword counts and word classes (role: static corpus statistics)."""

    n_docs: int = 1
    df: dict[tuple[str, ...], int] = field(default_factory=dict)
    keywords: dict[tuple[str, ...], int] = field(default_factory=dict)
    classes: dict[str, str] = field(default_factory=dict)
    lexicon: Lexicon = field(default_factory=Lexicon)
    # Author keywords (count >= 2) with a function word inside ("mixture of experts").
    function_phrases: frozenset[tuple[str, ...]] = frozenset()
    function_firsts: frozenset[str] = frozenset()
    function_max_len: int = 0
    # Phrases allowed as a keyphrase that ends inside a longer noun phrase (see candidates.sub_phrases).
    inner_ok: frozenset[tuple[str, ...]] = frozenset()
    # Word pairs that are one unit ("Monte Carlo"): the second word rarely occurs without the
    # first, so a phrase may not start between them ("carlo sampling" is a fragment).
    units: frozenset[tuple[str, str]] = frozenset()
    # (adjective, word) pairs that open a known term ("deep learning ...", "natural language ..."):
    # a phrase may not start between them (see candidates.cut_after_modifier).
    modifier_pairs: frozenset[tuple[str, str]] = frozenset()
    # (gerund, word) pairs that open an established term ("learning rate", "training data"):
    # the gerund is a noun there, not a verb taking an object (see analysis.word_classes._clause_gerunds).
    gerund_pairs: frozenset[tuple[str, str]] = frozenset()
    # Adjectives that are author keywords on their own ("multimodal", "Bayesian").
    adjective_keywords: frozenset[str] = frozenset()
    # Zipf frequency of words in general English (extractors/concepts/specificity.py); empty
    # means "unknown", and then no phrase is judged by it.
    general: dict[str, float] = field(default_factory=dict, repr=False, compare=False)
    # Keyword uses per abstract of each word (extractors/concepts/specificity.keyword_affinity).
    affinity: dict[str, float] = field(default_factory=dict, repr=False, compare=False)
    # Per-phrase low-specificity verdicts (extractors.concepts.analysis.scoring.low_specificity), lazily.
    low_specificity: dict[tuple[str, ...], bool] = field(default_factory=dict, repr=False, compare=False)
    # Per-phrase part of the concept score (or -1.0 for junk), filled lazily by the analysis.
    static_scores: dict[tuple[str, ...], float] = field(default_factory=dict, repr=False, compare=False)
    # :func:`~extractors.concepts.analysis.scoring.static_part` by phrase (the static score with
    # its low-specificity factor): one lookup for the ~50 plain phrases of every paper.
    static_parts: dict[tuple[str, ...], float] = field(default_factory=dict, repr=False, compare=False)

    def idf(self, key: tuple[str, ...]) -> float:
        """Smoothed inverse document frequency; unseen phrases count as seen once.

        >>> b = Background(n_docs=99, df={("bandit",): 9})
        >>> round(b.idf(("bandit",)), 3), round(b.idf(("rare",)), 3)
        (2.303, 3.912)
        """
        return math.log((self.n_docs + 1) / (self.df.get(key, 1) + 1))


def _keyed(table: dict[str, int]) -> dict[tuple[str, ...], int]:
    return {tuple(k.split(" ")): int(v) for k, v in table.items()}


MODIFIER_PAIR_MIN_DF = 3  # a background phrase opening a term must be this common


def _modifier_pairs(
    keywords: dict[tuple[str, ...], int], df: dict[tuple[str, ...], int]
) -> frozenset[tuple[str, str]]:
    """First two words of every multi-word author keyword and frequent background phrase."""
    pairs = {(k[0], k[1]) for k in keywords if len(k) >= 2}
    pairs.update((k[0], k[1]) for k, v in df.items() if len(k) >= 2 and v >= MODIFIER_PAIR_MIN_DF)
    return frozenset(pairs)


GERUND_PAIR_MIN_KEYWORDS = 2
GERUND_PAIR_MIN_DF = 10


def _gerund_pairs(
    keywords: dict[tuple[str, ...], int], df: dict[tuple[str, ...], int]
) -> frozenset[tuple[str, str]]:
    """First two words of author keywords used at least twice and of common background phrases.

    Stricter than :func:`_modifier_pairs`: the background counts "learning policies" (a verb and
    its object, 6 documents) as a phrase too, and one author's "teaching robot team" does not
    make "teaching robots" a term.
    """
    pairs = {(k[0], k[1]) for k, v in keywords.items() if len(k) >= 2 and v >= GERUND_PAIR_MIN_KEYWORDS}
    pairs.update((k[0], k[1]) for k, v in df.items() if len(k) >= 2 and v >= GERUND_PAIR_MIN_DF)
    return frozenset(pairs)


@lru_cache(maxsize=2)
def load_background(path: Path = DEFAULT_BACKGROUND, general: Path = DEFAULT_GENERAL_ENGLISH) -> Background:
    """The shipped background statistics and general-English word table, read once per process."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ExtractionError(
            f"cannot read background statistics {path}: {e} (build it: python scripts/build_background_df.py)"
        ) from e
    keywords = _keyed(data.get("keywords", {}))
    df_table = _keyed(data.get("df", {}))
    classes = {str(k): str(v) for k, v in data.get("classes", {}).items()}
    function = frozenset(
        k for k, v in keywords.items() if v >= 2 and len(k) >= 3 and any(w in FUNCTION_WORDS for w in k[1:-1])
    )
    return Background(
        general=load_general_english(general),
        affinity=keyword_affinity(keywords, df_table),
        n_docs=int(data.get("n_docs", 1)),
        df=df_table,
        keywords=keywords,
        classes=classes,
        lexicon=Lexicon(classes, frozenset(k[0] for k in function)),
        function_phrases=function,
        function_firsts=frozenset(k[0] for k in function),
        function_max_len=max((len(k) for k in function), default=0),
        inner_ok=frozenset(
            k for k, v in keywords.items() if v >= (INNER_MIN_SINGLE if len(k) == 1 else INNER_MIN_PHRASE)
        ),
        units=frozenset(
            (k[0], k[1])
            for k, v in df_table.items()
            if len(k) == 2 and v >= UNIT_MIN_DF and v >= UNIT_SHARE * df_table.get((k[1],), v)
        ),
        modifier_pairs=_modifier_pairs(keywords, df_table),
        gerund_pairs=_gerund_pairs(keywords, df_table),
        adjective_keywords=frozenset(
            k[0]
            for k, v in keywords.items()
            if len(k) == 1 and v >= ADJECTIVE_MIN_USES and Lexicon(classes).word_class(k[0]) == "A"
        ),
    )
