"""Stage 7: a long phrase of the paper's own yields the known term at its end ("momentum-free
sparse *model merging*", "sequential *decision making*"), which then ranks beside it.

What it decides: for each of the paper's best candidates that is a phrase no field uses as a
term (not in the vocabulary, not an author keyword), the longest head-anchored sub-phrase that
*is* a term (:func:`known_term`) is raised to just below it, or added when no stage offered it.
A curated concept yields in the same way only a sub-phrase that is one of its is-a ancestors
("vision *transformers*"), so no other sense comes in. Generic terms ("fine-tuning", "language
models") are never raised: they leave the top by the ranking's rule. The long phrase stays
where it was: it is often the paper's own name for its method.

Why: a paper names what it does with its own modifiers in front of a field's term (its method's
name, a verb-led prefix, a setting), and authors list the term: of the author keywords that are in
a COLM 2024 or 3DV 2025 abstract but not in the top 10, about a third sat inside a longer candidate
(bench/README.md, "The keyword inside a longer candidate"). The sub-phrase is also the wording
other papers share, so the same concept reaches several papers and becomes a node there (the store
keeps a one-paper phrase as a keyphrase row). The test is a static table only (vocabulary, NeurIPS
2023 keyword counts), so a paper's record stays the same alone or in any batch.
"""

from __future__ import annotations

from extractors.concepts.analysis.candidate import Candidate, curated_candidate, kind_for_head
from extractors.concepts.analysis.result import Analysis
from extractors.concepts.analysis.scoring import static_part
from extractors.concepts.background import Background
from extractors.concepts.filler import is_generic_key

LIFT_TOP = 10  # the best candidates whose sub-phrases are looked for (the shown top 10)
LIFT_FACTOR = 0.95  # a lifted sub-phrase scores just below its longer phrase
TERM_MIN_KEYWORD = 2  # a phrase is a term when this many NeurIPS 2023 papers list it
TERM_MIN_KEYWORD_SINGLE = 5  # a lone word must be a keyword this often ("reasoning", not "foot")


def known_term(key: tuple[str, ...], analysis: Analysis, background: Background) -> bool:
    """Whether a phrase is a field's term: a vocabulary key, or an author keyword of
    :data:`TERM_MIN_KEYWORD` papers (:data:`TERM_MIN_KEYWORD_SINGLE` for one word)."""
    if key in analysis.vocab.index:
        return True
    least = TERM_MIN_KEYWORD_SINGLE if len(key) == 1 else TERM_MIN_KEYWORD
    return background.keywords.get(key, 0) >= least


def liftable(key: tuple[str, ...], analysis: Analysis, background: Background) -> bool:
    """A sub-phrase worth showing: a term that is neither junk, filler nor generic."""
    if not known_term(key, analysis, background):
        return False
    if is_generic_key(key, background.df, background.keywords):
        return False  # "language models": generic concepts leave the top (.ranking)
    cid = analysis.vocab.index.get(key)
    if cid is not None:
        # The matcher's rules stand: a concept it found in the paper, or one a longer match
        # covered ("sparse [model] merging") by its name or an unambiguous alias; never an
        # ambiguous alias without support ("distillation" in "score distillation" is not
        # knowledge distillation) nor a cased name in another case (a soft "palm" is not PaLM).
        vocab = analysis.vocab
        if cid in analysis.matched:
            return True
        return not (
            cid in analysis.unsupported
            or key in vocab.ambiguous.get(cid, ())
            or (len(key) == 1 and key[0] in vocab.cased)
        )
    return static_part(key, background) > 0


def term_suffix(c: Candidate, analysis: Analysis, background: Background) -> int:
    """Where the longest liftable head-anchored sub-phrase of ``c``'s key starts (0: none)."""
    key = c.key
    for cut in range(1, len(key)):
        if liftable(key[cut:], analysis, background):
            return cut
    return 0


def lift_sub_phrases(analysis: Analysis, background: Background) -> None:
    """Raise (or add) the known term at the end of each of the best :data:`LIFT_TOP` candidates
    that are not terms themselves, to just below it; the list is re-sorted."""
    ranked = analysis.candidates
    if not ranked:
        return
    by_key = {c.key: c for c in ranked}
    vocab = analysis.vocab
    by_vocab = {c.vocab_id: c for c in ranked if c.source == "vocabulary"}
    changed = False
    for long in ranked[:LIFT_TOP]:
        if long.defined or long.named or len(long.key) < 2:
            continue
        if long.source == "discovered" and known_term(long.key, analysis, background):
            continue
        cut = term_suffix(long, analysis, background)
        if not cut:
            continue
        sub = long.key[cut:]
        cid = vocab.index.get(sub)
        if long.source == "vocabulary" and (cid is None or cid not in vocab.ancestors(long.vocab_id)):
            continue  # a curated phrase yields only what it is a kind of ("logistic regression")
        target = by_vocab.get(cid) if cid is not None else by_key.get(sub)
        score = round(long.score * LIFT_FACTOR, 4)
        if target is None:
            spans = [(e - len(sub), e) for s, e in long.spans if e - s == len(long.key)]
            if not spans:
                continue  # the phrase spans a skipped "( SF )": its words are not in a row
            target = _new_candidate(sub, cid, spans, long, analysis)
            ranked.append(target)
            by_key[sub] = target
            if cid is not None:
                by_vocab[cid] = target
        elif target.score >= score:
            continue
        target.score = score
        changed = True
    if changed:
        ranked.sort(key=lambda c: (-c.score, c.first, c.key))


def _new_candidate(
    key: tuple[str, ...], cid: str | None, spans: list[tuple[int, int]], long: Candidate, analysis: Analysis
) -> Candidate:
    """The candidate of a sub-phrase no stage offered, at the occurrences of its longer phrase."""
    if cid is not None:
        c = curated_candidate(analysis.vocab, cid, key)
    else:
        c = Candidate(key=key, source="discovered", kind=kind_for_head(key))
    c.spans = sorted(spans)
    c.count = len({s for s, _ in c.spans})
    c.first = c.spans[0][0]
    c.in_title = long.in_title and analysis.stream.starts[c.first] < analysis.title_end
    return c
