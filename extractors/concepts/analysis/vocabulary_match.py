"""Stage 2: curated vocabulary matches (longest first, on normalised keys), with support checks.

What it decides: which curated concepts the paper mentions and where. A match nested inside a
longer curated concept counts as a mention but not as a top-level one; the acronym inside its
own definition is not a second mention; a short form the paper redefined is not the
vocabulary's. Ambiguous aliases ("distillation", "PRM") count only with support in the same
paper; without it the words fall back to a plain phrase (:func:`_drop_unsupported`).
"""

from __future__ import annotations

from extractors.concepts.analysis.candidate import Candidate
from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.tokens import TokenStream
from extractors.concepts.vocabulary import Vocabulary, match_stream


def match_vocabulary(ctx: PaperContext) -> None:
    """Add the paper's vocabulary matches to ``ctx.by_vocab``; set ``ctx.unsupported``."""
    stream, vocab, skip, redefined = ctx.stream, ctx.vocab, ctx.skip, ctx.redefined
    keys = stream.keys
    nested: list[tuple[int, int, str]] = []
    for s, e, cid in match_stream(stream, vocab, nested):
        if s not in skip and not (redefined and e - s == 1 and keys[s] in redefined):
            c = ctx.vocab_candidate(cid)
            c.add(s, e)
            c.top_level += 1
    for s, e, cid in nested:
        if not (redefined and e - s == 1 and keys[s] in redefined):
            ctx.vocab_candidate(cid).add(s, e)
    if vocab.ambiguous:
        ctx.unsupported = _drop_unsupported(stream, vocab, ctx.by_vocab, ctx.plain)


def _drop_unsupported(
    stream: TokenStream,
    vocab: Vocabulary,
    by_vocab: dict[str, Candidate],
    plain: dict[tuple[str, ...], list[tuple[int, int]]],
) -> frozenset[str]:
    """Remove vocabulary matches made only through ambiguous aliases without support.

    Support: the concept's name or an unambiguous alias matched elsewhere in the paper (the
    candidate then has such a span), or, for an acronym, every content word of the name in the
    text ("PRM" next to "process" and "reward"). An unsupported match falls back to a plain
    phrase of the paper ("distillation" in a score-distillation paper is just "distillation").
    Returns the ids removed.
    """
    keys = stream.keys
    present: frozenset[str] | None = None
    removed: set[str] = set()
    for cid, c in list(by_vocab.items()):
        amb = vocab.ambiguous.get(cid)
        if amb is None or c.defined:
            continue
        matched = [tuple(keys[s:e]) for s, e in c.spans]
        if any(k not in amb for k in matched):
            continue
        if all(len(k) == 1 and k[0].startswith("A:") for k in matched):
            if present is None:
                present = frozenset(keys)
            words = vocab.context_words.get(cid, frozenset())
            if words and words <= present:
                continue
        del by_vocab[cid]
        removed.add(cid)
        for (s, e), k in zip(c.spans, matched, strict=True):
            plain.setdefault(k, []).append((s, e))
    return frozenset(removed)
