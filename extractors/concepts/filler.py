"""Evaluative filler: phrases that judge rather than name ("greater flexibility", "independent
interest", "received limited attention", "little theoretical understanding").

They are noun phrases by grammar, so the chunker offers them, but no reader would call them a
concept of the paper. A phrase is evaluative when it starts with an evaluative or comparative
modifier or with a participle of the "has received attention" kind, or when its head is an
evaluative noun ("interest", "flexibility") qualified only by such words. Keys are normalised
(:func:`~kg.core.normalize.token_key`).
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = [
    "EVALUATIVE_HEADS",
    "EVALUATIVE_MODIFIERS",
    "GENERIC_KEYWORD_RATIO",
    "GENERIC_MIN_DF",
    "is_evaluative",
    "is_generic_key",
]

GENERIC_MIN_DF = 100  # of the 8,855 background documents (about 1.1%)
GENERIC_KEYWORD_RATIO = 0.25

EVALUATIVE_MODIFIERS = frozenset(
    """greater great little limited less lesser more much higher lower better worse best worst
    deeper richer broader finer wider stronger weaker larger smaller faster slower easier harder
    significant substantial considerable remarkable notable impressive excellent superior
    inferior promising competitive favorable favourable desirable undesirable attractive appealing
    surprising interesting independent increasing growing rising renewed widespread tremendous
    enormous huge vast unprecedented extensive comprehensive thorough rigorous careful detailed
    poor good nice elegant simple simpler efficient inefficient effective ineffective
    received gained attracted drawn garnered witnessed seen shown demonstrated achieved
    considerable sufficient insufficient adequate inadequate satisfactory unsatisfactory""".split()
)
EVALUATIVE_HEADS = frozenset(
    """flexibility interest attention understanding insight insights comprehension superiority
    popularity success progress promise potential benefit benefits advantage advantages
    improvement improvements gain gains boost boosts merit merits strength strengths weakness
    weaknesses drawback drawbacks shortcoming shortcomings versatility simplicity effectiveness
    efficacy efficiency importance significance relevance usefulness utility value
    performance results result quality accuracy speedup speedups margin margins""".split()
)


def is_evaluative(key: tuple[str, ...]) -> bool:
    """Whether a normalised phrase judges rather than names.

    >>> is_evaluative(("greater", "flexibility")), is_evaluative(("independent", "interest"))
    (True, True)
    >>> is_evaluative(("received", "limited", "attention")), is_evaluative(("attention", "head"))
    (True, False)
    >>> is_evaluative(("graph", "neural", "network")), is_evaluative(("flexibility",))
    (False, True)
    """
    if not key:
        return False
    if len(key) == 1:
        return key[0] in EVALUATIVE_HEADS and key[0] not in ("attention", "interest")
    if key[0] in EVALUATIVE_MODIFIERS:
        return True
    return key[-1] in EVALUATIVE_HEADS and all(k in EVALUATIVE_MODIFIERS for k in key[:-1])


def is_generic_key(
    key: tuple[str, ...], df: Mapping[tuple[str, ...], int], keywords: Mapping[tuple[str, ...], int]
) -> bool:
    """Common in abstracts, rarely an author keyword: "graph", "learning", "language models".

    At least :data:`GENERIC_MIN_DF` background documents contain the phrase, and NeurIPS 2023
    authors chose it as a keyword in fewer than :data:`GENERIC_KEYWORD_RATIO` of that many
    papers (both tables: ``background_df.json``), or it is evaluative (:func:`is_evaluative`).
    "robustness" (145 documents, 53 keyword uses) and "large language models" (385, 122) are
    not generic; "representation" (613, 6) and "graph" (458, 15) are.

    >>> is_generic_key(("graph",), {("graph",): 458}, {("graph",): 15})
    True
    >>> is_generic_key(("robustness",), {("robustness",): 145}, {("robustness",): 53})
    False
    """
    if is_evaluative(key):
        return True
    n = df.get(key, 0)
    return n >= GENERIC_MIN_DF and keywords.get(key, 0) < GENERIC_KEYWORD_RATIO * n
