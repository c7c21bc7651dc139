"""Evaluative filler: phrases that judge rather than name ("greater flexibility", "independent
interest", "received limited attention", "little theoretical understanding").

They are noun phrases by grammar, so the chunker offers them, but no reader would call them a
concept of the paper. A phrase is evaluative when it starts with an evaluative or comparative
modifier or with a participle of the "has received attention" kind, or when its head is an
evaluative noun ("interest", "flexibility") qualified only by such words. Keys are normalised
(:func:`~extractors.concepts.normalize.token_key`).
"""

from __future__ import annotations

__all__ = ["EVALUATIVE_HEADS", "EVALUATIVE_MODIFIERS", "is_evaluative"]

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
