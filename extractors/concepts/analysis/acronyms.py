"""Stage 1: acronym definitions ("graph neural networks (GNNs)"), and the short form's other uses.

What it decides: which concept a defined acronym stands for (a curated one when its spelt-out
form or, with support, its short form is in the vocabulary; else a discovered one named by the
spelt-out words), that the short form counts as a mention of it elsewhere, and that phrases with
the short form inside count under their spelt-out form ("DMNL bandits" -> "diversified
multinomial logit bandit").

Why: the paper's own definition is the best evidence of what an acronym means in it; a known
acronym the paper defines otherwise ("Monitoring Ethereum (MoE)") is not the vocabulary's.
"""

from __future__ import annotations

from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.analysis.names import display_name
from extractors.concepts.background import FUNCTION_WORDS
from extractors.concepts.discovery import find_acronyms
from extractors.concepts.tokens import NAME, TokenStream
from extractors.concepts.vocabulary import Vocabulary


def define_acronyms(ctx: PaperContext) -> None:
    """Find the paper's acronym definitions and give each its concept; the "( SF )" tokens of a
    definition become transparent to chunking (``ctx.skip``)."""
    stream, vocab = ctx.stream, ctx.vocab
    keys, index = stream.keys, vocab.index
    acronyms = ctx.acronyms = find_acronyms(stream, ctx.text)
    skip: set[int] = set()
    for a in acronyms:
        long_key = tuple(keys[a.long_start : a.long_end])
        cid = index.get(long_key)
        if cid is None:
            cid = index.get((a.key,))
            if cid is not None and (
                (a.key,) in vocab.ambiguous.get(cid, ()) or not spells_concept(long_key, cid, vocab)
            ):
                # "patch-ranking map (PRM)", "Monitoring Ethereum (MoE)": another PRM or MoE
                # than the vocabulary's, and so are the paper's other uses of the short form.
                cid = None
                ctx.redefined.add(a.key)
        if cid is not None:
            cand = ctx.vocab_candidate(cid)
        elif a.introduced_by_paren:
            # "GRAPE (Group RepresentAtional Position Encoding)": the name comes first and is the name.
            cand = ctx.discovered((a.key,))
            cand.name = cand.name or a.short
            if a.long_text not in cand.aliases:
                cand.aliases.append(a.long_text)
            cand.add(a.paren[0] - 1, a.paren[0])
        else:
            cand = ctx.discovered(long_key)
            if not cand.name:
                if any(stream.flags[i] & NAME for i in range(a.long_start, a.long_end)):
                    cand.name = a.long_text  # "Turing mAchine Imitation Learning" keeps its capitals
                else:
                    cand.name = display_name(stream, a.long_start, a.long_end)
            ctx.expansion[a.key] = (long_key, cand.name)
        cand.defined = True
        if a.short not in cand.aliases and a.short != cand.name:
            cand.aliases.append(a.short)
        cand.add(a.long_start, a.long_end)
        ctx.acronym_target[a.key] = cand
        if not a.introduced_by_paren:
            skip.update(range(a.paren[0], a.paren[1]))
    ctx.skip = frozenset(skip)


def count_acronym_uses(ctx: PaperContext) -> None:
    """Uses of a discovered acronym elsewhere in the text count as mentions of its concept."""
    if not ctx.expansion:
        return
    stream, expansion, skip = ctx.stream, ctx.expansion, ctx.skip
    keys, glued, n = stream.keys, stream.glued, len(stream)
    for i in stream.marked:
        k = keys[i]
        if k in expansion and i not in skip and not (i + 1 < n and glued[i + 1]):
            ctx.acronym_target[k].add(i, i + 1)


def expand_acronym_phrases(ctx: PaperContext) -> None:
    """Phrases with a defined acronym inside count under their spelt-out form."""
    if not ctx.expansion:
        return
    plain, expansion = ctx.plain, ctx.expansion
    for key in [k for k in plain if not expansion.keys().isdisjoint(k)]:
        spans = plain.pop(key)
        if len(key) > 1:
            for s, e in spans:
                _add_expanded(ctx, s, e, key)


def spells_concept(long_key: tuple[str, ...], cid: str, vocab: Vocabulary) -> bool:
    """Whether an acronym's spelt-out form shares a content word with the vocabulary concept its
    short form names ("mixture-of-expert layers (MoE)" does, "Monitoring Ethereum (MoE)" and
    "evolving index structures (ES)" do not)."""
    words = {w for w in long_key if w not in FUNCTION_WORDS and not w.startswith("A:")}
    for key in vocab.surface_keys.get(cid, ()):
        if not words.isdisjoint(key):
            return True
    return False


def _add_expanded(ctx: PaperContext, s: int, e: int, key: tuple[str, ...]) -> None:
    """A phrase with a defined acronym inside, counted under its spelt-out form."""
    expansion = ctx.expansion
    expanded: list[str] = []
    for k in key:
        expanded.extend(expansion[k][0] if k in expansion else (k,))
    ekey = tuple(expanded)
    target = ctx.vocab.index.get(ekey)
    if target is not None:
        ctx.vocab_candidate(target).add(s, e)
        return
    c = ctx.discovered(ekey)
    if not c.name:
        c.name = _expanded_name(ctx.stream, s, e, ctx.skip, expansion)
        alias = display_name(ctx.stream, s, e)
        if alias.casefold() != c.name.casefold():
            c.aliases.append(alias)
    c.add(s, e)


def _expanded_name(
    stream: TokenStream,
    s: int,
    e: int,
    skip: frozenset[int],
    expansion: dict[str, tuple[tuple[str, ...], str]],
) -> str:
    """Display name of a phrase with its acronyms spelt out ("diversified multinomial logit bandit")."""
    words: list[str] = []
    for i in range(s, e):
        if i in skip:
            continue
        k = stream.keys[i]
        if k in expansion:
            words.append(expansion[k][1])
        else:
            words.append(display_name(stream, i, i + 1) if i == e - 1 else stream.text[i].lower())
    return " ".join(words)
