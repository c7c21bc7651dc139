"""Stage 4: what the paper introduces ("we propose GRAPE, ...") and the models and datasets it names.

What it decides: introduced names become discovered METHOD candidates (a known concept is not a
new one), with later uses of a one-token name counted; named models and datasets ("GPT-4",
"ImageNet") are marked ``named`` and placed under their family's curated concept; an introduced
name described by an appositive ("GPQA, a challenging dataset") gets its head as a head parent
(:mod:`.heads`).

Why: a paper's own method is what it is most about (:mod:`.demotions` ranks it first), and a
name is never junk however its words look.
"""

from __future__ import annotations

from extractors.concepts.analysis.context import PaperContext
from extractors.concepts.analysis.heads import appositive_head, preceding_head
from extractors.concepts.analysis.names import display_name
from extractors.concepts.discovery import find_introduced, find_named_entities
from extractors.concepts.tokens import MARKS


def collect_introduced(ctx: PaperContext) -> None:
    """Introduced names, into ``ctx.by_key``, ``ctx.introduced`` and ``ctx.introduced_keys``."""
    stream, index = ctx.stream, ctx.vocab.index
    keys, n = stream.keys, len(stream)
    introduced = ctx.introduced = find_introduced(stream, ctx.text, ctx.acronyms, ctx.vocab.first_keys)
    introduced_keys = ctx.introduced_keys
    for item in introduced:
        key = tuple(keys[item.start : item.end])
        head = appositive_head(stream, item.end, ctx.vocab, ctx.background) or preceding_head(
            stream, item.start, ctx.vocab, ctx.background
        )
        if key in index:  # a known concept, not a new one; still a kind of its appositive's head
            known = ctx.by_vocab.get(index[key])
            if known is not None and head is not None and head not in known.parents and not known.broader:
                known.parents.append(head)
            continue
        target = ctx.acronym_target.get(keys[item.start]) if item.end - item.start == 1 else None
        if target is None:
            target = ctx.by_key.get(key)
        if target is None:
            target = ctx.discovered(key)
            target.name = display_name(stream, item.start, item.end) if item.end > item.start else ""
            target.add(item.start, item.end)
            if item.end - item.start == 1:  # later uses of a one-token name ("GRAPE brings ...")
                k0 = key[0]
                for i in stream.marked if stream.flags[item.start] & MARKS else range(n):
                    if keys[i] == k0 and i != item.start:
                        target.add(i, i + 1)
        if target.source != "discovered":
            continue
        target.introduced = True
        target.kind = "METHOD"
        if item.expansion and item.expansion not in target.aliases:
            target.aliases.append(item.expansion)
        if item.acronym and item.acronym not in target.aliases:
            target.aliases.append(item.acronym)
        if target.key not in introduced_keys:
            introduced_keys.append(target.key)
        if head is not None and head != target.key and head not in target.parents:
            target.parents.append(head)  # "GPQA, a challenging dataset" (.heads)


def collect_named(ctx: PaperContext) -> None:
    """Named models and datasets (not the paper's own acronyms or one-token introduced names)."""
    stream, index = ctx.stream, ctx.vocab.index
    keys = stream.keys
    skip_keys = set(ctx.expansion) | {keys[i.start] for i in ctx.introduced if i.end - i.start == 1}
    for ent in find_named_entities(stream, ctx.text, skip_keys, index):
        c = ctx.discovered(tuple(keys[ent.start : ent.end]))
        c.named = True
        if not c.name:
            c.name = ent.surface
        if not c.introduced:
            c.kind = ent.kind  # type: ignore[assignment]
        for s, e in ent.spans:
            c.add(s, e)
        family = index.get((ent.family,)) or index.get(("A:" + ent.family.upper(),))
        if family and family not in c.broader:
            c.broader.append(family)
