"""Demotions after scoring: near-duplicate wordings, phrases cut out of longer ones (fragments),
and the paper's introduced names moved to the top.

What it decides: a candidate stays but ranks lower when another candidate of the paper has the
same wording folded (:func:`demote_duplicates`), or when its occurrences read as cut out of a
longer phrase (:func:`demote_fragments`: the parse's rule in the accurate mode, the fragment
model in the fast mode); what the paper introduces ranks above everything (:func:`introduced_first`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from spacy.tokens import Doc

from extractors.concepts.analysis.candidate import Candidate
from extractors.concepts.analysis.names import fold_wording, name_key_of, shortened_aliases, wording
from extractors.concepts.background import Background
from extractors.concepts.completeness import incomplete, read_spans
from extractors.concepts.fragment_model import load_fragment_model
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary

if TYPE_CHECKING:
    from extractors.concepts.analysis.result import Analysis

SURFACE_TOP = 24  # candidates checked for near-duplicate wording (the top list is 10-20)
DUPLICATE_FACTOR = 0.5  # a near-duplicate of a better-ranked concept's wording
INTRODUCED_TOP = 1.05  # an introduced name scores 5% above the paper's best other concept
# A phrase cut out of a longer one leaves the top of the list (_demote_fragments) unless the
# ranker is sure of it, checked best first until FRAGMENT_CHECKS are kept.
FRAGMENT_FACTOR = 0.1
FRAGMENT_SURE = 2.0
FRAGMENT_CHECKS = 10
# Fast mode's fragment model (extractors/data/fragment_model.json);
# scripts/train_fragment_model.py turns it off to collect the candidates it is trained on.
FRAGMENT_MODEL_ENABLED = True


def is_known_term(c: Candidate, background: Background) -> bool:
    """A vocabulary concept or a phrase NeurIPS 2023 authors used as a keyword at least twice:
    a name, which the fragment rule lets start on any word and modify a later word."""
    return c.source == "vocabulary" or background.keywords.get(c.key, 0) >= 2


def demote_fragments(
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


def demote_duplicates(ranked: list[Candidate], stream: TokenStream, text: str, vocab: Vocabulary) -> None:
    """Give each top candidate its surface form and push near-duplicate wordings down.

    Both concepts stay (they are different concepts: "language modeling" the task and
    "language models"), but a paper's top list should not spend two places on one wording.
    """
    seen: set[tuple[str, ...]] = set()
    demoted = False
    for c in ranked[:SURFACE_TOP]:
        c.surface = wording(c, stream, text, shortened_aliases(c, vocab), name_key_of(c, vocab))
        folded = fold_wording(c.surface)
        if folded in seen:
            c.score = round(c.score * DUPLICATE_FACTOR, 4)
            demoted = True
        seen.add(folded)
    if demoted:
        ranked.sort(key=lambda c: (-c.score, c.first, c.key))


def introduced_first(ranked: list[Candidate], introduced_keys: list[tuple[str, ...]]) -> None:
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
