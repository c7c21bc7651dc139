"""Sense support: whether a paper uses a curated concept in the sense its is-a links assume.

What it decides: :func:`unsupported_parents`, the broader concepts of a vocabulary concept that
the paper's own text gives no support to, and from it :func:`stays_below`, whether a link to the
concept is marked ``climbs: false``: it counts for its own concept (``concept(X).papers``,
``paperCount``) but not for the concepts above it (``PaperQuery.narrower``).

Why: ``concept(A).papers`` lists the papers about any concept below ``A`` (the BROADER closure),
so a link climbs every is-a link above its concept. Some is-a links hold for one sense of the
child only: "knowledge distillation" is a kind of "model compression" when a big model is
distilled into a small one, not when a robot policy learns from a privileged teacher;
"quantization" is model compression for weights, not for a robot's action space. A paper that
uses the child in another sense names nothing else of the parent's subtree (no pruning, no
compression), so the parent is *unsupported* for it. Support is read from the paper's own
vocabulary matches only (:attr:`Analysis.matched`), so a record is the same alone or in any
batch. Broad parents ("deep learning") are supported by almost any paper of their field; the
rule bites on specific ones.

Only *weak* links (salience under :data:`WEAK_SALIENCE`, not in the title, not defined or
introduced) with *no* parent supported stay below: one or two mentions outside the title are
not worth filing the paper under parents it never touches. A strong link climbs even without
support, and so does a link with one parent supported: most true is-a links are never written
("multi-armed bandits" under "exploration", "equivariant neural networks" under "geometric deep
learning"), and one ``climbs`` bit per link cannot choose among parents, so "privileged
knowledge distillation" (transfer learning supported, model compression not) still climbs to
both. Dropping ``about`` instead would also drop the paper from the child's own page (tried:
the seed queries lost one paper each, keyword coverage fell 2-3 points).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from extractors.concepts.analysis.candidate import Candidate
    from extractors.concepts.analysis.result import Analysis

# Below this salience a link is weak: the title, a definition or four mentions all reach it.
WEAK_SALIENCE = 0.5


def unsupported_parents(analysis: Analysis, c: Candidate) -> list[str]:
    """The vocabulary parents of ``c`` that the paper does not support.

    A parent ``p`` is supported when the paper matches ``p`` itself or a concept below ``p``
    that is not ``c``'s own concept or below it (a sibling's subtree: "pruning" supports
    "model compression" for "quantization"), or when the child's name says it
    (:func:`names_share_a_word`).
    """
    if c.source != "vocabulary" or not c.vocab_id:
        return []
    vocab = analysis.vocab
    concept = vocab.concepts.get(c.vocab_id)
    if concept is None or not concept.broader:
        return []
    own = {c.vocab_id, *vocab.descendants(c.vocab_id)}
    others = analysis.matched - own
    name = vocab.name_keys.get(c.vocab_id, ())
    return [
        p
        for p in concept.broader
        if p not in others
        and not (others & vocab.descendants(p))
        and not names_share_a_word(name, vocab.name_keys.get(p, ()))
    ]


def names_share_a_word(child: tuple[str, ...], parent: tuple[str, ...]) -> bool:
    """Whether the child's name says the is-a itself: a word of the parent's name, or one of
    the same stem, is in it ("equivariant neural networks" under "equivariance", "GPT-4" under
    "GPT", "contextual bandits" under "multi-armed bandits"). Such a link holds in every sense.

    >>> names_share_a_word(("equivariant", "neural", "network"), ("equivariance",))
    True
    >>> names_share_a_word(("quantization",), ("model", "compression"))
    False
    """
    return any(_same_stem(a, b) for a in child for b in parent)


def _same_stem(a: str, b: str) -> bool:
    if a == b:
        return True
    common = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        common += 1
    return common >= 6 and common >= min(len(a), len(b)) - 3


def stays_below(analysis: Analysis, c: Candidate, salience: float) -> bool:
    """Whether a link to ``c`` should not count for the concepts above it (see module)."""
    if c.source != "vocabulary" or c.defined or c.introduced or c.in_title:
        return False
    parents = analysis.vocab.concepts[c.vocab_id].broader
    return (
        salience < WEAK_SALIENCE and bool(parents) and len(unsupported_parents(analysis, c)) == len(parents)
    )
